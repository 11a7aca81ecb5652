/**
 * KECCAK256, SLOAD and SSTORE (their handlers and dynamic gas), and the handlers of LOG0–LOG4,
 * MLOAD, CALLDATALOAD, CALLER and PUSH1–PUSH32, without the byte↔bigint round trips of
 * @ethereumjs/util.
 *
 * @ethereumjs/evm 10.1.3 (opcodes/functions.js, opcodes/gas.js) turns a storage key into its 32
 * bytes with `setLengthLeft(bigIntToBytes(key), 32)` (a hex string, its bytes, then a padded copy
 * built by spreading both parts into a list): ~3 µs a key, twice per SLOAD and SSTORE (the gas
 * handler, then the handler), and SSTORE's gas pads the current, original and new values the same
 * way (`setLengthLeftStorage`), reading the slot through an extra async closure. KECCAK256 copies its
 * input out of memory and turns the 32-byte hash into a number through a hex string. Here a key's
 * bytes are written as four 64-bit words into a new array (a new one per key: the state manager and
 * the journal may keep it), a stored value is padded with one `set`, the hash input is read as a
 * view of memory (the hash only reads it, before anything else runs), and the hash becomes a number
 * from its four 64-bit words. LOG pads each topic the same way as a storage key (~3 % of an
 * ERC-20 transfer's dry run went to padding its three topics). MLOAD, CALLDATALOAD, CALLER and a
 * loaded slot's value become numbers from 64-bit words too, where util's `bytesToBigInt` goes
 * through a hex string (~4 % of a dry run in the interpreter's tiers). PUSH, the most frequent
 * opcode, asks `common.isActivatedEIP` twice per run for EIP-6800 and EIP-7864 (code-chunk
 * witness gas): ours is installed only where both are off, so it does not ask. The values are the same: a stack word is below 2^256, so its 32-byte
 * big-endian form is what `setLengthLeft(bigIntToBytes(word), 32)` gives, and the hash's number is
 * what `BigInt(bytesToHex(hash))` gives. The gas is the package's own formulas (`accessStorageEIP2929`,
 * `updateSstoreGasEIP2200`, ...) on those bytes; SLOAD's is returned without a promise (the loop,
 * interpreterLoop.ts, awaits a gas handler only when it returns one).
 *
 * Patch (`EVM.prototype.getActiveOpcodes` and the private `_opcodeMap`, as opcodeHooks.ts and
 * wordStore.ts): after an EVM builds its opcode table (at creation and at every fork change), the
 * entries are replaced when they are still the package's own (not wrapped by an opcode hook), and
 * only where the EIPs whose extra work lives in the package's handlers are off: EIP-6800 and
 * EIP-7864 (witness gas), EIP-7928 (block access lists), EIP-8037 and EIP-8038 (state gas, SSTORE's
 * access gate). test/wordOpcodes.test.ts fails if the entries stop being ours or if any of them
 * computes other values, gas, refunds or errors than the package's, on random words and on random
 * programs under every hardfork from Constantinople on.
 */
import { Hardfork } from "@ethereumjs/common";
import { EVMError } from "@ethereumjs/evm";
import { setLengthLeft } from "@ethereumjs/util";

import { evmFile } from "./framePool.ts";
import { editOpcodeTables, isHooked } from "./opcodeHooks.ts";
import { scratchWord } from "./wordStore.ts";

import type { Common } from "@ethereumjs/common";

const KECCAK256 = 0x20;
const SLOAD = 0x54;
const SSTORE = 0x55;
const LOG0 = 0xa0;
const LOG4 = 0xa4;
const MLOAD = 0x51;
const CALLDATALOAD = 0x35;
const CALLER = 0x33;
const PUSH1 = 0x60;
const PUSH32 = 0x7f;
const EMPTY = new Uint8Array(0);

interface WordRunState {
  opCode: number;
  programCounter: number;
  code: Uint8Array;
  /** Whether the code's PUSH immediates were not decoded ahead (`cachedPushes`, by position, when they were). */
  shouldDoJumpAnalysis: boolean;
  cachedPushes: Record<number, bigint>;
  env: { caller: { bytes: Uint8Array } };
  stack: { pop(): bigint; popN(count: number): bigint[]; push(value: bigint): void; peek(count?: number): bigint[] };
  memory: { read(offset: number, size: number, avoidCopy?: boolean): Uint8Array };
  interpreter: {
    storageLoad(key: Uint8Array, original?: boolean, trackBAL?: boolean): Promise<Uint8Array>;
    storageStore(key: Uint8Array, value: Uint8Array): Promise<void>;
    isStatic(): boolean;
    log(data: Uint8Array, topicsCount: number, topics: Uint8Array[]): void;
    getCallData(): Uint8Array;
  };
}

type AccessStorage = (runState: WordRunState, key: Uint8Array, isSstore: boolean, common: Common, chargeGas?: boolean) => bigint;

/** The package's SSTORE gas formulas and helpers (opcodes/EIP1283.js, EIP2200.js, EIP2929.js, util.js). */
export interface SstoreFormulas {
  accessStorageEIP2929: AccessStorage;
  updateSstoreGasEIP1283(runState: WordRunState, current: Uint8Array, original: Uint8Array, value: Uint8Array, common: Common): bigint;
  updateSstoreGasEIP2200(runState: WordRunState, current: Uint8Array, original: Uint8Array, value: Uint8Array, key: Uint8Array, common: Common): bigint;
  updateSstoreGas(runState: WordRunState, current: Uint8Array, value: Uint8Array, common: Common): bigint;
  trap(error: string): never;
}

/**
 * The 32-byte big-endian form of a word below 2^256, in a new array: the scratch word copied out
 * (`slice`) — a DataView on a new 32-byte array would move its bytes off V8's heap per key.
 */
export function wordBytes(word: bigint): Uint8Array {
  return scratchWord(word).slice();
}

/**
 * Where `wordOf` and `numberOf` read a word (filled and read synchronously, never kept). A DataView
 * on the caller's bytes would cost more than the copy: most words read are fresh arrays of 32 bytes
 * (a hash, a loaded slot, a tx's calldata), which V8 keeps inside its heap, and `.buffer` on such an
 * array moves its bytes out to a new backing store (~390 against ~130 ns a hash, ~330 against ~40 a
 * small value; bench/benchmarks-notes.md, "Twenty-second round").
 */
const wordScratch = new Uint8Array(32);
const wordView = new DataView(wordScratch.buffer);

/** The number in `wordScratch`: one 64-bit read for a word below 2^64 (offsets, lengths, amounts). */
function scratchNumber(): bigint {
  const view = wordView;
  if ((view.getUint32(0) | view.getUint32(4) | view.getUint32(8) | view.getUint32(12) | view.getUint32(16) | view.getUint32(20)) === 0) {
    return view.getBigUint64(24);
  }
  return (view.getBigUint64(0) << 192n) | (view.getBigUint64(8) << 128n) | (view.getBigUint64(16) << 64n) | view.getBigUint64(24);
}

/** The number whose 32-byte big-endian form is the first 32 of `bytes` (at least 32 of them: else a RangeError). */
export function wordOf(bytes: Uint8Array): bigint {
  if (bytes.length < 32) throw new RangeError(`wordOf: ${bytes.length} bytes, not 32`);
  wordScratch.set(bytes.length === 32 ? bytes : bytes.subarray(0, 32));
  return scratchNumber();
}

/** The number whose big-endian form is `bytes` (at most 32 of them; none: 0), as util's `bytesToBigInt`. */
export function numberOf(bytes: Uint8Array): bigint {
  if (bytes.length !== 32) wordScratch.fill(0);
  wordScratch.set(bytes, 32 - bytes.length);
  return scratchNumber();
}

/** A positive word's big-endian bytes without leading zeros, as util's `bigIntToBytes` (a view of a new array). */
export function shortestBytes(word: bigint): Uint8Array {
  const bytes = wordBytes(word);
  let at = 0;
  while (at < 31 && bytes[at] === 0) at++;
  return bytes.subarray(at);
}

/**
 * opcodes/util.js's `setLengthLeftStorage`: a stored value (at most 32 bytes) as the SSTORE
 * formulas compare it, empty when zero, else left-padded to 32 bytes (the value itself if it has 32).
 */
export function storageWord(value: Uint8Array): Uint8Array {
  let zero = true;
  for (let at = 0; at < value.length; at++) {
    if (value[at] !== 0) {
      zero = false;
      break;
    }
  }
  if (zero) return new Uint8Array(0);
  if (value.length >= 32) return setLengthLeft(value, 32);
  const padded = new Uint8Array(32);
  padded.set(value, 32 - value.length);
  return padded;
}

/** The package's KECCAK256 (functions.js, 0x20), its input read in place. */
export function keccak256Opcode(runState: WordRunState, common: Common): void {
  const [offset, length] = runState.stack.popN(2) as [bigint, bigint];
  const data = length === 0n ? EMPTY : runState.memory.read(Number(offset), Number(length), true);
  runState.stack.push(wordOf((common.customCrypto.keccak256 ?? keccak)(data)));
}

/** The package's LOG0–LOG4 (functions.js, 0xa0–0xa4): the memory read, and each topic as its 32 bytes. Their gas (and the static-call check) stays the package's. */
export function logOpcode(runState: WordRunState): void {
  const [offset, length] = runState.stack.popN(2) as [bigint, bigint];
  const count = runState.opCode - LOG0;
  const words = runState.stack.popN(count);
  const topics = new Array<Uint8Array>(count);
  for (let at = 0; at < count; at++) topics[at] = wordBytes(words[at]!);
  const data = length === 0n ? new Uint8Array(0) : runState.memory.read(Number(offset), Number(length));
  runState.interpreter.log(data, count, topics);
}

/** The package's SLOAD (functions.js, 0x54). */
export async function sloadOpcode(runState: WordRunState): Promise<void> {
  const key = runState.stack.pop();
  const value = await runState.interpreter.storageLoad(wordBytes(key));
  runState.stack.push(value.length > 0 ? numberOf(value) : 0n);
}

/** The package's MLOAD (functions.js, 0x51): the word at the offset (memory grown by the gas handler, and by `read` as the package's does). */
export function mloadOpcode(runState: WordRunState): void {
  const offset = runState.stack.pop();
  runState.stack.push(wordOf(runState.memory.read(Number(offset), 32, true)));
}

/** The package's CALLDATALOAD (functions.js, 0x35): 32 bytes of calldata from the offset, zeros past its end. */
export function calldataloadOpcode(runState: WordRunState): void {
  const offset = runState.stack.pop();
  const data = runState.interpreter.getCallData();
  if (offset >= BigInt(data.length)) {
    runState.stack.push(0n);
    return;
  }
  const at = Number(offset);
  const loaded = data.subarray(at, at + 32);
  if (loaded.length === 32) {
    runState.stack.push(wordOf(loaded));
    return;
  }
  wordScratch.fill(0);
  wordScratch.set(loaded, 0);
  runState.stack.push(scratchNumber());
}

/**
 * The package's PUSH1–PUSH32 (functions.js, 0x60–0x7f) where EIP-6800 and EIP-7864 are off: the
 * immediate decoded ahead, else read from the code (zeros past its end).
 */
export function pushOpcode(runState: WordRunState): void {
  const count = runState.opCode - PUSH1 + 1;
  const at = runState.programCounter;
  // In the package's order: a full stack throws before the counter moves on the decoded path, after it otherwise.
  if (!runState.shouldDoJumpAnalysis) {
    runState.stack.push(runState.cachedPushes[at]!);
    runState.programCounter = at + count;
    return;
  }
  runState.programCounter = at + count;
  const loaded = runState.code.subarray(at, at + count);
  const value = numberOf(loaded);
  runState.stack.push(loaded.length < count ? value << BigInt(8 * (count - loaded.length)) : value);
}

/** The package's CALLER (functions.js, 0x33, through interpreter.js `getCaller`). */
export function callerOpcode(runState: WordRunState): void {
  runState.stack.push(numberOf(runState.env.caller.bytes));
}

/** The package's SLOAD gas (gas.js, 0x54) where EIP-6800 and EIP-7864 are off. */
export const sloadGas =
  (accessStorage: AccessStorage) =>
  (runState: WordRunState, gas: bigint, common: Common): bigint =>
    gas + accessStorage(runState, wordBytes(runState.stack.peek()[0]!), false, common, true);

/** The package's SSTORE (functions.js, 0x55) where EIP-8037 (its state gas) is off. */
export async function sstoreOpcode(runState: WordRunState): Promise<void> {
  const [key, val] = runState.stack.popN(2) as [bigint, bigint];
  // The value's shortest form, as the package stores it (bigIntToBytes; empty for zero).
  await runState.interpreter.storageStore(wordBytes(key), val === 0n ? new Uint8Array(0) : shortestBytes(val));
}

/**
 * The package's SSTORE gas (gas.js, 0x55) where EIP-8038 (its access gate), EIP-7928 (block access
 * lists) and EIP-6800/7864 (witness gas) are off: the EIP-2200 (or EIP-1283, or Frontier) charge on
 * the current and original values, then EIP-2929's cold access.
 */
export const sstoreGas =
  (formulas: SstoreFormulas) =>
  async (runState: WordRunState, gas: bigint, common: Common): Promise<bigint> => {
    if (runState.interpreter.isStatic()) formulas.trap(EVMError.errorMessages.STATIC_STATE_CHANGE);
    const [key, val] = runState.stack.peek(2) as [bigint, bigint];
    const keyBytes = wordBytes(key);
    const current = storageWord(await runState.interpreter.storageLoad(keyBytes, false, false));
    const original = storageWord(await runState.interpreter.storageLoad(keyBytes, true, false));
    const value = val === 0n ? new Uint8Array(0) : wordBytes(val);
    if (common.hardfork() === Hardfork.Constantinople) {
      gas += formulas.updateSstoreGasEIP1283(runState, current, original, value, common);
    } else if (common.gteHardfork(Hardfork.Istanbul)) {
      gas += formulas.updateSstoreGasEIP2200(runState, current, original, value, keyBytes, common);
    } else {
      gas += formulas.updateSstoreGas(runState, current, value, common);
    }
    if (common.isActivatedEIP(2929)) gas += formulas.accessStorageEIP2929(runState, keyBytes, true, common, true);
    return gas;
  };

/** @noble/hashes' keccak, the package's fallback without `customCrypto.keccak256`. */
let keccak: (data: Uint8Array) => Uint8Array;

let installed: Promise<void> | undefined;

/** Installs the handlers in every EVM created from now on, once per process. */
export function installWordOpcodes(): Promise<void> {
  installed ??= (async () => {
    const [{ accessStorageEIP2929 }, { updateSstoreGasEIP1283 }, { updateSstoreGasEIP2200 }, { updateSstoreGas, trap }, sha3] = await Promise.all([
      import(evmFile("esm", "opcodes/EIP2929.js")) as Promise<Pick<SstoreFormulas, "accessStorageEIP2929">>,
      import(evmFile("esm", "opcodes/EIP1283.js")) as Promise<Pick<SstoreFormulas, "updateSstoreGasEIP1283">>,
      import(evmFile("esm", "opcodes/EIP2200.js")) as Promise<Pick<SstoreFormulas, "updateSstoreGasEIP2200">>,
      import(evmFile("esm", "opcodes/util.js")) as Promise<Pick<SstoreFormulas, "updateSstoreGas" | "trap">>,
      import("@noble/hashes/sha3.js"),
    ]);
    const formulas: SstoreFormulas = { accessStorageEIP2929, updateSstoreGasEIP1283, updateSstoreGasEIP2200, updateSstoreGas, trap };
    for (const [name, formula] of Object.entries(formulas)) {
      if (typeof formula !== "function") throw new Error(`@ethereumjs/evm: ${name} moved; update src/node/ethereumjs/wordOpcodes.ts`);
    }
    keccak = sha3.keccak_256;
    const gasOfSload = sloadGas(accessStorageEIP2929);
    const gasOfSstore = sstoreGas(formulas);
    editOpcodeTables((evm, entries) => {
      const table = entries as unknown as { opcodeInfo: { isInvalid: boolean; isAsync: boolean }; opHandler: unknown; gasHandler?: unknown }[];
      const hash = table[KECCAK256];
      if (hash !== undefined && !hash.opcodeInfo.isInvalid && !isHooked(hash.opHandler)) hash.opHandler = keccak256Opcode;
      const common = evm.common;
      const witnesses = common.isActivatedEIP(6800) || common.isActivatedEIP(7864);
      const handlers: [number, unknown][] = [
        [MLOAD, mloadOpcode],
        [CALLDATALOAD, calldataloadOpcode],
        [CALLER, callerOpcode],
      ];
      for (let code = LOG0; code <= LOG4; code++) handlers.push([code, logOpcode]);
      if (!witnesses) for (let code = PUSH1; code <= PUSH32; code++) handlers.push([code, pushOpcode]);
      for (const [code, handler] of handlers) {
        const entry = table[code];
        if (entry !== undefined && !entry.opcodeInfo.isInvalid && !isHooked(entry.opHandler)) entry.opHandler = handler;
      }
      const sload = table[SLOAD];
      if (sload !== undefined && !sload.opcodeInfo.isInvalid && !isHooked(sload.opHandler)) {
        sload.opHandler = sloadOpcode;
        if (!witnesses) sload.gasHandler = gasOfSload;
      }
      const sstore = table[SSTORE];
      if (sstore !== undefined && !sstore.opcodeInfo.isInvalid && !isHooked(sstore.opHandler)) {
        if (!common.isActivatedEIP(8037)) sstore.opHandler = sstoreOpcode;
        if (!witnesses && !common.isActivatedEIP(7928) && !common.isActivatedEIP(8038)) sstore.gasHandler = gasOfSstore;
      }
    });
  })();
  return installed;
}
