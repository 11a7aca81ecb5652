/**
 * Fragment execution: the pool's executable txs, highest effective tip first, run into the open
 * block (deposits first on OP-stack profiles), under the block's gas and the fragment's share of
 * it. Runs inside the chain's writer queue.
 */
import { createAddressFromString } from "@ethereumjs/util";

import { feesOf } from "../pool/admission.ts";
import { runTxAllowingAssertedSender } from "../ethereumjs/assertedSender.ts";
import { withConsoleCalls } from "./consoleLog.ts";
import { Heap } from "../pool/heap.ts";
import { flatHex } from "../common/hex.ts";
import { DEFAULT_POOL_LIMITS } from "../pool/mempool.ts";
import { startBlock } from "./systemCalls.ts";

import type { TypedTransaction } from "@ethereumjs/tx";
import type { RunTxResult, VM } from "@ethereumjs/vm";
import type { Hex } from "../common/types.ts";
import type { Clock } from "../../clock.ts";
import type { Mempool, PoolLimits, PooledTx } from "../pool/mempool.ts";
import type { OpenBlock } from "./openBlock.ts";
import type { L1Cost } from "../opstack/l1Fee.ts";
import type { OpStack } from "../opstack/execution.ts";
import type { Fragment, LogRecord, TxRecord } from "../chain/records.ts";
import type { BlockStart } from "./systemCalls.ts";

/** The largest balance an account can hold (a uint256). */
const MAX_BALANCE = (1n << 256n) - 1n;

/**
 * The order of a fragment's txs (each sender's nonces in order either way): `fees`, the highest
 * effective tip first and ties by arrival (geth's miner, docs/behaviour.md); `fifo`, by arrival
 * (anvil's `--order fifo`, Hardhat's `mempool.order: "fifo"`).
 */
export const TX_ORDERS = ["fees", "fifo"] as const;
export type TxOrder = (typeof TX_ORDERS)[number];

export interface FragmentConfig {
  clock: Clock;
  /** Fragments per block whatever the fork (the `fragmentsPerBlock` option); undefined: the open block's fork's. */
  fragmentsPerBlock?: number | undefined;
  /** `fees` when absent. */
  txOrder?: TxOrder | undefined;
  op?: OpStack | undefined;
  poolLimits?: PoolLimits | undefined;
}

/** What a fragment reads and writes of the chain. */
export interface FragmentHost {
  readonly vm: VM;
  readonly pool: Mempool;
  readonly open: OpenBlock;
  /** Hardhat's automine: every tx gets a fragment and a block of its own. */
  readonly automine: boolean;
  /** Whether fragments follow the flashblock gas schedule (OP profiles): see `fragmentGasCap`. */
  readonly fragmentGasSchedule: boolean;
  /** Whether the raw flashblocks feed wants each fragment's balances. */
  readonly balancesWanted: boolean;
  /** Whether each tx's `console.log` calls are kept in its record (consoleLog.ts). */
  readonly consoleLogs: boolean;
  /** Indexes an executed tx by its hash. */
  indexTransaction(record: TxRecord): void;
  dropped(entry: PooledTx, reason: string): void;
}

/** Pooled txs ordered by effective tip. */
type Heads = Heap<{ entry: PooledTx; tip: bigint }>;

export class FragmentRunner {
  readonly #config: FragmentConfig;
  readonly #host: FragmentHost;
  /** Clock time (ms) of the pool's last lifetime sweep. */
  #lastSweep = 0;

  constructor(config: FragmentConfig, host: FragmentHost) {
    this.#config = config;
    this.#host = host;
  }

  /** One fragment into the open block. `alone`: the block is sealed right after it (seal(), evm_mine), which then carries its txs too. */
  async execute(alone: boolean): Promise<Fragment> {
    const host = this.#host;
    const open = host.open;
    const baseFee = open.header.baseFeePerGas;
    const tipOf = (entry: PooledTx) => {
      const headroom = entry.feeCap - baseFee;
      return entry.tipCap < headroom ? entry.tipCap : headroom;
    };
    // Highest effective tip first, ties by arrival (docs/behaviour.md); or arrival only.
    const fifo = this.#config.txOrder === "fifo";
    const heads: Heads = new Heap((a, b) => (a.tip !== b.tip && !fifo ? a.tip > b.tip : a.entry.seq < b.entry.seq));
    const offer = (entry: PooledTx | undefined) => {
      if (entry !== undefined && entry.feeCap >= baseFee) heads.push({ entry, tip: tipOf(entry) });
    };
    const lifetime = (this.#config.poolLimits ?? DEFAULT_POOL_LIMITS).lifetimeMs;
    const now = this.#config.clock.now();
    // The lifetime sweep sorts every sender's txs: once a second of clock time is enough.
    const sweep = lifetime > 0 && now - this.#lastSweep >= 1000;
    if (sweep) this.#lastSweep = now;
    const expiredBefore = now - lifetime;
    const pool = host.pool;
    for (const sender of [...pool.senders()]) {
      const nonce = await this.nonceOf(sender);
      for (const stale of pool.dropStale(sender, nonce)) host.dropped(stale, "nonce too low");
      // geth's Lifetime: a tx that still cannot execute (behind a gap, or a fee cap below the
      // base fee) after it is gone, so that a tx no block will take is not kept forever.
      const runnable = sweep ? pool.contiguousCount(sender, nonce) : 0;
      for (const entry of sweep ? pool.ofSender(sender) : []) {
        const waiting = entry.nonce >= nonce + BigInt(runnable) || entry.feeCap < baseFee;
        if (waiting && (pool.arrivedAt(entry.hash) ?? 0) < expiredBefore) {
          pool.remove(entry.hash);
          host.dropped(entry, "expired");
        }
      }
      offer(pool.at(sender, nonce));
    }

    const executed: TxRecord[] = [];
    // One state checkpoint around the fragment: a fork's state (MerkleStateManager) flushes its
    // caches into the trie (re-hashing every touched account's path) whenever its outermost
    // checkpoint commits, i.e. after every tx; inside this one, each account is flushed once per
    // fragment instead. (The chain's own live state writes its tries only when a root is asked for:
    // liveState.ts.)
    await host.vm.stateManager.checkpoint();
    try {
      // Before anything else in the block: the system calls of EIP-4788 and EIP-2935 (systemCalls.ts).
      if (open.fragments.length === 0) await startBlock(host.vm, this.#blockStart(open));
      // OP stack: deposits first; a block's first fragment carries only them (as Base's
      // flashblock 0), unless it is the block's only one (automine, a seal, one fragment per block).
      const only = alone || host.automine || this.#fragmentsPerBlock(open) === 1;
      const systemOnly = this.#config.op !== undefined && (await this.#runDeposits(this.#config.op, executed, open)) && !only;
      if (!systemOnly) await this.#runTxs(heads, offer, executed, open, only);
    } finally {
      await host.vm.stateManager.commit();
    }
    const fragment = open.addFragment(executed);
    // The raw feed's `new_account_balances`, read while the state is this fragment's (only when someone listens).
    if (host.balancesWanted) fragment.balances = await this.#balancesTouchedBy(executed, open);
    return fragment;
  }

  #blockStart(open: OpenBlock): BlockStart {
    const header = open.executionBlock.header;
    return {
      number: header.number,
      timestamp: header.timestamp,
      parentHash: open.header.parentHash,
      parentBeaconBlockRoot: header.parentBeaconBlockRoot ?? new Uint8Array(32),
    };
  }

  /** The account's nonce in the live (pre-confirmed) state. */
  async nonceOf(address: Hex): Promise<bigint> {
    return (await this.#host.vm.stateManager.getAccount(createAddressFromString(address)))?.nonce ?? 0n;
  }

  /** Runs the fragment's deposits (opstack/execution.ts); true when this is the block's first fragment. */
  async #runDeposits(op: OpStack, executed: TxRecord[], open: OpenBlock): Promise<boolean> {
    const first = open.fragments.length === 0;
    for (const deposit of await op.fragmentDeposits(this.#host.vm.stateManager, open.header, first, open.remainingGas)) {
      const { result, depositNonce } = await op.runDeposit(this.#host.vm, deposit, open.executionBlock, open.gasUsed);
      const record = recordOf(deposit.asTyped(), flatHex(deposit.from.bytes), result, open);
      record.depositNonce = depositNonce;
      this.#add(record, open, executed);
    }
    return first;
  }

  #add(record: TxRecord, open: OpenBlock, executed: TxRecord[]): void {
    open.addRecord(record);
    this.#host.indexTransaction(record);
    executed.push(record);
  }

  #fragmentsPerBlock(open: OpenBlock): number {
    return this.#config.fragmentsPerBlock ?? open.fork.rules.fragmentsPerBlock;
  }

  /**
   * The block gas this fragment may bring the block up to. With the flashblock gas schedule (OP
   * profiles; Base's builder), fragment 0 carries only system txs and fragment j up to j/n of the
   * gas limit, n being the flashblocks of a block (Base: "each Flashblock unlocks an additional 1/10
   * of the total block gas", flashblock 10 the full limit: docs.base.org "Flashblocks: App
   * Integration", "Gas & Transaction Sizing"); what earlier fragments left unused carries over, the
   * cap being cumulative (docs/flashblocks.md).
   */
  #fragmentGasCap(open: OpenBlock): bigint {
    const n = BigInt(this.#fragmentsPerBlock(open));
    if (!this.#host.fragmentGasSchedule || !open.fork.rules.fragmentGasSchedule || this.#host.automine || n <= 1n) return open.header.gasLimit;
    const j = BigInt(open.fragments.length);
    return (open.header.gasLimit * (j < n ? j : n)) / n;
  }

  /** Balances of the accounts a fragment's txs paid or credited: senders, recipients, new contracts, the fee recipient. */
  async #balancesTouchedBy(records: readonly TxRecord[], open: OpenBlock): Promise<Map<Hex, bigint>> {
    const touched = new Set<Hex>();
    for (const record of records) {
      touched.add(record.from);
      const to = record.tx.to?.toString() as Hex | undefined;
      if (to !== undefined) touched.add(to);
      if (record.contractAddress !== undefined) touched.add(record.contractAddress);
    }
    if (records.length > 0) touched.add(open.header.coinbase.toString().toLowerCase() as Hex);
    const balances = new Map<Hex, bigint>();
    const stateManager = this.#host.vm.stateManager;
    for (const address of touched) balances.set(address, (await stateManager.getAccount(createAddressFromString(address)))?.balance ?? 0n);
    return balances;
  }

  async #runTxs(heads: Heads, offer: (entry: PooledTx | undefined) => void, executed: TxRecord[], open: OpenBlock, only: boolean): Promise<void> {
    const { vm, pool } = this.#host;
    // The block's only fragment may fill it, whatever the gas schedule.
    const cap = only ? open.header.gasLimit : this.#fragmentGasCap(open);
    for (let head = heads.pop(); head !== undefined; head = heads.pop()) {
      const { entry } = head;
      // A tx that no longer fits the block (or this fragment's share of it) waits; its sender's later txs too.
      if (entry.tx.gasLimit > open.remainingGas || entry.tx.gasLimit > cap - open.gasUsed) continue;
      const op = this.#config.op;
      // Jovian: the block's DA footprint (its header's blobGasUsed) stays within its gas limit too
      // (specs/protocol/jovian/exec-engine.md, "DA Footprint Block Limit"): a tx past it waits.
      const cost = op === undefined ? undefined : await op.l1CostOf(vm.stateManager, entry.tx);
      if (cost !== undefined && open.blobGasUsed + cost.daFootprint > open.header.gasLimit) continue;
      let result: RunTxResult;
      let l1Cost: L1Cost | undefined;
      let consoleCalls: Hex[] | undefined;
      try {
        const opts = { tx: entry.tx, block: open.executionBlock, blockGasUsed: open.gasUsed, skipHardForkValidation: true };
        const run = (): Promise<{ result: RunTxResult; l1Cost?: L1Cost | undefined }> =>
          op === undefined ? runTxAllowingAssertedSender(vm, opts).then((ran) => ({ result: ran })) : op.runUserTx(vm, opts, cost);
        if (this.#host.consoleLogs) {
          const watched = await withConsoleCalls(vm, run);
          ({ result, l1Cost } = watched.result);
          consoleCalls = watched.calls;
        } else ({ result, l1Cost } = await run());
      } catch (error) {
        // State changed since admission (e.g. the balance was spent): the tx can never run as is.
        pool.remove(entry.hash);
        this.#host.dropped(entry, error instanceof Error ? error.message : String(error));
        continue;
      }
      pool.remove(entry.hash);
      if (result.minerValue > 0n) await this.#saturateFeeRecipient(open);
      const record = recordOf(entry.tx, entry.sender, result, open, entry.hash);
      if (l1Cost !== undefined) {
        record.l1Cost = l1Cost;
        record.daFootprint = l1Cost.daFootprint;
      }
      if (consoleCalls !== undefined && consoleCalls.length > 0) record.consoleCalls = consoleCalls;
      this.#add(record, open, executed);
      offer(pool.at(entry.sender, entry.nonce + 1n));
    }
  }

  /**
   * runTx credits the fee recipient without a bound, and a balance above 2^256 - 1 cannot be
   * dumped or sent anywhere: the credit saturates, as revm's (Hardhat's EDR, anvil) does.
   */
  async #saturateFeeRecipient(open: OpenBlock): Promise<void> {
    const stateManager = this.#host.vm.stateManager;
    const where = open.executionBlock.header.coinbase;
    const account = await stateManager.getAccount(where);
    if (account === undefined || account.balance <= MAX_BALANCE) return;
    account.balance = MAX_BALANCE;
    await stateManager.putAccount(where, account);
  }
}

/**
 * The record of a tx just executed as the open block's next one (its logs numbered after the
 * block's); `hash`: the tx's, when known (a pooled tx's, from admission).
 */
export function recordOf(tx: TypedTransaction, from: Hex, result: RunTxResult, open: OpenBlock, hash: Hex = flatHex(tx.hash())): TxRecord {
  const index = open.transactions.length;
  const baseFee = open.header.baseFeePerGas;
  const { feeCap, tipCap } = feesOf(tx);
  const tip = tipCap < feeCap - baseFee ? tipCap : feeCap - baseFee;
  const firstLog = open.logCount;
  const logs: LogRecord[] =
    result.execResult.logs?.map(([address, topics, data], i) => ({
      address: flatHex(address),
      topics: topics.map((topic) => flatHex(topic)),
      data: flatHex(data),
      logIndex: firstLog + i,
    })) ?? [];
  const receipt = result.receipt;
  const failure = result.execResult.exceptionError;
  return {
    hash,
    tx,
    from,
    blockNumber: open.number,
    index,
    blockTimestamp: open.header.timestamp,
    ...(open.header.millisPart !== undefined && { blockTimestampMs: open.header.timestamp * 1000n + BigInt(open.header.millisPart) }),
    fragmentIndex: open.fragments.length,
    blockHash: undefined,
    status: "status" in receipt ? receipt.status : 1,
    gasUsed: result.totalGasSpent,
    cumulativeGasUsed: receipt.cumulativeBlockGasUsed,
    effectiveGasPrice: "maxFeePerGas" in tx ? baseFee + tip : tx.gasPrice,
    contractAddress: result.createdAddress === undefined ? undefined : flatHex(result.createdAddress.bytes),
    logs,
    logsBloom: result.bloom.bitvector,
    receipt,
    blobGasUsed: result.blobGasUsed,
    blobGasPrice: result.blobGasUsed === undefined ? undefined : open.executionBlock.header.getBlobGasPrice(),
    ...(failure !== undefined && {
      failure: { error: failure.error, returnData: failure.error === "revert" ? flatHex(result.execResult.returnValue) : "0x" },
    }),
  };
}
