/**
 * Signing with a key prepared once: its bytes and its public key, so that a tx signed here knows
 * its sender without recovering it from the signature.
 *
 * Patch (@ethereumjs/tx 10.1.3, the `cache.senderPubKey` of a signed tx): `getSenderPublicKey`
 * (capabilities/legacy.js) answers from `tx.cache.senderPubKey` when it is set, and otherwise runs
 * ecrecover, once per frozen tx. A tx this module signs gets its signer's public key there, so
 * admission and runTx never recover it (~0.1 ms native, ~3 ms in pure JS). test/ethereumjs.test.ts
 * fails if a signed tx stops reading its sender from that cache.
 */
import { hexToBytes } from "@ethereumjs/util";

import { publicKeyOf } from "../common/crypto.ts";

import type { TypedTransaction } from "@ethereumjs/tx";

export interface PreparedKey {
  readonly secret: Uint8Array;
  /** The uncompressed public key without its 0x04 prefix (64 bytes), as ethereumjs caches it. */
  readonly publicKey: Uint8Array;
}

const prepared = new Map<string, PreparedKey>();

/** The key of `privateKey`, prepared once per process (dev accounts and wallet keys are few). */
export function preparedKey(privateKey: `0x${string}`): PreparedKey {
  const id = privateKey.toLowerCase();
  let key = prepared.get(id);
  if (key === undefined) {
    const secret = hexToBytes(privateKey);
    key = { secret, publicKey: publicKeyOf(secret, false).subarray(1) };
    prepared.set(id, key);
  }
  return key;
}

/** Signs `unsigned` (ethereumjs' own `sign`) and hands the signed tx its sender's public key. */
export function signWithPreparedKey<T extends TypedTransaction>(unsigned: T, key: PreparedKey): T {
  const signed = unsigned.sign(key.secret) as T;
  (signed.cache as { senderPubKey?: Uint8Array }).senderPubKey = key.publicKey;
  return signed;
}
