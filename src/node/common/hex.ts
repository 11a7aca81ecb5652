/**
 * `0x` hex that is one flat string. ethereumjs' bytesToHex appends byte by byte, and V8 keeps such
 * a string as a rope of ~n pieces (a 128 KiB tx's input held ~4 MiB per answer) for as long as
 * anything holds it.
 */
export function flatHex(bytes: Uint8Array): `0x${string}` {
  return `0x${unprefixedHex(bytes)}`;
}

/**
 * Lowercase hex without `0x`, as one flat string: what @ethereumjs/util's `bytesToUnprefixedHex`
 * answers (the keys of the trie database's map, of the EVM journal's warm sets), built by Node's
 * encoder in one piece where that function appends two digits per byte. Used as a map key, a rope
 * is flattened, then hashed, at every lookup (a trie node's key and its lookup: ~0.65 against
 * ~0.3 µs, measured).
 */
export function unprefixedHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/** Hex digits' values by char code: '0'-'9', 'a'-'f', 'A'-'F' (anything else 0: callers check first). */
const NIBBLES = new Uint8Array(128);
for (let digit = 0; digit < 16; digit++) {
  NIBBLES["0123456789abcdef".charCodeAt(digit)] = digit;
  NIBBLES["0123456789ABCDEF".charCodeAt(digit)] = digit;
}

/**
 * From this many bytes Buffer's native decoder beats the loop below, whose per-call cost is lower
 * (a 20-byte value: ~80 against ~390 ns; 5,000 bytes: ~18 against ~41 µs; bench/benchmarks-notes.md).
 */
const NATIVE_DECODE_FROM = 256;

/**
 * The bytes of `hex`, a string the caller has matched against BYTES_PATTERN (0x, then an even number
 * of hex digits, any case): what @ethereumjs/util's `hexToBytes` answers for it, in a fresh
 * Uint8Array of its own (never a slice of Buffer's shared pool), ~3× faster at a deploy's size.
 */
export function bytesOfCheckedHex(hex: string): Uint8Array {
  const bytes = new Uint8Array((hex.length - 2) >>> 1);
  if (bytes.length >= NATIVE_DECODE_FROM) {
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).write(hex.slice(2), "hex");
    return bytes;
  }
  for (let index = 0, digit = 2; index < bytes.length; index++, digit += 2) {
    bytes[index] = (NIBBLES[hex.charCodeAt(digit)]! << 4) | NIBBLES[hex.charCodeAt(digit + 1)]!;
  }
  return bytes;
}

// Hex string patterns (execution-apis "base-types"), in one place; any letter case.

/** A quantity: no leading zeros. */
export const QUANTITY_PATTERN = /^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/;
/** Hex digits, at least one, leading zeros allowed. */
export const HEX_DIGITS_PATTERN = /^0x[0-9a-fA-F]+$/;
/** Bytes: an even number of digits, possibly none (a non-capturing group: V8 matches it in half the time). */
export const BYTES_PATTERN = /^0x(?:[0-9a-fA-F]{2})*$/;
/** 20 bytes. */
export const ADDRESS_PATTERN = /^0x[0-9a-fA-F]{40}$/;
/** 32 bytes: hashes, private keys, prevrandao values. */
export const BYTES32_PATTERN = /^0x[0-9a-fA-F]{64}$/;
