/**
 * The transaction pool: every admitted tx by hash and by (sender, nonce). Whether a tx is
 * executable ("pending") or waits behind a nonce gap ("queued") is not stored but derived from the
 * sender's pre-confirmed nonce, so promotion when a gap fills needs no bookkeeping (docs/behaviour.md).
 */
import { txSize } from "./txBytes.ts";

import type { TypedTransaction } from "@ethereumjs/tx";
import type { Hex } from "../common/types.ts";

export interface PooledTx {
  tx: TypedTransaction;
  hash: Hex;
  sender: Hex;
  nonce: bigint;
  /** Max fee per gas (gasPrice for legacy and 2930 txs). */
  feeCap: bigint;
  /** Max priority fee per gas (gasPrice for legacy and 2930 txs). */
  tipCap: bigint;
  /** gasLimit × feeCap + value: what the sender must hold for it. */
  cost: bigint;
  /** Arrival order, the tie-breaker between equal tips. */
  seq: number;
}

/** go-ethereum's txSlotSize: a pooled tx takes one slot per 32 KiB (core/txpool/legacypool). */
export const TX_SLOT_SIZE = 32 * 1024;

/** The pool's bounds (go-ethereum's legacypool DefaultConfig; 0 lifts a bound). */
export interface PoolLimits {
  /**
   * Slots of all pooled txs together. geth's GlobalSlots + GlobalQueue (4096 + 1024 + 1024) would
   * let a full pool hold ~200 MiB; ours is a quarter of that, 1536 slots: 48 MiB of tx bytes,
   * ~54 MiB with each tx's overhead (test/load.test.ts measures it; docs/limits.md).
   */
  slots: number;
  /** Non-executable (queued) txs per sender: AccountQueue, 64. */
  accountQueue: number;
  /** How long a tx that cannot execute (nonce gap, fee cap below the base fee) stays: Lifetime, 3 h. */
  lifetimeMs: number;
}

export const DEFAULT_POOL_LIMITS: PoolLimits = { slots: 1536, accountQueue: 64, lifetimeMs: 3 * 60 * 60 * 1000 };

const slotsOf = (tx: TypedTransaction) => Math.max(1, Math.ceil(txSize(tx) / TX_SLOT_SIZE));

/** Cheapest first: lower fee cap, then lower tip, then the later arrival. */
const cheaper = (a: PooledTx, b: PooledTx) => (a.feeCap !== b.feeCap ? a.feeCap < b.feeCap : a.tipCap !== b.tipCap ? a.tipCap < b.tipCap : a.seq > b.seq);

export class Mempool {
  #byHash = new Map<Hex, PooledTx>();
  /** Slots and arrival time (clock ms) of each pooled tx. */
  #meta = new Map<Hex, { slots: number; arrivedAt: number }>();
  #slots = 0;
  #bySender = new Map<Hex, Map<bigint, PooledTx>>();
  /** Sum of each sender's pooled costs: admission checks it per tx, a loop over the pool was O(n²). */
  #costBySender = new Map<Hex, bigint>();
  /**
   * Each sender's last counted executable run (`contiguousCount`): admission asks for it per tx,
   * and walking a sender's run each time made admitting n txs from one sender O(n²). Adding the
   * run's next nonce extends it; removing one of its txs forgets it.
   */
  #runs = new Map<Hex, { from: bigint; count: number }>();
  #seq = 0;

  get size(): number {
    return this.#byHash.size;
  }

  /** Slots the pooled txs take together. */
  get slots(): number {
    return this.#slots;
  }

  arrivedAt(hash: Hex): number | undefined {
    return this.#meta.get(hash)?.arrivedAt;
  }

  /**
   * The cheapest pooled txs to evict so that `incoming` fits in `capacity` slots (none when it
   * fits); undefined when they are not all cheaper than it: it is then "underpriced" (geth's
   * pricedList.Discard when the pool is full).
   */
  evictionFor(incoming: PooledTx, capacity: number): PooledTx[] | undefined {
    const replacing = this.at(incoming.sender, incoming.nonce);
    const needed = this.#slots - (replacing === undefined ? 0 : this.#meta.get(replacing.hash)!.slots) + slotsOf(incoming.tx) - capacity;
    if (capacity <= 0 || needed <= 0) return [];
    const candidates = [...this.#byHash.values()].filter((entry) => entry !== replacing).sort((a, b) => (cheaper(a, b) ? -1 : cheaper(b, a) ? 1 : 0));
    const evicted: PooledTx[] = [];
    let freed = 0;
    for (const entry of candidates) {
      if (freed >= needed) break;
      if (!cheaper(entry, incoming)) return undefined;
      evicted.push(entry);
      freed += this.#meta.get(entry.hash)!.slots;
    }
    return freed >= needed ? evicted : undefined;
  }

  /** How many of the sender's txs wait behind a gap after `nonce` (its pre-confirmed nonce). */
  queuedCount(sender: Hex, nonce: bigint): number {
    return (this.#bySender.get(sender)?.size ?? 0) - this.contiguousCount(sender, nonce);
  }

  nextSeq(): number {
    return this.#seq++;
  }

  get(hash: Hex): PooledTx | undefined {
    return this.#byHash.get(hash);
  }

  at(sender: Hex, nonce: bigint): PooledTx | undefined {
    return this.#bySender.get(sender)?.get(nonce);
  }

  /** Adds a tx, evicting the one with the same sender and nonce (a replacement); `now`: its arrival (clock ms). */
  add(entry: PooledTx, now: number): PooledTx | undefined {
    let nonces = this.#bySender.get(entry.sender);
    if (nonces === undefined) {
      nonces = new Map();
      this.#bySender.set(entry.sender, nonces);
    }
    const replaced = nonces.get(entry.nonce);
    if (replaced !== undefined) {
      this.#byHash.delete(replaced.hash);
      this.#slots -= this.#meta.get(replaced.hash)?.slots ?? 0;
      this.#meta.delete(replaced.hash);
    }
    const slots = slotsOf(entry.tx);
    this.#slots += slots;
    this.#meta.set(entry.hash, { slots, arrivedAt: now });
    const total = (this.#costBySender.get(entry.sender) ?? 0n) - (replaced?.cost ?? 0n) + entry.cost;
    this.#costBySender.set(entry.sender, total);
    nonces.set(entry.nonce, entry);
    this.#byHash.set(entry.hash, entry);
    const run = this.#runs.get(entry.sender);
    if (run !== undefined && entry.nonce === run.from + BigInt(run.count)) {
      while (nonces.has(run.from + BigInt(run.count))) run.count++;
    }
    return replaced;
  }

  remove(hash: Hex): PooledTx | undefined {
    const entry = this.#byHash.get(hash);
    if (entry === undefined) return undefined;
    this.#byHash.delete(hash);
    this.#slots -= this.#meta.get(hash)?.slots ?? 0;
    this.#meta.delete(hash);
    const nonces = this.#bySender.get(entry.sender);
    nonces?.delete(entry.nonce);
    const run = this.#runs.get(entry.sender);
    if (run !== undefined && entry.nonce >= run.from && entry.nonce < run.from + BigInt(run.count)) this.#runs.delete(entry.sender);
    if (nonces === undefined || nonces.size === 0) {
      this.#bySender.delete(entry.sender);
      this.#costBySender.delete(entry.sender);
      this.#runs.delete(entry.sender);
    } else {
      this.#costBySender.set(entry.sender, (this.#costBySender.get(entry.sender) ?? 0n) - entry.cost);
    }
    return entry;
  }

  senders(): IterableIterator<Hex> {
    return this.#bySender.keys();
  }

  all(): IterableIterator<PooledTx> {
    return this.#byHash.values();
  }

  /** The sender's txs in nonce order. */
  ofSender(sender: Hex): PooledTx[] {
    const nonces = this.#bySender.get(sender);
    if (nonces === undefined) return [];
    return [...nonces.values()].sort((a, b) => (a.nonce < b.nonce ? -1 : a.nonce > b.nonce ? 1 : 0));
  }

  /** How many of the sender's txs follow `nonce` without a gap: the executable run. */
  contiguousCount(sender: Hex, nonce: bigint): number {
    const run = this.#runs.get(sender);
    if (run?.from === nonce) return run.count;
    const nonces = this.#bySender.get(sender);
    if (nonces === undefined) return 0;
    let count = 0;
    while (nonces.has(nonce + BigInt(count))) count++;
    this.#runs.set(sender, { from: nonce, count });
    return count;
  }

  /** What the sender's other pooled txs may spend, for the cumulative balance check. */
  costOfOthers(sender: Hex, exceptNonce: bigint): bigint {
    const total = this.#costBySender.get(sender) ?? 0n;
    return total - (this.#bySender.get(sender)?.get(exceptNonce)?.cost ?? 0n);
  }

  /** Drops the sender's txs whose nonce is below `nonce` (already used on chain). */
  dropStale(sender: Hex, nonce: bigint): PooledTx[] {
    const dropped: PooledTx[] = [];
    for (const entry of this.#bySender.get(sender)?.values() ?? []) {
      if (entry.nonce < nonce) dropped.push(entry);
    }
    for (const entry of dropped) this.remove(entry.hash);
    return dropped;
  }

  clear(): void {
    this.#byHash.clear();
    this.#meta.clear();
    this.#slots = 0;
    this.#bySender.clear();
    this.#costBySender.clear();
    this.#runs.clear();
  }
}
