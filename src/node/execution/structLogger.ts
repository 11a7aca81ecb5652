/**
 * The default tracer of debug_traceTransaction and debug_traceCall: one entry per executed opcode.
 * Two shapes, chosen by the `traceFormat` option (docs/dev-methods.md, "Struct logs"):
 *
 * - `geth`: go-ethereum's (eth/tracers/logger/logger.go `toLegacyJSON`, read at v1.17.5, the
 *   execution-apis structLog format): stack items as 0x quantities, memory (with `enableMemory`)
 *   as 0x-prefixed 32-byte words, `storage` at SLOAD and SSTORE only (0x-prefixed 32-byte keys and
 *   values, the running contract's slots seen so far), `returnData` with `enableReturnData`,
 *   `refund` when not 0, `error` on the step that failed before it ran; `returnValue` as 0x hex.
 *   Hardhat 3's network answers this shape too.
 * - `hardhat`: Hardhat 2's node (hardhat-core's edrRpcDebugTraceToHardhat): stack items as 64
 *   hex digits without 0x, memory as 64-digit words and `storage` (the running contract's slots
 *   seen so far) on every step unless `disableMemory` / `disableStack` / `disableStorage`,
 *   `error: { message }`, `returnValue` as hex without 0x.
 */
import { bigIntToBytes, bytesToBigInt, setLengthLeft } from "@ethereumjs/util";

import { flatHex, unprefixedHex as unprefixed } from "../common/hex.ts";
import { gethErrorText } from "./vmErrors.ts";
import { listenTo, reportedCost } from "./trace.ts";

import type { EVMResult, InterpreterStep } from "@ethereumjs/evm";
import type { Tracer } from "./trace.ts";

export const TRACE_FORMATS = ["geth", "hardhat"] as const;
export type TraceFormat = (typeof TRACE_FORMATS)[number];

export interface StructLoggerOptions {
  disableStack?: boolean | undefined;
  disableStorage?: boolean | undefined;
  /** geth's switch for memory (off by default). */
  enableMemory?: boolean | undefined;
  /** Hardhat 2's switch for memory (on by default). */
  disableMemory?: boolean | undefined;
  enableReturnData?: boolean | undefined;
}

export interface StructLog {
  pc: number;
  op: string;
  gas: number;
  gasCost: number;
  depth: number;
  error?: string | { message: string };
  stack?: string[];
  returnData?: string;
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

const word = (value: bigint) => value.toString(16).padStart(64, "0");

/** Failures go-ethereum reports on the step itself: they stop it before it runs (core/vm/interpreter.go, Run). */
const STEP_FAILURES = new Set(["out of gas", "stack underflow", "stack overflow"]);

/** The words of a step's memory (always whole words: the interpreter grows it by 32 bytes). */
function memoryWords(memory: Uint8Array, prefix: string): string[] {
  const words: string[] = [];
  for (let at = 0; at < memory.length; at += 32) words.push(prefix + unprefixed(memory.subarray(at, at + 32)));
  return words;
}

/** The contract's slots seen so far, its keys in order (as go-ethereum's map encodes). */
function snapshot(storage: Map<string, string>, prefix: string): Record<string, string> {
  return Object.fromEntries([...storage.keys()].sort().map((key) => [prefix + key, prefix + storage.get(key)!]));
}

export function structLogger(options: StructLoggerOptions = {}, format: TraceFormat = "geth"): Tracer<StructLoggerResult> {
  const geth = format === "geth";
  const prefix = geth ? "0x" : "";
  const logs: StructLog[] = [];
  /** Slots seen per storage context (the address whose storage an SLOAD or SSTORE reads). */
  const storages = new Map<string, Map<string, string>>();
  /** The last call's return data per depth (geth's interpreter.returnData): set when a frame returns to it. */
  const returnData: Uint8Array[] = [];
  const withMemory = geth ? options.enableMemory === true : options.disableMemory !== true;
  const withStorage = options.disableStorage !== true;

  const storageOf = (address: string) => {
    let storage = storages.get(address);
    if (storage === undefined) storages.set(address, (storage = new Map()));
    return storage;
  };

  const onStep = async (step: InterpreterStep, resolve?: () => void) => {
    try {
      await record(step);
    } finally {
      resolve?.();
    }
  };

  const record = async (step: InterpreterStep) => {
    const name = step.opcode.name;
    let storage: Record<string, string> | undefined;
    if (withStorage) {
      const slots = storageOf(step.address.toString());
      const top = step.stack.length - 1;
      if (name === "SSTORE" && top >= 1) slots.set(word(step.stack[top]!), word(step.stack[top - 1]!));
      if (name === "SLOAD" && top >= 0) {
        // The value the slot holds now, as geth reads it for the step (StateDB.GetState), before SLOAD runs.
        const slot = step.stack[top]!;
        const value = await step.stateManager.getStorage(step.address, setLengthLeft(bigIntToBytes(slot), 32));
        slots.set(word(slot), word(bytesToBigInt(value)));
      }
      if (!geth || name === "SLOAD" || name === "SSTORE") storage = snapshot(slots, prefix);
    }
    const stack = options.disableStack === true ? undefined : step.stack.map((item) => (geth ? `0x${item.toString(16)}` : word(item)));
    const memory = withMemory && (!geth || step.memory.length > 0) ? memoryWords(step.memory, prefix) : undefined;
    const base = { pc: step.pc, op: name, gas: Number(step.gasLeft), gasCost: Number(reportedCost(step)), depth: step.depth + 1 };
    let log: StructLog;
    if (geth) {
      log = base;
      if (stack !== undefined) log.stack = stack;
      const lastReturn = returnData[step.depth];
      if (options.enableReturnData === true && lastReturn !== undefined && lastReturn.length > 0) log.returnData = flatHex(lastReturn);
      if (memory !== undefined) log.memory = memory;
      if (storage !== undefined) log.storage = storage;
      if (step.gasRefund > 0n) log.refund = Number(step.gasRefund);
    } else {
      // Hardhat 2's key order.
      log = { depth: base.depth, gas: base.gas, gasCost: base.gasCost, op: base.op, pc: base.pc };
      if (memory !== undefined) log.memory = memory;
      if (stack !== undefined) log.stack = stack;
      if (storage !== undefined) log.storage = storage;
    }
    logs.push(log);
  };

  /** Depths of the frames running, innermost last (messages carry theirs; results do not). */
  const frames: number[] = [];
  const onBefore = (message: { depth: number }) => {
    frames.push(message.depth);
    returnData[message.depth] = new Uint8Array();
  };
  const onAfter = (result: EVMResult) => {
    const depth = frames.pop();
    if (depth === undefined) return;
    const { execResult } = result;
    const error = execResult.exceptionError?.error;
    // A failure that stopped the frame's last step before it ran: that step carries it.
    const last = logs[logs.length - 1];
    if (error !== undefined && STEP_FAILURES.has(error) && last !== undefined && last.error === undefined && last.depth === depth + 1) {
      const text = gethErrorText(error);
      if (geth) {
        // geth's key order: the error right after the depth.
        const { pc, op, gas, gasCost, depth: at, ...rest } = last;
        logs[logs.length - 1] = { pc, op, gas, gasCost, depth: at, error: text, ...rest };
      } else {
        last.error = { message: text };
      }
    }
    // The caller's return data from now on (geth: a CREATE's only when it reverted).
    if (depth > 0) returnData[depth - 1] = result.createdAddress !== undefined && error === undefined ? new Uint8Array() : execResult.returnValue;
  };

  return {
    attach: (vm) => listenTo(vm, { step: onStep, beforeMessage: onBefore, afterMessage: onAfter }),
    result({ gasUsed, result }) {
      const error = result.exceptionError?.error;
      // The return data, or the revert data; nothing for other failures.
      const returned = error === undefined || error === "revert" ? result.returnValue : new Uint8Array();
      if (geth) return { gas: Number(gasUsed), failed: error !== undefined, returnValue: flatHex(returned), structLogs: logs };
      return { failed: error !== undefined, gas: Number(gasUsed), returnValue: unprefixed(returned), structLogs: logs };
    },
  };
}
