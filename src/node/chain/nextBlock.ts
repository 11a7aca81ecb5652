/**
 * What the next block opens with: its time (the clock, evm_increaseTime's offset,
 * evm_setNextBlockTimestamp) and the dev methods' header fields, for the next block only or from
 * the next block on. `open` builds the open block from them.
 */
import { flatHex } from "../common/hex.ts";

import { keccak256 } from "../common/crypto.ts";
import { setHardforkAt } from "../ethereumjs/hardforkAt.ts";
import { OpenBlock } from "../execution/openBlock.ts";
import { DENIM_BLOCK_MS, millisPartOf } from "../opstack/baseTime.ts";
import { encodeFeeParams } from "../opstack/feeParams.ts";
import { subsecondTimeAfter } from "../common/time.ts";

import type { Block, BlockHeader } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import type { Clock } from "../../clock.ts";
import type { BlockDefaults, NextBlockFields } from "./chainTypes.ts";
import type { ActiveFork, ForkSchedule } from "../profiles/forkSchedule.ts";
import type { Hex } from "../common/types.ts";

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
  defaults: Defaults;
  unscaled: { parentHash: string; defaults: Defaults } | undefined;
}

/** The header fields every block from the next one on takes (the fee parameters only on OP-stack chains). */
export type Defaults = Required<Omit<BlockDefaults, "feeParams">> & Pick<BlockDefaults, "feeParams">;

export interface NextBlockConfig {
  clock: Clock;
  /** Which fork of the profile's ladder each block runs (forkSchedule.ts). */
  schedule: ForkSchedule;
  allowBlocksWithSameTimestamp?: boolean | undefined;
  nextBaseFee?: ((parent: BlockHeader) => bigint) | undefined;
  /** The parentBeaconBlockRoot of the block at a timestamp (an OP chain's L1 origin's); zero bytes when absent. */
  parentBeaconBlockRoot?: ((timestamp: bigint) => Hex) | undefined;
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
  /** Coinbase, gas limit and fee parameters of every block from the next one on. */
  #defaults!: Defaults;
  /**
   * The defaults before a fork's scaling (Base's Denim: gas limit ÷ 10, denominator × 10) that the
   * open block, the fork's first, applied: re-opening it scales them again, not the scaled ones.
   */
  #unscaled: { parentHash: string; defaults: Defaults } | undefined;

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

  get defaults(): Defaults {
    return this.#defaults;
  }

  /** Whether a block may have its parent's timestamp by option (Denim blocks share seconds whatever it says). */
  get allowsSameTimestamp(): boolean {
    return this.#config.allowBlocksWithSameTimestamp === true;
  }

  /**
   * Starts over from a created, loaded or reset chain: its time, and `nextTimestamp` either kept
   * for the next block (the chain has an open block already) or taken by the block `build` opens.
   */
  reset(
    timeOffset: bigint,
    nextTimestamp: bigint | undefined,
    openExists: boolean,
    defaults: Defaults,
    opened?: { parentHash: string; defaults: Defaults },
  ): void {
    this.#timeOffset = timeOffset;
    this.#nextTimestamp = openExists ? nextTimestamp : undefined;
    this.#nextFields = {};
    this.#openFields = !openExists && nextTimestamp !== undefined ? { timestamp: nextTimestamp } : {};
    // The open block `build` made may be a scaling fork's first: its defaults hold from it on.
    const scaled = opened !== undefined && opened.defaults !== defaults;
    this.#defaults = scaled ? opened.defaults : defaults;
    this.#unscaled = scaled ? { parentHash: opened.parentHash, defaults } : undefined;
  }

  /** evm_increaseTime and evm_setNextBlockTimestamp; answers the offset. */
  adjust(change: { increaseBy?: bigint; nextTimestamp?: bigint }): bigint {
    if (change.increaseBy !== undefined) this.#timeOffset += change.increaseBy;
    if (change.nextTimestamp !== undefined) this.#nextTimestamp = change.nextTimestamp;
    return this.#timeOffset;
  }

  /** Values set now hold as they are: re-opening a fork's first block no longer scales from the old ones. */
  setFields(next: NextBlockFields, defaults: BlockDefaults): void {
    this.#nextFields = { ...this.#nextFields, ...next };
    this.#defaults = { ...this.#defaults, ...dropUndefined(defaults) };
    this.#unscaled = undefined;
  }

  capture(): NextBlockPlan {
    return {
      timeOffset: this.#timeOffset,
      nextTimestamp: this.#nextTimestamp,
      nextFields: this.#nextFields,
      openFields: this.#openFields,
      defaults: this.#defaults,
      unscaled: this.#unscaled,
    };
  }

  restore(plan: NextBlockPlan): void {
    ({
      timeOffset: this.#timeOffset,
      nextTimestamp: this.#nextTimestamp,
      nextFields: this.#nextFields,
      openFields: this.#openFields,
      defaults: this.#defaults,
      unscaled: this.#unscaled,
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

  /**
   * The block after `parent`, taking the next block's overrides. The first block of a scaling fork
   * (Base's Denim) scales the defaults, which then hold for the blocks after it.
   */
  openAfter(parent: Block): OpenBlock {
    const requested = this.#nextTimestamp;
    const fields = this.#nextFields;
    const parentHash = flatHex(parent.hash());
    const defaults = this.#unscaled?.parentHash === parentHash ? this.#unscaled.defaults : this.#defaults;
    const { open, defaults: effective } = this.build(parent, requested, this.#timeOffset, fields, defaults);
    if (effective !== defaults) {
      this.#unscaled = { parentHash, defaults };
      this.#defaults = effective;
    } else if (this.#unscaled?.parentHash === parentHash) {
      // Re-opened at a time that no longer starts the fork: back to the values before it.
      this.#defaults = defaults;
      this.#unscaled = undefined;
    }
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

  /**
   * Whether the open block, opened after `parent` with nothing pre-confirmed, would get a later time
   * if it opened now (on a Denim block, a later 200 ms slot: its second or its millisecond part).
   */
  isStale(open: OpenBlock, parent: Block): boolean {
    if (this.#openFields.timestamp !== undefined) return false;
    const { timestamp, millisPart } = this.#timeAfter(parent, undefined, this.#timeOffset);
    if (timestamp !== open.header.timestamp) return timestamp > open.header.timestamp;
    return (millisPart ?? 0) > (open.header.millisPart ?? 0);
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
   * `fields` and `defaults`, and the defaults that hold from it on (scaled when it is the first block
   * of a scaling fork, else `defaults` itself); changes nothing but the shared Common's fork.
   */
  build(parent: Block, requested: bigint | undefined, offset: bigint, fields: NextBlockFields, defaults: Defaults): { open: OpenBlock; defaults: Defaults } {
    const parentHeader = parent.header;
    const number = parentHeader.number + 1n;
    const { timestamp, millisPart, fork, parentFork } = this.#timeAfter(parent, requested, offset);
    const scale = this.#config.schedule.scalingBetween(parentFork, fork);
    const effective = scale === undefined ? defaults : scaleDefaults(defaults, scale);
    const parentHash = parent.hash();
    // The block being built follows the genesis' fork schedule (e.g. cancunTime: 0, pragueTime: later).
    setHardforkAt(this.#common, number, timestamp);
    const op = fork.rules.opStack;
    const open = new OpenBlock(
      this.#common,
      {
        number,
        parentHash: flatHex(parentHash),
        timestamp,
        gasLimit: effective.gasLimit,
        baseFeePerGas: fields.baseFeePerGas ?? this.baseFeeAfter(parentHeader),
        coinbase: effective.coinbase,
        // Reproducible "randomness": the hash of the parent's hash.
        prevRandao: fields.prevRandao ?? flatHex(keccak256(parentHash)),
        // OP chains have no blobs: the excess stays 0 though `blobGasUsed` holds the DA footprint (Jovian).
        excessBlobGas: !this.#common.isActivatedEIP(4844) ? undefined : op ? 0n : nextExcessBlobGas(parentHeader, this.#common),
        millisPart,
        // Jovian's fee parameters for the block after this one (opstack/feeParams.ts).
        extraData: op && effective.feeParams !== undefined ? encodeFeeParams(effective.feeParams) : undefined,
        parentBeaconBlockRoot: this.#config.parentBeaconBlockRoot?.(timestamp),
      },
      fork,
    );
    return { open, defaults: effective };
  }

  /**
   * The time and fork of the block after `parent`: `requested` or the clock's second plus `offset`,
   * strictly after the parent's; on a Denim block (Base's native 200 ms blocks) its millisecond part
   * too, 0 at the fork's first block (base/base crates/common/genesis/src/rollup.rs
   * `l2_block_timestamp_millis`: the first Denim block is at a whole second), then the clock's 200 ms
   * slot but at least 200 ms after the parent (time.ts).
   */
  #timeAfter(
    parent: Block,
    requested: bigint | undefined,
    offset: bigint,
  ): { timestamp: bigint; millisPart: number | undefined; fork: ActiveFork; parentFork: ActiveFork } {
    const { schedule, clock } = this.#config;
    const parentHeader = parent.header;
    const number = parentHeader.number + 1n;
    const parentFork = schedule.at(parentHeader.number, parentHeader.timestamp);
    if (parentFork.rules.denim) {
      // Where blocks share seconds, the parent's millisecond part is in its BaseTime deposit (tx[1]), as Base's node reads it.
      const time = subsecondTimeAfter({ timestamp: parentHeader.timestamp, millisPart: millisPartOf(parent) }, clock.now(), offset, DENIM_BLOCK_MS, requested);
      return { ...time, fork: schedule.at(number, time.timestamp), parentFork };
    }
    const timestamp = this.timestampAfter(parentHeader.timestamp, requested, offset);
    const fork = schedule.at(number, timestamp);
    return { timestamp, millisPart: fork.rules.denim ? 0 : undefined, fork, parentFork };
  }

  /** The time the block after `parent` would get now (its second, and on Denim its millisecond part), changing nothing. */
  timeAfter(parent: Block): { timestamp: bigint; millisPart: number | undefined } {
    const { timestamp, millisPart } = this.#timeAfter(parent, this.#nextTimestamp, this.#timeOffset);
    return { timestamp, millisPart };
  }
}

/** The defaults after a scaling fork's first block: gas limit and fee parameters scaled, the rest as they were. */
function scaleDefaults(defaults: Defaults, scale: NonNullable<ReturnType<ForkSchedule["scalingBetween"]>>): Defaults {
  const fee = defaults.feeParams;
  const scaled = scale({ gasLimit: defaults.gasLimit, eip1559: fee === undefined ? undefined : { denominator: fee.denominator, elasticity: fee.elasticity } });
  return {
    ...defaults,
    gasLimit: scaled.gasLimit,
    ...(fee !== undefined && scaled.eip1559 !== undefined && { feeParams: { ...fee, denominator: scaled.eip1559.denominator } }),
  };
}

/**
 * Per Common and hardfork, EIP-4844's target blob gas per block (`getBlobGasSchedule`): it depends
 * on the hardfork and the Common's params, which a chain's Common never changes after it is made.
 * Bounded by the hardforks a Common has.
 */
const blobTargets = new WeakMap<Common, Map<string, bigint>>();

/**
 * `parent.calcNextExcessBlobGas(common)` (@ethereumjs/block 10.1.3), with the package's own early
 * exit (below the target: zero, every block of a chain without blobs) taken without looking the
 * schedule up again each block (a fork comparison and three param look-ups).
 */
export function nextExcessBlobGas(parent: BlockHeader, common: Common): bigint {
  let targets = blobTargets.get(common);
  if (targets === undefined) {
    targets = new Map();
    blobTargets.set(common, targets);
  }
  const hardfork = common.hardfork();
  let target = targets.get(hardfork);
  if (target === undefined) {
    target = common.getBlobGasSchedule().targetBlobGasPerBlock;
    targets.set(hardfork, target);
  }
  if ((parent.excessBlobGas ?? 0n) + (parent.blobGasUsed ?? 0n) < target) return 0n;
  return parent.calcNextExcessBlobGas(common);
}

function dropUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as Partial<T>;
}
