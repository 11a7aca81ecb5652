/**
 * What one execution tells about the gas each of its steps needed, recorded by the interpreter loop
 * (interpreterLoop.ts) while an estimate runs its call once at the cap (src/node/execution/estimate.ts).
 *
 * A frame's path depends on its gas only where the EVM reads the gas left: running out of it, the
 * SSTORE sentry (EIP-2200: SSTORE fails with 2300 gas or less left), the share a CALL or CREATE
 * forwards (EIP-150: all but one 64th of what is left), and the GAS opcode. So, for a start gas S of
 * the top frame, each step is a threshold on S that the run at the cap measured: a step of the
 * frame itself (its consumption so far, or the sentry's 2301 more) fails the frame when S is below
 * it; a call or create needs S high enough that the child gets what the child itself needed. Above
 * every threshold the execution is the one recorded. GAS read for anything but a call's gas argument
 * (solc emits `GAS` right before `CALL`), a child that halted exceptionally, a frame the loop did
 * not run itself, or a read of the sender's balance when the run buys its gas (go-ethereum's search
 * executes each limit with that limit's gas bought) makes the record unusable: the estimate then
 * executes as before.
 */
// The EVM's field for the record under way: registered (evmFields.ts), so that two copies of this
// module (the sources and the compiled package, as a test run may load both) read one record.
import { EVM_RECORDING as RECORDING } from "./evmFields.ts";

/** One threshold on the top frame's start gas, in execution order. */
export interface GasThreshold {
  /** The least start gas that gets past this point on the recorded path. */
  gas: bigint;
  /** True for a child's share (below it the child runs short and its caller's path is unknown); false for the frame's own need (below it the frame fails). */
  child: boolean;
}

export interface TopFrameRecord {
  /** The top frame's start gas in the recorded run (the tx gas limit minus its intrinsic gas). */
  startGas: bigint;
  /** The thresholds, runs of the frame's own steps merged: own, child, own, child, ..., own. */
  thresholds: GasThreshold[];
}

export class GasRecording {
  /** Why the record cannot answer (undefined: it can). */
  unusable: string | undefined;
  /** The depth-0 frame, once it ran. */
  top: TopFrameRecord | undefined;
  /**
   * The sender, as a number, when the run buys its gas: its balance during the run is then its
   * balance minus limit × price, so code that reads it (BALANCE of it, or its own code running under
   * EIP-7702) may take another path at another limit. Such a run makes the record unusable.
   */
  readonly payer: bigint | undefined;
  /** Set by a child frame when it ends, read by its caller after the CALL or CREATE: what the child needed, and whether it halted exceptionally. */
  lastChild: { need: bigint; halted: boolean } | undefined;

  constructor(payer?: bigint) {
    this.payer = payer;
  }

  refuse(reason: string): void {
    this.unusable ??= reason;
  }
}

type Recorded = { [RECORDING]?: GasRecording };

/** Records the gas steps of every execution on `evm` until `stopRecording`. */
export function startRecording(evm: object, recording: GasRecording): void {
  (evm as Recorded)[RECORDING] = recording;
}

export function stopRecording(evm: object): void {
  // Unset, not deleted (evmFields.ts).
  (evm as Recorded)[RECORDING] = undefined;
}

/** The recording under way on `evm`, if any. */
export const recordingOf = (evm: object): GasRecording | undefined => (evm as Recorded)[RECORDING];

/**
 * The least L with L - floor(L / 64) >= `share`: what a frame must have left, after a call's own
 * cost, for all but one 64th of it (EIP-150) to cover `share`.
 */
export function leftForShare(share: bigint): bigint {
  if (share <= 0n) return 0n;
  // L - floor(L/64) >= share  ⇔  L >= share + floor(L/64); start just below and step up.
  let left = (share * 64n) / 63n - 1n;
  if (left < share) left = share;
  while (left - left / 64n < share) left++;
  while (left > 0n && left - 1n - (left - 1n) / 64n >= share) left--;
  return left;
}
