/**
 * The sealed chain: blocks by number and by hash, and executed txs by hash. A run of empty blocks
 * that hardhat_mine reserved is a hole here, built on its first read (`Reservation`).
 */
import { shareBlocks } from "./ethereumjs/blockchain.ts";
import { flatHex } from "./hex.ts";
import { OpenBlock } from "./openBlock.ts";
import { ZERO_HASH } from "./records.ts";

import type { Blockchain } from "@ethereumjs/blockchain";
import type { Common } from "@ethereumjs/common";
import type { Hex } from "./types.ts";
import type { OpenBlockHeader } from "./openBlock.ts";
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

export class BlockStore {
  readonly #common: Common;
  /** The number of `#sealed[0]`: 0, or the fork block's on a forked chain. */
  #firstNumber = 0n;
  /** Sealed blocks by number - #firstNumber; a hole is a reserved empty block (`#reservations`) not read yet. */
  readonly #sealed: (SealedBlock | undefined)[] = [];
  #reservations: Reservation[] = [];
  /** Reserved blocks built so far (a revert drops them without walking the whole run). */
  readonly #builtReserved = new Set<number>();
  readonly #byHash = new Map<Hex, SealedBlock>();
  readonly #txs = new Map<Hex, TxRecord>();

  constructor(common: Common) {
    this.#common = common;
  }

  /** Starts over with `sealed` (the first block first) and their txs. */
  replace(sealed: readonly SealedBlock[]): void {
    this.#sealed.length = 0;
    this.#firstNumber = sealed[0]!.block.header.number;
    this.#reservations = [];
    this.#builtReserved.clear();
    this.#byHash.clear();
    this.#txs.clear();
    for (const block of sealed) this.push(block);
  }

  /** Appends a sealed block and indexes its txs. */
  push(sealed: SealedBlock): void {
    this.#sealed.push(sealed);
    this.#byHash.set(sealed.hash, sealed);
    for (const record of sealed.transactions) this.#txs.set(record.hash, record);
  }

  /** The first block this chain holds: the genesis, or the fork block on a fork. */
  get first(): SealedBlock {
    return this.#sealed[0]!;
  }

  get latest(): SealedBlock {
    return this.#sealed[this.#sealed.length - 1] ?? this.byNumber(this.headNumber)!;
  }

  /** The number of the newest sealed block (reserved ones included). */
  get headNumber(): bigint {
    return this.#firstNumber + BigInt(this.#sealed.length - 1);
  }

  /** Sealed blocks, reserved ones included: what a snapshot records and `cutTo` takes back to. */
  get count(): number {
    return this.#sealed.length;
  }

  byNumber(number: bigint): SealedBlock | undefined {
    const index = number - this.#firstNumber;
    if (index < 0n || index >= BigInt(this.#sealed.length)) return undefined;
    return this.#sealed[Number(index)] ?? this.#buildReserved(number);
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
    if (index < 0n || index >= BigInt(this.#sealed.length) || this.#sealed[Number(index)] !== undefined) return undefined;
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
   * Cuts the sealed chain to `count` blocks and forgets the blocks it held beyond, and their txs:
   * reserved runs are skipped whole (their built blocks are in `#builtReserved`), so a revert past
   * a run of 10^9 empty blocks does not walk it.
   */
  cutTo(count: number): void {
    const dropped: SealedBlock[] = [];
    for (let index = count; index < this.#sealed.length; index++) {
      const reservation = this.#reservationOf(this.#firstNumber + BigInt(index));
      if (reservation !== undefined) {
        index = Number(reservation.last - this.#firstNumber);
        continue;
      }
      const sealed = this.#sealed[index];
      if (sealed !== undefined) dropped.push(sealed);
    }
    for (const index of [...this.#builtReserved]) {
      if (index < count) continue;
      dropped.push(this.#sealed[index]!);
      this.#builtReserved.delete(index);
    }
    this.#sealed.length = count;
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
  everySealed(maxReserved: number): { blocks: SealedBlock[] } | { reserved: bigint } {
    const reserved = this.#reservations.reduce((sum, reservation) => sum + reservation.last - reservation.first + 1n, 0n);
    if (reserved > BigInt(maxReserved)) return { reserved };
    return { blocks: Array.from({ length: this.#sealed.length }, (_, index) => this.byNumber(this.#firstNumber + BigInt(index))!) };
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
    this.#sealed[index] = sealed;
    this.#builtReserved.add(index);
    this.#byHash.set(sealed.hash, sealed);
    return sealed;
  }
}
