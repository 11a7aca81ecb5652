/**
 * go-ethereum's native callTracer (eth/tracers/native/call.go, and where core/vm/evm.go and
 * instructions.go call it; read at v1.17.5): the call tree, each frame with the opcode that made it
 * (`type`), from, to, the gas given and used, input, output, error, the decoded revert reason and
 * the value moved. Like geth's, it has a frame for a call that fails before its code runs (a value
 * it cannot pay, the depth limit: ethereumjs opens no message for those) and one for each
 * SELFDESTRUCT (to the beneficiary, the balance moved). `withLog` is not supported: frames carry
 * no logs.
 */
import { bytesToHex } from "@ethereumjs/util";

import { revertReasonOf } from "../common/errors.ts";
import { flatHex } from "../common/hex.ts";
import { gethErrorText } from "./vmErrors.ts";
import { forwardedGas, listenTo, memorySlice, quantityOf, stepCost } from "./trace.ts";

import type { EVMResult, InterpreterStep, Message } from "@ethereumjs/evm";
import type { Tracer } from "./trace.ts";

export interface CallFrame {
  type: string;
  from: string;
  gas: string;
  gasUsed: string;
  to?: string;
  input: string;
  output?: string;
  error?: string;
  revertReason?: string;
  calls?: CallFrame[];
  value?: string;
}

const FRAME_OPCODES = new Set(["CALL", "CALLCODE", "DELEGATECALL", "STATICCALL", "CREATE", "CREATE2"]);
/** go-ethereum's (and ethereumjs') call depth limit (params.CallCreateDepth). */
const MAX_DEPTH = 1024;
/** go-ethereum's CallStipend: what a value transfer adds to the gas a call forwards. */
const CALL_STIPEND = 2300n;

/** A frame the step is about to open that will fail before its code runs, kept until the step is known to have run. */
interface EarlyFailure {
  depth: number;
  frame: CallFrame;
  input: () => Uint8Array;
}

const addressWord = (value: bigint) => `0x${(value & ((1n << 160n) - 1n)).toString(16).padStart(40, "0")}`;

/**
 * The frame a CALL-family or CREATE step would open, when ethereumjs will not open it (the step's
 * contract cannot pay the value, or the depth limit is reached): geth opens it and closes it at
 * once with the error (core/vm/evm.go Call and create: captureBegin comes before both checks).
 */
function earlyFailure(step: InterpreterStep): EarlyFailure | undefined {
  const name = step.opcode.name;
  const stack = step.stack;
  const at = (i: number) => stack[stack.length - 1 - i] ?? 0n;
  const creates = name === "CREATE" || name === "CREATE2";
  const value = creates || name === "CALL" || name === "CALLCODE" ? (creates ? at(0) : at(2)) : undefined;
  const tooDeep = step.depth >= MAX_DEPTH;
  // The interpreter checks the value against the balance of the account running (its env's), as here.
  if (!tooDeep && (value === undefined || value <= step.account.balance)) return undefined;
  const from = step.address.toString();
  const error = tooDeep ? "max call depth exceeded" : "insufficient balance for transfer";
  if (creates) {
    // geth's opCreate: all but one 64th of the gas left after the step's cost.
    const left = step.gasLeft - stepCost(step);
    const frame: CallFrame = { type: name, from, gas: quantityOf(left - left / 64n), gasUsed: "0x0", input: "0x", error, value: quantityOf(value!) };
    return { depth: step.depth, frame, input: () => memorySlice(step, at(1), at(2)) };
  }
  const args = value === undefined ? [at(2), at(3)] : [at(3), at(4)];
  const gas = forwardedGas(step) + (value !== undefined && value > 0n ? CALL_STIPEND : 0n);
  const frame: CallFrame = { type: name, from, gas: quantityOf(gas), gasUsed: "0x0", to: addressWord(at(1)), input: "0x", error };
  if (value !== undefined) frame.value = quantityOf(value);
  return { depth: step.depth, frame, input: () => memorySlice(step, args[0]!, args[1]!) };
}

export function callTracer(config: { onlyTopCall?: boolean | undefined } = {}): Tracer<CallFrame> {
  const stack: CallFrame[] = [];
  let root: CallFrame | undefined;
  let lastCallOp = "CALL";
  /** A call the last step made that will fail before running (emitted once the step is known to have run). */
  let failing: EarlyFailure | undefined;
  /** A SELFDESTRUCT the last step ran: its frame, added when the frame that ran it ends without an error. */
  let destructed: { depth: number; frame: CallFrame } | undefined;

  const nest = (frame: CallFrame) => {
    if (config.onlyTopCall !== true) (stack[stack.length - 1]!.calls ??= []).push(frame);
  };
  /** The early failure of the last step, once its frame goes on (the step ran: it did not run out of gas). */
  const settleFailing = () => {
    if (failing === undefined) return;
    const { frame, input } = failing;
    failing = undefined;
    frame.input = flatHex(input());
    nest(frame);
  };

  const onStep = async (step: InterpreterStep, resolve?: () => void) => {
    try {
      if (failing !== undefined && step.depth === failing.depth) settleFailing();
      const name = step.opcode.name;
      if (FRAME_OPCODES.has(name)) {
        lastCallOp = name;
        failing = earlyFailure(step);
      } else if (name === "SELFDESTRUCT") {
        // geth's opSelfdestruct: a frame from the contract to the beneficiary, moving its whole balance, no gas.
        const balance = (await step.stateManager.getAccount(step.address))?.balance ?? 0n;
        const beneficiary = addressWord(step.stack[step.stack.length - 1] ?? 0n);
        destructed = {
          depth: step.depth,
          frame: { type: "SELFDESTRUCT", from: step.address.toString(), gas: "0x0", gasUsed: "0x0", to: beneficiary, input: "0x", value: quantityOf(balance) },
        };
      }
    } finally {
      resolve?.();
    }
  };
  const onBefore = (message: Message) => {
    // The step opened its frame after all.
    failing = undefined;
    const type = message.depth === 0 ? (message.to === undefined ? "CREATE" : "CALL") : lastCallOp;
    const frame: CallFrame = {
      type,
      from: message.caller.toString(),
      gas: quantityOf(message.gasLimit),
      gasUsed: "0x0",
      ...(message.to !== undefined && { to: message.to.toString() }),
      input: bytesToHex(message.data),
    };
    if (type !== "STATICCALL" && type !== "DELEGATECALL") frame.value = quantityOf(message.value);
    if (stack.length === 0) root = frame;
    else nest(frame);
    stack.push(frame);
  };
  const onAfter = (result: EVMResult) => {
    const { execResult } = result;
    const frame = stack[stack.length - 1];
    if (frame === undefined) return;
    const depth = stack.length - 1;
    // The frame's last step made a call that failed early, or self-destructed; it ended after it.
    if (execResult.exceptionError === undefined) {
      if (failing?.depth === depth) settleFailing();
      if (destructed?.depth === depth) nest(destructed.frame);
    }
    if (failing?.depth === depth) failing = undefined;
    if (destructed?.depth === depth) destructed = undefined;
    stack.pop();
    frame.gasUsed = quantityOf(execResult.executionGasUsed);
    if (result.createdAddress !== undefined && frame.to === undefined) frame.to = result.createdAddress.toString();
    finish(frame, execResult);
  };

  return {
    attach: (vm) => listenTo(vm, { step: onStep, beforeMessage: onBefore, afterMessage: onAfter }),
    result({ from, gasLimit, gasUsed, result }) {
      const top = root ?? { type: "CALL", from, gas: "0x0", gasUsed: "0x0", input: "0x" };
      // The top frame is the tx: its sender, its gas limit and the gas it used (intrinsic included).
      top.from = from;
      top.gas = quantityOf(gasLimit);
      top.gasUsed = quantityOf(gasUsed);
      finish(top, result);
      return inGethOrder(top);
    },
  };
}

/** The frame's keys in go-ethereum's order (its gencodec'd callFrame: from … calls, value, type last), for byte-equal JSON. */
function inGethOrder(frame: CallFrame): CallFrame {
  const { type, from, gas, gasUsed, to, input, output, error, revertReason, calls, value } = frame;
  return {
    from,
    gas,
    gasUsed,
    ...(to !== undefined && { to }),
    input,
    ...(output !== undefined && { output }),
    ...(error !== undefined && { error }),
    ...(revertReason !== undefined && { revertReason }),
    ...(calls !== undefined && { calls: calls.map(inGethOrder) }),
    ...(value !== undefined && { value }),
    type,
  };
}

/** geth's processOutput: the output of a success; the error, and for a revert its data and reason. */
function finish(frame: CallFrame, execResult: EVMResult["execResult"]): void {
  const error = execResult.exceptionError?.error;
  delete frame.output;
  delete frame.error;
  delete frame.revertReason;
  if (error === undefined) {
    if (execResult.returnValue.length > 0) frame.output = bytesToHex(execResult.returnValue);
    return;
  }
  const runState = execResult.runState;
  frame.error = gethErrorText(error, runState === undefined ? undefined : runState.code[runState.programCounter]);
  // A failed creation has no address (geth clears `to`).
  if (frame.type === "CREATE" || frame.type === "CREATE2") delete frame.to;
  if (error === "revert" && execResult.returnValue.length > 0) {
    frame.output = bytesToHex(execResult.returnValue);
    const reason = revertReasonOf(frame.output);
    if (reason !== undefined) frame.revertReason = reason;
  }
}
