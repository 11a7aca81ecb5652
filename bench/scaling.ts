/**
 * Ours only: how per-tx cost scales with the size of one block, and how memory grows with the
 * length of the chain. Shared by `npm run bench` (rows S and M) and `npm run bench:core`.
 */
import FakeTimers from "@sinonjs/fake-timers";

import { encodeDeployData, encodeFunctionData } from "viem";

import { createPreconfProvider } from "../src/index.ts";
import { Token } from "../test/helpers/contracts.ts";
import { signTx } from "./sign.ts";

import type { Hex } from "viem";

const SENDERS = 10;

export interface BlockScaling {
  size: number;
  admitMs: number;
  fragmentMs: number;
  sealMs: number;
}

/** `size` transfers from 10 senders: admission of all, one fragment executing all, one seal. */
export async function measureBlock(size: number): Promise<BlockScaling> {
  const provider = await createPreconfProvider({
    clock: FakeTimers.createClock(1_700_000_000_000),
    mining: "manual",
    blockGasLimit: 21000n * BigInt(size) + 1_000_000n,
    // The row measures execution, not the pool's bound: the default capacity (1536 slots,
    // docs/limits.md) is below the 5,000-transfer block.
    poolSlots: 0,
  });
  const raws: Hex[] = [];
  for (let i = 0; i < size; i++) {
    const sender = provider.accounts[i % SENDERS]!;
    raws.push(
      signTx(sender.privateKey, {
        chainId: 31337,
        nonce: Math.floor(i / SENDERS),
        to: provider.accounts[SENDERS]!.address,
        value: 1n,
        gas: 21000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 1n,
      }),
    );
  }
  const admitStart = performance.now();
  for (const raw of raws) await provider.request({ method: "eth_sendRawTransaction", params: [raw] });
  const admitMs = performance.now() - admitStart;
  const fragmentStart = performance.now();
  const fragment = await provider.preconf.fragment();
  const fragmentMs = performance.now() - fragmentStart;
  const sealStart = performance.now();
  await provider.preconf.seal();
  const sealMs = performance.now() - sealStart;
  if (fragment.transactions.length !== size) throw new Error(`only ${fragment.transactions.length} of ${size} executed`);
  await provider.close();
  return { size, admitMs, fragmentMs, sealMs };
}

export interface MemoryPoint {
  blocks: number;
  heapUsedMb: number;
  rssMb: number;
  msPerBlock: number;
}

/** What the memory row's blocks hold, for the report. */
export const MEMORY_TRAFFIC =
  "Base-like traffic: every block has two fragments, ETH transfers from rotating senders in the first, an ERC-20 transfer (a storage write and a log) in the second";

/**
 * Seals `blocks` blocks of Base-like traffic (MEMORY_TRAFFIC: `txsPerBlock` ETH transfers in a
 * first fragment, one ERC-20 transfer in a second, then the seal) and samples heapUsed / RSS after
 * a full GC along the way.
 */
export async function memoryAfterBlocks(blocks: number, txsPerBlock: number, gc: () => void, samples = 5, blockHistory?: number): Promise<MemoryPoint[]> {
  const provider = await createPreconfProvider({ clock: FakeTimers.createClock(1_700_000_000_000), mining: "manual", blockHistory });
  const to = provider.accounts[19]!.address;
  const tokenOwner = provider.accounts[SENDERS]!;
  const deployHash = await provider.request({
    method: "eth_sendRawTransaction",
    params: [
      signTx(tokenOwner.privateKey, {
        chainId: 31337,
        nonce: 0,
        data: encodeDeployData({ abi: Token.abi, bytecode: Token.bytecode, args: ["Token", "TOK", 10n ** 24n] }),
        gas: 2_000_000n,
      }),
    ],
  });
  await provider.preconf.seal();
  const { contractAddress: token } = (await provider.request({ method: "eth_getTransactionReceipt", params: [deployHash] })) as { contractAddress: Hex };
  let tokenNonce = 1;
  const points: MemoryPoint[] = [];
  const sample = (done: number, ms: number) => {
    gc();
    gc();
    const { heapUsed, rss } = process.memoryUsage();
    points.push({ blocks: done, heapUsedMb: heapUsed / 2 ** 20, rssMb: rss / 2 ** 20, msPerBlock: done === 0 ? 0 : ms });
  };
  sample(0, 0);
  const step = Math.ceil(blocks / samples);
  let nonce = 0;
  let start = performance.now();
  for (let done = 1; done <= blocks; done++) {
    for (let k = 0; k < txsPerBlock; k++) {
      // Signed just in time (native: ~50 µs); pre-signing 10,000s would itself hold the memory being measured.
      const raw = signTx(provider.accounts[k % SENDERS]!.privateKey, { chainId: 31337, nonce, to, value: 1n, gas: 21000n });
      await provider.request({ method: "eth_sendRawTransaction", params: [raw] });
    }
    nonce++;
    await provider.preconf.fragment();
    const transfer = encodeFunctionData({ abi: Token.abi, functionName: "transfer", args: [to, 1n] });
    const tokenRaw = signTx(tokenOwner.privateKey, { chainId: 31337, nonce: tokenNonce++, to: token, data: transfer, gas: 100_000n });
    await provider.request({ method: "eth_sendRawTransaction", params: [tokenRaw] });
    await provider.preconf.fragment();
    await provider.preconf.seal();
    if (done % step === 0 || done === blocks) {
      const ms = (performance.now() - start) / (done - (points.at(-1)?.blocks ?? 0));
      sample(done, ms);
      start = performance.now();
    }
  }
  // A read of an old block (the oldest kept) and an old receipt still works after all that.
  // The head is block blocks + 1 (block 1 deployed the token).
  const oldest = blockHistory === undefined ? 1 : blocks + 2 - blockHistory;
  const first = (await provider.request({ method: "eth_getBlockByNumber", params: [`0x${oldest.toString(16)}`, false] })) as { transactions: Hex[] } | null;
  if (first === null) throw new Error(`block ${oldest} is gone`);
  if (txsPerBlock > 0 && (await provider.request({ method: "eth_getTransactionReceipt", params: [first.transactions[0]] })) === null) {
    throw new Error(`block ${oldest}'s receipt is gone`);
  }
  const balance = BigInt(
    (await provider.request({
      method: "eth_call",
      params: [{ to: token, data: encodeFunctionData({ abi: Token.abi, functionName: "balanceOf", args: [to] }) }, "latest"],
    })) as string,
  );
  if (balance !== BigInt(blocks)) throw new Error(`memory row: the token recipient holds ${balance}, expected ${blocks}`);
  await provider.close();
  return points;
}
