/**
 * `0x` hex that is one flat string. ethereumjs' bytesToHex appends byte by byte, and V8 keeps such
 * a string as a rope of ~n pieces (a 128 KiB tx's input held ~4 MiB per answer) for as long as
 * anything holds it.
 */
export function flatHex(bytes: Uint8Array): `0x${string}` {
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex")}`;
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
