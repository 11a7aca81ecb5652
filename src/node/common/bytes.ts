/**
 * Byte helpers that @ethereumjs/util has too, without its per-byte allocations.
 */

/**
 * `bytes` without its leading zeros, as @ethereumjs/util 10.1.3's `unpadBytes` answers: `bytes`
 * itself when its first byte is not zero (or it is empty), else a new array of the bytes after the
 * zeros (empty for all zeros). util's `stripZeros` drops one zero at a time, each with a new array
 * and a number turned into a string: 32 arrays for a zero word, as every block's EIP-4788 write of
 * a dev chain's parent beacon block root (src/node/execution/systemCalls.ts) stores.
 */
export function withoutLeadingZeros(bytes: Uint8Array): Uint8Array {
  let first = 0;
  while (first < bytes.length && bytes[first] === 0) first++;
  return first === 0 ? bytes : bytes.slice(first);
}
