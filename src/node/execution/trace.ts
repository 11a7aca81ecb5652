/**
 * Transaction tracing from the interpreter's events (debug_traceTransaction, debug_traceCall): what
 * every tracer shares. The tracers are go-ethereum's: the default struct logger (structLogger.ts,
 * eth/tracers/logger/logger.go) and the native call tracer (callTracer.ts, eth/tracers/native/call.go).
 */
import type { EVMResult, InterpreterStep, Message } from "@ethereumjs/evm";
import type { VM } from "@ethereumjs/vm";

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

/** What a tracer hears of a run: every step (awaited when it takes `resolve`), and each message's start and end. */
export interface TraceListeners {
  step(step: InterpreterStep, resolve?: () => void): void | Promise<void>;
  beforeMessage(message: Message): void;
  afterMessage(result: EVMResult): void;
}

/** `Tracer.attach` for tracers that listen to the EVM's events: starts listening, returns how to stop. */
export function listenTo(vm: VM, listeners: TraceListeners): () => void {
  const events = vm.evm.events!;
  events.on("step", listeners.step);
  events.on("beforeMessage", listeners.beforeMessage);
  events.on("afterMessage", listeners.afterMessage);
  return () => {
    events.off("step", listeners.step);
    events.off("beforeMessage", listeners.beforeMessage);
    events.off("afterMessage", listeners.afterMessage);
  };
}

/** The opcodes that open a call frame with the gas their first stack item asks for. */
export const CALL_OPCODES: ReadonlySet<string> = new Set(["CALL", "CALLCODE", "DELEGATECALL", "STATICCALL"]);

/** A step's cost before it runs: its static and dynamic gas (ethereumjs' `dynamicFee` holds both). */
export const stepCost = (step: InterpreterStep): bigint => step.opcode.dynamicFee ?? BigInt(step.opcode.fee);

/**
 * The gas a CALL-family step gives its callee (before the 2300 stipend of a value transfer):
 * what it asks for, at most all but one 64th of what is left after the step's own cost (EIP-150,
 * go-ethereum's callGas in core/vm/gas.go).
 */
export function forwardedGas(step: InterpreterStep): bigint {
  const cost = stepCost(step);
  if (cost > step.gasLeft) return 0n;
  const available = step.gasLeft - cost;
  const most = available - available / 64n;
  const asked = step.stack[step.stack.length - 1] ?? 0n;
  return asked < most ? asked : most;
}

/**
 * A step's cost as go-ethereum's tracers report it: a CALL-family step's includes the gas it
 * forwards (geth's gasCall returns both), every other step's is its own.
 */
export const reportedCost = (step: InterpreterStep): bigint => (CALL_OPCODES.has(step.opcode.name) ? stepCost(step) + forwardedGas(step) : stepCost(step));

/** `length` bytes of the step's memory from `offset`, zeros past its end (the memory a step sees is not expanded yet). */
export function memorySlice(step: InterpreterStep, offset: bigint, length: bigint): Uint8Array {
  const out = new Uint8Array(Number(length));
  if (offset < BigInt(step.memory.length)) out.set(step.memory.subarray(Number(offset), Number(offset + length)));
  return out;
}

/** A 0x quantity. */
export const quantityOf = (value: bigint | number): string => `0x${value.toString(16)}`;
