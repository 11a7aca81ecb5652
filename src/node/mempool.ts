/**
 * The transaction pool: every admitted tx by hash and by (sender, nonce). Whether a tx is
 * executable ("pending") or waits behind a nonce gap ("queued") is not stored but derived from the
 * sender's pre-confirmed nonce, so promotion when a gap fills needs no bookkeeping (DECISIONS §3).
 */
import type { TypedTransaction } from "@ethereumjs/tx";
import type { Hex } from "../rpc/schema.ts";

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

export class Mempool {
  #byHash = new Map<Hex, PooledTx>();
  #bySender = new Map<Hex, Map<bigint, PooledTx>>();
  /** Sum of each sender's pooled costs: admission checks it per tx, a loop over the pool was O(n²). */
  #costBySender = new Map<Hex, bigint>();
  #seq = 0;

  get size(): number {
    return this.#byHash.size;
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

  /** Adds a tx, evicting the one with the same sender and nonce (a replacement). */
  add(entry: PooledTx): PooledTx | undefined {
    let nonces = this.#bySender.get(entry.sender);
    if (nonces === undefined) {
      nonces = new Map();
      this.#bySender.set(entry.sender, nonces);
    }
    const replaced = nonces.get(entry.nonce);
    if (replaced !== undefined) this.#byHash.delete(replaced.hash);
    const total = (this.#costBySender.get(entry.sender) ?? 0n) - (replaced?.cost ?? 0n) + entry.cost;
    this.#costBySender.set(entry.sender, total);
    nonces.set(entry.nonce, entry);
    this.#byHash.set(entry.hash, entry);
    return replaced;
  }

  remove(hash: Hex): PooledTx | undefined {
    const entry = this.#byHash.get(hash);
    if (entry === undefined) return undefined;
    this.#byHash.delete(hash);
    const nonces = this.#bySender.get(entry.sender);
    nonces?.delete(entry.nonce);
    if (nonces === undefined || nonces.size === 0) {
      this.#bySender.delete(entry.sender);
      this.#costBySender.delete(entry.sender);
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
    const nonces = this.#bySender.get(sender);
    let count = 0;
    while (nonces?.has(nonce + BigInt(count))) count++;
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
    this.#bySender.clear();
    this.#costBySender.clear();
  }
}
