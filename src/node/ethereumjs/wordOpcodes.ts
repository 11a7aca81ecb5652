/**
 * KECCAK256 and SLOAD (its handler and its dynamic gas) without the byte↔bigint round trips of
 * @ethereumjs/util.
 *
 * @ethereumjs/evm 10.1.3 (opcodes/functions.js, opcodes/gas.js) turns a storage key into its 32
 * bytes with `setLengthLeft(bigIntToBytes(key), 32)` (a hex string, its bytes, then a padded copy
 * built by spreading both parts into a list): ~3 µs a key, twice per SLOAD (the gas handler's access
 * check, then the read). KECCAK256 copies its input out of memory and turns the 32-byte hash into a
 * number through a hex string. Here the key's bytes are written as four 64-bit words into a new
 * array (a new one per key: the state manager and the journal may keep it), the hash input is read
 * as a view of memory (the hash only reads it, before anything else runs), and the hash becomes a
 * number from its four 64-bit words. The values are the same: a stack word is below 2^256, so its
 * 32-byte big-endian form is what `setLengthLeft(bigIntToBytes(word), 32)` gives, and the hash's
 * number is what `BigInt(bytesToHex(hash))` gives. SLOAD's gas is the package's
 * `accessStorageEIP2929` (opcodes/EIP2929.js) on those bytes, returned without a promise (the loop,
 * interpreterLoop.ts, awaits a gas handler only when it returns one).
 *
 * Patch (`EVM.prototype.getActiveOpcodes` and the private `_opcodeMap`, as opcodeHooks.ts and
 * wordStore.ts): after an EVM builds its opcode table, the entries are replaced when they are still
 * the package's own (not wrapped by an opcode hook), and SLOAD's gas only where EIP-6800 and
 * EIP-7864 (whose witness gas the package's handler adds) are off. test/wordOpcodes.test.ts fails
 * if the entries stop being ours or if any of them computes other values, gas or errors than the
 * package's on random keys, memory and programs.
 */
import { EVM } from "@ethereumjs/evm";
import { bytesToBigInt } from "@ethereumjs/util";

import { evmFile } from "./framePool.ts";
import { isHooked, opcodeTableOf } from "./opcodeHooks.ts";

import type { Common } from "@ethereumjs/common";

const KECCAK256 = 0x20;
const SLOAD = 0x54;
const MASK_64 = 0xffffffffffffffffn;
const EMPTY = new Uint8Array(0);

interface WordRunState {
  stack: { pop(): bigint; popN(count: number): bigint[]; push(value: bigint): void; peek(count?: number): bigint[] };
  memory: { read(offset: number, size: number, avoidCopy?: boolean): Uint8Array };
  interpreter: { storageLoad(key: Uint8Array): Promise<Uint8Array> };
}

type AccessStorage = (runState: WordRunState, key: Uint8Array, isSstore: boolean, common: Common, chargeGas?: boolean) => bigint;

/** The 32-byte big-endian form of a word below 2^256, in a new array. */
export function wordBytes(word: bigint): Uint8Array {
  const bytes = new Uint8Array(32);
  const view = new DataView(bytes.buffer);
  if (word <= MASK_64) {
    view.setBigUint64(24, word);
  } else {
    view.setBigUint64(0, word >> 192n);
    view.setBigUint64(8, (word >> 128n) & MASK_64);
    view.setBigUint64(16, (word >> 64n) & MASK_64);
    view.setBigUint64(24, word & MASK_64);
  }
  return bytes;
}

/** The number whose 32-byte big-endian form is `bytes`. */
export function wordOf(bytes: Uint8Array): bigint {
  const view = new DataView(bytes.buffer, bytes.byteOffset, 32);
  return (view.getBigUint64(0) << 192n) | (view.getBigUint64(8) << 128n) | (view.getBigUint64(16) << 64n) | view.getBigUint64(24);
}

/** The package's KECCAK256 (functions.js, 0x20), its input read in place. */
export function keccak256Opcode(runState: WordRunState, common: Common): void {
  const [offset, length] = runState.stack.popN(2) as [bigint, bigint];
  const data = length === 0n ? EMPTY : runState.memory.read(Number(offset), Number(length), true);
  runState.stack.push(wordOf((common.customCrypto.keccak256 ?? keccak)(data)));
}

/** The package's SLOAD (functions.js, 0x54). */
export async function sloadOpcode(runState: WordRunState): Promise<void> {
  const key = runState.stack.pop();
  const value = await runState.interpreter.storageLoad(wordBytes(key));
  runState.stack.push(value.length > 0 ? bytesToBigInt(value) : 0n);
}

/** The package's SLOAD gas (gas.js, 0x54) where EIP-6800 and EIP-7864 are off. */
export const sloadGas =
  (accessStorage: AccessStorage) =>
  (runState: WordRunState, gas: bigint, common: Common): bigint =>
    gas + accessStorage(runState, wordBytes(runState.stack.peek()[0]!), false, common, true);

/** @noble/hashes' keccak, the package's fallback without `customCrypto.keccak256`. */
let keccak: (data: Uint8Array) => Uint8Array;

let installed: Promise<void> | undefined;

/** Installs the handlers in every EVM created from now on, once per process. */
export function installWordOpcodes(): Promise<void> {
  installed ??= (async () => {
    const [{ accessStorageEIP2929 }, sha3] = await Promise.all([
      import(evmFile("esm", "opcodes/EIP2929.js")) as Promise<{ accessStorageEIP2929: AccessStorage }>,
      import("@noble/hashes/sha3.js"),
    ]);
    if (typeof accessStorageEIP2929 !== "function") throw new Error("@ethereumjs/evm: accessStorageEIP2929 moved; update src/node/ethereumjs/wordOpcodes.ts");
    keccak = sha3.keccak_256;
    const gasOfSload = sloadGas(accessStorageEIP2929);
    const getActiveOpcodes = EVM.prototype.getActiveOpcodes;
    EVM.prototype.getActiveOpcodes = function (this: EVM) {
      const active = getActiveOpcodes.call(this);
      const table = opcodeTableOf(this) as unknown as {
        opcodeInfo: { isInvalid: boolean; isAsync: boolean };
        opHandler: unknown;
        gasHandler?: unknown;
      }[];
      const hash = table[KECCAK256];
      if (hash !== undefined && !hash.opcodeInfo.isInvalid && !isHooked(hash.opHandler)) hash.opHandler = keccak256Opcode;
      const sload = table[SLOAD];
      if (sload !== undefined && !sload.opcodeInfo.isInvalid && !isHooked(sload.opHandler)) {
        sload.opHandler = sloadOpcode;
        if (!this.common.isActivatedEIP(6800) && !this.common.isActivatedEIP(7864)) sload.gasHandler = gasOfSload;
      }
      return active;
    };
  })();
  return installed;
}
