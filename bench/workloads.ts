/**
 * The peer bench's workloads. Each `run` sets up a fresh instance of one peer (untimed: creation,
 * deploys, pre-signing), times the workload through `request` only, and returns one sample.
 * Every tx is pre-signed outside the timed region; a peer signs for its own chain id.
 */
import { encodeDeployData, encodeFunctionData, getContractAddress, parseEther } from "viem";

import { accountsFromMnemonic, DEFAULT_MNEMONIC } from "../src/node/common/accounts.ts";
import { check as checkThat } from "./check.ts";
import { compileBenchContracts } from "./contracts.ts";
import { hardhatTestFile } from "./hardhat.ts";
import { signTx } from "./sign.ts";
import { stopwatch } from "./timing.ts";

import type { Hex } from "viem";
import type { Instance, Peer } from "./peers.ts";

export interface Sample {
  ms: number;
  /**
   * CPU time of this process over the same region (user + system, every thread: EDR's native
   * threads count too). On a loaded machine a process waits for a core, which wall time counts and
   * CPU time does not; the ratios of CPU times compare the work each peer does.
   */
  cpuMs?: number;
  /** Side figures (ours: admission latency, executions per estimate). */
  extra?: Record<string, number>;
}

export interface Workload {
  id: string;
  /** `--only` selects by group (W1...W6) or by id. */
  group: string;
  title: string;
  /** Operations per sample, for the per-op column. */
  ops: number;
  opName: string;
  run(peer: Peer): Promise<Sample | undefined>;
}

export const accounts = accountsFromMnemonic(DEFAULT_MNEMONIC, 20);
const deployer = accounts[0]!;

/** Called between samples (untimed) so that one peer's garbage is not collected on another's clock. */
export let collectGarbage: () => void = () => {};
export function setCollectGarbage(gc: () => void): void {
  collectGarbage = gc;
}

/** Median executions per estimate, read from ours' estimator (undefined for peers). */
export let oursEstimateExecutions: () => number | undefined = () => undefined;
export function setEstimateProbe(probe: () => number | undefined): void {
  oursEstimateExecutions = probe;
}

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

// ── Pre-signed txs, cached per chain id ─────────────────────────────────────────────────────────

const cache = new Map<string, Hex[]>();
function cached(key: string, make: () => Hex[]): Hex[] {
  let value = cache.get(key);
  if (value === undefined) {
    value = make();
    cache.set(key, value);
  }
  return value;
}

const { Token, Refund } = compileBenchContracts();
const TOKEN_SUPPLY = parseEther("1000000");
const tokenDeployData = encodeDeployData({ abi: Token.abi, bytecode: Token.bytecode, args: ["Token", "TOK", TOKEN_SUPPLY] });
const refundDeployData = encodeDeployData({ abi: Refund.abi, bytecode: Refund.bytecode, args: [] });
const tokenTransfer = (to: Hex, amount = 1n) => encodeFunctionData({ abi: Token.abi, functionName: "transfer", args: [to, amount] });
const balanceOf = (who: Hex) => encodeFunctionData({ abi: Token.abi, functionName: "balanceOf", args: [who] });
const refundClear = encodeFunctionData({ abi: Refund.abi, functionName: "clear" });
/** The token deployed by account 0 at nonce `nonce` (the same address on every peer). */
const tokenAt = (nonce: number) => getContractAddress({ from: deployer.address, nonce: BigInt(nonce) }).toLowerCase() as Hex;

const deployToken = (chainId: number, nonce: number) => signTx(deployer.privateKey, { chainId, nonce, data: tokenDeployData, gas: 2_000_000n });

// ── Helpers over an instance ────────────────────────────────────────────────────────────────────

interface Receipt {
  /** tevm leaves it out (undefined) even for successful txs. */
  status: string | undefined;
  contractAddress: string | null;
}

/** Waits (ticking the chain) until the tx has a receipt; ours needs fragments, automining peers none. */
async function receiptOf(instance: Instance, hash: unknown): Promise<Receipt> {
  for (let ticks = 0; ; ticks++) {
    const receipt = (await instance.request("eth_getTransactionReceipt", [hash])) as Receipt | null;
    if (receipt !== null) return receipt;
    if (ticks > 200) throw new Error(`no receipt for ${String(hash)} after ${ticks} ticks`);
    await instance.tick();
  }
}

const succeeded = (receipt: Receipt) => receipt.status === "0x1" || receipt.status === undefined;

async function send(instance: Instance, raw: Hex): Promise<unknown> {
  const hash = await instance.request("eth_sendRawTransaction", [raw]);
  // Peers without automine for raw txs (tevm) mine each one, as automine would.
  if (!instance.automines) await instance.tick();
  return hash;
}

/** Sends and waits for a successful receipt (setup, untimed). */
async function mustSucceed(instance: Instance, raw: Hex): Promise<Receipt> {
  const hash = await instance.request("eth_sendRawTransaction", [raw]);
  const receipt = await receiptOf(instance, hash);
  if (!succeeded(receipt)) throw new Error(`setup tx ${String(hash)} failed`);
  return receipt;
}

async function withInstance<T>(peer: Peer, automine: boolean, body: (instance: Instance) => Promise<T>): Promise<T> {
  const instance = await peer.create({ automine });
  try {
    collectGarbage();
    return await body(instance);
  } finally {
    await instance.close();
  }
}

/**
 * Sends every raw tx (one request each, awaited as a test would), then makes sure every receipt
 * exists and succeeded: ours ticks fake time (fragments; blocks seal every 10), automining peers
 * already have them, tevm mines.
 */
async function sendAllUntilReceipts(instance: Instance, raws: Hex[]): Promise<Sample> {
  const latencies: number[] = [];
  const elapsed = stopwatch();
  const hashes: unknown[] = [];
  for (const raw of raws) {
    const sent = performance.now();
    hashes.push(await instance.request("eth_sendRawTransaction", [raw]));
    latencies.push(performance.now() - sent);
    // tevm: mined one by one, as automine would (one anvil_mine of 1,000 pooled txs takes minutes).
    if (!instance.automines && !instance.batches) await instance.tick();
  }
  for (const hash of hashes) {
    const receipt = await receiptOf(instance, hash);
    if (!succeeded(receipt)) throw new Error(`tx ${String(hash)} failed`);
  }
  return { ...elapsed(), extra: { "eth_sendRawTransaction median ms": median(latencies) } };
}

// ── Workloads ───────────────────────────────────────────────────────────────────────────────────

const TRANSFERS = 1000;
const SENDERS = 10;
const ESTIMATES = 200;
const READS = 10_000;
export const TEST_FILE_ITERATIONS = 50;
const CREATIONS = 10;
const SNAPSHOT_PAIRS = 50;

const w1: Workload = {
  id: "W1",
  group: "W1",
  title: "1,000 signed transfers, send → all receipts",
  ops: TRANSFERS,
  opName: "tx",
  run: (peer) => {
    // 10 senders, round robin, each to its own recipient.
    const raws = cached(`w1:${peer.chainId}`, () =>
      Array.from({ length: TRANSFERS }, (_, i) =>
        signTx(accounts[i % SENDERS]!.privateKey, {
          chainId: peer.chainId,
          nonce: Math.floor(i / SENDERS),
          to: accounts[SENDERS + (i % SENDERS)]!.address,
          value: 1n,
          gas: 21_000n,
        }),
      ),
    );
    return withInstance(peer, false, async (instance) => {
      const recipient = accounts[SENDERS]!.address;
      const before = BigInt((await instance.request("eth_getBalance", [recipient, "latest"])) as string);
      const sample = await sendAllUntilReceipts(instance, raws);
      await instance.settle();
      const after = BigInt((await instance.request("eth_getBalance", [recipient, "latest"])) as string);
      check(after - before === BigInt(TRANSFERS / SENDERS), peer, `W1 recipient received ${after - before} wei, expected ${TRANSFERS / SENDERS}`);
      return sample;
    });
  },
};

const w2: Workload = {
  id: "W2",
  group: "W2",
  title: "1,000 signed ERC-20 transfers, send → all receipts",
  ops: TRANSFERS,
  opName: "tx",
  run: (peer) => {
    const token = tokenAt(0);
    const raws = cached(`w2:${peer.chainId}`, () => [
      deployToken(peer.chainId, 0),
      ...Array.from({ length: TRANSFERS }, (_, i) =>
        signTx(deployer.privateKey, {
          chainId: peer.chainId,
          nonce: i + 1,
          to: token,
          data: tokenTransfer(accounts[1 + (i % SENDERS)]!.address),
          gas: 60_000n,
        }),
      ),
    ]);
    return withInstance(peer, false, async (instance) => {
      await mustSucceed(instance, raws[0]!);
      const sample = await sendAllUntilReceipts(instance, raws.slice(1));
      // The transfers ran the token: each of the 10 recipients got 1 per 10 transfers.
      await instance.settle();
      const received = await tokenBalanceAtLatest(instance, token, accounts[1]!.address);
      check(received === BigInt(TRANSFERS / SENDERS), peer, `W2 recipient balance at latest is ${received}, expected ${TRANSFERS / SENDERS}`);
      return sample;
    });
  },
};

/** One instance with the token (nonce 0) and the refund contract (nonce 1) deployed. */
async function withContracts<T>(peer: Peer, body: (instance: Instance, token: Hex, refund: Hex) => Promise<T>): Promise<T> {
  const raws = cached(`contracts:${peer.chainId}`, () => [
    deployToken(peer.chainId, 0),
    signTx(deployer.privateKey, { chainId: peer.chainId, nonce: 1, data: refundDeployData, gas: 1_000_000n }),
  ]);
  return withInstance(peer, false, async (instance) => {
    const token = (await mustSucceed(instance, raws[0]!)).contractAddress as Hex;
    const refund = (await mustSucceed(instance, raws[1]!)).contractAddress as Hex;
    // The workloads read `latest`: the contracts must be there, not only pre-confirmed in `pending`.
    await instance.settle();
    await expectCodeAtLatest(instance, peer, token);
    await expectCodeAtLatest(instance, peer, refund);
    return body(instance, token, refund);
  });
}

// ── Checks: every workload measures what it claims, on every peer, or the bench stops ──────────

function check(condition: boolean, peer: Peer, what: string): void {
  checkThat(condition, peer.id, what);
}

async function expectCodeAtLatest(instance: Instance, peer: Peer, address: Hex): Promise<void> {
  const code = (await instance.request("eth_getCode", [address, "latest"])) as string;
  check(typeof code === "string" && code.length > 2, peer, `no code at ${address} at latest (got ${JSON.stringify(code)})`);
}

async function tokenBalanceAtLatest(instance: Instance, token: Hex, who: Hex): Promise<bigint> {
  return BigInt((await instance.request("eth_call", [{ to: token, data: balanceOf(who) }, "latest"])) as string);
}

/**
 * What each estimate must come to. The least gas limit at which the call succeeds, found by
 * bisecting eth_call's gas on ours (bench contracts, Shanghai bytecode): 51,608 for an ERC-20
 * transfer to an empty balance (a zero-to-non-zero SSTORE), 46,278 for Refund.clear (its limit
 * must cover the five SSTOREs before the refund). An estimate may not be below it, and peers
 * answer above it (geth's estimator stops within 1.5 %; ganache 7 answers Refund.clear ~32 % above,
 * its estimator overshoots refunds); the answer without the contract's code (22,765 for the
 * transfer: calldata only) is far outside. Each peer's answer is in the results (`estimate gas`).
 */
const ESTIMATE_RANGE: Record<string, [bigint, bigint]> = {
  W3a: [51_608n, 70_000n],
  W3b: [46_278n, 62_500n],
};

function estimates(id: string, title: string, call: (token: Hex, refund: Hex) => Record<string, string>): Workload {
  return {
    id,
    group: "W3",
    title,
    ops: ESTIMATES,
    opName: "estimate",
    run: (peer) =>
      withContracts(peer, async (instance, token, refund) => {
        // No block argument (every peer defaults to latest): tevm reads a second param as a state override.
        const params = [call(token, refund)];
        const [low, high] = ESTIMATE_RANGE[id]!;
        const first = BigInt((await instance.request("eth_estimateGas", params)) as string);
        check(first >= low && first <= high, peer, `${id} estimate ${first} is outside [${low}, ${high}]: the call does not run the contract it claims`);
        const executions: number[] = [];
        let last = first;
        const elapsed = stopwatch();
        for (let i = 0; i < ESTIMATES; i++) {
          last = BigInt((await instance.request("eth_estimateGas", params)) as string);
          const count = peer.id === "ours" ? oursEstimateExecutions() : undefined;
          if (count !== undefined) executions.push(count);
        }
        const time = elapsed();
        check(last === first, peer, `${id} estimate changed from ${first} to ${last} while timing`);
        return { ...time, extra: { "estimate gas": Number(first), ...(executions.length > 0 && { "executions per estimate": median(executions) }) } };
      }),
  };
}

const w3a = estimates("W3a", "200 eth_estimateGas, ERC-20 transfer", (token) => ({
  from: deployer.address,
  to: token,
  data: tokenTransfer(accounts[1]!.address),
}));
const w3b = estimates("W3b", "200 eth_estimateGas, SSTORE refund (Refund.clear)", (_, refund) => ({ from: deployer.address, to: refund, data: refundClear }));

const w4: Workload = {
  id: "W4",
  group: "W4",
  title: "10,000 reads (getBalance, eth_call balanceOf, blockNumber)",
  ops: READS,
  opName: "read",
  run: (peer) =>
    withContracts(peer, async (instance, token) => {
      const calls = accounts.map((account) => [{ to: token, data: balanceOf(account.address) }, "latest"]);
      // The reads execute the token: the deployer holds the whole supply, at latest.
      const supply = await tokenBalanceAtLatest(instance, token, deployer.address);
      check(supply === TOKEN_SUPPLY, peer, `W4 balanceOf(deployer) at latest is ${supply}, expected ${TOKEN_SUPPLY}`);
      let answers = 0;
      const elapsed = stopwatch();
      for (let i = 0; i < READS; i++) {
        const account = accounts[i % accounts.length]!;
        switch (i % 3) {
          case 0:
            await instance.request("eth_getBalance", [account.address, "latest"]);
            break;
          case 1:
            // A 32-byte word per call (an empty answer means no code ran).
            if (((await instance.request("eth_call", calls[i % accounts.length]!)) as string).length === 66) answers++;
            break;
          default:
            await instance.request("eth_blockNumber");
        }
      }
      const time = elapsed();
      check(answers === Math.ceil((READS - 1) / 3), peer, `W4: only ${answers} eth_call answers were a 32-byte word`);
      return time;
    }),
};

/**
 * W5's txs: per iteration, a token deployed by account 0 and 5 transfers of 10 from it (6 nonces).
 * With snapshots one iteration's txs serve every iteration.
 */
export function testFileTxs(chainId: number, iterations: number): Hex[] {
  return cached(`w5:${chainId}:${iterations}`, () =>
    Array.from({ length: iterations }, (_, i) => {
      const base = i * 6;
      return [
        deployToken(chainId, base),
        ...Array.from({ length: 5 }, (_, k) =>
          signTx(deployer.privateKey, {
            chainId,
            nonce: base + 1 + k,
            to: tokenAt(base),
            data: tokenTransfer(accounts[1 + k]!.address, 10n),
            gas: 60_000n,
          }),
        ),
      ];
    }).flat(),
  );
}

/** W5's reads: a token balance (eth_call), the deployer's balance, the block number. */
export const testFileReads = (token: Hex) => ({
  call: [{ to: token, data: balanceOf(accounts[1]!.address) }, "latest"],
  balance: [deployer.address, "latest"],
});

/**
 * One iteration of W5's test file after its revert: deploys the token and sends the 5 transfers
 * (`raws`' first six), then the 3 reads; answers the token balance the `eth_call` read.
 */
export async function testFileIteration(instance: Instance, raws: Hex[]): Promise<bigint> {
  const deployHash = await send(instance, raws[0]!);
  const receipt = (await instance.request("eth_getTransactionReceipt", [deployHash])) as Receipt;
  const token = receipt.contractAddress!;
  for (let k = 1; k <= 5; k++) await send(instance, raws[k]!);
  const reads = testFileReads(token as Hex);
  const balance = await instance.request("eth_call", reads.call);
  await instance.request("eth_getBalance", reads.balance);
  await instance.request("eth_blockNumber");
  return BigInt(balance as string);
}

const w5: Workload = {
  id: "W5",
  group: "W5",
  title: "typical test file: 50 × (revert, deploy ERC-20, 5 transfers, 3 reads)",
  ops: TEST_FILE_ITERATIONS,
  opName: "test",
  run: (peer) =>
    // Ours as the Hardhat plugin runs it in tests: automine (`mining: "auto"`).
    withInstance(peer, true, async (instance) => {
      const reverts = instance.snapshot !== undefined && instance.revert !== undefined;
      // With snapshots every iteration starts from the same state: the same 6 txs each time.
      // Without (tevm), every iteration continues from the last: fresh nonces.
      const iterations = reverts ? 1 : TEST_FILE_ITERATIONS;
      const raws = testFileTxs(peer.chainId, iterations);
      let snapshot = reverts ? await instance.snapshot!() : undefined;
      const elapsed = stopwatch();
      for (let i = 0; i < TEST_FILE_ITERATIONS; i++) {
        if (reverts) {
          // hardhat-network-helpers' loadFixture: revert, then snapshot again (a snapshot is used up).
          await instance.revert!(snapshot);
          snapshot = await instance.snapshot!();
        }
        const balance = await testFileIteration(instance, raws.slice(reverts ? 0 : i * 6));
        check(balance === 10n, peer, `W5: token balance ${balance} after the transfer, expected 10`);
      }
      return elapsed();
    }),
};

const w6warm: Workload = {
  id: "W6b",
  group: "W6",
  title: "new provider, warm (median of 10; until first answer)",
  ops: 1,
  opName: "provider",
  run: async (peer) => {
    const times: number[] = [];
    const cpuTimes: number[] = [];
    for (let i = 0; i < CREATIONS; i++) {
      collectGarbage();
      const elapsed = stopwatch();
      const instance = await peer.create();
      await instance.request("eth_blockNumber");
      const { ms, cpuMs } = elapsed();
      times.push(ms);
      cpuTimes.push(cpuMs);
      await instance.close();
    }
    return { ms: median(times), cpuMs: median(cpuTimes) };
  },
};

const w6snapshot: Workload = {
  id: "W6c",
  group: "W6",
  title: "evm_snapshot + evm_revert (median of 50)",
  ops: 1,
  opName: "pair",
  run: (peer) =>
    withContracts(peer, async (instance) => {
      if (instance.snapshot === undefined || instance.revert === undefined) return undefined;
      const times: number[] = [];
      const cpuTimes: number[] = [];
      for (let i = 0; i < SNAPSHOT_PAIRS; i++) {
        const elapsed = stopwatch();
        await instance.revert(await instance.snapshot());
        const { ms, cpuMs } = elapsed();
        times.push(ms);
        cpuTimes.push(cpuMs);
      }
      return { ms: median(times), cpuMs: median(cpuTimes) };
    }),
};

const HARDHAT_ITERATIONS = 20;

const w7: Workload = {
  id: "W7",
  group: "W7",
  title: `Hardhat project (hardhat-viem): ${HARDHAT_ITERATIONS} × (loadFixture deploy, transfer, balanceOf)`,
  ops: HARDHAT_ITERATIONS,
  opName: "test",
  run: async (peer) => {
    return hardhatTestFile(peer.id, HARDHAT_ITERATIONS);
  },
};

export const workloads: Workload[] = [w1, w2, w3a, w3b, w4, w5, w6warm, w6snapshot, w7];
