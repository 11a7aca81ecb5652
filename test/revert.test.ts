/**
 * evm_revert keeps the chain's lookups whole: after any sequence of sends, fragments, snapshots,
 * seals and reverts, every tx of every block (sealed or open) has its receipt, its by-hash lookup
 * and its status, and no lookup points at a tx that no block holds. Fake clock, manual mining.
 */
import { expect } from "chai";
import fc from "fast-check";

import { createTestChain } from "./helpers/chain.ts";
import { send, signTx } from "./helpers/sign.ts";

import type { PreconfProvider } from "../src/index.ts";
import type { Hex } from "../src/rpc/schema.ts";

const SEED = process.env.FC_SEED === undefined ? 0x5eed14 : Number(process.env.FC_SEED);
const RUNS = process.env.FC_RUNS === undefined ? 100 : Number(process.env.FC_RUNS);

async function call<T = unknown>(provider: PreconfProvider, method: string, params: unknown[] = []): Promise<T> {
  return (await provider.request({ method, params })) as T;
}

interface BlockView {
  number: Hex;
  hash: Hex | null;
  transactions: Hex[];
}

/** Every block from genesis to the open one: each tx it holds must be found by hash, in that block. */
async function checkIndex(provider: PreconfProvider, sent: Set<Hex>): Promise<void> {
  const head = Number(await call<Hex>(provider, "eth_blockNumber"));
  const inBlocks = new Set<Hex>();
  const blocks: BlockView[] = [];
  for (let number = 0; number <= head + 1; number++) {
    const block = await call<BlockView | null>(provider, "eth_getBlockByNumber", [`0x${number.toString(16)}`, false]);
    if (block !== null) blocks.push(block);
  }
  for (const block of blocks) {
    for (const hash of block.transactions) {
      inBlocks.add(hash);
      const where = `tx ${hash} of block ${block.number}`;
      const receipt = await call<{ blockNumber: Hex } | null>(provider, "eth_getTransactionReceipt", [hash]);
      expect(receipt, `${where}: receipt`).to.not.equal(null);
      expect(receipt!.blockNumber, `${where}: receipt block`).to.equal(block.number);
      const tx = await call<{ blockNumber: Hex } | null>(provider, "eth_getTransactionByHash", [hash]);
      expect(tx?.blockNumber, `${where}: lookup`).to.equal(block.number);
      const status = await call<{ status: string }>(provider, "preconf_transactionStatus", [hash]);
      expect(status.status, `${where}: status`).to.not.equal("unknown");
    }
  }
  // A tx no block holds has no receipt (it may still be pooled).
  for (const hash of sent) {
    if (inBlocks.has(hash)) continue;
    expect(await call(provider, "eth_getTransactionReceipt", [hash]), `receipt of ${hash}, in no block`).to.equal(null);
  }
}

describe("evm_revert keeps receipts and lookups", () => {
  let provider: PreconfProvider;
  afterEach(() => provider.close());

  it("a tx pre-confirmed before the snapshot keeps its receipt after seal + revert (Hardhat's loadFixture with interval mining)", async () => {
    ({ provider } = await createTestChain({ mining: "manual" }));
    const hash = await send(provider, await signTx(provider, 0, { nonce: 0 }));
    await provider.preconf.fragment();
    const id = await call<Hex>(provider, "evm_snapshot");
    await provider.preconf.seal();
    expect(await call(provider, "evm_revert", [id])).to.equal(true);

    const receipt = await call<{ blockHash: Hex; blockNumber: Hex } | null>(provider, "eth_getTransactionReceipt", [hash]);
    expect(receipt?.blockNumber).to.equal("0x1");
    expect(await call(provider, "eth_getTransactionByHash", [hash])).to.not.equal(null);
    expect((await call<{ status: string }>(provider, "preconf_transactionStatus", [hash])).status).to.equal("preconfirmed");
    // Sealed again later, it is found in that block.
    await provider.preconf.seal();
    const sealed = await call<{ blockHash: Hex } | null>(provider, "eth_getTransactionReceipt", [hash]);
    const block = await call<{ hash: Hex; transactions: Hex[] }>(provider, "eth_getBlockByNumber", ["0x1", false]);
    expect(block.transactions).to.deep.equal([hash]);
    expect(sealed?.blockHash).to.equal(block.hash);
  });

  it("any sequence of send, fragment, snapshot, seal and revert: every tx in a block has its receipt and lookup", async () => {
    type Step = { kind: "send"; from: number } | { kind: "fragment" } | { kind: "snapshot" } | { kind: "seal" } | { kind: "revert"; pick: number };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ kind: fc.constant("send" as const), from: fc.integer({ min: 0, max: 2 }) }),
      fc.constant({ kind: "fragment" as const }),
      fc.constant({ kind: "snapshot" as const }),
      fc.constant({ kind: "seal" as const }),
      fc.record({ kind: fc.constant("revert" as const), pick: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 16 }), async (steps) => {
        ({ provider } = await createTestChain({ mining: "manual" }));
        try {
          const snapshots: Hex[] = [];
          const sent = new Set<Hex>();
          for (const s of steps) {
            switch (s.kind) {
              case "send": {
                const nonce = Number(await call<Hex>(provider, "eth_getTransactionCount", [provider.accounts[s.from]!.address, "pending"]));
                sent.add(await send(provider, await signTx(provider, s.from, { nonce })));
                break;
              }
              case "fragment":
                await provider.preconf.fragment();
                break;
              case "snapshot":
                snapshots.push(await call<Hex>(provider, "evm_snapshot"));
                break;
              case "seal":
                await provider.preconf.seal();
                break;
              case "revert": {
                if (snapshots.length === 0) break;
                const index = s.pick % snapshots.length;
                expect(await call(provider, "evm_revert", [snapshots[index]])).to.equal(true);
                snapshots.length = index;
                await checkIndex(provider, sent);
                break;
              }
            }
          }
          await checkIndex(provider, sent);
        } finally {
          await provider.close();
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});

describe("block filters after a revert", () => {
  let provider: PreconfProvider;
  afterEach(() => provider.close());

  it("see the blocks sealed again after a revert", async () => {
    ({ provider } = await createTestChain({ mining: "manual" }));
    const filter = await call<Hex>(provider, "eth_newBlockFilter");
    const id = await call<Hex>(provider, "evm_snapshot");
    await provider.preconf.seal();
    await provider.preconf.seal();
    expect(await call<Hex[]>(provider, "eth_getFilterChanges", [filter])).to.have.length(2);
    await call(provider, "evm_revert", [id]);
    await provider.preconf.seal();
    const block1 = await call<{ hash: Hex }>(provider, "eth_getBlockByNumber", ["0x1", false]);
    expect(await call<Hex[]>(provider, "eth_getFilterChanges", [filter])).to.deep.equal([block1.hash]);
  });
});
