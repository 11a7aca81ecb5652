/**
 * `0x` hex that is one flat string up to SCRATCH_HEX_BYTES bytes (keys, hashes, addresses, words).
 * ethereumjs' bytesToHex appends byte by byte, and V8 keeps such a string as a rope of ~n pieces (a
 * 128 KiB tx's input held ~4 MiB per answer) for as long as anything holds it; even `0x` joined to
 * one flat string of digits is a rope of two, which every use as a map key flattens (a copy) before
 * it hashes it. A longer input (data, code: answers, not keys) is that rope of two.
 */
export function flatHex(bytes: Uint8Array): `0x${string}` {
  if (bytes.length > SCRATCH_HEX_BYTES || !(bytes instanceof Uint8Array)) return `0x${nativeHex(bytes)}`;
  writeDigits(bytes);
  return digitScratch.toString("latin1", 0, 2 + 2 * bytes.length) as `0x${string}`;
}

/**
 * Lowercase hex without `0x`, as one flat string: what @ethereumjs/util's `bytesToUnprefixedHex`
 * answers (the keys of the trie database's map, of the EVM journal's warm sets), built in one piece
 * where that function appends two digits per byte. Used as a map key, a rope is flattened, then
 * hashed, at every lookup (a trie node's key and its lookup: ~0.65 against ~0.3 µs, measured).
 */
export function unprefixedHex(bytes: Uint8Array): string {
  // Anything but a Uint8Array (a DataView, another typed array) is read as its bytes, by Node's encoder.
  if (bytes.length > SCRATCH_HEX_BYTES || !(bytes instanceof Uint8Array)) return nativeHex(bytes);
  writeDigits(bytes);
  return digitScratch.toString("latin1", 2, 2 + 2 * bytes.length);
}

/**
 * Up to this many bytes the digits are written into a scratch buffer here and read out as one
 * latin1 string (one call into Node); past it, Node's hex encoder is faster than the loop. For a
 * 32-byte key, digits and a Map.set: ~200 ns against ~340 for `0x` + `toString("hex")` (a rope, and
 * a Buffer object per call), 20 bytes ~140 against ~260 (bench/benchmarks-notes.md, "Twelfth round").
 */
const SCRATCH_HEX_BYTES = 128;
/** `0x`, then room for the digits of SCRATCH_HEX_BYTES bytes (reused: filled and read synchronously). */
const digitScratch = Buffer.alloc(2 + 2 * SCRATCH_HEX_BYTES);
digitScratch[0] = 0x30; // "0"
digitScratch[1] = 0x78; // "x"
/** Each byte's two lowercase digits' char codes. */
const HIGH_DIGIT = new Uint8Array(256);
const LOW_DIGIT = new Uint8Array(256);
for (let byte = 0; byte < 256; byte++) {
  HIGH_DIGIT[byte] = "0123456789abcdef".charCodeAt(byte >> 4);
  LOW_DIGIT[byte] = "0123456789abcdef".charCodeAt(byte & 15);
}

function writeDigits(bytes: Uint8Array): void {
  for (let index = 0, at = 2; index < bytes.length; index++, at += 2) {
    const byte = bytes[index]!;
    digitScratch[at] = HIGH_DIGIT[byte]!;
    digitScratch[at + 1] = LOW_DIGIT[byte]!;
  }
}

function nativeHex(bytes: Uint8Array): string {
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
  const bytes = new Uint8Array(Math.max(0, hex.length - 2) >>> 1);
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
