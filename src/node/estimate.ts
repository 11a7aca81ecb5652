/**
 * eth_estimateGas with go-ethereum's algorithm (eth/gasestimator, DECISIONS §6): a plain transfer
 * is tried at 21000 first; one run at the cap; an optimistic try at
 * (used + refund + 2300) × 64 / 63; then a bisection skewed low that stops within 1.5 %.
 */
import { createAddressFromString } from "@ethereumjs/util";

import { executionReverted, gasRequiredExceedsAllowance, insufficientFundsForTransfer, RpcError, ErrorCode } from "../rpc/errors.ts";
import { dryRun, hasFeeFields } from "./dryRun.ts";

import type { Block } from "@ethereumjs/block";
import type { VM } from "@ethereumjs/vm";
import type { CallRequest } from "../rpc/schema.ts";
import type { DryRun } from "./dryRun.ts";

/** params.TxGas: the cost of a plain value transfer. */
export const TX_GAS = 21000n;
/** params.CallStipend: gas a CALL with value hands to the callee for free. */
const CALL_STIPEND = 2300n;
/** go-ethereum's estimateGasErrorRatio: stop bisecting within 1.5 % of the answer. */
const ERROR_RATIO_PER_MILLE = 15n;

export interface Estimate {
  gas: bigint;
  /** How many EVM executions the estimate took (the bench reads it). */
  executions: number;
}

type Attempt = { failed: true; run: DryRun | undefined } | { failed: false; run: DryRun };

export async function estimateGas(vm: VM, request: CallRequest, block: Block): Promise<Estimate> {
  let executions = 0;
  const attempt = async (gas: bigint): Promise<Attempt> => {
    executions++;
    try {
      const run = await dryRun(vm, request, block, gas);
      return run.result.execResult.exceptionError === undefined ? { failed: false, run } : { failed: true, run };
    } catch (error) {
      // A limit below the intrinsic gas is a failed attempt, not an error (geth: ErrIntrinsicGas).
      if (error instanceof RpcError && /gas ?limit is too low|intrinsic/i.test(error.message)) return { failed: true, run: undefined };
      throw error;
    }
  };

  let hi = request.gas ?? block.header.gasLimit;
  if (hasFeeFields(request)) {
    const feeCap = request.gasPrice ?? request.maxFeePerGas ?? 0n;
    if (feeCap > 0n) {
      const from = request.from === undefined ? undefined : createAddressFromString(request.from);
      const balance = from === undefined ? 0n : ((await vm.stateManager.getAccount(from))?.balance ?? 0n);
      const value = request.value ?? 0n;
      if (value > balance) throw insufficientFundsForTransfer();
      const allowance = (balance - value) / feeCap;
      if (hi > allowance) hi = allowance;
    }
  }

  if (await isPlainTransfer(vm, request)) {
    const transfer = await attempt(TX_GAS);
    if (!transfer.failed) return { gas: TX_GAS, executions };
  }

  const first = await attempt(hi);
  if (first.failed) {
    const failure = first.run?.result.execResult;
    if (failure?.exceptionError?.error === "revert") {
      throw executionReverted(`0x${Buffer.from(failure.returnValue).toString("hex")}`);
    }
    if (failure === undefined || /out of gas/i.test(failure.exceptionError?.error ?? "")) throw gasRequiredExceedsAllowance(hi);
    throw new RpcError(ErrorCode.server, failure.exceptionError!.error);
  }

  const used = first.run.result.totalGasSpent;
  let lo = used - 1n;
  const optimistic = ((used + first.run.result.gasRefund + CALL_STIPEND) * 64n) / 63n;
  if (optimistic < hi) {
    if ((await attempt(optimistic)).failed) lo = optimistic;
    else hi = optimistic;
  }
  while (lo + 1n < hi) {
    if ((hi - lo) * 1000n < hi * ERROR_RATIO_PER_MILLE) break;
    let mid = (hi + lo) / 2n;
    // Most txs need little more than they used: search near the low end first.
    if (mid > lo * 2n) mid = lo * 2n;
    if ((await attempt(mid)).failed) lo = mid;
    else hi = mid;
  }
  return { gas: hi, executions };
}

/** A value transfer to an address without code: 21000 is all it can need. */
async function isPlainTransfer(vm: VM, request: CallRequest): Promise<boolean> {
  const data = request.data ?? request.input;
  if (request.to === undefined || request.to === null || (data !== undefined && data.length > 0)) return false;
  if (request.authorizationList !== undefined && request.authorizationList.length > 0) return false;
  const code = await vm.stateManager.getCode(createAddressFromString(request.to));
  return code.length === 0;
}
