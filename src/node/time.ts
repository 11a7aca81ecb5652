/** Limits on block time that every way of setting it (dev methods, loaded dumps) shares. */

/**
 * The latest timestamp a block may get: @ethereumjs/common compares timestamps as JS numbers when
 * it picks the hardfork, so one past 2^53 breaks every later block. 2^52 leaves 2^52 blocks (each
 * a second later than its parent) before that point.
 */
export const MAX_TIMESTAMP = 2n ** 52n;

/** A block's time on a chain whose blocks share seconds: the header's whole second and the millisecond part. */
export interface SubsecondTime {
  timestamp: bigint;
  millisPart: number;
}

/**
 * The time of the block after `parent` on a chain with `intervalMs` blocks inside a second (the
 * 200 ms of Base's Denim blocks). Base schedules block n at a fixed 200 ms
 * after block n-1 (base/base crates/common/consensus/src/base_time.rs, the Denim timestamp
 * schedule); a dev chain must also follow its clock across idle time and evm_increaseTime, so the
 * block's time in milliseconds is the clock's current slot (a multiple of `intervalMs`, plus the
 * `offsetSeconds` of evm_increaseTime) but never less than `intervalMs` after its parent's: at one
 * block per slot, five consecutive blocks share a second with millisecond parts 0, 200, …, 800.
 * A `requested` second (evm_setNextBlockTimestamp, evm_mine's timestamp) starts at millisecond 0,
 * or, when it is the parent's second, one slot after the parent (at most the second's last slot).
 */
export function subsecondTimeAfter(parent: SubsecondTime, clockMs: number, offsetSeconds: bigint, intervalMs: number, requested?: bigint): SubsecondTime {
  const step = BigInt(intervalMs);
  const lastSlot = 1000 - intervalMs;
  if (requested !== undefined) {
    if (requested > parent.timestamp) return { timestamp: requested, millisPart: 0 };
    return { timestamp: parent.timestamp, millisPart: Math.min(parent.millisPart + intervalMs, lastSlot) };
  }
  const parentMs = parent.timestamp * 1000n + BigInt(parent.millisPart);
  const slot = (BigInt(Math.floor(clockMs)) / step) * step + offsetSeconds * 1000n;
  const ms = slot > parentMs + step ? slot : parentMs + step;
  return { timestamp: ms / 1000n, millisPart: Number(ms % 1000n) };
}
