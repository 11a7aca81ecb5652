/**
 * The `blockHistory` option: blocks older than the newest N (the first block excepted) are
 * dropped with their txs and receipts, and answer as unknown; eth_getLogs over them is
 * go-ethereum's "pruned history unavailable"; a live evm_snapshot keeps the blocks it returns to.
 * Without the option every block stays. Fake clock, manual mining; memory is measured by the
 * bench (row M), never here.
 */
import { expect } from "chai";

import { createTestChain } from "./helpers/chain.ts";
import { sealTransfers as sealTransfersTo } from "./helpers/sign.ts";

import type { PreconfProvider } from "../src/index.ts";
import type { Hex } from "../src/rpc/schema.ts";

const STRANGER = "0x1234567890123456789012345678901234567890";
/** Blocks `from..to`, each with one 1-wei transfer to STRANGER: its balance at block n is n wei. */
const sealTransfers = (provider: PreconfProvider, from: number, to: number) => sealTransfersTo(provider, from, to, STRANGER);
const KEEP = 16;
const hex = (n: number | bigint) => `0x${n.toString(16)}`;

async function call<T = unknown>(provider: PreconfProvider, method: string, params: unknown[] = []): Promise<T> {
  return (await provider.request({ method, params })) as T;
}

async function rpcError(provider: PreconfProvider, method: string, params: unknown[]): Promise<{ code: number; message: string }> {
  try {
    await provider.request({ method, params });
  } catch (error) {
    const { code, message } = error as { code: number; message: string };
    return { code, message };
  }
  throw new Error(`${method} succeeded`);
}

describe("block history (blockHistory)", () => {
  let provider: PreconfProvider;
  afterEach(async () => {
    await provider.close();
  });

  it("drops exactly the blocks older than the newest N, with their txs and receipts; keeps the first", async () => {
    ({ provider } = await createTestChain({ mining: "manual", stateHistory: KEEP, blockHistory: KEEP }));
    const hashes = await sealTransfers(provider, 1, 40);
    const kept = await call<{ hash: Hex; transactions: Hex[] }>(provider, "eth_getBlockByNumber", [hex(40 - KEEP + 1), false]);
    expect(kept.transactions).to.deep.equal([hashes[40 - KEEP]]);
    expect(await call(provider, "eth_getTransactionReceipt", [hashes[40 - KEEP]])).to.include({ blockNumber: hex(40 - KEEP + 1) });
    for (let number = 1; number <= 40 - KEEP; number++) {
      expect(await call(provider, "eth_getBlockByNumber", [hex(number), false]), `block ${number}`).to.equal(null);
      expect(await call(provider, "eth_getTransactionByHash", [hashes[number - 1]])).to.equal(null);
      expect(await call(provider, "eth_getTransactionReceipt", [hashes[number - 1]])).to.equal(null);
    }
    expect(await call(provider, "eth_getBlockReceipts", [hex(3)])).to.equal(null);
    expect(await call<{ number: Hex }>(provider, "eth_getBlockByNumber", ["earliest", false])).to.include({ number: "0x0" });
    // The blocks kept answer as before: by hash, their txs by hash, in a log query over them only.
    expect(await call<{ number: Hex }>(provider, "eth_getBlockByHash", [kept.hash, false])).to.include({ number: hex(40 - KEEP + 1) });
    expect(await call(provider, "eth_getLogs", [{ fromBlock: hex(40 - KEEP + 1), toBlock: "latest" }])).to.deep.equal([]);
    expect(await rpcError(provider, "eth_getLogs", [{ fromBlock: "earliest", toBlock: "latest" }])).to.deep.equal({
      code: 4444,
      message: "pruned history unavailable",
    });
    expect(await rpcError(provider, "eth_getLogs", [{ fromBlock: hex(40 - KEEP), toBlock: hex(40 - KEEP) }])).to.include({ code: 4444 });
    // The fee history starts at the oldest block kept.
    const fees = await call<{ oldestBlock: Hex; gasUsedRatio: number[] }>(provider, "eth_feeHistory", ["0x400", "latest", []]);
    expect(fees.oldestBlock).to.equal(hex(40 - KEEP + 1));
    expect(fees.gasUsedRatio).to.have.length(KEEP);
    // A trace of the oldest kept block's tx needs its parent's state, dropped with it.
    expect(await rpcError(provider, "debug_traceTransaction", [hashes[40 - KEEP]])).to.deep.equal({ code: -32000, message: "historical state not available" });
    // The state (the chain's) goes on: every transfer counted.
    expect(BigInt(await call<Hex>(provider, "eth_getBalance", [STRANGER, "latest"]))).to.equal(40n);
  });

  it("keeps every block by default", async () => {
    ({ provider } = await createTestChain({ mining: "manual", stateHistory: KEEP }));
    const hashes = await sealTransfers(provider, 1, 40);
    expect(await call(provider, "eth_getTransactionReceipt", [hashes[0]])).to.include({ blockNumber: "0x1" });
    expect(await call<{ transactions: Hex[] }>(provider, "eth_getBlockByNumber", ["0x1", false]))
      .to.have.property("transactions")
      .deep.equal([hashes[0]]);
  });

  it("keeps the blocks a live evm_snapshot returns to, and drops them once it is used", async () => {
    ({ provider } = await createTestChain({ mining: "manual", stateHistory: KEEP, blockHistory: KEEP }));
    const before = await sealTransfers(provider, 1, 5);
    const id = await call<Hex>(provider, "evm_snapshot");
    await sealTransfers(provider, 6, 40);
    // Blocks 1..4 are older than the snapshot's head (5): dropped; 5 on stay while it lives.
    expect(await call(provider, "eth_getBlockByNumber", ["0x4", false])).to.equal(null);
    expect(await call(provider, "eth_getTransactionReceipt", [before[4]])).to.include({ blockNumber: "0x5" });
    expect(await call(provider, "eth_getBlockByNumber", ["0x6", false])).to.not.equal(null);
    expect(await call(provider, "evm_revert", [id])).to.equal(true);
    expect(await call(provider, "eth_blockNumber")).to.equal("0x5");
    expect(BigInt(await call<Hex>(provider, "eth_getBalance", [STRANGER, "latest"]))).to.equal(5n);
    await sealTransfers(provider, 6, 6 + KEEP);
    expect(await call(provider, "eth_getBlockByNumber", ["0x6", false])).to.equal(null);
    expect(await call(provider, "eth_getBlockByNumber", [hex(7), false])).to.not.equal(null);
  });

  it("refuses a state dump once blocks were dropped", async () => {
    ({ provider } = await createTestChain({ mining: "manual", stateHistory: KEEP, blockHistory: KEEP }));
    await sealTransfers(provider, 1, KEEP + 1);
    const error = await rpcError(provider, "preconf_dumpState", []);
    expect(error).to.deep.equal({
      code: -32000,
      message: "the chain dropped 1 old blocks (the blockHistory option); a dump writes every block, so it needs a chain that keeps them all",
    });
  });

  it("keeps at least the stateHistory blocks", async () => {
    ({ provider } = await createTestChain({ mining: "manual", stateHistory: KEEP, blockHistory: 4 }));
    await sealTransfers(provider, 1, 40);
    expect(await call(provider, "eth_getBlockByNumber", [hex(40 - KEEP + 1), false])).to.not.equal(null);
    expect(await call(provider, "eth_getBlockByNumber", [hex(40 - KEEP), false])).to.equal(null);
  });
});
