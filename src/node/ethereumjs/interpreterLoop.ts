/**
 * The interpreter's step loop without a promise per opcode.
 *
 * @ethereumjs/evm 10.1.3 (dist/esm/interpreter.js) runs each opcode through `await this.runStep()`,
 * an async function, and awaits every dynamic-gas handler (all are `async function`s, though most
 * only do arithmetic on the stack and memory size). Each await is a promise and a microtask: in a
 * tight loop they cost more than the opcodes. This loop does what `Interpreter.run` and `runStep`
 * do, step for step (the jump analysis, the opcode's fee and dynamic gas, the invalid-opcode trap,
 * `useGas`, the program counter, the handler, the same errors), and awaits only where there is
 * something to wait for: the state-reading gas handlers (SLOAD, SSTORE, CALL, BALANCE, ...) and
 * the handlers that return a promise. The dynamic gas of the memory and arithmetic opcodes is
 * computed synchronously here (`syncGasHandlers`), with the package's own helpers (`subMemUsage`,
 * `divCeil`, `trap` from its opcodes/util.js); test/interpreterLoop.test.ts runs every one of
 * them against the package's handler on random stacks and memory sizes, so an upgrade that changes
 * a formula fails there.
 *
 * Where the package's loop does more than this one, it runs instead: EOF code (EIP-3540), a
 * `step` listener (traces) or debug logging, the performance profiler, and the EIPs whose
 * bookkeeping lives in `runStep` (6800/7864 code-chunk witnesses, 7928 access lists, 8037 state
 * gas), none of which a dev chain activates today.
 *
 * STOP, RETURN and REVERT end the frame here without the throw their package handlers end it with
 * (see `Halts`).
 *
 * It also records, when an estimate asks (gasRecord.ts), what each step needed of the gas.
 *
 * Patch of @ethereumjs/evm 10.1.3: `Interpreter.prototype.run` in both builds (the class is not
 * exported; it is reached beside the package's entry points as jumpAnalysis.ts does, which also
 * says why the CommonJS build is patched only once something else has loaded it).
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

import { EVMError } from "@ethereumjs/evm";
import { bytesToBigInt, EthereumJSErrorWithoutCode } from "@ethereumjs/util";

import { evmFile, installFramePool } from "./framePool.ts";
import { installWordOpcodes } from "./wordOpcodes.ts";
import { interpreterModules, loadedCommonJs } from "./jumpAnalysis.ts";
import { leftForShare, recordingOf } from "./gasRecord.ts";

import type { Common } from "@ethereumjs/common";
import type { GasRecording, GasThreshold } from "./gasRecord.ts";

// ── The package's shapes this loop relies on (10.1.3) ───────────────────────────────────────────

interface OpcodeInfo {
  code: number;
  fee: number;
  feeBigInt: bigint;
  isAsync: boolean;
  dynamicGas: boolean;
  isInvalid: boolean;
}

type GasHandler = (runState: RunState, gas: bigint, common: Common) => Promise<bigint> | bigint;

interface OpcodeEntry {
  opcodeInfo: OpcodeInfo;
  opHandler: (runState: RunState, common: Common) => unknown;
  gasHandler?: GasHandler;
}

interface Stack {
  length: number;
  peek(count?: number): bigint[];
  popN(count: number): bigint[];
}

export interface RunState {
  programCounter: number;
  memory: { read(offset: number, size: number): Uint8Array };
  opCode: number;
  code: Uint8Array;
  stack: Stack;
  memoryWordCount: bigint;
  highestMemCost: bigint;
  validJumps: Uint8Array;
  cachedPushes: Record<number, bigint>;
  shouldDoJumpAnalysis: boolean;
  gasLeft: bigint;
  messageGasLimit?: bigint;
  env: { accessWitness?: unknown; depth: number; isCreate: boolean; eof?: unknown; address: { bytes: Uint8Array } };
  interpreter: { isStatic(): boolean; getReturnDataSize(): bigint };
}

interface EvmInternals {
  _opcodeMap: OpcodeEntry[];
  _customOpcodes?: unknown[];
  DEBUG: boolean;
  events?: { listenerCount(event: string): number };
}

interface InterpreterInternals {
  _runState: RunState;
  _evm: EvmInternals;
  _env: RunState["env"];
  _result: { returnValue?: Uint8Array };
  common: Common;
  profilerOpts?: { enabled?: boolean };
  _getValidJumpDestinations(code: Uint8Array): { jumps: Uint8Array; pushes: Record<number, bigint>; opcodesCached: OpcodeEntry[] };
  useGas(amount: bigint, context?: unknown): void;
}

type RunResult = { runState: RunState; exceptionError: EVMError | undefined };
type Run = (this: InterpreterInternals, code: Uint8Array, opts?: { pc?: number }) => Promise<RunResult>;

interface OpcodeUtil {
  subMemUsage(runState: RunState, offset: bigint, length: bigint, common: Common): bigint;
  divCeil(a: bigint, b: bigint): bigint;
  trap(error: string): never;
}

// ── Opcodes ─────────────────────────────────────────────────────────────────────────────────────

const JUMP = 0x56;
const JUMPI = 0x57;
/** The package's loop analyses jumps on first reaching JUMP, JUMPI or 0x5e (MCOPY; JUMPSUB once). */
const MCOPY = 0x5e;
const SSTORE = 0x55;
const GAS = 0x5a;
const BALANCE = 0x31;
/** BALANCE reads the low 20 bytes of its argument as the address. */
const ADDRESS_MASK = (1n << 160n) - 1n;
const CREATE = 0xf0;
const CALL = 0xf1;
const CALLCODE = 0xf2;
const DELEGATECALL = 0xf4;
const CREATE2 = 0xf5;
const STATICCALL = 0xfa;
/** EOF's first byte (EIP-3540). */
const EOF_FORMAT = 0xef;
const isCallOpcode = (op: number | undefined) => op === CALL || op === CALLCODE || op === DELEGATECALL || op === STATICCALL;

/**
 * Stack inputs and outputs of a legacy opcode (the Yellow Paper's δ and α), for following the
 * value GAS pushed; undefined for an opcode this does not know.
 */
export function stackEffect(op: number): [inputs: number, outputs: number] | undefined {
  if (op >= 0x5f && op <= 0x7f) return [0, 1]; // PUSH0-PUSH32
  if (op >= 0x80 && op <= 0x8f) return [op - 0x7f, op - 0x7e]; // DUPn
  if (op >= 0x90 && op <= 0x9f) return [op - 0x8e, op - 0x8e]; // SWAPn
  if (op >= 0xa0 && op <= 0xa4) return [op - 0x9e, 0]; // LOGn
  return STACK_EFFECTS[op];
}

const STACK_EFFECTS: Record<number, [number, number]> = {
  0: [0, 0],
  ...Object.fromEntries(
    [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x0a, 0x0b, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16, 0x17, 0x18, 0x1a, 0x1b, 0x1c, 0x1d, 0x20].map((op) => [
      op,
      [2, 1],
    ]),
  ),
  8: [3, 1], // ADDMOD
  9: [3, 1], // MULMOD
  21: [1, 1], // ISZERO
  25: [1, 1], // NOT
  30: [1, 1], // CLZ (EIP-7939)
  ...Object.fromEntries(
    [0x30, 0x32, 0x33, 0x34, 0x36, 0x38, 0x3a, 0x3d, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x4a, 0x58, 0x59, 0x5a].map((op) => [op, [0, 1]]),
  ),
  ...Object.fromEntries([0x31, 0x35, 0x3b, 0x3f, 0x40, 0x49, 0x51, 0x54, 0x5c].map((op) => [op, [1, 1]])),
  55: [3, 0], // CALLDATACOPY
  57: [3, 0], // CODECOPY
  60: [4, 0], // EXTCODECOPY
  62: [3, 0], // RETURNDATACOPY
  80: [1, 0], // POP
  82: [2, 0], // MSTORE
  83: [2, 0], // MSTORE8
  85: [2, 0], // SSTORE
  86: [1, 0], // JUMP
  87: [2, 0], // JUMPI
  91: [0, 0], // JUMPDEST
  93: [2, 0], // TSTORE
  94: [3, 0], // MCOPY
  240: [3, 1], // CREATE
  241: [7, 1], // CALL
  242: [7, 1], // CALLCODE
  243: [2, 0], // RETURN
  244: [6, 1], // DELEGATECALL
  245: [4, 1], // CREATE2
  250: [6, 1], // STATICCALL
  253: [2, 0], // REVERT
  255: [1, 0], // SELFDESTRUCT
};

/**
 * Where the copies of the value GAS pushed are after `op`, as depths from the top of the stack
 * (solc duplicates it with DUP and pops the original): moved by DUP, SWAP and the opcodes that do
 * not touch them; gone when a call takes one as its gas (the top of its inputs: all but a 64th is
 * forwarded whatever it is, EIP-150) or POP drops it; undefined when anything else takes one.
 */
export function followGasValue(op: number, depths: number[]): number[] | undefined {
  if (op >= 0x80 && op <= 0x8f) {
    const moved = depths.map((depth) => depth + 1);
    return depths.includes(op - 0x80) ? [0, ...moved] : moved;
  }
  if (op >= 0x90 && op <= 0x9f) {
    const other = op - 0x8f;
    return depths.map((depth) => (depth === 0 ? other : depth === other ? 0 : depth));
  }
  const effect = stackEffect(op);
  if (effect === undefined) return undefined;
  const [inputs, outputs] = effect;
  const next: number[] = [];
  for (const depth of depths) {
    if (depth >= inputs) next.push(depth - inputs + outputs);
    else if (!(depth === 0 && (op === 0x50 || isCallOpcode(op)))) return undefined;
  }
  return next;
}

/** EIPs whose per-step bookkeeping lives in the package's runStep: their chains run the package's loop. */
const LOOP_EIPS = [6800, 7864, 7928, 8037];

const STOP = EVMError.errorMessages.STOP;
const STOP_OP = 0x00;
const RETURN_OP = 0xf3;
const REVERT_OP = 0xfd;

/**
 * The package's handlers of STOP, RETURN and REVERT (opcodes/functions.js `handlers`), by opcode.
 * They end the frame by throwing (`trap(STOP)`, `interpreter.finish`, `interpreter.revert`), which the
 * loop catches: a throw and a catch per frame. The loop does what they do instead (RETURN and REVERT
 * set the frame's return value, a copy of the memory read; REVERT's error is the one they throw) and
 * stops, where the table still holds them (a hook would have wrapped them).
 */
type Halts = unknown[];
const REVERT = EVMError.errorMessages.REVERT;

// ── Synchronous dynamic gas (the package's formulas, dist/esm/opcodes/gas.js, without the await) ──

type SyncGas = (runState: RunState, gas: bigint, common: Common) => bigint;

/** The opcodes whose dynamic gas needs no state: computed here without a promise. */
export function syncGasHandlers(util: OpcodeUtil): Map<number, SyncGas> {
  const { subMemUsage, divCeil, trap } = util;
  const words = (length: bigint) => divCeil(length, 32n);
  /** CALLDATACOPY, CODECOPY, RETURNDATACOPY: memory, then copyGas per word copied. */
  const copy = (runState: RunState, gas: bigint, common: Common, memOffset: bigint, length: bigint) =>
    gas + subMemUsage(runState, memOffset, length, common) + (length === 0n ? 0n : common.param("copyGas") * words(length));
  const memory = (size: bigint) => (runState: RunState, gas: bigint, common: Common) => gas + subMemUsage(runState, runState.stack.peek()[0]!, size, common);
  const offsetAndLength = (runState: RunState, gas: bigint, common: Common) => {
    const [offset, length] = runState.stack.peek(2) as [bigint, bigint];
    return gas + subMemUsage(runState, offset, length, common);
  };
  const log: SyncGas = (runState, gas, common) => {
    if (runState.interpreter.isStatic()) trap(EVMError.errorMessages.STATIC_STATE_CHANGE);
    const [offset, length] = runState.stack.peek(2) as [bigint, bigint];
    const topics = runState.opCode - 0xa0;
    if (topics < 0 || topics > 4) trap(EVMError.errorMessages.OUT_OF_RANGE);
    return gas + subMemUsage(runState, offset, length, common) + common.param("logTopicGas") * BigInt(topics) + length * common.param("logDataGas");
  };
  const handlers = new Map<number, SyncGas>([
    [
      0x0a, // EXP: expByteGas per byte of the exponent
      (runState, gas, common) => {
        const exponent = runState.stack.peek(2)[1]!;
        if (exponent === 0n) return gas;
        const bytes = Math.ceil(exponent.toString(2).length / 8);
        if (bytes < 1 || bytes > 32) trap(EVMError.errorMessages.OUT_OF_RANGE);
        return gas + BigInt(bytes) * common.param("expByteGas");
      },
    ],
    [
      0x20, // KECCAK256
      (runState, gas, common) => {
        const [offset, length] = runState.stack.peek(2) as [bigint, bigint];
        return gas + subMemUsage(runState, offset, length, common) + common.param("keccak256WordGas") * words(length);
      },
    ],
    [
      0x37, // CALLDATACOPY
      (runState, gas, common) => {
        const [memOffset, , length] = runState.stack.peek(3) as [bigint, bigint, bigint];
        return copy(runState, gas, common, memOffset, length);
      },
    ],
    [
      0x39, // CODECOPY (the code-chunk witness of EIP-6800/7864 is not charged: those chains run the package's loop)
      (runState, gas, common) => {
        const [memOffset, , length] = runState.stack.peek(3) as [bigint, bigint, bigint];
        return copy(runState, gas, common, memOffset, length);
      },
    ],
    [
      0x3e, // RETURNDATACOPY: reading past the return data is an out-of-gas halt in legacy code
      (runState, gas, common) => {
        const [memOffset, dataOffset, length] = runState.stack.peek(3) as [bigint, bigint, bigint];
        if (dataOffset + length > runState.interpreter.getReturnDataSize() && runState.env.eof === undefined) trap(EVMError.errorMessages.OUT_OF_GAS);
        return copy(runState, gas, common, memOffset, length);
      },
    ],
    [0x51, memory(32n)], // MLOAD
    [0x52, memory(32n)], // MSTORE
    [0x53, memory(1n)], // MSTORE8
    [
      MCOPY,
      (runState, gas, common) => {
        const [destination, source, length] = runState.stack.peek(3) as [bigint, bigint, bigint];
        const copied = 3n * ((length + 31n) / 32n);
        return gas + copied + subMemUsage(runState, source, length, common) + subMemUsage(runState, destination, length, common);
      },
    ],
    [0xa0, log],
    [0xa1, log],
    [0xa2, log],
    [0xa3, log],
    [0xa4, log],
    [0xf3, offsetAndLength], // RETURN
    [0xfd, offsetAndLength], // REVERT
  ]);
  return handlers;
}

// ── Per-EVM plan: which loop, which gas handlers, the constants a recording needs ──────────────

interface Plan {
  /** Whether this loop may run this EVM's code (see the module comment). */
  fast: boolean;
  eof: boolean;
  syncGas: (SyncGas | undefined)[];
  /** EIP-2200's sentry when SSTORE has it (Istanbul on), else undefined. */
  sentry: bigint | undefined;
  stipend: bigint;
  depositPerByte: bigint;
  /** Why a recording cannot be made on this EVM, if so. */
  unrecordable: string | undefined;
  /** Whether gas may be counted as a number here (`NumericGas`): not with custom opcodes, whose handlers are unknown. */
  numericGas: boolean;
}

const plans = new WeakMap<object, Plan>();

function planOf(evm: EvmInternals, common: Common, sync: Map<number, SyncGas>): Plan {
  const table = evm._opcodeMap;
  let plan = plans.get(table);
  if (plan === undefined) {
    const syncGas: (SyncGas | undefined)[] = [];
    for (const [op, handler] of sync) syncGas[op] = handler;
    const fast = !LOOP_EIPS.some((eip) => common.isActivatedEIP(eip));
    plan = {
      fast,
      eof: common.isActivatedEIP(3540),
      syncGas,
      sentry: common.gteHardfork("istanbul") ? common.param("sstoreSentryEIP2200Gas") : undefined,
      stipend: common.param("callStipendGas"),
      depositPerByte: common.param("createDataGas"),
      // EIP-8038 gates SSTORE on its access cost as well as the sentry.
      unrecordable: common.isActivatedEIP(8038) ? "EIP-8038's SSTORE gate is not recorded" : undefined,
      numericGas: (evm._customOpcodes?.length ?? 0) === 0,
    };
    plans.set(table, plan);
  }
  return plan;
}

// ── Gas left as a number ────────────────────────────────────────────────────────────────────────
//
// The package keeps a frame's gas left as a bigint and `useGas` subtracts each step's cost from it:
// a new BigInt per step (V8 allocates every BigInt result), ~100 of them for an ERC-20 `balanceOf`.
// Below 2^53 a number holds every integer exactly, so the loop counts in a number and writes
// `runState.gasLeft` back where anything else can read or change it: before each dynamic gas
// handler that is not computed here and each handler of the opcodes below (they read the gas left,
// or use gas, through the interpreter: @ethereumjs/evm 10.1.3 opcodes/gas.js and functions.js,
// `getGasLeft`, `useGas`), reading it again after; and when the frame ends, returns or throws. A
// cost at or above 2^53 (a memory expansion) rounds, but stays above any gas left below 2^53: out of
// gas either way, as the package's comparison finds it. A frame that starts with more gas, a
// recording (gasRecord.ts reads the gas left at every step) and custom opcodes keep the bigint.

/** 2^53: below it a number is every integer (Number.MAX_SAFE_INTEGER + 1). */
const EXACT_BELOW = 2n ** 53n;

/** GAS, SSTORE (EIP-2200's sentry, EIP-8038's gate), CREATE, CALL, CALLCODE, DELEGATECALL, CREATE2, STATICCALL, SELFDESTRUCT. */
const GAS_READERS = new Uint8Array(256);
for (const op of [GAS, SSTORE, CREATE, CALL, CALLCODE, DELEGATECALL, CREATE2, STATICCALL, 0xff]) GAS_READERS[op] = 1;

// ── The loop ────────────────────────────────────────────────────────────────────────────────────

async function fastRun(
  interpreter: InterpreterInternals,
  code: Uint8Array,
  opts: { pc?: number },
  plan: Plan,
  recording: GasRecording | undefined,
  halts: Halts,
): Promise<RunResult> {
  const runState = interpreter._runState;
  const common = interpreter.common;
  const table = interpreter._evm._opcodeMap;
  const syncGas = plan.syncGas;
  runState.code = code;
  runState.programCounter = opts.pc ?? runState.programCounter;
  const start = runState.programCounter;
  if (start !== 0 && (start < 0 || start >= code.length)) throw EthereumJSErrorWithoutCode("Internal error: program counter not in range");

  // A recording's frame state (gasRecord.ts): start gas, the own need since the last call, thresholds so far.
  const startGas = runState.gasLeft;
  let own = 0n;
  const thresholds: GasThreshold[] = [];
  let before = 0n;
  let stipend = 0n;
  let cost = 0n;
  /** Where the copies of the value GAS pushed are on the stack (depths from the top). */
  let gasValues: number[] = [];

  // The payer's own code (an EIP-7702 delegation) sees its balance, which the gas limit changes: SELFBALANCE, value it sends.
  if (recording?.payer !== undefined && bytesToBigInt(interpreter._env.address.bytes) === recording.payer) {
    recording.refuse("the sender's own code runs, and its balance depends on the gas limit");
  }

  // The gas left as a number (see "Gas left as a number"); `synced`: runState.gasLeft holds it (a
  // handler that reads or uses gas is running), so an error it throws leaves runState's value.
  const numeric = recording === undefined && plan.numericGas && runState.gasLeft < EXACT_BELOW;
  let gasLeft = numeric ? Number(runState.gasLeft) : 0;
  let synced = true;
  if (numeric) interpreterLoopStats.numericGas++;

  let cached: OpcodeEntry[] | undefined;
  let error: EVMError | undefined;
  try {
    while (runState.programCounter < code.length) {
      const pc = runState.programCounter;
      let entry: OpcodeEntry;
      let opCode: number;
      if (cached === undefined) {
        opCode = code[pc]!;
        // Analysed once per code (jumpAnalysis.ts), on first reaching a jump, as the package does.
        if (opCode === JUMP || opCode === JUMPI || opCode === MCOPY) {
          const { jumps, pushes, opcodesCached } = interpreter._getValidJumpDestinations(code);
          runState.validJumps = jumps;
          runState.cachedPushes = pushes;
          runState.shouldDoJumpAnalysis = false;
          cached = opcodesCached;
        }
        entry = table[opCode]!;
      } else {
        entry = cached[pc]!;
        opCode = entry.opcodeInfo.code;
      }
      runState.opCode = opCode;
      const info = entry.opcodeInfo;

      if (recording !== undefined) {
        before = runState.gasLeft;
        // Solidity forwards gas as GAS ... CALL: a value that only becomes a call's gas decides nothing (all but a 64th goes).
        if (gasValues.length > 0) {
          const followed = followGasValue(opCode, gasValues);
          if (followed === undefined) recording.refuse("the code reads GAS for something other than a call's gas");
          gasValues = followed ?? [];
        }
        if (opCode === GAS) {
          gasValues.push(0);
        } else if (opCode === BALANCE) {
          if (recording.payer !== undefined && runState.stack.length >= 1 && (runState.stack.peek()[0]! & ADDRESS_MASK) === recording.payer) {
            recording.refuse("the code reads the sender's balance, which the gas limit changes");
          }
        } else if (opCode === SSTORE) {
          // EIP-2200: SSTORE needs more than the sentry left before it is charged.
          if (plan.sentry !== undefined) {
            const need = startGas - before + plan.sentry + 1n;
            if (need > own) own = need;
          }
        } else if (isCallOpcode(opCode) || opCode === CREATE || opCode === CREATE2) {
          // CALL and CALLCODE with value hand the callee a stipend on top of its share.
          stipend = (opCode === CALL || opCode === CALLCODE) && runState.stack.length >= 3 && runState.stack.peek(3)[2] !== 0n ? plan.stipend : 0n;
          recording.lastChild = undefined;
        }
      }

      let gas = info.feeBigInt;
      if (info.dynamicGas) {
        const sync = syncGas[opCode];
        if (sync !== undefined) {
          gas = sync(runState, gas, common);
        } else {
          if (numeric) {
            runState.gasLeft = BigInt(gasLeft);
            synced = true;
          }
          // The package's handlers return promises; a replacement that needs no state returns the gas (wordOpcodes.ts).
          const pendingGas = entry.gasHandler!(runState, gas, common);
          gas = typeof pendingGas === "bigint" ? pendingGas : await pendingGas;
          // CREATE and CREATE2 may charge part of their gas here (EIP-7928's pre-charges).
          if (numeric) gasLeft = Number(runState.gasLeft);
        }
      }
      if (info.isInvalid) throw new EVMError(EVMError.errorMessages.INVALID_OPCODE);
      if (numeric) {
        // The package's useGas, counted in the number.
        gasLeft -= info.dynamicGas ? Number(gas) : info.fee;
        synced = false;
        if (gasLeft < 0) {
          gasLeft = 0;
          throw new EVMError(EVMError.errorMessages.OUT_OF_GAS);
        }
      } else {
        interpreter.useGas(gas, info);
      }
      runState.programCounter++;
      if (recording !== undefined) {
        cost = gas;
        const used = startGas - runState.gasLeft;
        if (used > own) own = used;
      }
      // STOP, RETURN and REVERT: what the package's handler does, without its throw (see `Halts`).
      if (opCode === STOP_OP || opCode === RETURN_OP || opCode === REVERT_OP) {
        if (entry.opHandler === halts[opCode]) {
          if (opCode !== STOP_OP) {
            const [offset, length] = runState.stack.popN(2) as [bigint, bigint];
            interpreter._result.returnValue = length === 0n ? new Uint8Array(0) : runState.memory.read(Number(offset), Number(length));
            if (opCode === REVERT_OP) error = new EVMError(REVERT);
          }
          interpreterLoopStats.halts++;
          break;
        }
      }
      const readsGas = numeric && GAS_READERS[opCode] === 1;
      if (readsGas) {
        runState.gasLeft = BigInt(gasLeft);
        synced = true;
      }
      const pending = entry.opHandler(runState, common);
      if (info.isAsync && pending !== undefined) await pending;
      if (readsGas) {
        gasLeft = Number(runState.gasLeft);
        synced = false;
      }

      if (recording !== undefined) {
        if (isCallOpcode(opCode) || opCode === CREATE || opCode === CREATE2) {
          const child = recording.lastChild;
          let need: bigint;
          if (child === undefined) {
            // No frame of code ran: a precompile, an account without code, or a call that failed before running anything.
            if (runState.stack.peek()[0] === 0n) recording.refuse("a call or create failed without running code");
            need = before - cost + stipend - runState.gasLeft;
          } else {
            if (child.halted) recording.refuse("a called frame halted exceptionally");
            need = child.need;
          }
          thresholds.push({ gas: own, child: false });
          thresholds.push({ gas: startGas - before + cost + leftForShare(need - stipend), child: true });
          own = startGas - runState.gasLeft;
          recording.lastChild = undefined;
        } else {
          const used = startGas - runState.gasLeft;
          if (used > own) own = used;
        }
      }
    }
  } catch (caught) {
    if (numeric && !synced) {
      runState.gasLeft = BigInt(gasLeft);
      synced = true;
    }
    const vmError = caught as { errorType?: unknown; error?: unknown };
    if (typeof caught !== "object" || caught === null || vmError.errorType !== "EVMError") throw caught;
    if (vmError.error !== STOP) error = caught as EVMError;
  }
  if (numeric && !synced) runState.gasLeft = BigInt(gasLeft);

  if (recording !== undefined) {
    const used = startGas - runState.gasLeft;
    if (used > own) own = used;
    const env = interpreter._env;
    // A creation's code deposit is charged by the EVM after the frame, against the frame's gas.
    if (env.isCreate && error === undefined) {
      const deposit = used + BigInt(interpreter._result.returnValue?.length ?? 0) * plan.depositPerByte;
      if (deposit > own) own = deposit;
    }
    thresholds.push({ gas: own, child: false });
    if (env.depth === 0) {
      recording.top = { startGas, thresholds };
    } else {
      let need = 0n;
      for (const threshold of thresholds) if (threshold.gas > need) need = threshold.gas;
      recording.lastChild = { need, halted: error !== undefined && error.error !== REVERT };
    }
  }
  return { runState, exceptionError: error };
}

// ── Installation ────────────────────────────────────────────────────────────────────────────────

interface InterpreterClass {
  prototype: { run: Run; [ORIGINAL]?: Run };
}

/**
 * Registered symbols (Symbol.for), so that a second copy of this module in the process (the
 * sources beside the compiled package, as a test run may load both) finds the loop installed
 * and counts into the same stats, instead of wrapping the first copy's loop in its own.
 */
const ORIGINAL = Symbol.for("hardhat-preconf.interpreterLoop.original");
const STATS = Symbol.for("hardhat-preconf.interpreterLoop.stats");
const require = createRequire(import.meta.url);

/**
 * Runs on this loop and on the package's, frames this loop ended at STOP, RETURN or REVERT without a
 * throw, and frames it counted gas in as a number (tests).
 */
export const interpreterLoopStats: LoopStats = ((globalThis as { [STATS]?: LoopStats })[STATS] ??= { fast: 0, original: 0, halts: 0, numericGas: 0 });

interface LoopStats {
  fast: number;
  original: number;
  halts: number;
  numericGas: number;
}

/** dist/esm/opcodes/util.js and dist/cjs/opcodes/util.js of @ethereumjs/evm. */
function opcodeUtilModules(): { esm: string; cjs: string } {
  const { cjs } = interpreterModules();
  const dist = dirname(dirname(cjs));
  return { esm: pathToFileURL(join(dist, "esm", "opcodes", "util.js")).href, cjs: join(dist, "cjs", "opcodes", "util.js") };
}

let installed: Promise<void> | undefined;

/**
 * Installs the loop in the ES module build (once per process; later calls return the same
 * promise), and in the CommonJS build when the process has loaded it (checked on every call).
 */
export function installInterpreterLoop(): Promise<void> {
  const interpreters = interpreterModules();
  const utils = opcodeUtilModules();
  installed ??= (async () => {
    const esm = (await import(interpreters.esm)) as { Interpreter: InterpreterClass };
    const esmUtil = (await import(utils.esm)) as OpcodeUtil;
    const esmHandlers = (await import(evmFile("esm", "opcodes/functions.js"))) as OpcodeFunctions;
    patch(esm.Interpreter, esmUtil, esmHandlers);
    // Frames the loop runs take their memory from a pool (framePool.ts); KECCAK256 and SLOAD's handlers (wordOpcodes.ts).
    await Promise.all([installFramePool(), installWordOpcodes()]);
  })();
  const commonJs = loadedCommonJs<{ Interpreter: InterpreterClass }>(interpreters.cjs);
  // interpreter.js requires opcodes/util.js (through opcodes/index.js), so one loaded means both.
  if (commonJs !== undefined) patch(commonJs.Interpreter, require(utils.cjs) as OpcodeUtil, require(evmFile("cjs", "opcodes/functions.js")) as OpcodeFunctions);
  return installed;
}

/** The package's own loop, for tests that compare the two. */
export function originalRun(Interpreter: InterpreterClass): Run {
  return Interpreter.prototype[ORIGINAL] ?? Interpreter.prototype.run;
}

/** opcodes/functions.js: the package's handler of each opcode. */
type OpcodeFunctions = { handlers: Map<number, unknown> };

function patch(Interpreter: InterpreterClass, util: OpcodeUtil, functions: OpcodeFunctions): void {
  const proto = Interpreter.prototype;
  if (typeof proto.run !== "function" || typeof util.subMemUsage !== "function" || typeof util.divCeil !== "function" || typeof util.trap !== "function") {
    throw new Error("@ethereumjs/evm: Interpreter.run or opcodes/util.js changed; update src/node/ethereumjs/interpreterLoop.ts");
  }
  const halts: Halts = [];
  for (const op of [STOP_OP, RETURN_OP, REVERT_OP]) {
    const handler = functions.handlers?.get(op);
    if (typeof handler !== "function") throw new Error("@ethereumjs/evm: opcodes/functions.js changed; update src/node/ethereumjs/interpreterLoop.ts");
    halts[op] = handler;
  }
  if (proto[ORIGINAL] !== undefined) return;
  const original = proto.run;
  const sync = syncGasHandlers(util);
  proto[ORIGINAL] = original;
  proto.run = function (this: InterpreterInternals, code: Uint8Array, opts: { pc?: number } = {}): Promise<RunResult> {
    const evm = this._evm;
    const plan = planOf(evm, this.common, sync);
    const recording = recordingOf(evm);
    if (
      !plan.fast ||
      (plan.eof && code[0] === EOF_FORMAT) ||
      evm.DEBUG ||
      this.profilerOpts?.enabled === true ||
      (evm.events?.listenerCount("step") ?? 0) > 0 ||
      this._runState.env.accessWitness !== undefined
    ) {
      interpreterLoopStats.original++;
      recording?.refuse("a frame ran on the package's loop");
      return original.call(this, code, opts);
    }
    interpreterLoopStats.fast++;
    if (recording !== undefined && plan.unrecordable !== undefined) recording.refuse(plan.unrecordable);
    return fastRun(this, code, opts, plan, recording, halts);
  };
}
