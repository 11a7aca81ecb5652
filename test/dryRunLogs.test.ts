/**
 * Dry runs build no logs bloom or receipt logs, since their answer is the execution result
 * (src/node/ethereumjs/dryRunLogs.ts), and run under the fork of the block they read. Answers
 * must not change.
 */
import { Bloom } from "@ethereumjs/vm";
import { expect } from "chai";
import { encodeFunctionData, parseEther } from "viem";

import { callBlock, dryRun } from "../src/node/execution/dryRun.ts";
import { createTestChain, viemClients } from "./helpers/chain.ts";
import { Token } from "./helpers/contracts.ts";

import type { Address, Hex } from "viem";
import type { PreconfProvider } from "../src/index.ts";

describe("dry runs: no bloom", () => {
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

  const transfer = (to: Address, amount: bigint) => ({
    from: sender,
    to: token,
    data: encodeFunctionData({ abi: Token.abi, functionName: "transfer", args: [to, amount] }),
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
      // Every chain EVM has the method as an own field (evmFields.ts), set back rather than deleted.
      expect(Object.hasOwn(vm.evm, "runCall")).to.equal(true);
      // Below the intrinsic gas: runTx throws before the EVM runs.
      let thrown: unknown;
      await dryRun(vm, request, block, 21_000n).catch((error: unknown) => (thrown = error));
      expect(thrown).to.be.instanceOf(Error);
      expect(Object.hasOwn(vm.evm, "runCall"), "the own runCall kept").to.equal(true);
      expect(vm.evm.runCall).to.equal(runCall);
      // And the next dry run on this VM still answers with its logs.
      expect((await dryRun(vm, request, block, 100_000n)).result.execResult.logs).to.have.length(1);
    });
  });
});

describe("dry runs across a fork", () => {
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
      expect(await clz("latest")).to.equal("ok 255");
      // The older block still answers under Prague.
      expect(await clz(prague as string)).to.match(/invalid opcode/);
    } finally {
      await provider.close();
    }
  });
});
