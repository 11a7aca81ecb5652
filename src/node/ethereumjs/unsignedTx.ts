/**
 * Patch (@ethereumjs/tx 10.1.3, `hash()` of every tx type, capabilities/legacy.js): ethereumjs
 * refuses to hash a tx without a signature. eth_simulateV1's blocks hold such txs, and
 * go-ethereum hashes them as they serialize, their V, R and S being 0 (simulate.go builds them
 * with ToTransaction and never signs them): keccak256 of the serialized tx, which for an unsigned
 * tx encodes the three as empty (0x80), as a zero does. test/ethereumjs.test.ts fails if a
 * serialized unsigned tx stops ending that way.
 */
import { keccak256 } from "../common/crypto.ts";

import type { TypedTransaction } from "@ethereumjs/tx";

/** `tx`, hashing as go-ethereum hashes it when it is unsigned (built with `freeze: false`). */
export function hashUnsigned<T extends TypedTransaction>(tx: T): T {
  if (!tx.isSigned()) Object.defineProperty(tx, "hash", { value: () => keccak256(tx.serialize()), configurable: true });
  return tx;
}
