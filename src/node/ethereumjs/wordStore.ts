/**
 * MSTORE writing its word straight into 32 bytes. @ethereumjs/evm 10.1.3's handler pads
 * `bigIntToBytes(word)` with @ethereumjs/util's setLengthLeft, which builds the padded array by
 * spreading both parts into a list first: ~3 % of an ERC-20 `balanceOf` eth_call, which stores
 * words to memory for its hashing and its return value. The bytes written are the same: the word's
 * 32-byte big-endian form (stack words are below 2^256). Memory expansion and its gas are the
 * dynamic gas handler's, before the handler runs, and stay the package's.
 *
 * Patch (`EVM.prototype.getActiveOpcodes` and the private `_opcodeMap`, as opcodeHooks.ts): after
 * an EVM builds its opcode table, the MSTORE entry's handler is replaced, unless something already
 * made it async (a hook, which wraps the package's handler: it is left alone).
 * test/engineInternals.test.ts fails if the entry stops being ours or writes other bytes.
 */

import { editOpcodeTables } from "./opcodeHooks.ts";

const MSTORE = 0x52;
const MASK_64 = 0xffffffffffffffffn;

interface MstoreRunState {
  stack: { popN(count: number): bigint[] };
  memory: { write(offset: number, size: number, value: Uint8Array): void };
}

/**
 * The word's bytes are built in one scratch array, which `memory.write` copies into memory
 * (`_store.set`), so no array is allocated per MSTORE. Most words stored are small (offsets,
 * lengths, addresses): those take one or two 64-bit writes.
 */
const scratch = new Uint8Array(32);
const view = new DataView(scratch.buffer);

/**
 * The 32-byte big-endian form of a word below 2^256, written as four 64-bit words into the shared
 * scratch array: valid until the next call, so callers copy it (memory.write, `slice`).
 */
export function scratchWord(word: bigint): Uint8Array {
  if (word <= MASK_64) {
    view.setBigUint64(0, 0n);
    view.setBigUint64(8, 0n);
    view.setBigUint64(16, 0n);
    view.setBigUint64(24, word);
  } else {
    view.setBigUint64(0, word >> 192n);
    view.setBigUint64(8, (word >> 128n) & MASK_64);
    view.setBigUint64(16, (word >> 64n) & MASK_64);
    view.setBigUint64(24, word & MASK_64);
  }
  return scratch;
}

/** The package's MSTORE (functions.js, 0x52), with the 32 bytes written as four 64-bit words. */
export function mstore(runState: MstoreRunState): void {
  const [offset, word] = runState.stack.popN(2) as [bigint, bigint];
  runState.memory.write(Number(offset), 32, scratchWord(word));
}

let installed = false;

/** Installs the MSTORE handler in every EVM created from now on, once per process. */
export function installWordStore(): void {
  if (installed) return;
  installed = true;
  editOpcodeTables((_evm, table) => {
    const entry = table[MSTORE];
    if (entry !== undefined && !entry.opcodeInfo.isInvalid && !entry.opcodeInfo.isAsync) entry.opHandler = mstore as (runState: unknown) => void;
  });
}
