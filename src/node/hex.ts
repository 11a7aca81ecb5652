/**
 * `0x` hex that is one flat string. ethereumjs' bytesToHex appends byte by byte, and V8 keeps such
 * a string as a rope of ~n pieces (a 128 KiB tx's input held ~4 MiB per answer) for as long as
 * anything holds it.
 */
export function flatHex(bytes: Uint8Array): `0x${string}` {
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex")}`;
}
