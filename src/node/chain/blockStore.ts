/**
 * The sealed chain: blocks by number and by hash, and executed txs by hash. A run of empty blocks
 * that hardhat_mine reserved is a hole here, built on its first read (`Reservation`).
 */
import { shareBlocks } from "../ethereumjs/blockchain.ts";
import { compactBlock } from "./compactRecords.ts";
import { flatHex } from "../common/hex.ts";
import { OpenBlock } from "../execution/openBlock.ts";
import { ZERO_HASH } from "./records.ts";

import type { Blockchain } from "@ethereumjs/blockchain";
import type { Common } from "@ethereumjs/common";
import type { Hex } from "../common/types.ts";
import type { OpenBlockHeader } from "../execution/openBlock.ts";
import type { SealedBlock, TxRecord } from "./records.ts";

/** Reserved blocks a state dump builds and writes at most (see `everySealed`). */
export const MAX_DUMPED_RESERVED_BLOCKS = 100_000;

/**
 * A run of empty blocks that hardhat_mine reserved without building them (EDR's reservations,
 * edr_evm blockchain/storage/reservable.rs): block `n` is built on its first read, with the
 * state, gas limit, coinbase and base fee of the block before the run, `interval` seconds per
 * block after it, and (as EDR) a zero parent hash, which keeps a block independent of the ones
 * before it in the run.
 */
interface Reservation {
  first: bigint;
  last: bigint;
  interval: bigint;
  parentTimestamp: bigint;
  stateRoot: Uint8Array;
  gasLimit: bigint;
  baseFeePerGas: bigint;
  coinbase: Hex;
  excessBlobGas: bigint | undefined;
}

/**
 * Dropped slots the array keeps before it is sliced (`blockHistory`): one slice per batch keeps
 * the cost per sealed block constant.
 */
const SLICE_BATCH = 256;

/**
 * Blocks past this depth have their per-tx leftovers cut (compactRecords.ts), COMPACT_BATCH blocks
 * at a time: the depth of the default state history, whose blocks replays and dev reads use most.
 */
const COMPACT_AFTER = 128;
const COMPACT_BATCH = 64;

export class BlockStore {
  readonly #common: Common;
  /** The newest blocks kept (the first block always is); undefined keeps every block (the `blockHistory` option, docs/options.md). */
  readonly #blockHistory: number | undefined;
  /** The oldest index a live evm_snapshot needs (its head): dropping stops below it. */
  #pinned: () => number | undefined = () => undefined;
  /** The number of the first block (index 0): 0, or the fork block's on a forked chain. */
  #firstNumber = 0n;
  /** The first block, kept whatever is dropped ("earliest"). */
  #first: SealedBlock | undefined;
  /** Blocks 1 .. #droppedTo - 1 (by index) were dropped (`blockHistory`); 0 or 1: none. */
  #droppedTo = 0;
  /** Blocks below this index have had their leftovers cut (compactRecords.ts). */
  #compactedTo = 1;
  /** Index of `#sealed[0]` (at most #droppedTo: the slots between are dropped blocks not sliced off yet). */
  #offset = 0;
  /** Sealed blocks by index (number - #firstNumber) - #offset; a hole is a reserved empty block (`#reservations`) not read yet. */
  #sealed: (SealedBlock | undefined)[] = [];
  #reservations: Reservation[] = [];
  /** Reserved blocks built so far (a revert drops them without walking the whole run). */
  readonly #builtReserved = new Set<number>();
  readonly #byHash = new Map<Hex, SealedBlock>();
  readonly #txs = new Map<Hex, TxRecord>();

  constructor(common: Common, blockHistory?: number) {
    this.#common = common;
    this.#blockHistory = blockHistory;
  }

  /** What dropping must keep: the smallest index a live snapshot returns to (its head's). */
  pin(pinned: () => number | undefined): void {
    this.#pinned = pinned;
  }

  /** Starts over with `sealed` (the first block first) and their txs. */
  replace(sealed: readonly SealedBlock[]): void {
    this.#sealed = [];
    this.#offset = 0;
    this.#droppedTo = 0;
    this.#compactedTo = 1;
    this.#first = sealed[0];
    this.#firstNumber = sealed[0]!.block.header.number;
    this.#reservations = [];
    this.#builtReserved.clear();
    this.#byHash.clear();
    this.#txs.clear();
    for (const block of sealed) this.push(block);
  }

  /** Appends a sealed block and indexes its txs. */
  push(sealed: SealedBlock): void {
    this.#first ??= sealed;
    this.#sealed.push(sealed);
    this.#byHash.set(sealed.hash, sealed);
    for (const record of sealed.transactions) this.#txs.set(record.hash, record);
    if (this.#blockHistory !== undefined && this.count - this.#blockHistory > this.#droppedTo) this.#dropOld(this.#blockHistory);
    if (this.count - COMPACT_AFTER - this.#compactedTo >= COMPACT_BATCH) this.#compactOld(this.count - COMPACT_AFTER);
  }

  /** The first block this chain holds: the genesis, or the fork block on a fork. */
  get first(): SealedBlock {
    return this.#first!;
  }

  get latest(): SealedBlock {
    return this.#sealed[this.#sealed.length - 1] ?? this.byNumber(this.headNumber)!;
  }

  /** The number of the newest sealed block (reserved ones included). */
  get headNumber(): bigint {
    return this.#firstNumber + BigInt(this.count - 1);
  }

  /** Sealed blocks, reserved ones included: what a snapshot records and `cutTo` takes back to. */
  get count(): number {
    return this.#offset + this.#sealed.length;
  }

  /** The numbers of the blocks dropped (`blockHistory`): every one after the first and before the oldest kept. */
  get dropped(): { from: bigint; to: bigint } | undefined {
    return this.#droppedTo > 1 ? { from: this.#firstNumber + 1n, to: this.#firstNumber + BigInt(this.#droppedTo - 1) } : undefined;
  }

  byNumber(number: bigint): SealedBlock | undefined {
    const index = number - this.#firstNumber;
    if (index < 0n || index >= BigInt(this.count)) return undefined;
    if (index === 0n) return this.#first;
    if (index < BigInt(this.#droppedTo)) return undefined;
    return this.#sealed[Number(index) - this.#offset] ?? this.#buildReserved(number);
  }

  byHash(hash: Hex): SealedBlock | undefined {
    return this.#byHash.get(hash);
  }

  transaction(hash: Hex): TxRecord | undefined {
    return this.#txs.get(hash);
  }

  /** Indexes a pre-confirmed tx (its block is still open). */
  indexTransaction(record: TxRecord): void {
    this.#txs.set(record.hash, record);
  }

  forgetTransaction(hash: Hex): void {
    this.#txs.delete(hash);
  }

  /**
   * When block `number` is a reserved block not built yet: the last number of its run, so that a
   * walk over many blocks (logs, block filters) can skip empty blocks nobody has read.
   */
  unbuiltRunEnd(number: bigint): bigint | undefined {
    const index = number - this.#firstNumber;
    if (index < BigInt(this.#droppedTo) || index >= BigInt(this.count) || this.#sealed[Number(index) - this.#offset] !== undefined) return undefined;
    return this.#reservationOf(number)?.last;
  }

  /** Reserves `count` empty blocks after the head, with the `open` block's gas limit, base fee and coinbase. */
  reserve(count: bigint, interval: bigint, open: OpenBlockHeader): void {
    const parent = this.latest.block.header;
    this.#reservations.push({
      first: parent.number + 1n,
      last: parent.number + count,
      interval,
      parentTimestamp: parent.timestamp,
      stateRoot: parent.stateRoot,
      gasLimit: open.gasLimit,
      baseFeePerGas: open.baseFeePerGas,
      coinbase: open.coinbase,
      excessBlobGas: open.excessBlobGas,
    });
    this.#sealed.length += Number(count);
  }

  /**
   * Drops the blocks older than the newest `keep` (the first block stays), with their txs'
   * lookups, as a node that does not keep ancient history; never a block a live snapshot returns
   * to. Reserved runs below the cut go too. Called on every push: one block to drop, usually.
   */
  #dropOld(keep: number): void {
    const pinned = this.#pinned();
    let cut = this.count - keep;
    if (pinned !== undefined && pinned < cut) cut = pinned;
    if (cut <= this.#droppedTo) return;
    for (let index = this.#droppedTo === 0 ? 1 : this.#droppedTo; index < cut; index++) {
      const sealed = this.#sealed[index - this.#offset];
      if (sealed === undefined) {
        index = this.#afterRun(index);
        continue;
      }
      this.#sealed[index - this.#offset] = undefined;
      if (this.#byHash.get(sealed.hash) === sealed) this.#byHash.delete(sealed.hash);
      for (const record of sealed.transactions) if (this.#txs.get(record.hash) === record) this.#txs.delete(record.hash);
    }
    // Reserved blocks built inside a run the walk skipped.
    for (const index of [...this.#builtReserved]) {
      if (index >= cut) continue;
      const sealed = this.#sealed[index - this.#offset];
      if (sealed !== undefined && this.#byHash.get(sealed.hash) === sealed) this.#byHash.delete(sealed.hash);
      this.#sealed[index - this.#offset] = undefined;
      this.#builtReserved.delete(index);
    }
    this.#droppedTo = cut;
    const keptFrom = this.#firstNumber + BigInt(cut);
    this.#reservations = this.#reservations.filter((reservation) => reservation.last >= keptFrom);
    // Not while a reserved run makes the array sparse (up to 10^9 slots): slicing it would walk them.
    if (cut - this.#offset > SLICE_BATCH && this.#reservations.length === 0) {
      this.#sealed = this.#sealed.slice(cut - this.#offset);
      this.#offset = cut;
    }
  }

  /** Cuts the per-tx leftovers of blocks `#compactedTo .. to - 1` (compactRecords.ts); reserved holes have none. */
  #compactOld(to: number): void {
    for (let index = Math.max(this.#compactedTo, this.#droppedTo); index < to; index++) {
      const sealed = this.#sealed[index - this.#offset];
      if (sealed !== undefined) compactBlock(sealed);
      else index = this.#afterRun(index);
    }
    this.#compactedTo = to;
  }

  /**
   * Cuts the sealed chain to `count` blocks and forgets the blocks it held beyond, and their txs:
   * reserved runs are skipped whole (their built blocks are in `#builtReserved`), so a revert past
   * a run of 10^9 empty blocks does not walk it.
   */
  cutTo(count: number): void {
    // A live snapshot pins its head (`pin`): a cut never reaches blocks already dropped.
    if (count <= this.#droppedTo) throw new Error(`cannot cut the chain to ${count} blocks: blocks below ${this.#droppedTo} were dropped`);
    const dropped: SealedBlock[] = [];
    for (let index = count; index < this.count; index++) {
      const reservation = this.#reservationOf(this.#firstNumber + BigInt(index));
      if (reservation !== undefined) {
        index = Number(reservation.last - this.#firstNumber);
        continue;
      }
      const sealed = this.#sealed[index - this.#offset];
      if (sealed !== undefined) dropped.push(sealed);
    }
    for (const index of [...this.#builtReserved]) {
      if (index < count) continue;
      dropped.push(this.#sealed[index - this.#offset]!);
      this.#builtReserved.delete(index);
    }
    this.#sealed.length = count - this.#offset;
    // Blocks sealed again at these heights are new: their leftovers are cut in their turn.
    if (this.#compactedTo > count) this.#compactedTo = Math.max(count, 1);
    const firstDropped = this.#firstNumber + BigInt(count);
    this.#reservations = this.#reservations
      .filter((reservation) => reservation.first < firstDropped)
      .map((reservation) => (reservation.last < firstDropped ? reservation : { ...reservation, last: firstDropped - 1n }));
    for (const sealed of dropped) {
      this.#byHash.delete(sealed.hash);
      for (const record of sealed.transactions) this.#txs.delete(record.hash);
    }
  }

  /** Every sealed block, reserved ones built (a dump lists them all); undefined past `maxReserved` reserved blocks. */
  everySealed(maxReserved: number): { blocks: SealedBlock[] } | { reserved: bigint } | { dropped: bigint } {
    if (this.#droppedTo > 1) return { dropped: BigInt(this.#droppedTo - 1) };
    const reserved = this.#reservations.reduce((sum, reservation) => sum + reservation.last - reservation.first + 1n, 0n);
    if (reserved > BigInt(maxReserved)) return { reserved };
    return { blocks: Array.from({ length: this.count }, (_, index) => this.byNumber(this.#firstNumber + BigInt(index))!) };
  }

  /**
   * Lends the blockchain the headers and blocks indexed here (src/node/ethereumjs/blockchain.ts):
   * it would decode them again from its DB on every putBlock, and BLOCKHASH reads blocks,
   * reserved ones included, that are never written into its database.
   */
  shareHeaders(blockchain: Blockchain): void {
    shareBlocks(blockchain, {
      header: (hash) => this.#byHash.get(flatHex(hash))?.block.header,
      block: (id) => (id instanceof Uint8Array ? this.#byHash.get(flatHex(id)) : this.byNumber(BigInt(id)))?.block,
    });
  }

  /**
   * The last index of the reserved run that hole `index` is in (built blocks of it are in
   * `#builtReserved`, compacted and dropped with any block), so that a walk skips the run whole.
   */
  #afterRun(index: number): number {
    const reservation = this.#reservationOf(this.#firstNumber + BigInt(index));
    return reservation === undefined ? index : Number(reservation.last - this.#firstNumber);
  }

  #reservationOf(number: bigint): Reservation | undefined {
    return this.#reservations.find((reservation) => reservation.first <= number && number <= reservation.last);
  }

  /** Builds reserved block `number` (once: it is indexed like any sealed block from then on). */
  #buildReserved(number: bigint): SealedBlock | undefined {
    const reservation = this.#reservationOf(number);
    if (reservation === undefined) return undefined;
    const block = OpenBlock.emptyBlock(
      this.#common,
      {
        number,
        parentHash: ZERO_HASH,
        timestamp: reservation.parentTimestamp + reservation.interval * (number - reservation.first + 1n),
        gasLimit: reservation.gasLimit,
        baseFeePerGas: reservation.baseFeePerGas,
        coinbase: reservation.coinbase,
        prevRandao: ZERO_HASH,
        excessBlobGas: reservation.excessBlobGas,
      },
      reservation.stateRoot,
    );
    const sealed: SealedBlock = { block, hash: flatHex(block.hash()), transactions: [], fragmentCount: 0 };
    const index = Number(number - this.#firstNumber);
    this.#sealed[index - this.#offset] = sealed;
    this.#builtReserved.add(index);
    this.#byHash.set(sealed.hash, sealed);
    return sealed;
  }
}
