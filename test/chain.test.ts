/** Fragments, blocks, block tags, determinism and the provider's lifecycle (docs/behaviour.md, docs/flashblocks.md). */
import { expect } from "chai";
import { keccak256, parseGwei } from "viem";

import { createPreconfProvider } from "../src/index.ts";
import { createTestChain, rpcError } from "./helpers/chain.ts";
import { send, signTx } from "./helpers/sign.ts";

import type { PreconfProvider } from "../src/index.ts";

type Block = { number: string; hash: string; timestamp: string; baseFeePerGas: string; transactions: string[]; parentHash: string };

describe("chain", () => {
  let provider: PreconfProvider;
  afterEach(() => provider?.close());

  const block = (tag: unknown, full = false) => provider.request({ method: "eth_getBlockByNumber", params: [tag, full] }) as Promise<Block | null>;

  it("has the defaults of docs/behaviour.md", async () => {
    ({ provider } = await createTestChain());
    expect(await provider.request({ method: "eth_chainId" })).to.equal("0x7a69");
    expect(await provider.request({ method: "net_version" })).to.equal("31337");
    const accounts = (await provider.request({ method: "eth_accounts" })) as string[];
    expect(accounts).to.have.length(20);
    expect(accounts[0]).to.equal("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266");
    expect(await provider.request({ method: "eth_getBalance", params: [accounts[19], "latest"] })).to.equal("0x21e19e0c9bab2400000");
    const genesis = (await block("earliest")) as Block & { gasLimit: string };
    // Hardhat 3's defaults: 60,000,000 gas and Osaka (docs/behaviour.md, "Defaults").
    expect(genesis.gasLimit).to.equal("0x3938700");
    expect(genesis.baseFeePerGas).to.equal("0x3b9aca00");
    expect(provider.chain.common.hardfork()).to.equal("osaka");
    expect(await provider.request({ method: "web3_clientVersion" })).to.match(/^HardhatNetwork\//);
  });

  it("produces a fragment every 200 ms and seals every 10 fragments, even when empty", async () => {
    const { clock, provider: p } = await createTestChain();
    provider = p;
    const fragments: number[] = [];
    provider.chain.on("fragment", (fragment) => fragments.push(fragment.index));
    await clock.tickAsync(199);
    await provider.preconf.idle();
    expect(fragments).to.deep.equal([]);
    await clock.tickAsync(1);
    await provider.preconf.idle();
    expect(fragments).to.deep.equal([0]);
    await provider.preconf.advance(19);
    expect(fragments).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(await provider.request({ method: "eth_blockNumber" })).to.equal("0x2");
  });

  it("stamps blocks with the clock's time, strictly increasing, and updates the base fee per EIP-1559", async () => {
    ({ provider } = await createTestChain());
    await provider.preconf.advance(30);
    const [genesis, one, two, three] = await Promise.all([block("0x0"), block("0x1"), block("0x2"), block("0x3")]);
    // Block 1 opens with the genesis (same second), so it takes the next second; then 2 s apart.
    expect(BigInt(one!.timestamp)).to.equal(BigInt(genesis!.timestamp) + 1n);
    expect(BigInt(three!.timestamp) - BigInt(two!.timestamp)).to.equal(2n);
    // Empty blocks: the base fee falls by 1/8 per block.
    expect(BigInt(one!.baseFeePerGas)).to.equal((parseGwei("1") * 7n) / 8n);
    expect(BigInt(two!.baseFeePerGas)).to.equal((BigInt(one!.baseFeePerGas) * 7n) / 8n);
    expect(two!.parentHash).to.equal(one!.hash);
  });

  it("answers pending as latest before the first fragment, then as the open block with a zero hash", async () => {
    ({ provider } = await createTestChain());
    expect(await block("pending")).to.deep.equal(await block("latest"));
    const hash = await send(provider, await signTx(provider, 0, { nonce: 0 }));
    await provider.preconf.advance();
    const pending = (await block("pending"))!;
    expect(pending.number).to.equal("0x1");
    expect(pending.hash).to.equal(`0x${"00".repeat(32)}`);
    expect(pending.transactions).to.deep.equal([hash]);
    expect(await block("0x1")).to.deep.equal(pending);
    expect(await provider.request({ method: "eth_getBlockTransactionCountByNumber", params: ["pending"] })).to.equal("0x1");
    expect(await provider.request({ method: "eth_getBlockTransactionCountByNumber", params: ["latest"] })).to.equal("0x0");
    expect(await block("0x2")).to.equal(null);
  });

  it("accepts every block tag form: names, numbers, hashes and EIP-1898 objects", async () => {
    ({ provider } = await createTestChain());
    const address = provider.accounts[1]!.address;
    await send(provider, await signTx(provider, 0, { nonce: 0, value: 5n }));
    await provider.preconf.advance(10);
    const one = (await block("0x1"))!;
    const balance = (tag: unknown) => provider.request({ method: "eth_getBalance", params: [address, tag] });
    const before = await balance("earliest");
    const after = await balance("latest");
    expect(BigInt(after as string) - BigInt(before as string)).to.equal(5n);
    for (const tag of [
      "safe",
      "finalized",
      "pending",
      "0x1",
      one.hash,
      { blockHash: one.hash },
      { blockNumber: "0x1" },
      { blockHash: one.hash, requireCanonical: true },
    ]) {
      expect(await balance(tag), JSON.stringify(tag)).to.equal(after);
    }
    expect(await balance("0x0")).to.equal(before);
    expect(await rpcError(provider, "eth_getBalance", [address, "0x9"])).to.deep.include({ code: -32000, message: "header not found" });
    expect(await rpcError(provider, "eth_getBalance", [address, "newest"])).to.deep.include({ code: -32602, message: "Invalid params" });
    expect(await rpcError(provider, "eth_getBalance", [address, "0x01"])).to.deep.include({ code: -32602 });
  });

  it("gives pre-confirmed receipts and logs a zero block hash, and tx objects a null one (Base), until the block seals", async () => {
    ({ provider } = await createTestChain());
    const hash = await send(provider, await signTx(provider, 0, { nonce: 0 }));
    const pooled = (await provider.request({ method: "eth_getTransactionByHash", params: [hash] })) as { blockHash: null; blockNumber: null };
    expect(pooled).to.include({ blockHash: null, blockNumber: null });
    await provider.preconf.advance();
    const tx = (await provider.request({ method: "eth_getTransactionByHash", params: [hash] })) as { blockHash: string; blockNumber: string };
    expect(tx).to.include({ blockHash: null, blockNumber: "0x1", transactionIndex: "0x0" });
    const preconfirmed = (await provider.request({ method: "eth_getTransactionReceipt", params: [hash] })) as { blockHash: string };
    expect(preconfirmed.blockHash).to.equal(`0x${"00".repeat(32)}`);
    await provider.preconf.advance(9);
    const sealed = (await block("0x1"))!;
    const receipt = (await provider.request({ method: "eth_getTransactionReceipt", params: [hash] })) as { blockHash: string };
    expect(receipt.blockHash).to.equal(sealed.hash);
    expect(await provider.request({ method: "eth_getBlockByHash", params: [sealed.hash, false] })).to.deep.equal(sealed);
  });

  it("in manual mode moves only when asked: fragment() and seal(), in process and over JSON-RPC", async () => {
    const { clock, provider: p } = await createTestChain({ mining: "manual" });
    provider = p;
    await clock.tickAsync(10_000);
    expect(provider.chain.open.fragments).to.have.length(0);
    const hash = await send(provider, await signTx(provider, 0, { nonce: 0 }));
    expect(await provider.request({ method: "preconf_fragment" })).to.deep.equal({ blockNumber: "0x1", index: "0x0", transactions: [hash] });
    const sealed = (await provider.request({ method: "preconf_seal" })) as { number: string; hash: string };
    expect(sealed.number).to.equal("0x1");
    expect((await block("latest"))!.hash).to.equal(sealed.hash);
    // Sealing a block without fragments runs one first, so pooled txs are never skipped.
    const second = await send(provider, await signTx(provider, 0, { nonce: 1 }));
    await provider.preconf.seal();
    expect((await block("latest"))!.transactions).to.deep.equal([second]);
  });

  it("is reproducible: the same inputs on a fake clock give identical block hashes", async () => {
    const run = async () => {
      const { provider: chain } = await createTestChain();
      for (let nonce = 0; nonce < 3; nonce++) await send(chain, await signTx(chain, 0, { nonce }));
      await chain.preconf.advance(25);
      const hashes = [];
      for (let n = 0; n <= 2; n++) hashes.push(((await chain.request({ method: "eth_getBlockByNumber", params: [`0x${n}`, false] })) as Block).hash);
      await chain.close();
      return hashes;
    };
    const first = await run();
    expect(await run()).to.deep.equal(first);
    expect(new Set(first).size).to.equal(3);
    provider = (await createTestChain()).provider;
  });

  it("serves eth_getLogs over sealed blocks and the pre-confirmed fragments", async () => {
    ({ provider } = await createTestChain());
    const { Counter } = await import("./helpers/contracts.ts");
    const { privateKeyToAccount } = await import("viem/accounts");
    const account = privateKeyToAccount(provider.accounts[0]!.privateKey);
    const deploy = await account.signTransaction({
      chainId: 31337,
      nonce: 0,
      gas: 500_000n,
      maxFeePerGas: parseGwei("10"),
      maxPriorityFeePerGas: 1n,
      data: Counter.bytecode,
    });
    await send(provider, deploy);
    await provider.preconf.advance();
    const { contractAddress } = (await provider.request({ method: "eth_getTransactionReceipt", params: [keccak256(deploy)] })) as {
      contractAddress: `0x${string}`;
    };
    const increment = (nonce: number) =>
      account.signTransaction({
        chainId: 31337,
        nonce,
        to: contractAddress,
        gas: 100_000n,
        maxFeePerGas: parseGwei("10"),
        maxPriorityFeePerGas: 1n,
        data: "0xd09de08a",
      });
    await send(provider, await increment(1));
    await provider.preconf.advance(10);
    await send(provider, await increment(2));
    await provider.preconf.advance();
    const logs = (filter: object) => provider.request({ method: "eth_getLogs", params: [filter] }) as Promise<{ blockNumber: string; blockHash: string }[]>;
    expect(await logs({ fromBlock: "0x0", toBlock: "latest", address: contractAddress })).to.have.length(1);
    const all = await logs({ fromBlock: "0x0", toBlock: "pending", address: contractAddress });
    expect(all.map((log) => log.blockNumber)).to.deep.equal(["0x1", "0x2"]);
    expect(all[1]!.blockHash).to.equal(`0x${"00".repeat(32)}`);
    expect(await logs({ fromBlock: "0x0", toBlock: "pending", topics: [null, `0x${"00".repeat(32)}`] })).to.have.length(0);
  });

  it("reports fee history with one more base fee than blocks", async () => {
    ({ provider } = await createTestChain());
    await send(provider, await signTx(provider, 0, { nonce: 0, maxPriorityFeePerGas: 7n }));
    await provider.preconf.advance(20);
    const history = (await provider.request({ method: "eth_feeHistory", params: ["0x2", "latest", [50]] })) as {
      oldestBlock: string;
      baseFeePerGas: string[];
      gasUsedRatio: number[];
      reward: string[][];
    };
    expect(history.oldestBlock).to.equal("0x1");
    expect(history.baseFeePerGas).to.have.length(3);
    expect(history.reward).to.deep.equal([["0x7"], ["0x0"]]);
    expect(history.gasUsedRatio[0]).to.equal(21000 / 60_000_000);
  });

  it("runs on real timers too: a tx is pre-confirmed within one 200 ms fragment", async function () {
    this.timeout(5000);
    provider = await createPreconfProvider();
    const hash = await send(provider, await signTx(provider, 0, { nonce: 0 }));
    const started = Date.now();
    await new Promise<void>((resolve) => provider.chain.once("fragment", () => resolve()));
    await provider.preconf.idle();
    expect(Date.now() - started).to.be.lessThan(400);
    expect(await provider.request({ method: "eth_getTransactionReceipt", params: [hash] })).to.not.equal(null);
  });

  it("close() stops the sequencer and refuses later requests with 4900", async () => {
    const { clock, provider: p } = await createTestChain();
    provider = p;
    await provider.close();
    await clock.tickAsync(1000);
    expect(provider.chain.open.fragments).to.have.length(0);
    expect(await rpcError(provider, "eth_chainId")).to.deep.include({ code: 4900 });
  });

  it("answers unknown methods with -32601 and malformed requests with -32600", async () => {
    ({ provider } = await createTestChain());
    expect(await rpcError(provider, "eth_nope")).to.deep.equal({ code: -32601, message: "Method not found", data: { method: "eth_nope" } });
    await provider.request({ method: 42 } as never).then(
      () => expect.fail("should throw"),
      (error: { code: number }) => expect(error.code).to.equal(-32600),
    );
  });

  it("validates options with a message naming the field", async () => {
    for (const [options, field] of [
      [{ fragmentIntervalMs: 0 }, "fragmentIntervalMs"],
      [{ chainId: 0 }, "chainId"],
      [{ mining: "sometimes" }, "mining"],
      [{ accounts: [{ privateKey: "0x12", balance: 1 }] }, "accounts.0.privateKey"],
      [{ unknown: true }, "(root)"],
    ] as const) {
      await createPreconfProvider(options as never).then(
        () => expect.fail(`accepted ${JSON.stringify(options)}`),
        (error: Error) => expect(error.message).to.contain(`option ${field}`),
      );
    }
    provider = (await createTestChain()).provider;
  });

  it("accepts explicit accounts and a custom chain id", async () => {
    const key = `0x${"11".repeat(32)}` as const;
    ({ provider } = await createTestChain({ chainId: 8453, accounts: [{ privateKey: key, balance: 5n }] }));
    expect(await provider.request({ method: "eth_chainId" })).to.equal("0x2105");
    const [address] = (await provider.request({ method: "eth_accounts" })) as string[];
    expect(await provider.request({ method: "eth_getBalance", params: [address] })).to.equal("0x5");
  });
});
