/**
 * eth_estimateGas with go-ethereum's algorithm (eth/gasestimator; docs/behaviour.md): a plain transfer
 * is tried at 21000 first; one run at the cap; an optimistic try at
 * (peak gas used + 2300) × 64 / 63; then a bisection skewed low that stops within 1.5 %.
 * Every answer is a gas limit that was seen to succeed, so it is never below the true minimum.
 *
 * One shortcut comes first, and keeps the answer exact: when the run at the cap executed a single
 * call frame (no CALL, CREATE or precompile call inside it) whose code has no GAS opcode, nothing
 * it did depended on the gas it had, except running out of it. Every limit below the gas it used
 * before the refund (its peak) then runs out, so the peak is the exact minimum when it succeeds.
 * When it fails (an SSTORE needs more than 2300 gas left, EIP-2200), the bisection goes on from there.
 *
 * One execution answers for many limits. The run at the cap records, step by step, the least gas
 * each step needed (ethereumjs/gasRecord.ts: the frame's own consumption, the SSTORE sentry, and at
 * each call or create what its callee needed through EIP-150's 63/64 rule). Whether the call
 * succeeds at a lower limit then follows without running it: at or above every threshold it runs
 * the recorded path and succeeds; below one of the frame's own it runs out of gas and fails. Only
 * a limit that starves a callee first (whose caller may then go on differently), or a run the
 * record cannot speak for (GAS read for anything but a call's gas, a callee that halted), is
 * executed. The search itself, and so its answer, is unchanged (test/estimateOnePass.test.ts runs
 * both on many contracts); an ERC-20 transfer's estimate is one execution.
 */
import { GasRequiredExceedsAllowanceError, InsufficientFundsForTransferError } from "../common/errors.ts";
import { GasRecording, startRecording, stopRecording } from "../ethereumjs/gasRecord.ts";
import { EIP7825_MAX_TX_GAS } from "../common/defaults.ts";
import { callAddress, feeCapOf, hasFeeFields, isIntrinsicGasError, prepareCall } from "./dryRun.ts";
import { executionFailure } from "./vmErrors.ts";

import type { Block } from "@ethereumjs/block";
import type { Message } from "@ethereumjs/evm";
import type { VM } from "@ethereumjs/vm";
import type { CallRequest } from "../common/types.ts";
import type { DryRun, DryRunOptions, PreparedCall } from "./dryRun.ts";

/** params.TxGas: the cost of a plain value transfer. */
export const TX_GAS = 21000n;
/** params.CallStipend: gas a CALL with value hands to the callee for free. */
const CALL_STIPEND = 2300n;
/** go-ethereum's estimateGasErrorRatio: stop bisecting once (hi - lo) / hi < 1.5 %. */
const ERROR_RATIO_PER_MILLE = 15n;

export interface Estimate {
  gas: bigint;
  /** How many EVM executions the estimate took. */
  executions: number;
}

/**
 * Running totals over every estimate in this process (the bench reads them). Two integer
 * increments per estimate: cheap enough to stay on in production.
 */
export const estimateStats = { estimates: 0, executions: 0, lastExecutions: 0 };

/** One execution at a gas limit; `run` is absent when the limit was below the intrinsic gas. */
type Attempt = { ok: true; run: DryRun } | { ok: false; run: DryRun | undefined };

export interface EstimateOptions extends DryRunOptions {
  /**
   * Answer from the run at the cap's record where it can (default true); false executes at every
   * limit the search tries (the equivalence tests compare both).
   */
  onePass?: boolean;
}

/**
 * What the run at the cap's record says of a limit: true (succeeds), false (fails), or undefined
 * (only running it tells). See the module comment and ethereumjs/gasRecord.ts.
 */
type Forecast = (gasLimit: bigint) => boolean | undefined;

function forecastOf(recording: GasRecording, frames: Message[], capRun: DryRun, minimumGasLimit: bigint): Forecast | undefined {
  if (recording.unusable !== undefined || frames[0]?.isCompiled === true) return undefined;
  const top = recording.top;
  if (top === undefined) {
    // The only frame had no code to run (a call to an account without code: runCall loaded it, empty,
    // into the message): any limit that pays the intrinsic gas succeeds. Anything else unrecorded: no forecast.
    const code = frames[0]?.code;
    const codeless = frames.length === 1 && code instanceof Uint8Array && code.length === 0;
    return codeless ? (gasLimit) => (gasLimit >= minimumGasLimit ? true : undefined) : undefined;
  }
  const intrinsic = capRun.gasLimit - top.startGas;
  return (gasLimit) => {
    if (gasLimit < minimumGasLimit) return undefined;
    const startGas = gasLimit - intrinsic;
    for (const threshold of top.thresholds) if (threshold.gas > startGas) return threshold.child ? undefined : false;
    return true;
  };
}

/** Runs the call at chosen gas limits and counts the executions. */
class Prober {
  executions = 0;
  readonly #call: PreparedCall;
  readonly #onePass: boolean;
  #forecast: Forecast | undefined;

  constructor(call: PreparedCall, onePass: boolean) {
    this.#call = call;
    this.#onePass = onePass;
  }

  /**
   * Runs at `gasLimit` (the cap) and says whether that run's path could depend on the gas it had:
   * true unless it ran one call frame whose code has no GAS opcode (see the module comment). It
   * records the gas each step needed, for `succeedsAt`.
   */
  async observe(vm: VM, gasLimit: bigint): Promise<{ attempt: Attempt; gasDependent: boolean }> {
    const frames: Message[] = [];
    const listener = (message: Message) => {
      frames.push(message);
    };
    const recording = new GasRecording(this.#call.payer);
    vm.evm.events!.on("beforeMessage", listener);
    if (this.#onePass) startRecording(vm.evm, recording);
    let attempt: Attempt;
    try {
      attempt = await this.attempt(gasLimit);
    } finally {
      stopRecording(vm.evm);
      vm.evm.events!.off("beforeMessage", listener);
    }
    if (this.#onePass && attempt.ok) this.#forecast = forecastOf(recording, frames, attempt.run, this.#call.minimumGasLimit);
    const top = frames[0];
    const gasDependent = frames.length !== 1 || top === undefined || (top.isCompiled !== true && mayReadGas(top.code));
    return { attempt, gasDependent };
  }

  /** Whether the call succeeds at `gasLimit`: from the record when it tells, else by running it. */
  async succeedsAt(gasLimit: bigint): Promise<boolean> {
    return this.#forecast?.(gasLimit) ?? (await this.attempt(gasLimit)).ok;
  }

  /** Any error other than "gas below intrinsic" is not about the limit: it propagates. */
  async attempt(gasLimit: bigint): Promise<Attempt> {
    this.executions++;
    try {
      const run = await this.#call.run(gasLimit);
      return run.result.execResult.exceptionError === undefined ? { ok: true, run } : { ok: false, run };
    } catch (error) {
      // geth's execute: ErrIntrinsicGas means "raise the limit", not a failed estimate.
      if (isIntrinsicGasError(error)) return { ok: false, run: undefined };
      throw error;
    }
  }

  /** Whether the call succeeds at `gasLimit`, treating every error as "no" (the 21000 shortcut). */
  async succeeds(gasLimit: bigint): Promise<boolean> {
    try {
      return (await this.attempt(gasLimit)).ok;
    } catch {
      return false;
    }
  }
}

export async function estimateGas(vm: VM, request: CallRequest, block: Block, options: EstimateOptions = {}): Promise<Estimate> {
  // Without balance checks (Hardhat's), nothing caps the bound by what the sender can pay.
  const cap = options.ignoreBalance === true ? gasBound(vm, request, block) : await upperBound(vm, request, block);
  const prober = new Prober(await prepareCall(vm, request, block, options), options.onePass ?? true);
  try {
    return { gas: await search(vm, request, cap, prober), executions: prober.executions };
  } finally {
    estimateStats.estimates++;
    estimateStats.executions += prober.executions;
    estimateStats.lastExecutions = prober.executions;
  }
}

async function search(vm: VM, request: CallRequest, cap: bigint, prober: Prober): Promise<bigint> {
  let hi = cap;
  // geth tries 21000 rather than returning it unrun: access lists and the like cost extra.
  if ((await isPlainTransfer(vm, request)) && (await prober.succeeds(TX_GAS))) return TX_GAS;

  const { attempt: first, gasDependent } = await prober.observe(vm, hi);
  if (!first.ok) throw firstRunError(first.run, hi);

  // Gas used (after the refund) lower-bounds any limit that succeeds.
  let lo = first.run.result.totalGasSpent - 1n;
  if (!gasDependent) {
    // Below the peak every run of this path runs out of gas: the peak is the least that can succeed.
    const peak = first.run.peakGasUsed;
    if (peak >= hi) return hi;
    if (await prober.succeedsAt(peak)) return peak;
    lo = peak;
  }
  const optimistic = ((first.run.peakGasUsed + CALL_STIPEND) * 64n) / 63n;
  if (optimistic < hi) {
    if (await prober.succeedsAt(optimistic)) hi = optimistic;
    else lo = optimistic;
  }
  while (lo + 1n < hi && !closeEnough(lo, hi)) {
    const mid = bisectLow(lo, hi);
    if (await prober.succeedsAt(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** (hi - lo) / hi < 1.5 %: wallets add 20-25 % anyway, and the error is always upwards. */
const closeEnough = (lo: bigint, hi: bigint) => (hi - lo) * 1000n < hi * ERROR_RATIO_PER_MILLE;

/** The midpoint, but at most 2 × lo: most txs need little more than they used. */
function bisectLow(lo: bigint, hi: bigint): bigint {
  const mid = lo + (hi - lo) / 2n;
  return mid > lo * 2n ? lo * 2n : mid;
}

/**
 * geth's cap: `gas` when it is at least 21000, else the block gas limit; EIP-7825's cap when
 * active; and, when the call pays a fee, what the sender's balance minus `value` can buy.
 */
async function upperBound(vm: VM, request: CallRequest, block: Block): Promise<bigint> {
  const hi = gasBound(vm, request, block);
  if (!hasFeeFields(request)) return hi;
  const feeCap = feeCapOf(request, block);
  if (feeCap === 0n) return hi;
  const from = callAddress(request.from);
  const balance = (await vm.stateManager.getAccount(from))?.balance ?? 0n;
  const value = request.value ?? 0n;
  // geth refuses value >= balance here: nothing would be left to pay for any gas.
  if (value >= balance) throw new InsufficientFundsForTransferError();
  const allowance = (balance - value) / feeCap;
  return allowance < hi ? allowance : hi;
}

/** `gas` when it is at least 21000, else the block gas limit; EIP-7825's cap when active. */
function gasBound(vm: VM, request: CallRequest, block: Block): bigint {
  const hi = request.gas !== undefined && request.gas >= TX_GAS ? request.gas : block.header.gasLimit;
  return vm.common.isActivatedEIP(7825) && hi > EIP7825_MAX_TX_GAS ? EIP7825_MAX_TX_GAS : hi;
}

/** geth: a revert (or other EVM error) is reported as is (vmErrors.ts); out of gas at the cap is the allowance error. */
function firstRunError(run: DryRun | undefined, hi: bigint): Error {
  const failure = run?.result.execResult;
  const error = failure?.exceptionError?.error;
  if (failure === undefined || error === undefined || /out of gas/i.test(error)) return new GasRequiredExceedsAllowanceError(hi);
  return executionFailure(failure, "estimate");
}

/** Opcodes past which a frame's path may depend on its gas: GAS, and anything that opens a frame (counted apart). */
const GAS_OPCODE = 0x5a;
const PUSH1 = 0x60;
const PUSH32 = 0x7f;
const EOF_MAGIC = 0xef;

/**
 * Whether `code` may read its gas: it has a GAS opcode outside PUSH data. Code in the EOF format
 * (0xEF) or of unknown shape (undefined) counts as yes.
 */
export function mayReadGas(code: Uint8Array | ((...args: never[]) => unknown) | undefined): boolean {
  if (!(code instanceof Uint8Array)) return true;
  let answer = readsGas.get(code);
  if (answer === undefined) {
    answer = scanForGas(code);
    readsGas.set(code, answer);
  }
  return answer;
}

/**
 * mayReadGas per code array: the state manager's code cache hands out the same Uint8Array for an
 * account's code while it holds it (as jumpAnalysis.ts relies on), so repeated estimates against a
 * contract scan its code once. Code arrays are never written in place.
 */
const readsGas = new WeakMap<Uint8Array, boolean>();

function scanForGas(code: Uint8Array): boolean {
  if (code[0] === EOF_MAGIC) return true;
  for (let i = 0; i < code.length; i++) {
    const op = code[i]!;
    if (op === GAS_OPCODE) return true;
    if (op >= PUSH1 && op <= PUSH32) i += op - PUSH1 + 1;
  }
  return false;
}

/** A call without data to an address without code: 21000 is all it can need. */
async function isPlainTransfer(vm: VM, request: CallRequest): Promise<boolean> {
  const data = request.data ?? request.input;
  if (request.to === undefined || request.to === null || (data !== undefined && data.length > 0)) return false;
  // Each authorization costs 25000 on top: 21000 cannot succeed, so skip the wasted run.
  if (request.authorizationList !== undefined && request.authorizationList.length > 0) return false;
  const code = await vm.stateManager.getCode(callAddress(request.to));
  return code.length === 0;
}
