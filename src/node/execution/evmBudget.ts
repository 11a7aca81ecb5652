/**
 * Bounded EVM execution. @ethereumjs/evm's interpreter awaits every step, but only as microtasks:
 * a looping call never lets the event loop turn, so one `eth_call` used to stop every client and
 * the fragment timer until its gas ran out. This patch makes the interpreter
 *   - yield to the event loop (setImmediate) once it has run for SLICE_MS, for every execution
 *     (dry runs and block txs alike), so other clients and the sequencer keep their cadence;
 *   - stop a dry run whose wall-time budget is spent (go-ethereum's `--rpc.evmtimeout`): the
 *     frames unwind as an exceptional halt, so every journal checkpoint is reverted by ethereumjs
 *     itself, and the caller answers "execution aborted (timeout = 5s)" as geth does
 *     (internal/ethapi/api.go, doCall).
 * Every unbounded execution runs backward JUMP/JUMPI or nests calls/creates, so those opcodes are
 * where the clock is read: one counter per such opcode, a clock read every CHECK_EVERY of them.
 *
 * The hook before those opcodes is src/node/ethereumjs/opcodeHooks.ts (a patch of @ethereumjs/evm
 * 10.1.3); test/budgets.test.ts fails if it stops working (a looping call would then never answer
 * the timeout).
 */
import { EVMError } from "@ethereumjs/evm";

import { ExecutionTimeoutError } from "../common/errors.ts";
import { EVM_BUDGET as BUDGET } from "../ethereumjs/evmFields.ts";
import { hookOpcodes } from "../ethereumjs/opcodeHooks.ts";

import type { EVM } from "@ethereumjs/evm";
import type { VM } from "@ethereumjs/vm";

/** Longest the interpreter holds the event loop before it yields, in ms. */
export const SLICE_MS = 20;
/** Jumps and calls between two clock reads (a read costs ~50 ns; a jump ~1 µs). */
const CHECK_EVERY = 128;
/** JUMP, JUMPI, CREATE, CALL, CALLCODE, DELEGATECALL, CREATE2, STATICCALL. */
const CHECKED_OPCODES = [0x56, 0x57, 0xf0, 0xf1, 0xf2, 0xf4, 0xf5, 0xfa];

// Taken at load: a test that installs fake timers must not stop the interpreter from yielding.
const setImmediateReal = globalThis.setImmediate;
const performanceNow = performance.now.bind(performance);

interface Budget {
  deadline: number;
  timedOut: boolean;
}

type Budgeted = EVM & { [BUDGET]?: Budget };

let ticks = 0;
/** When the current run of the event loop's turn began, as far as the interpreter knows. */
let sliceStart = performanceNow();

/**
 * Executions waiting for their next slice. One resumes per turn of the event loop, so that with
 * several heavy calls under way, timers (the fragment schedule) and I/O (other clients) still get
 * a turn every SLICE_MS rather than after every call's slice.
 */
const waiting: (() => void)[] = [];
let pumping = false;

function pump(): void {
  const next = waiting.shift();
  if (next !== undefined) {
    sliceStart = performanceNow();
    next();
  }
  if (waiting.length > 0) setImmediateReal(pump);
  else pumping = false;
}

const yieldNow = () =>
  new Promise<void>((resolve) => {
    waiting.push(resolve);
    if (!pumping) {
      pumping = true;
      setImmediateReal(pump);
    }
  });

/** Called before each checked opcode: undefined to go on at once, a promise to wait for, or throws the abort. */
function checkpoint(evm: Budgeted): Promise<void> | undefined {
  const budget = evm[BUDGET];
  if (budget?.timedOut === true) throw new EVMError(TIMEOUT_HALT);
  if (++ticks < CHECK_EVERY) return undefined;
  ticks = 0;
  const now = performanceNow();
  if (budget !== undefined && now > budget.deadline) {
    budget.timedOut = true;
    throw new EVMError(TIMEOUT_HALT);
  }
  return now - sliceStart >= SLICE_MS ? yieldNow() : undefined;
}

/** The exceptional halt that unwinds an aborted dry run (never seen by clients). */
const TIMEOUT_HALT = "execution timeout" as ConstructorParameters<typeof EVMError>[0];

hookOpcodes(CHECKED_OPCODES, (evm) => checkpoint(evm as Budgeted));

/** Go's time.Duration text for whole milliseconds ("5s", "500ms", "1m30s"), as geth prints it. */
export function goDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = (ms % 60_000) / 1000;
  return `${hours > 0 ? `${hours}h` : ""}${hours > 0 || minutes > 0 ? `${minutes}m` : ""}${seconds}s`;
}

/** go-ethereum's answer to a dry run stopped by `--rpc.evmtimeout`. */
export const executionTimeout = (ms: number) => new ExecutionTimeoutError(ms, goDuration(ms));

/**
 * Runs `work` (every dry run of one eth_call or eth_estimateGas) on `vm` with a wall-time budget
 * of `ms` (0: none). Past it, the running execution halts and `work`'s outcome, whatever it is,
 * becomes the timeout error. One budget per VM at a time: its reads are serialised.
 */
export async function withTimeBudget<T>(vm: VM, ms: number, work: () => Promise<T>): Promise<T> {
  if (ms <= 0) return work();
  const evm = vm.evm as Budgeted;
  const budget: Budget = { deadline: performanceNow() + ms, timedOut: false };
  evm[BUDGET] = budget;
  try {
    const result = await work();
    if (budget.timedOut) throw executionTimeout(ms);
    return result;
  } catch (error) {
    throw budget.timedOut ? executionTimeout(ms) : error;
  } finally {
    // Unset, not deleted: a deleted field would give the EVM a hidden class of its own (evmFields.ts).
    if (evm[BUDGET] === budget) evm[BUDGET] = undefined;
  }
}
