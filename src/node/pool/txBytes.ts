/**
 * A pooled tx's encoded size and hash, from one encoding. @ethereumjs/tx re-encodes the whole RLP
 * on every `serialize()` (10.1.3 caches only the hash), and a pooled tx needed it four times: its
 * hash and size at admission, its slots when the pool checks for room and when it takes the tx.
 * Admission encodes it once for its hash and keeps the size; the seal encodes it once more for the
 * transactions trie. Only the size is kept, not the bytes: a full pool of large txs would
 * otherwise hold each one twice (docs/limits.md).
 */
import { keccak_256 } from "@noble/hashes/sha3.js";

import { flatHex } from "../common/hex.ts";

import type { Common } from "@ethereumjs/common";
import type { TypedTransaction } from "@ethereumjs/tx";
import type { Hex } from "../common/types.ts";

const sizes = new WeakMap<TypedTransaction, number>();

/** `tx.serialize().length`, encoding the tx only the first time for this tx object. */
export function txSize(tx: TypedTransaction): number {
  let size = sizes.get(tx);
  if (size === undefined) {
    size = tx.serialize().length;
    sizes.set(tx, size);
  }
  return size;
}

/**
 * A signed tx's hash as flat hex (common/hex.ts): keccak of its encoding, as `tx.hash()` computes
 * it (@ethereumjs/tx 10.1.3: its Common's keccak over `serialize()`); the encoding's size is kept
 * for `txSize`. `encoding`: the bytes the tx was decoded from, when it came as bytes; they are its
 * encoding (@ethereumjs' decoding refuses non-canonical RLP and integers with leading zeros), so
 * they are not encoded again.
 */
export function txHash(tx: TypedTransaction, encoding?: Uint8Array): Hex {
  if (!tx.isSigned()) return flatHex(tx.hash());
  const bytes = encoding ?? tx.serialize();
  sizes.set(tx, bytes.length);
  return encodingHash(bytes, tx.common);
}

/** The hash of a signed tx encoded as `bytes`, before it is decoded: keccak256 with `common`'s keccak, as `txHash`. */
export function encodingHash(bytes: Uint8Array, common: Common): Hex {
  return flatHex((common.customCrypto.keccak256 ?? keccak_256)(bytes));
}

/** Keeps `bytes`' length as the size of `tx`, decoded from them (as `txHash` does with its encoding). */
export function keepEncodedSize(tx: TypedTransaction, bytes: Uint8Array): void {
  sizes.set(tx, bytes.length);
}

/** The tx's encoding for its block's transactions trie; its kept size is dropped, the tx being sealed. */
export function sealedTxBytes(tx: TypedTransaction): Uint8Array {
  sizes.delete(tx);
  return tx.serialize();
}
