/**
 * A tx's serialized bytes, encoded once. A pooled tx is serialized for its size at admission, for
 * its slots when the pool takes it and for the transactions trie at seal; @ethereumjs/tx
 * re-encodes the whole RLP on every `serialize()` (10.1.3 caches only the hash), and a tx object
 * never changes once built, so the first encoding serves them all.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";

import { flatHex } from "../common/hex.ts";

import type { TypedTransaction } from "@ethereumjs/tx";
import type { Hex } from "../common/types.ts";

const encoded = new WeakMap<TypedTransaction, Uint8Array>();

/** `tx.serialize()`, encoded on the first call for this tx object; callers only read the bytes. */
export function txBytes(tx: TypedTransaction): Uint8Array {
  let bytes = encoded.get(tx);
  if (bytes === undefined) {
    bytes = tx.serialize();
    encoded.set(tx, bytes);
  }
  return bytes;
}

/**
 * `txBytes` for the last time: the seal encodes the block's txs into its transactions trie, and
 * nothing on the write path reads them after it, so a sealed tx's bytes are not kept for as long
 * as its block is (a 10,000-block chain would hold a second copy of every tx).
 */
export function lastTxBytes(tx: TypedTransaction): Uint8Array {
  const bytes = txBytes(tx);
  encoded.delete(tx);
  return bytes;
}

/**
 * A signed tx's hash as flat hex (common/hex.ts): keccak of `txBytes`, as `tx.hash()` computes it
 * (@ethereumjs/tx 10.1.3: its Common's keccak over `serialize()`), without encoding the tx again.
 */
export function txHash(tx: TypedTransaction): Hex {
  if (!tx.isSigned()) return flatHex(tx.hash());
  return flatHex((tx.common.customCrypto.keccak256 ?? keccak_256)(txBytes(tx)));
}
