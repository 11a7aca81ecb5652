/**
 * Call frames whose memory is reused instead of allocated.
 *
 * @ethereumjs/evm 10.1.3 builds an `Interpreter` per call frame (`EVM.runInterpreter`, evm.js), and
 * its constructor a `new Memory()`, whose constructor allocates an 8 KiB zeroed `Uint8Array`. A
 * typed array that large lives outside V8's heap: allocating, tracking and freeing its backing store
 * was ~1.6 % of an automined test file (W5) and the larger part of the constructor's cost. Here a
 * frame takes a `Memory` from a small pool, zeroed when its last frame ended, and gives it back when
 * it ends; a frame sees exactly the memory it saw before (all zeros, growing as the package's
 * `Memory.extend` grows it: the length of the buffer behind it was never visible, MSIZE and the
 * expansion gas count `memoryWordCount`).
 *
 * Why nothing can see a pooled buffer after its frame: the package copies what leaves a frame's
 * memory (RETURN and REVERT data, log data, the trace's `step.memory`: `memory.read` without
 * `avoidCopy`, or `slice`). What it reads without a copy (`avoidCopy`) is a view used while the
 * frame runs: the input of KECCAK256 and MCOPY, and the calldata or init code of a child frame,
 * which ends before its caller does. Such a child's `Message` leaves the EVM only through the
 * `beforeMessage` listeners, and the engine's copy what they keep at once (consoleLog.ts to hex) or
 * keep only the depth-0 message (estimate.ts), whose data is the tx's. The result of
 * `runInterpreter` still carries the frame's `runState` (and so its `memory`, by then pooled); the
 * engine reads only its `code` and `programCounter` (vmErrors.ts, callTracer.ts).
 *
 * The EVM also keeps its last frame (`LAST_FRAME`), so that the hidden classes of a frame's objects
 * survive a full GC that runs between two calls.
 *
 * Patch of @ethereumjs/evm 10.1.3, in both builds (the CommonJS one once something else loaded it,
 * as interpreterLoop.ts): `EVM.prototype.runInterpreter` is replaced by a copy
 * that builds its `Interpreter` with the constructor's assignments (`buildInterpreter`) and a pooled
 * `Memory`, since the package's constructor cannot be given one. test/framePool.test.ts fails if an
 * upgrade changes either method's source (pinned) or the fields a constructed Interpreter has, and
 * runs random and real programs, nested calls included, with and without the pool.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

import { EVMError } from "@ethereumjs/evm";
import { Account, BIGINT_0, createZeroAddress, EthereumJSErrorWithoutCode } from "@ethereumjs/util";

import { EVM_LAST_FRAME as LAST_FRAME, EVM_POOL_OFF as POOL_OFF } from "./evmFields.ts";
import { interpreterModules, loadedCommonJs } from "./jumpAnalysis.ts";

import type { EVM, Message } from "@ethereumjs/evm";

// ── The package's shapes (10.1.3) ───────────────────────────────────────────────────────────────

interface MemoryLike {
  _store: Uint8Array;
}

interface InterpreterLike {
  _runState: { memory: MemoryLike; gasLeft: bigint; gasRefund: bigint; stateGasSpilled: bigint };
  _env: Record<string, unknown>;
  _result: { returnValue?: Uint8Array; selfdestruct?: unknown; createdAddresses?: unknown; logs: unknown[] };
  run(code: Uint8Array | undefined, opts: unknown): Promise<{ runState: InterpreterLike["_runState"]; exceptionError?: EVMError }>;
}

interface EvmInternals {
  common: { consensusType(): string };
  stateManager: { getAccount(address: unknown): Promise<Account | undefined> };
  blockchain: unknown;
  journal: unknown;
  performanceLogger: unknown;
  _optsCached: { cliqueSigner?: unknown; profiler?: unknown };
  _tx: { gasPrice: bigint; origin?: unknown };
  _block?: unknown;
  [POOL_OFF]?: boolean;
  [LAST_FRAME]?: { message: Message; interpreter: unknown; result: unknown };
}

type Env = Record<string, unknown> & { gasRefund?: bigint; initialLogs?: unknown[] };

interface Classes {
  Interpreter: { prototype: object } & (new (...args: never[]) => unknown);
  Memory: new () => MemoryLike;
  Stack: new () => unknown;
  defaultBlock: () => unknown;
}

// ── The pool ────────────────────────────────────────────────────────────────────────────────────

/**
 * At most this many memories wait in the pool (frames nest, each holds its own while it runs; a
 * dev chain's calls seldom nest deeper), and only those whose buffer stayed at most 32 KiB: the
 * pool keeps at most 1 MiB. A memory that grew past it is left to the collector.
 */
const MAX_POOLED = 32;
const MAX_POOLED_BYTES = 32 * 1024;

const pool: MemoryLike[] = [];

/** Memories made and reused (tests). */
export const framePoolStats = { made: 0, reused: 0 };

function takeMemory(Memory: Classes["Memory"]): MemoryLike {
  const memory = pool.pop();
  if (memory !== undefined) {
    framePoolStats.reused++;
    return memory;
  }
  framePoolStats.made++;
  return new Memory();
}

/** Back to the pool, zeroed (the whole buffer: what a frame wrote is not tracked, and 8 KiB of memset is cheap). */
function giveBack(memory: MemoryLike): void {
  if (pool.length >= MAX_POOLED || !isSmall(memory)) return;
  memory._store.fill(0);
  pool.push(memory);
}

const isSmall = (memory: MemoryLike) => memory._store.length <= MAX_POOLED_BYTES;

/*
 * `LAST_FRAME`: the EVM's last frame (its message, interpreter and result), kept until the next frame replaces
 * it, so that the hidden classes of a frame's objects outlive the frame. V8 collects a map once no
 * object has it (a full GC between two requests finds no frame running), and then discards the
 * optimized code that checks it ("weak objects" in `--trace-deopt`): the next requests run the
 * interpreter's code in the slower tiers until V8 optimizes it again. One frame per EVM, released
 * with the EVM, and only a frame whose memory stayed within the pool's bound (32 KiB): what it keeps is
 * its message (calldata, code), stack, result (logs, return data) and that memory, which by then
 * belongs to the pool and to later frames (nothing reads the kept frame's run state). Measured with
 * bench/one-provider.ts (bench/benchmarks-notes.md, "Ninth round"). A field every EVM has from
 * its start (evmFields.ts).
 */

/** Runs `evm`'s frames on the package's own `runInterpreter` (tests compare the two). */
export function withoutFramePool(evm: EVM): void {
  (evm as unknown as EvmInternals)[POOL_OFF] = true;
}

// ── The Interpreter, built as its constructor builds it (interpreter.js, 10.1.3) ────────────────

export function buildInterpreter(
  classes: Classes,
  evm: EvmInternals,
  stateManager: unknown,
  blockchain: unknown,
  env: Env,
  gasLeft: bigint,
  journal: unknown,
  performanceLogs: unknown,
  profilerOpts: unknown,
  memory: MemoryLike,
): InterpreterLike {
  const interpreter = Object.create(classes.Interpreter.prototype) as Record<string, unknown>;
  interpreter.opDebuggers = {};
  interpreter._evm = evm;
  interpreter._stateManager = stateManager;
  interpreter.common = evm.common;
  if (evm.common.consensusType() === "poa" && evm._optsCached.cliqueSigner === undefined) {
    throw EthereumJSErrorWithoutCode("Must include cliqueSigner function if clique/poa is being used for consensus type");
  }
  interpreter._runState = {
    programCounter: 0,
    opCode: 0xfe, // INVALID opcode
    memory,
    memoryWordCount: BIGINT_0,
    highestMemCost: BIGINT_0,
    stack: new classes.Stack(),
    code: new Uint8Array(0),
    validJumps: Uint8Array.from([]),
    cachedPushes: {},
    stateManager,
    blockchain,
    env,
    shouldDoJumpAnalysis: true,
    interpreter,
    gasRefund: env.gasRefund,
    gasLeft,
    stateGasSpilled: BIGINT_0,
    returnBytes: new Uint8Array(0),
  };
  interpreter.journal = journal;
  interpreter._env = env;
  interpreter._result = {
    logs: env.initialLogs ? [...env.initialLogs] : [],
    returnValue: undefined,
    selfdestruct: new Map(),
  };
  interpreter.profilerOpts = profilerOpts;
  interpreter.performanceLogger = performanceLogs;
  return interpreter as unknown as InterpreterLike;
}

// ── EVM.runInterpreter (evm.js, 10.1.3), with the pooled memory ─────────────────────────────────

type RunInterpreter = (this: EvmInternals, message: Message, opts?: { initialLogs?: unknown[] }) => Promise<unknown>;

function pooledRunInterpreter(classes: Classes, original: RunInterpreter): RunInterpreter {
  return async function (this: EvmInternals, message: Message, opts: { initialLogs?: unknown[] } = {}) {
    if (this[POOL_OFF] === true) return original.call(this, message, opts);
    let contract = await this.stateManager.getAccount(message.to ?? createZeroAddress());
    if (!contract) {
      contract = new Account();
    }
    const env: Env = {
      address: message.to ?? createZeroAddress(),
      caller: message.caller ?? createZeroAddress(),
      callData: message.data ?? Uint8Array.from([0]),
      callValue: message.value ?? BIGINT_0,
      code: message.code,
      isStatic: message.isStatic ?? false,
      isCreate: message.isCreate ?? false,
      depth: message.depth ?? 0,
      gasPrice: this._tx.gasPrice,
      origin: this._tx.origin ?? message.caller ?? createZeroAddress(),
      block: this._block ?? classes.defaultBlock(),
      contract,
      codeAddress: message.codeAddress,
      gasRefund: message.gasRefund,
      chargeCodeAccesses: message.chargeCodeAccesses,
      blobVersionedHashes: message.blobVersionedHashes ?? [],
      accessWitness: message.accessWitness,
      createdAddresses: message.createdAddresses,
      initialLogs: opts.initialLogs,
    };
    const memory = takeMemory(classes.Memory);
    const interpreter = buildInterpreter(
      classes,
      this,
      this.stateManager,
      this.blockchain,
      env,
      message.gasLimit,
      this.journal,
      this.performanceLogger,
      this._optsCached.profiler,
      memory,
    );
    if (message.selfdestruct) {
      interpreter._result.selfdestruct = message.selfdestruct;
    }
    if (message.createdAddresses) {
      interpreter._result.createdAddresses = message.createdAddresses;
    }
    const interpreterRes = await interpreter.run(message.code as Uint8Array | undefined, opts);
    // The frame is over: its return data and logs are copies (see the module comment).
    giveBack(memory);
    let result = interpreter._result;
    let gasUsed = message.gasLimit - interpreterRes.runState.gasLeft;
    if (interpreterRes.exceptionError) {
      if (
        interpreterRes.exceptionError.error !== EVMError.errorMessages.REVERT &&
        interpreterRes.exceptionError.error !== EVMError.errorMessages.INVALID_EOF_FORMAT
      ) {
        gasUsed = message.gasLimit;
      }
      // Clear the result on error
      result = {
        ...result,
        logs: [],
        selfdestruct: new Map(),
        createdAddresses: new Set(),
      };
    }
    (message.accessWitness as { commit?(): void } | undefined)?.commit?.();
    const frameResult = {
      ...result,
      runState: {
        ...interpreterRes.runState,
        ...result,
        ...interpreter._env,
      },
      exceptionError: interpreterRes.exceptionError,
      gas: interpreterRes.runState?.gasLeft,
      executionGasUsed: gasUsed,
      gasRefund: interpreterRes.runState.gasRefund,
      stateGasSpilled: interpreterRes.runState.stateGasSpilled,
      returnValue: result.returnValue ?? new Uint8Array(0),
    };
    // A frame whose memory grew past the pool's bound is not kept: its buffer (up to a few MiB) goes now.
    this[LAST_FRAME] = isSmall(memory) ? { message, interpreter, result: frameResult } : undefined;
    return frameResult;
  };
}

/** The frame `evm` ran last on the pooled path, if any (tests). */
export function lastFrameOf(evm: EVM): { message: Message; interpreter: unknown; result: unknown } | undefined {
  return (evm as unknown as EvmInternals)[LAST_FRAME];
}

// ── Installation ────────────────────────────────────────────────────────────────────────────────

type EvmClass = { prototype: object };
type EvmPrototype = { runInterpreter: RunInterpreter; [ORIGINAL]?: RunInterpreter };

/** Registered (Symbol.for): a second copy of this module in the process finds the patch in place. */
const ORIGINAL = Symbol.for("hardhat-preconf.framePool.original");
const require = createRequire(import.meta.url);

/** dist/<build>/<file> of @ethereumjs/evm: a URL to import (esm) or a file name to require (cjs). */
export function evmFile(build: "esm" | "cjs", file: string): string {
  const path = join(dirname(dirname(interpreterModules().cjs)), build, file);
  return build === "esm" ? pathToFileURL(path).href : path;
}

/** The package's `runInterpreter` of `Evm`'s build (tests). */
export function originalRunInterpreter(Evm: EvmClass): RunInterpreter {
  const proto = Evm.prototype as EvmPrototype;
  return proto[ORIGINAL] ?? proto.runInterpreter;
}

function patch(Evm: EvmClass, classes: Classes): void {
  const proto = Evm.prototype as EvmPrototype;
  const { Interpreter, Memory, Stack, defaultBlock } = classes;
  if (
    typeof proto.runInterpreter !== "function" ||
    typeof Interpreter !== "function" ||
    typeof Memory !== "function" ||
    typeof Stack !== "function" ||
    typeof defaultBlock !== "function"
  ) {
    throw new Error("@ethereumjs/evm: EVM.runInterpreter, Interpreter, Memory, Stack or defaultBlock changed; update src/node/ethereumjs/framePool.ts");
  }
  if (proto[ORIGINAL] !== undefined) return;
  proto[ORIGINAL] = proto.runInterpreter;
  proto.runInterpreter = pooledRunInterpreter(classes, proto.runInterpreter);
}

type EvmModule = { EVM: EvmClass; defaultBlock: Classes["defaultBlock"] };

let installed: Promise<void> | undefined;

/**
 * Installs the pooled `runInterpreter` in the ES module build (once per process; later calls return
 * the same promise), and in the CommonJS build when the process has loaded it (checked on every
 * call, as interpreterLoop.ts does: a test runner may load both).
 */
export function installFramePool(): Promise<void> {
  installed ??= (async () => {
    const [{ EVM: Evm, defaultBlock }, { Interpreter }, { Memory }, { Stack }] = await Promise.all([
      import(evmFile("esm", "evm.js")) as Promise<EvmModule>,
      import(interpreterModules().esm) as Promise<Pick<Classes, "Interpreter">>,
      import(evmFile("esm", "memory.js")) as Promise<Pick<Classes, "Memory">>,
      import(evmFile("esm", "stack.js")) as Promise<Pick<Classes, "Stack">>,
    ]);
    patch(Evm, { Interpreter, Memory, Stack, defaultBlock });
  })();
  const commonJs = loadedCommonJs<EvmModule>(evmFile("cjs", "evm.js"));
  if (commonJs !== undefined) {
    // evm.js requires interpreter.js, which requires memory.js and stack.js: loaded with it.
    const { Interpreter } = require(interpreterModules().cjs) as Pick<Classes, "Interpreter">;
    const { Memory } = require(evmFile("cjs", "memory.js")) as Pick<Classes, "Memory">;
    const { Stack } = require(evmFile("cjs", "stack.js")) as Pick<Classes, "Stack">;
    patch(commonJs.EVM, { Interpreter, Memory, Stack, defaultBlock: commonJs.defaultBlock });
  }
  return installed;
}
