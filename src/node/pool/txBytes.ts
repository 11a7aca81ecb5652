/**
 * A pooled tx's encoded size and hash, from one encoding. @ethereumjs/tx re-encodes the whole RLP
 * on every `serialize()` (10.1.3 caches only the hash), and a pooled tx needed it four times: its
 * hash and size at admission, its slots when the pool checks for room and when it takes the tx.
 * Admission encodes it once for its hash and keeps the size; the seal needs the encoding once more
 * for the transactions trie. A tx that came as bytes (eth_sendRawTransaction) has them as its
 * encoding: a copy is kept for the seal when they are small (up to 4 KiB, a transfer or a call),
 * so it is not encoded at all; so is the encoding admission made of a small tx that came as an
 * object (eth_sendTransaction's, signed by our wallet, or an impersonated sender's). Larger ones
 * are encoded again at the seal, so that a full pool of large txs does not hold each one twice.
 * The encodings kept add at most 1,536 slots × 4 KiB = 6 MiB to a full pool, 4 MiB to the 1,024
 * txs decodedTxs.ts keeps and 4 MiB to the 1,024 the wallet's SignedTxs keeps (a tx refused or
 * dropped before its seal keeps its encoding for as long as one of them holds it: docs/limits.md).
 */
import { keccak_256 } from "@noble/hashes/sha3.js";

import { flatHex } from "../common/hex.ts";

import type { Common } from "@ethereumjs/common";
import type { TypedTransaction } from "@ethereumjs/tx";
import type { Hex } from "../common/types.ts";

const sizes = new WeakMap<TypedTransaction, number>();
/** Copies of the bytes small txs came as, until they are sealed. */
const encodings = new WeakMap<TypedTransaction, Uint8Array>();
/** The largest encoding kept for the seal. */
export const MAX_KEPT_ENCODING = 4 * 1024;

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
 * for `txSize`, and the encoding itself for the seal when it is small, as `keepEncoding` keeps the
 * bytes a tx came as (a tx our wallet signed is encoded here, once). A tx that came as bytes is
 * hashed from them instead (`encodingHash`).
 */
export function txHash(tx: TypedTransaction): Hex {
  if (!tx.isSigned()) return flatHex(tx.hash());
  const bytes = tx.serialize();
  sizes.set(tx, bytes.length);
  // A fresh array no one else holds: kept as it is.
  if (bytes.length <= MAX_KEPT_ENCODING) encodings.set(tx, bytes);
  return encodingHash(bytes, tx.common);
}

/**
 * The hash of a signed tx encoded as `bytes`, before it is decoded: keccak256 with `common`'s
 * keccak, as `txHash`. The bytes a tx is decoded from are its encoding (@ethereumjs' decoding
 * refuses non-canonical RLP and integers with leading zeros), so this is the decoded tx's hash.
 */
export function encodingHash(bytes: Uint8Array, common: Common): Hex {
  return flatHex((common.customCrypto.keccak256 ?? keccak_256)(bytes));
}

/**
 * Keeps what the bytes `tx` was decoded from say of it: their length as its size (as `txHash`
 * does with its encoding) and, when they are small, a copy of them for the seal (the caller's
 * array may change after it returns).
 */
export function keepEncoding(tx: TypedTransaction, bytes: Uint8Array): void {
  sizes.set(tx, bytes.length);
  if (bytes.length <= MAX_KEPT_ENCODING) encodings.set(tx, bytes.slice());
}

/** The tx's encoding for its block's transactions trie (the kept one, if any); what was kept is dropped, the tx being sealed. */
export function sealedTxBytes(tx: TypedTransaction): Uint8Array {
  sizes.delete(tx);
  const kept = encodings.get(tx);
  if (kept === undefined) return tx.serialize();
  encodings.delete(tx);
  return kept;
}

/** Whether the seal will take `tx`'s kept encoding instead of encoding it (for tests). */
export function encodingKept(tx: TypedTransaction): boolean {
  return encodings.has(tx);
}
