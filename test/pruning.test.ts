/**
 * State-history pruning (`stateHistory`): blocks and receipts stay, the state of blocks older
 * than the window answers historicalStateUnavailable, kept blocks and snapshots read exactly.
 * Fake clock, manual mining; memory is measured by the bench (row M), never here.
 */
import { expect } from "chai";

import { createTestChain } from "./helpers/chain.ts";
import { sealTransfers as sealTransfersTo } from "./helpers/sign.ts";

import type { PreconfProvider } from "../src/index.ts";
import type { Hex } from "../src/rpc/schema.ts";

const STRANGER = "0x1234567890123456789012345678901234567890";
/** Blocks `from..to`, each with one 1-wei transfer to STRANGER: its balance at block n is n wei. */
const sealTransfers = (provider: PreconfProvider, from: number, to: number) => sealTransfersTo(provider, from, to, STRANGER);
const HISTORY = 16;
const hex = (n: number | bigint) => `0x${n.toString(16)}`;

async function call<T = unknown>(provider: PreconfProvider, method: string, params: unknown[] = []): Promise<T> {
  return (await provider.request({ method, params })) as T;
}

async function rpcError(provider: PreconfProvider, method: string, params: unknown[]): Promise<{ code: number; message: string; data: unknown }> {
  try {
    await provider.request({ method, params });
  } catch (error) {
    const { code, message, data } = error as { code: number; message: string; data: unknown };
    return { code, message, data };
  }
  throw new Error(`${method} succeeded`);
}

describe("state-history pruning", () => {
  let provider: PreconfProvider;
  afterEach(async () => {
    await provider.close();
  });

  it("keeps blocks and receipts, answers state only within the window", async () => {
    ({ provider } = await createTestChain({ mining: "manual", stateHistory: HISTORY }));
    const hashes = await sealTransfers(provider, 1, 150);
    // The window is the newest 16 blocks, 135..150, whatever the passes (at blocks 64 and 128) kept.
    const block = await call<{ hash: Hex; number: Hex; transactions: Hex[] }>(provider, "eth_getBlockByNumber", ["0xa", false]);
    expect(block.number).to.equal("0xa");
    expect(block.transactions).to.deep.equal([hashes[9]]);
    expect((await call<{ number: Hex }>(provider, "eth_getBlockByHash", [block.hash, false])).number).to.equal("0xa");
    const receipt = await call<{ blockNumber: Hex; status: Hex }>(provider, "eth_getTransactionReceipt", [hashes[9]]);
    expect(receipt).to.include({ blockNumber: "0xa", status: "0x1" });

    for (const [method, params, number] of [
      ["eth_getBalance", [STRANGER, "0xa"], 10],
      ["eth_getBalance", [STRANGER, { blockHash: block.hash }], 10],
      ["eth_getBalance", [STRANGER, "0x1"], 1],
      ["eth_getBalance", [STRANGER, hex(134)], 134],
    ] as const) {
      expect(await rpcError(provider, method, [...params])).to.deep.equal({
        code: -32000,
        message: "historical state not available",
        data: { block: hex(number), loadedAt: hex(135) },
      });
    }
    for (const number of [135, 140, 149, 150]) {
      expect(await call(provider, "eth_getBalance", [STRANGER, hex(number)])).to.equal(hex(number));
    }
    expect(await call(provider, "eth_getBalance", [STRANGER, "latest"])).to.equal(hex(150));
    // The genesis state is kept by every pass, as geth's pruner keeps it (core/state/pruner,
    // extractGenesis): block 0 and `earliest` stay readable, by number, tag and hash.
    const genesis = await call<{ hash: Hex }>(provider, "eth_getBlockByNumber", ["0x0", false]);
    for (const at of ["0x0", "earliest", { blockHash: genesis.hash }, 0]) {
      expect(await call(provider, "eth_getBalance", [STRANGER, at])).to.equal("0x0");
      expect(await call(provider, "eth_getBalance", [provider.accounts[0]!.address, at])).to.equal(hex(10_000n * 10n ** 18n));
    }
    expect(await call(provider, "eth_call", [{ to: STRANGER }, "earliest"])).to.equal("0x");
  });

  it("the window moves at each seal, between passes too", async () => {
    ({ provider } = await createTestChain({ mining: "manual", stateHistory: HISTORY }));
    // Passes every 64 seals (four windows of 16, at least 64): one at block 64, the next at 128.
    await sealTransfers(provider, 1, 64);
    for (let head = 65; head <= 100; head++) {
      await sealTransfers(provider, head, head);
      expect(await call(provider, "eth_getBalance", [STRANGER, hex(head - HISTORY + 1)])).to.equal(hex(head - HISTORY + 1));
      expect(await rpcError(provider, "eth_getBalance", [STRANGER, hex(head - HISTORY)])).to.deep.equal({
        code: -32000,
        message: "historical state not available",
        data: { block: hex(head - HISTORY), loadedAt: hex(head - HISTORY + 1) },
      });
    }
  });

  it("a snapshot whose head leaves the window between passes keeps it; the revert restores it exactly", async () => {
    ({ provider } = await createTestChain({ mining: "manual", stateHistory: HISTORY }));
    await sealTransfers(provider, 1, 70);
    const id = await call<Hex>(provider, "evm_snapshot");
    const dev0 = provider.accounts[0]!.address;
    const before = await call<Hex>(provider, "eth_getBalance", [dev0, "latest"]);
    // Block 70 leaves the window at block 86; no pass runs before 128.
    await sealTransfers(provider, 71, 100);
    expect(await call(provider, "eth_getBalance", [STRANGER, hex(70)])).to.equal(hex(70));
    expect((await rpcError(provider, "eth_getBalance", [STRANGER, hex(71)])).message).to.equal("historical state not available");
    expect(await call(provider, "evm_revert", [id])).to.equal(true);
    expect(await call(provider, "eth_getBalance", [dev0, "latest"])).to.equal(before);
    // The chain goes on from block 70, through the next passes, and reads exactly.
    await sealTransfers(provider, 71, 300);
    expect(await call(provider, "eth_getBalance", [STRANGER, "latest"])).to.equal(hex(300));
    expect(await call(provider, "eth_getBalance", [STRANGER, hex(300 - HISTORY + 1)])).to.equal(hex(300 - HISTORY + 1));
    expect((await rpcError(provider, "eth_getBalance", [STRANGER, hex(70)])).message).to.equal("historical state not available");
  });

  for (const blockHistory of [undefined, 40]) {
    it(`after a revert to a head that left the window, the window is the newest blocks up to it whose states are still stored${blockHistory === undefined ? "" : `, with blockHistory ${blockHistory}`}`, async () => {
      ({ provider } = await createTestChain({ mining: "manual", stateHistory: HISTORY, ...(blockHistory !== undefined && { blockHistory }) }));
      await sealTransfers(provider, 1, 70);
      const id = await call<Hex>(provider, "evm_snapshot");
      // Block 70 leaves the window at block 86, with no pass between (64, then 128).
      await sealTransfers(provider, 71, 100);
      expect(await call(provider, "evm_revert", [id])).to.equal(true);
      // The pass at 64 kept 49..64; 65..70 were sealed after it: 55..70 are the newest 16. With
      // blockHistory 40, blocks 1..60 were dropped at block 100 (the snapshot kept 70 on): 61..70.
      const oldest = blockHistory === undefined ? 55 : 61;
      for (const number of [oldest, 69, 70]) expect(await call(provider, "eth_getBalance", [STRANGER, hex(number)])).to.equal(hex(number));
      if (blockHistory === undefined) {
        expect(await rpcError(provider, "eth_getBalance", [STRANGER, hex(54)])).to.deep.equal({
          code: -32000,
          message: "historical state not available",
          data: { block: hex(54), loadedAt: hex(55) },
        });
      } else {
        expect(await call(provider, "eth_getBlockByNumber", [hex(60), false])).to.equal(null);
      }
      // The used snapshot's head is the head again, then leaves the window like any block.
      await sealTransfers(provider, 71, 86);
      expect(await rpcError(provider, "eth_getBalance", [STRANGER, hex(70)])).to.deep.equal({
        code: -32000,
        message: "historical state not available",
        data: { block: hex(70), loadedAt: hex(71) },
      });
      await sealTransfers(provider, 87, 200);
      for (const number of [185, 200]) expect(await call(provider, "eth_getBalance", [STRANGER, hex(number)])).to.equal(hex(number));
    });
  }

  /** The blocks of `from..to` whose balance does not read as its number (unreadable, or wrong). */
  async function notReadingTheirNumber(from: number, to: number): Promise<number[]> {
    const numbers: number[] = [];
    for (let number = from; number <= to; number++) {
      const balance = await provider.request({ method: "eth_getBalance", params: [STRANGER, hex(number)] }).catch(() => undefined);
      if (balance !== hex(number)) numbers.push(number);
    }
    return numbers;
  }

  it("after a revert to a head still in the window, the newest blocks up to it read again", async () => {
    ({ provider } = await createTestChain({ mining: "manual", stateHistory: HISTORY }));
    await sealTransfers(provider, 1, 25);
    const id = await call<Hex>(provider, "evm_snapshot");
    await sealTransfers(provider, 26, 30);
    expect(await notReadingTheirNumber(10, 30)).to.deep.equal([10, 11, 12, 13, 14]);
    expect(await call(provider, "evm_revert", [id])).to.equal(true);
    expect(await notReadingTheirNumber(10, 25)).to.deep.equal([]);
  });

  it("blocks sealed again after a revert below the last pass's window read after a second revert", async () => {
    ({ provider } = await createTestChain({ mining: "manual", stateHistory: HISTORY }));
    await sealTransfers(provider, 1, 20);
    const first = await call<Hex>(provider, "evm_snapshot");
    // A pass at 64 keeps 49..64.
    await sealTransfers(provider, 21, 70);
    expect(await call(provider, "evm_revert", [first])).to.equal(true);
    await sealTransfers(provider, 21, 40);
    const second = await call<Hex>(provider, "evm_snapshot");
    await sealTransfers(provider, 41, 60);
    expect(await call(provider, "evm_revert", [second])).to.equal(true);
    expect(await notReadingTheirNumber(24, 40)).to.deep.equal([24]);
  });

  it("hardhat_mine moves the window past a snapshot's head in one step; the head keeps its state", async () => {
    ({ provider } = await createTestChain({ mining: "manual", stateHistory: HISTORY }));
    await sealTransfers(provider, 1, 3);
    const id = await call<Hex>(provider, "evm_snapshot");
    await sealTransfers(provider, 4, 5);
    await call(provider, "hardhat_mine", [hex(10_000)]);
    expect(await call(provider, "eth_blockNumber")).to.equal(hex(10_005));
    expect(await call(provider, "eth_getBalance", [STRANGER, hex(3)])).to.equal(hex(3));
    for (const number of [4, 5, 10_005 - HISTORY]) {
      expect(await rpcError(provider, "eth_getBalance", [STRANGER, hex(number)])).to.deep.equal({
        code: -32000,
        message: "historical state not available",
        data: { block: hex(number), loadedAt: hex(10_005 - HISTORY + 1) },
      });
    }
    expect(await call(provider, "eth_getBalance", [STRANGER, hex(10_005 - HISTORY + 1)])).to.equal(hex(5));
    expect(await call(provider, "evm_revert", [id])).to.equal(true);
    expect(await call(provider, "eth_getBalance", [STRANGER, "latest"])).to.equal(hex(3));
  });

  it("a snapshot taken long ago keeps its state: the revert gives the exact balances", async () => {
    ({ provider } = await createTestChain({ mining: "manual", stateHistory: HISTORY }));
    await sealTransfers(provider, 1, 5);
    // A dev edit after block 5 (block 5's state from then on; src/node/state/stateEdits.ts): its root must survive too.
    await call(provider, "hardhat_setBalance", [STRANGER, "0x64"]);
    const dev0 = provider.accounts[0]!.address;
    const id = await call<Hex>(provider, "evm_snapshot");
    const before = await call<Hex>(provider, "eth_getBalance", [dev0, "latest"]);
    await sealTransfers(provider, 6, 200);
    // The snapshot's head keeps its state; the blocks around it do not.
    expect(await call(provider, "eth_getBalance", [STRANGER, "0x5"])).to.equal("0x64");
    expect((await rpcError(provider, "eth_getBalance", [STRANGER, "0x4"])).message).to.equal("historical state not available");
    expect((await rpcError(provider, "eth_getBalance", [STRANGER, "0x6"])).message).to.equal("historical state not available");

    expect(await call(provider, "evm_revert", [id])).to.equal(true);
    expect(await call(provider, "eth_blockNumber")).to.equal("0x5");
    expect(await call(provider, "eth_getBalance", [STRANGER, "latest"])).to.equal("0x64");
    expect(await call(provider, "eth_getBalance", [dev0, "latest"])).to.equal(before);
    expect((await rpcError(provider, "eth_getBalance", [STRANGER, "0x4"])).message).to.equal("historical state not available");

    // Blocks sealed after the revert have their state again.
    await sealTransfers(provider, 6, 8);
    expect(await call(provider, "eth_getBalance", [STRANGER, "0x6"])).to.equal(hex(101));
    expect(await call(provider, "eth_getBalance", [STRANGER, "0x8"])).to.equal(hex(103));
  });

  it("reads racing the passes answer the right balance or the error, never a missing node", async () => {
    ({ provider } = await createTestChain({ mining: "manual", stateHistory: HISTORY }));
    await sealTransfers(provider, 1, 60);
    const reads: Promise<unknown>[] = [];
    for (let number = 61; number <= 140; number++) {
      for (const at of [number - 1, number - HISTORY, number - 3]) {
        reads.push(
          provider.request({ method: "eth_getBalance", params: [STRANGER, hex(at)] }).then(
            (balance) => expect(balance).to.equal(hex(at)),
            (error: { message: string }) => expect(error.message).to.equal("historical state not available"),
          ),
        );
      }
      await sealTransfers(provider, number, number);
    }
    await Promise.all(reads);
  });

  it('`stateHistory: "all"` keeps every block\'s state', async () => {
    ({ provider } = await createTestChain({ mining: "manual", stateHistory: "all" }));
    await sealTransfers(provider, 1, 140);
    expect(await call(provider, "eth_getBalance", [STRANGER, "0x1"])).to.equal("0x1");
  });
});
