/**
 * Signing with a key prepared once: its bytes and its public key, so that a tx signed here knows
 * its sender without recovering it from the signature.
 *
 * Patch (@ethereumjs/tx 10.1.3, the `cache.senderPubKey` of a signed tx): `getSenderPublicKey`
 * (capabilities/legacy.js) answers from `tx.cache.senderPubKey` when it is set, and otherwise runs
 * ecrecover, once per frozen tx. A tx this module signs gets its signer's public key there, so
 * admission and runTx never recover it (~0.1 ms native, ~3 ms in pure JS). test/ethereumjs.test.ts
 * fails if a signed tx stops reading its sender from that cache.
 *
 * Signing itself is ethereumjs' `sign` (@ethereumjs/tx 10.1.3, capabilities/legacy.js `sign`) from
 * the message hash `SignedTxs` has already computed for its memo key: the same signer
 * (`common.customCrypto.ecsign`, else noble's), the same options (`tx.sign`'s `extraEntropy` is
 * false), the same `addSignature(recovery, r, s, true)`; a fresh send no longer encodes and hashes
 * its message twice. Where `sign` does more (a private key that is not 32 bytes: its error; a
 * legacy tx without EIP-155 replay protection, whose message `sign` changes first) it is called
 * itself. test/ethereumjs.test.ts compares both, byte for byte, for every tx type we sign.
 */
import { RLP } from "@ethereumjs/rlp";
import { Capability, TransactionType } from "@ethereumjs/tx";
import { EthereumJSErrorWithoutCode, hexToBytes } from "@ethereumjs/util";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";

import { publicKeyOf } from "../common/crypto.ts";
import { flatHex } from "../common/hex.ts";
import { LruMemo } from "../common/lruMemo.ts";

import type { TypedTransaction } from "@ethereumjs/tx";

export interface PreparedKey {
  /** Tells prepared keys apart in a memo of signed txs (one per key in this process). */
  readonly id: number;
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
    key = { id: prepared.size, secret, publicKey: publicKeyOf(secret, false).subarray(1) };
    prepared.set(id, key);
  }
  return key;
}

export const MAX_SIGNED_TXS = 1024;
/** The bound on the signed messages' bytes (each tx weighs its whole unsigned encoding). */
export const MAX_SIGNED_TX_DATA_BYTES = 8 * 1024 * 1024;

/**
 * Txs one chain's wallet signed, by key and by the hash of the message signed: a test suite that
 * reverts to a snapshot (`loadFixture`) asks for the same txs again (same nonce, fees, gas and
 * data), and the same key signing the same message gives the same signature (RFC 6979: @ethereumjs
 * signs without extra entropy, as our native signer; nativeCrypto in common/crypto.ts), so the
 * signed tx is handed out again instead of signed and built again.
 *
 * Correct by construction: the message is the whole unsigned tx (its type, chain id and every
 * field); what else the signed tx depends on is its `Common`, and an entry is used only with the
 * very Common it was signed on (the chain's shared tx Common: sharedCommon.ts builds a new one when
 * the hardfork moves). Signed txs are frozen; nothing of ours writes to one but its `cache`, which
 * holds for the same tx and Common. Per chain (the caller holds one per chain), so a new provider
 * signs in full. Bounded: the 1,024 most recently signed txs and 8 MiB of their unsigned encodings
 * (data, access and authorization lists).
 */
export class SignedTxs {
  readonly #memo = new LruMemo<string, TypedTransaction>(MAX_SIGNED_TXS, MAX_SIGNED_TX_DATA_BYTES);

  sign<T extends TypedTransaction>(unsigned: T, key: PreparedKey): T {
    // The message ethereumjs hashes to sign (`getHashedMessageToSign`: a legacy tx's fields are
    // RLP-encoded first). Its length is the entry's weight: the data alone would leave an access
    // or authorization list (up to a request body's 5 MiB each) out of the bound.
    const fields = unsigned.getMessageToSign();
    const message = fields instanceof Uint8Array ? fields : RLP.encode(fields);
    const hash = (unsigned.common.customCrypto.keccak256 ?? keccak_256)(message);
    const id = `${key.id}:${flatHex(hash)}`;
    const known = this.#memo.get(id);
    if (known !== undefined && known.common === unsigned.common && known.type === unsigned.type) return known as T;
    const signed = signHashWithPreparedKey(unsigned, key, hash);
    this.#memo.set(id, signed, message.length);
    return signed;
  }
}

/** Signs `unsigned` (ethereumjs' own `sign`) and hands the signed tx its sender's public key. */
export function signWithPreparedKey<T extends TypedTransaction>(unsigned: T, key: PreparedKey): T {
  const signed = unsigned.sign(key.secret) as T;
  (signed.cache as { senderPubKey?: Uint8Array }).senderPubKey = key.publicKey;
  return signed;
}

/**
 * `signWithPreparedKey` from `hash`, the keccak256 of `unsigned.getMessageToSign()` (RLP-encoded for
 * a legacy tx), as ethereumjs' `sign` computes it (see the header).
 */
export function signHashWithPreparedKey<T extends TypedTransaction>(unsigned: T, key: PreparedKey, hash: Uint8Array): T {
  if (key.secret.length !== 32 || (unsigned.type === TransactionType.Legacy && !unsigned.supports(Capability.EIP155ReplayProtection))) {
    return signWithPreparedKey(unsigned, key);
  }
  const ecsign = unsigned.common.customCrypto?.ecsign ?? secp256k1.sign;
  const { recovery, r, s } = secp256k1.Signature.fromBytes(ecsign(hash, key.secret, { extraEntropy: false, format: "recovered", prehash: false }), "recovered");
  if (recovery === undefined) throw EthereumJSErrorWithoutCode("Invalid signature recovery");
  const signed = unsigned.addSignature(BigInt(recovery), r, s, true) as T;
  (signed.cache as { senderPubKey?: Uint8Array }).senderPubKey = key.publicKey;
  return signed;
}
