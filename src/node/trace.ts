/**
 * Transaction tracing from the interpreter's events (debug_traceTransaction, debug_traceCall):
 * go-ethereum's default struct logger (eth/tracers/logger/logger.go) and its native call tracer
 * (eth/tracers/native/call.go), in their JSON shapes.
 */
import { bytesToHex } from "@ethereumjs/util";

import { revertReasonOf } from "./errors.ts";

import type { EVMResult, InterpreterStep, Message } from "@ethereumjs/evm";
import type { VM } from "@ethereumjs/vm";

export interface StructLoggerOptions {
  disableStack?: boolean | undefined;
  disableStorage?: boolean | undefined;
  enableMemory?: boolean | undefined;
}

export interface StructLog {
  pc: number;
  op: string;
  gas: number;
  gasCost: number;
  depth: number;
  stack?: string[];
  memory?: string[];
  storage?: Record<string, string>;
  refund?: number;
}

export interface StructLoggerResult {
  gas: number;
  failed: boolean;
  returnValue: string;
  structLogs: StructLog[];
}

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

/** What a traced run returns: the tx's outcome, for the result's top-level fields. */
export interface TracedOutcome {
  from: string;
  gasLimit: bigint;
  gasUsed: bigint;
  result: EVMResult["execResult"];
}

/** A tracer listens to one run on `vm` and then builds its result. */
export interface Tracer<T> {
  attach(vm: VM): () => void;
  result(outcome: TracedOutcome): T;
}

const hex = (value: bigint | number) => `0x${value.toString(16)}`;
const word = (value: bigint) => value.toString(16).padStart(64, "0");
const unprefixed = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");

/** The error text go-ethereum gives a failed frame (core/vm/errors.go) for ethereumjs' error. */
function gethError(error: string): string {
  switch (error) {
    case "revert":
      return "execution reverted";
    case "out of gas":
      return "out of gas";
    case "invalid opcode":
      return "invalid opcode";
    case "stack underflow":
      return "stack underflow";
    case "stack overflow":
      return "stack limit reached 1024";
    case "invalid JUMP":
      return "invalid jump destination";
    case "static state change":
      return "write protection";
    default:
      return error;
  }
}

/**
 * geth's struct logger: one entry per executed opcode with the gas before it and its cost, the
 * 1-based call depth, the stack (0x quantities, bottom first), memory (32-byte words, only with
 * enableMemory) and, at SLOAD and SSTORE, the storage of the running contract seen so far.
 */
export function structLogger(options: StructLoggerOptions = {}): Tracer<StructLoggerResult> {
  const logs: StructLog[] = [];
  const storages = new Map<string, Record<string, string>>();
  // SLOAD's value is the stack top after it runs: filled in at the next step.
  let pendingLoad: { log: StructLog; address: string; slot: string } | undefined;

  const onStep = (step: InterpreterStep) => {
    if (pendingLoad !== undefined) {
      const value = step.stack[step.stack.length - 1];
      if (value !== undefined) {
        const storage = storages.get(pendingLoad.address)!;
        storage[pendingLoad.slot] = word(value);
        pendingLoad.log.storage = { ...storage };
      }
      pendingLoad = undefined;
    }
    const log: StructLog = {
      pc: step.pc,
      op: step.opcode.name,
      gas: Number(step.gasLeft),
      gasCost: Number(step.opcode.dynamicFee ?? BigInt(step.opcode.fee)),
      depth: step.depth + 1,
    };
    if (options.disableStack !== true) log.stack = step.stack.map((item) => hex(item));
    if (options.enableMemory === true) {
      const memory: string[] = [];
      for (let at = 0; at + 32 <= step.memory.length; at += 32) memory.push(unprefixed(step.memory.subarray(at, at + 32)));
      log.memory = memory;
    }
    if (options.disableStorage !== true && (step.opcode.name === "SLOAD" || step.opcode.name === "SSTORE")) {
      const address = step.address.toString();
      let storage = storages.get(address);
      if (storage === undefined) storages.set(address, (storage = {}));
      const top = step.stack.length - 1;
      if (step.opcode.name === "SSTORE" && top >= 1) {
        storage[word(step.stack[top]!)] = word(step.stack[top - 1]!);
        log.storage = { ...storage };
      } else if (step.opcode.name === "SLOAD" && top >= 0) {
        pendingLoad = { log, address, slot: word(step.stack[top]!) };
        log.storage = { ...storage };
      }
    }
    if (step.gasRefund > 0n) log.refund = Number(step.gasRefund);
    logs.push(log);
  };

  return {
    attach(vm) {
      vm.evm.events!.on("step", onStep);
      return () => vm.evm.events!.off("step", onStep);
    },
    result({ gasUsed, result }) {
      const error = result.exceptionError?.error;
      return {
        gas: Number(gasUsed),
        failed: error !== undefined,
        // geth: the return data, or the revert data; nothing for other failures.
        returnValue: error === undefined || error === "revert" ? unprefixed(result.returnValue) : "",
        structLogs: logs,
      };
    },
  };
}

const CALL_OPCODES = new Set(["CALL", "CALLCODE", "DELEGATECALL", "STATICCALL", "CREATE", "CREATE2"]);

/**
 * geth's callTracer: the call tree, each frame with its type (the opcode that made it), from, to,
 * gas given and used, input, output, error and the decoded revert reason.
 */
export function callTracer(config: { onlyTopCall?: boolean | undefined } = {}): Tracer<CallFrame> {
  const stack: CallFrame[] = [];
  let root: CallFrame | undefined;
  let lastCallOp = "CALL";

  const onStep = (step: InterpreterStep) => {
    if (CALL_OPCODES.has(step.opcode.name)) lastCallOp = step.opcode.name;
  };
  const onBefore = (message: Message) => {
    const type = message.depth === 0 ? (message.to === undefined ? "CREATE" : "CALL") : lastCallOp;
    const frame: CallFrame = {
      type,
      from: message.caller.toString(),
      gas: hex(message.gasLimit),
      gasUsed: "0x0",
      ...(message.to !== undefined && { to: message.to.toString() }),
      input: bytesToHex(message.data),
    };
    if (type !== "STATICCALL" && type !== "DELEGATECALL") frame.value = hex(message.value);
    if (stack.length === 0) root = frame;
    else if (config.onlyTopCall !== true) (stack[stack.length - 1]!.calls ??= []).push(frame);
    stack.push(frame);
  };
  const onAfter = (result: EVMResult) => {
    const frame = stack.pop();
    if (frame === undefined) return;
    const { execResult } = result;
    frame.gasUsed = hex(execResult.executionGasUsed);
    if (result.createdAddress !== undefined && frame.to === undefined) frame.to = result.createdAddress.toString();
    finish(frame, execResult);
  };

  return {
    attach(vm) {
      const events = vm.evm.events!;
      events.on("step", onStep);
      events.on("beforeMessage", onBefore);
      events.on("afterMessage", onAfter);
      return () => {
        events.off("step", onStep);
        events.off("beforeMessage", onBefore);
        events.off("afterMessage", onAfter);
      };
    },
    result({ from, gasLimit, gasUsed, result }) {
      const top = root ?? { type: "CALL", from, gas: "0x0", gasUsed: "0x0", input: "0x" };
      // The top frame is the tx: its sender, its gas limit and the gas it used (intrinsic included).
      top.from = from;
      top.gas = hex(gasLimit);
      top.gasUsed = hex(gasUsed);
      finish(top, result);
      return top;
    },
  };
}

function finish(frame: CallFrame, execResult: EVMResult["execResult"]): void {
  const error = execResult.exceptionError?.error;
  delete frame.output;
  delete frame.error;
  delete frame.revertReason;
  if (error === undefined) {
    if (execResult.returnValue.length > 0) frame.output = bytesToHex(execResult.returnValue);
    return;
  }
  frame.error = gethError(error);
  if (error === "revert" && execResult.returnValue.length > 0) {
    frame.output = bytesToHex(execResult.returnValue);
    const reason = revertReasonOf(frame.output);
    if (reason !== undefined) frame.revertReason = reason;
  }
}
