/**
 * Work a dry run does not redo: the call's tx built once and reused by the same call sent again
 * (src/node/execution/dryRun.ts, idle call txs), and no logs bloom or receipt logs for a run whose
 * answer is its execution result (src/node/ethereumjs/dryRunLogs.ts). Answers must not change.
 */
import { Bloom } from "@ethereumjs/vm";
import { expect } from "chai";
import { encodeFunctionData, getContractAddress, parseEther } from "viem";

import { callBlock, callTxReuse, dryRun } from "../src/node/execution/dryRun.ts";
import { createTestChain, viemClients } from "./helpers/chain.ts";
import { Token } from "./helpers/contracts.ts";

import type { Address, Hex } from "viem";
import type { PreconfProvider } from "../src/index.ts";

/** Init code whose deployed code is its own address (ADDRESS; PUSH0; MSTORE; PUSH1 32; PUSH0; RETURN): an eth_call of it answers the address a create from the sender gets, which its nonce decides. */
const RETURNS_OWN_ADDRESS = "0x305f5260205ff3" as Hex;

describe("dry runs: reused txs, no bloom", () => {
  let provider: PreconfProvider;
  let clients: ReturnType<typeof viemClients>;
  let sender: Address;
  let token: Address;

  beforeEach(async () => {
    ({ provider } = await createTestChain({ rpcEvmTimeoutMs: 0 }));
    clients = viemClients(provider);
    sender = clients.account.address;
    const hash = await clients.walletClient.deployContract({ abi: Token.abi, bytecode: Token.bytecode, args: ["Token", "TOK", parseEther("1000")] });
    await provider.preconf.advance();
    token = (await clients.publicClient.getTransactionReceipt({ hash })).contractAddress!;
  });
  afterEach(() => provider.close());

  const call = (tx: Record<string, unknown>, block = "pending") => provider.request({ method: "eth_call", params: [tx, block] }) as Promise<Hex>;
  const balanceOf = (who: Address) => ({ to: token, data: encodeFunctionData({ abi: Token.abi, functionName: "balanceOf", args: [who] }) });
  const transfer = (to: Address, amount: bigint) => ({
    from: sender,
    to: token,
    data: encodeFunctionData({ abi: Token.abi, functionName: "transfer", args: [to, amount] }),
  });

  it("builds a call's tx once and runs it again for the same call, with the same answers", async () => {
    const other = provider.accounts[1]!.address;
    const before = { ...callTxReuse };
    const first = await call(balanceOf(sender));
    expect(await call(balanceOf(sender))).to.equal(first);
    expect(await call(balanceOf(sender))).to.equal(first);
    expect(callTxReuse.built - before.built, "built").to.equal(1);
    expect(callTxReuse.reused - before.reused, "reused").to.equal(2);
    // Another call (other calldata) is another tx, and answers for itself.
    expect(BigInt(await call(balanceOf(other)))).to.equal(0n);
    expect(callTxReuse.built - before.built, "built").to.equal(2);
    // Estimates reuse theirs too, with the same answer.
    const estimate = () => provider.request({ method: "eth_estimateGas", params: [transfer(other, 1n)] });
    const gas = await estimate();
    expect(await estimate()).to.equal(gas);
    expect(callTxReuse.reused - before.reused, "reused").to.equal(3);
  });

  it("gives two calls running at once a tx each", async () => {
    const before = { ...callTxReuse };
    const answers = await Promise.all([call(balanceOf(sender)), call(balanceOf(sender)), call(balanceOf(sender))]);
    expect(new Set(answers).size).to.equal(1);
    expect(BigInt(answers[0]!)).to.equal(parseEther("1000"));
    // None was idle while another ran: each built its own.
    expect(callTxReuse.built - before.built).to.equal(3);
    expect(callTxReuse.reused - before.reused).to.equal(0);
  });

  it("keys a reused tx by the sender's nonce: a create from the sender answers its next address", async () => {
    const create = { from: sender, data: RETURNS_OWN_ADDRESS };
    const addressAt = async () => `0x${(await call(create)).slice(-40)}`;
    const nonce = await clients.publicClient.getTransactionCount({ address: sender, blockTag: "pending" });
    expect(await addressAt()).to.equal(getContractAddress({ from: sender, nonce: BigInt(nonce) }).toLowerCase());
    await clients.walletClient.sendTransaction({ to: provider.accounts[1]!.address, value: 1n });
    await provider.preconf.advance();
    expect(await addressAt()).to.equal(getContractAddress({ from: sender, nonce: BigInt(nonce + 1) }).toLowerCase());
  });

  it("keeps a dry run's logs out of a bloom, and on its result", async () => {
    const other = provider.accounts[1]!.address;
    const request = {
      from: sender.toLowerCase() as Hex,
      to: token.toLowerCase() as Hex,
      data: Buffer.from(transfer(other, 5n).data.slice(2), "hex"),
    };
    await provider.preconf.seal();
    const resolved = provider.chain.resolve({ kind: "tag", tag: "latest" })!;
    const upstream = Bloom.prototype.add;
    let added = 0;
    Bloom.prototype.add = function (this: Bloom, entry: Uint8Array) {
      added++;
      return upstream.call(this, entry);
    };
    try {
      const run = await provider.chain.withState(resolved, (vm) => {
        const block = callBlock(resolved.kind === "sealed" ? resolved.sealed.block : resolved.open.executionBlock, request);
        return dryRun(vm, request, block, 100_000n);
      });
      expect(added, "bloom entries hashed by the dry run").to.equal(0);
      const logs = run.result.execResult.logs!;
      expect(logs).to.have.length(1);
      expect(Buffer.from(logs[0]![0]).toString("hex")).to.equal(token.slice(2).toLowerCase());
      // Transfer(from, to, value): the event's topic, the two addresses, the amount as data.
      expect(logs[0]![1]).to.have.length(3);
      expect(BigInt(`0x${Buffer.from(logs[0]![2]).toString("hex")}`)).to.equal(5n);

      // A tx the chain executes still gets its bloom.
      const hash = await clients.walletClient.writeContract({ address: token, abi: Token.abi, functionName: "transfer", args: [other, 5n] });
      await provider.preconf.advance();
      const receipt = await clients.publicClient.getTransactionReceipt({ hash });
      expect(added, "bloom entries hashed by the sent tx").to.equal(4);
      expect(receipt.logsBloom).to.not.equal(`0x${"00".repeat(256)}`);
      expect(receipt.logs).to.have.length(1);
    } finally {
      Bloom.prototype.add = upstream;
    }
  });
  it("puts runTx's EVM back as it was after a dry run that throws", async () => {
    const other = provider.accounts[1]!.address;
    const request = { from: sender.toLowerCase() as Hex, to: token.toLowerCase() as Hex, data: Buffer.from(transfer(other, 5n).data.slice(2), "hex") };
    await provider.preconf.seal();
    const resolved = provider.chain.resolve({ kind: "tag", tag: "latest" })!;
    await provider.chain.withState(resolved, async (vm) => {
      const block = callBlock(resolved.kind === "sealed" ? resolved.sealed.block : resolved.open.executionBlock, request);
      const runCall = vm.evm.runCall;
      // Below the intrinsic gas: runTx throws before the EVM runs.
      let thrown: unknown;
      await dryRun(vm, request, block, 21_000n).catch((error: unknown) => (thrown = error));
      expect(thrown).to.be.instanceOf(Error);
      expect(Object.hasOwn(vm.evm, "runCall"), "an own runCall left on the EVM").to.equal(false);
      expect(vm.evm.runCall).to.equal(runCall);
      // And the next dry run on this VM still answers with its logs.
      expect((await dryRun(vm, request, block, 100_000n)).result.execResult.logs).to.have.length(1);
    });
  });
});

describe("dry runs: the idle call txs' bound", () => {
  let provider: PreconfProvider;
  let capacity: number;

  beforeEach(async () => {
    capacity = callTxReuse.capacity;
    ({ provider } = await createTestChain());
  });
  afterEach(() => {
    callTxReuse.capacity = capacity;
    return provider.close();
  });

  it("holds at most `capacity` idle txs in all, whichever state views the calls ran on", async () => {
    // Each state view's VM has a Common (and so a shared tx Common) of its own: a bound per Common
    // would let every view and lane of the chain hold `capacity` txs.
    callTxReuse.capacity = 2;
    const [a, b] = [provider.accounts[1]!.address, provider.accounts[2]!.address];
    await provider.preconf.seal();
    const first = await provider.request({ method: "eth_blockNumber" });
    await provider.preconf.seal();
    const second = await provider.request({ method: "eth_blockNumber" });
    expect(first).to.not.equal(second);
    const call = (to: Address, block: unknown) => provider.request({ method: "eth_call", params: [{ from: a, to, value: "0x0" }, block] });
    await call(a, first);
    await call(a, first);
    const before = { ...callTxReuse };
    // Two other calls on another block's view: the first block's idle tx is the oldest of three.
    await call(a, second);
    await call(b, second);
    expect(callTxReuse.built - before.built, "built on the second view").to.equal(2);
    await call(a, first);
    expect(callTxReuse.reused - before.reused, "reused after the bound dropped it").to.equal(0);
    expect(callTxReuse.built - before.built, "built again").to.equal(3);
  });
});

describe("dry runs: reused txs across a fork", () => {
  it("runs a call under the fork of the block it reads, before and after the fork activates by time", async () => {
    // Genesis at 1700000000 (the test chain's); Osaka from 1700000010 on, reached by time travel.
    const { provider } = await createTestChain({ hardfork: "prague", forkSchedule: { osaka: { timestamp: 1_700_000_010n } } });
    try {
      const probe = "0x00000000000000000000000000000000000c0de1";
      // Returns CLZ of its input (Osaka's opcode 0x1e; an invalid opcode before).
      const clz = (block: string) =>
        provider
          .request({ method: "eth_call", params: [{ to: probe, data: `0x${"00".repeat(31)}01` }, block, { [probe]: { code: "0x5f351e5f5260205ff3" } }] })
          .then(
            (answer) => `ok ${BigInt(answer as Hex)}`,
            (error: Error) => error.message,
          );
      await provider.preconf.seal();
      const prague = await provider.request({ method: "eth_blockNumber" });
      expect(await clz(prague as string)).to.match(/invalid opcode/);
      expect(await clz(prague as string)).to.match(/invalid opcode/);
      await provider.request({ method: "evm_setNextBlockTimestamp", params: ["0x6553f10a"] });
      await provider.preconf.seal();
      const before = { ...callTxReuse };
      expect(await clz("latest")).to.equal("ok 255");
      expect(await clz("latest")).to.equal("ok 255");
      expect(callTxReuse.built - before.built, "built under Osaka").to.equal(1);
      // The older block still answers under Prague, its tx reused.
      expect(await clz(prague as string)).to.match(/invalid opcode/);
      expect(callTxReuse.reused - before.reused, "reused").to.equal(2);
    } finally {
      await provider.close();
    }
  });
});
