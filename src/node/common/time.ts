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

/**
 * How eth_simulateV1 times the blocks it makes when a block names no time (docs/methods.md
 * "eth_simulateV1"): execution-apis' notes (docs/ethsimulatev1-notes.md) give "the timestamp of
 * the previous block + network block time". `blockMs` is the chain's block time; below a second
 * (Base's Denim), blocks share whole seconds as the chain's own do and a named time may equal the
 * previous block's (base/base PR #5043 derives Denim's simulated times from its 200 ms schedule and
 * accepts equal whole-second timestamps); otherwise a named time must be later than the previous one.
 */
export interface SimulatedTiming {
  blockMs: number;
}

/** The simulated blocks' timing: Denim's 200 ms where blocks share seconds (`subsecondBlockMs`), else the chain's block time. */
export function simulatedTiming(subsecondBlockMs: number | undefined, blockMs: number): SimulatedTiming {
  return { blockMs: subsecondBlockMs ?? blockMs };
}

/** The time of a simulated block after `previous`: `requested` when given (checked by `simulatedTimeAllowed`), else one block time later. */
export function simulatedTimeAfter(previous: SubsecondTime, timing: SimulatedTiming, requested?: bigint): SubsecondTime {
  if (timing.blockMs >= 1000) {
    return { timestamp: requested ?? previous.timestamp + BigInt(Math.round(timing.blockMs / 1000)), millisPart: 0 };
  }
  if (requested !== undefined) return subsecondTimeAfter(previous, 0, 0n, timing.blockMs, requested);
  const ms = previous.timestamp * 1000n + BigInt(previous.millisPart) + BigInt(timing.blockMs);
  return { timestamp: ms / 1000n, millisPart: Number(ms % 1000n) };
}

/** Whether a simulated block may be named time `requested` after a block at `previous` (see SimulatedTiming). */
export const simulatedTimeAllowed = (previous: bigint, requested: bigint, timing: SimulatedTiming): boolean =>
  timing.blockMs >= 1000 ? requested > previous : requested >= previous;
