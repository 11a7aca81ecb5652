/**
 * Native secp256k1 and keccak for `Common.customCrypto`, when their prebuilt addons load.
 * Sender recovery dominates admission (~3.5 ms a tx in pure JS, ~0.1 ms native). When the addons
 * are missing the chain silently uses @ethereumjs' pure-JS defaults.
 */
import { createRequire } from "node:module";

import type { CustomCrypto } from "@ethereumjs/common";

interface NativeSecp256k1 {
  ecdsaRecover(signature: Uint8Array, recid: number, message: Uint8Array, compressed: boolean): Uint8Array;
}
type KeccakFactory = (algorithm: "keccak256") => { update(data: Buffer): { digest(): Buffer } };

const require = createRequire(import.meta.url);

function load<T>(name: string): T | undefined {
  try {
    return require(name) as T;
  } catch {
    return undefined;
  }
}

/** Recovery id from `v`: 27/28 (pre-EIP-155), 35 + 2·chainId (EIP-155) or 0/1 (typed txs). */
function recoveryId(v: bigint, chainId: bigint | undefined): number {
  if (v === 0n || v === 1n) return Number(v);
  if (chainId === undefined) return Number(v - 27n);
  return Number(v - (chainId * 2n + 35n));
}

function leftPad32(bytes: Uint8Array): Uint8Array {
  if (bytes.length === 32) return bytes;
  const out = new Uint8Array(32);
  out.set(bytes, 32 - bytes.length);
  return out;
}

let cached: CustomCrypto | undefined;

export function nativeCrypto(): CustomCrypto {
  if (cached !== undefined) return cached;
  const crypto: CustomCrypto = {};
  const secp = load<NativeSecp256k1>("secp256k1");
  if (secp !== undefined) {
    crypto.ecrecover = (msgHash, v, r, s, chainId) => {
      const recid = recoveryId(v, chainId);
      if (recid !== 0 && recid !== 1) throw new Error("invalid signature v value");
      const signature = new Uint8Array(64);
      signature.set(leftPad32(r), 0);
      signature.set(leftPad32(s), 32);
      // ethereumjs expects the 64-byte public key without the 0x04 prefix.
      return secp.ecdsaRecover(signature, recid, msgHash, false).slice(1);
    };
  }
  const keccak = load<KeccakFactory>("keccak");
  if (keccak !== undefined) {
    crypto.keccak256 = (message) => {
      const digest = keccak("keccak256").update(Buffer.from(message.buffer, message.byteOffset, message.byteLength)).digest();
      return new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength);
    };
  }
  cached = crypto;
  return crypto;
}
