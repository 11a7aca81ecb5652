/**
 * What the next block opens with: its time (the clock, evm_increaseTime's offset,
 * evm_setNextBlockTimestamp) and the dev methods' header fields, for the next block only or from
 * the next block on. `open` builds the open block from them.
 */
import { bytesToHex } from "@ethereumjs/util";

import { keccak256 } from "./crypto.ts";
import { OpenBlock } from "./openBlock.ts";
import { millisPartOf } from "./opstack/baseTime.ts";
import { subsecondTimeAfter } from "./time.ts";

import type { Block, BlockHeader } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import type { Clock } from "../clock.ts";
import type { BlockDefaults, NextBlockFields } from "./chainTypes.ts";

/** What the open block was opened with, so that re-opening it (no fragment yet) keeps it. */
interface OpenFields extends NextBlockFields {
  timestamp?: bigint;
}

/** Everything evm_snapshot records of the next block's plan. */
export interface NextBlockPlan {
  timeOffset: bigint;
  nextTimestamp: bigint | undefined;
  nextFields: NextBlockFields;
  openFields: OpenFields;
  defaults: Required<BlockDefaults>;
}

export interface NextBlockConfig {
  clock: Clock;
  allowBlocksWithSameTimestamp?: boolean | undefined;
  /** Blocks this many ms apart share whole-second timestamps, with a millisecond part (base-denim; time.ts). */
  subsecondBlockMs?: number | undefined;
  nextBaseFee?: ((parent: BlockHeader) => bigint) | undefined;
}

/** The clock's current second. */
export const nowSeconds = (clock: Clock): bigint => BigInt(Math.floor(clock.now() / 1000));

export class NextBlock {
  readonly #common: Common;
  readonly #config: NextBlockConfig;
  /** Seconds added to the clock by evm_increaseTime. */
  #timeOffset = 0n;
  /** Set by evm_setNextBlockTimestamp: the next block's timestamp. */
  #nextTimestamp: bigint | undefined;
  /** One-block header overrides for the next block to open. */
  #nextFields: NextBlockFields = {};
  /** The overrides the open block took (re-applied when it is re-opened before its first fragment). */
  #openFields: OpenFields = {};
  /** Coinbase and gas limit of every block from the next one on. */
  #defaults!: Required<BlockDefaults>;

  constructor(common: Common, config: NextBlockConfig) {
    this.#common = common;
    this.#config = config;
  }

  /** Seconds evm_increaseTime has added to the clock so far. */
  get timeOffset(): bigint {
    return this.#timeOffset;
  }

  /** The set next timestamp (evm_setNextBlockTimestamp), if the next block has not opened with it yet. */
  get nextTimestamp(): bigint | undefined {
    return this.#nextTimestamp;
  }

  get defaults(): Required<BlockDefaults> {
    return this.#defaults;
  }

  /** Whether a block may have its parent's timestamp (always where blocks share seconds). */
  get allowsSameTimestamp(): boolean {
    return this.#config.allowBlocksWithSameTimestamp === true || this.#config.subsecondBlockMs !== undefined;
  }

  /**
   * Starts over from a created, loaded or reset chain: its time, and `nextTimestamp` either kept
   * for the next block (the chain has an open block already) or taken by the block `build` opens.
   */
  reset(timeOffset: bigint, nextTimestamp: bigint | undefined, openExists: boolean, defaults: Required<BlockDefaults>): void {
    this.#timeOffset = timeOffset;
    this.#nextTimestamp = openExists ? nextTimestamp : undefined;
    this.#nextFields = {};
    this.#openFields = !openExists && nextTimestamp !== undefined ? { timestamp: nextTimestamp } : {};
    this.#defaults = defaults;
  }

  /** evm_increaseTime and evm_setNextBlockTimestamp; answers the offset. */
  adjust(change: { increaseBy?: bigint; nextTimestamp?: bigint }): bigint {
    if (change.increaseBy !== undefined) this.#timeOffset += change.increaseBy;
    if (change.nextTimestamp !== undefined) this.#nextTimestamp = change.nextTimestamp;
    return this.#timeOffset;
  }

  setFields(next: NextBlockFields, defaults: BlockDefaults): void {
    this.#nextFields = { ...this.#nextFields, ...next };
    this.#defaults = { ...this.#defaults, ...defaults };
  }

  capture(): NextBlockPlan {
    return {
      timeOffset: this.#timeOffset,
      nextTimestamp: this.#nextTimestamp,
      nextFields: this.#nextFields,
      openFields: this.#openFields,
      defaults: this.#defaults,
    };
  }

  restore(plan: NextBlockPlan): void {
    ({
      timeOffset: this.#timeOffset,
      nextTimestamp: this.#nextTimestamp,
      nextFields: this.#nextFields,
      openFields: this.#openFields,
      defaults: this.#defaults,
    } = plan);
  }

  /** `requested`, else the clock's second plus evm_increaseTime's offset; strictly after the parent, whatever the clock says (docs/behaviour.md). */
  timestampAfter(parentTimestamp: bigint, requested: bigint | undefined, offset = this.#timeOffset): bigint {
    const wanted = requested ?? nowSeconds(this.#config.clock) + offset;
    if (this.allowsSameTimestamp) return wanted >= parentTimestamp ? wanted : parentTimestamp;
    return wanted > parentTimestamp ? wanted : parentTimestamp + 1n;
  }

  /** EIP-1559's base fee of the block after `parent` (the profile's parameters where it has its own), no override applied. */
  baseFeeAfter(parent: BlockHeader): bigint {
    return this.#config.nextBaseFee?.(parent) ?? parent.calcNextBaseFee();
  }

  /** The block after `parent`, taking the next block's overrides. */
  openAfter(parent: Block): OpenBlock {
    const requested = this.#nextTimestamp;
    const fields = this.#nextFields;
    const open = this.build(parent, requested, this.#timeOffset, fields, this.#defaults);
    this.#nextTimestamp = undefined;
    this.#nextFields = {};
    this.#openFields = { ...fields, ...(requested !== undefined && { timestamp: requested }) };
    return open;
  }

  /**
   * The open block was sealed: when it was at a set timestamp, the clock moves there, and later
   * blocks follow it whatever evm_increaseTime added before (Hardhat: EDR data.rs, mining with
   * `next_block_timestamp` sets the time offset to it minus now).
   */
  sealed(): void {
    const requested = this.#openFields.timestamp;
    if (requested !== undefined) this.#timeOffset = requested - nowSeconds(this.#config.clock);
  }

  /** Whether the open block, opened after `parent` with nothing pre-confirmed, would get a later time if it opened now. */
  isStale(open: OpenBlock, parent: Block): boolean {
    if (this.#config.subsecondBlockMs !== undefined || this.#openFields.timestamp !== undefined) return false;
    return this.timestampAfter(parent.header.timestamp, undefined) > open.header.timestamp;
  }

  /** The open block after `parent` once more, with what it was opened with and the overrides set since. */
  reopenAfter(parent: Block): OpenBlock {
    const kept = this.#openFields;
    this.#nextFields = { baseFeePerGas: kept.baseFeePerGas, prevRandao: kept.prevRandao, ...dropUndefined(this.#nextFields) };
    if (this.#nextTimestamp === undefined) this.#nextTimestamp = kept.timestamp;
    return this.openAfter(parent);
  }

  /**
   * The block after `parent`, at `requested` or the clock plus `offset`, with the dev methods' header
   * `fields` and `defaults`; changes nothing but the shared Common's fork.
   */
  build(parent: Block, requested: bigint | undefined, offset: bigint, fields: NextBlockFields, defaults: Required<BlockDefaults>): OpenBlock {
    const parentHeader = parent.header;
    const blockMs = this.#config.subsecondBlockMs;
    // Where blocks share seconds, the parent's millisecond part is in its BaseTime deposit (tx[1]), as Base's node reads it.
    const subsecond =
      blockMs === undefined
        ? undefined
        : subsecondTimeAfter({ timestamp: parentHeader.timestamp, millisPart: millisPartOf(parent) }, this.#config.clock.now(), offset, blockMs, requested);
    const timestamp = subsecond?.timestamp ?? this.timestampAfter(parentHeader.timestamp, requested, offset);
    const parentHash = parent.hash();
    // The block being built follows the genesis' fork schedule (e.g. cancunTime: 0, pragueTime: later).
    this.#common.setHardforkBy({ blockNumber: parentHeader.number + 1n, timestamp });
    return new OpenBlock(this.#common, {
      number: parentHeader.number + 1n,
      parentHash: bytesToHex(parentHash),
      timestamp,
      gasLimit: defaults.gasLimit,
      baseFeePerGas: fields.baseFeePerGas ?? this.baseFeeAfter(parentHeader),
      coinbase: defaults.coinbase,
      // Reproducible "randomness": the hash of the parent's hash.
      prevRandao: fields.prevRandao ?? bytesToHex(keccak256(parentHash)),
      excessBlobGas: this.#common.isActivatedEIP(4844) ? parentHeader.calcNextExcessBlobGas(this.#common) : undefined,
      millisPart: subsecond?.millisPart,
    });
  }
}

function dropUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as Partial<T>;
}
