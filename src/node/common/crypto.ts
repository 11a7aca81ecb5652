/**
 * Native secp256k1 and keccak for `Common.customCrypto`, when their prebuilt addons load.
 * Sender recovery dominates admission (~3.5 ms a tx in pure JS, ~0.1 ms native). When the addons
 * are missing the chain silently uses @ethereumjs' pure-JS defaults.
 */
import { createRequire } from "node:module";
import { dirname } from "node:path";

import { ecrecover } from "@ethereumjs/util";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";

import type { CustomCrypto } from "@ethereumjs/common";

interface NativeSecp256k1 {
  ecdsaRecover(signature: Uint8Array, recid: number, message: Uint8Array, compressed: boolean): Uint8Array;
  ecdsaSign(message: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number };
  publicKeyCreate(privateKey: Uint8Array, compressed: boolean): Uint8Array;
}
type KeccakFactory = (algorithm: "keccak256") => { update(data: Buffer): { digest(): Buffer } };
/** The keccak addon's raw sponge (the package wraps it in a stream per hash). */
interface KeccakState {
  initialize(rate: number, capacity: number): void;
  absorb(data: Buffer): void;
  squeeze(length: number): Buffer;
}

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

/**
 * keccak256 on the addon's sponge, one state reused: the package's `keccak("keccak256")` builds a
 * readable-stream Transform per hash, which costs more than hashing a trie node. Falls back to the
 * package API when the raw addon cannot be reached, and to nothing (pure JS) without the addon.
 */
function nativeKeccak256(): ((message: Uint8Array) => Uint8Array) | undefined {
  const gypBuild = load<(dir: string) => unknown>("node-gyp-build");
  let State: (new () => KeccakState) | undefined;
  try {
    const addon = gypBuild?.(dirname(require.resolve("keccak/package.json")));
    if (typeof addon === "function") State = addon as new () => KeccakState;
  } catch {
    State = undefined;
  }
  if (State !== undefined) {
    const state = new State();
    return (message) => {
      // Keccak-256: rate 1088, capacity 512; squeeze pads with keccak's 0x01 (not SHA-3's 0x06).
      state.initialize(1088, 512);
      state.absorb(Buffer.from(message.buffer, message.byteOffset, message.byteLength));
      const digest = state.squeeze(32);
      return new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength);
    };
  }
  const keccak = load<KeccakFactory>("keccak");
  if (keccak === undefined) return undefined;
  return (message) => {
    const digest = keccak("keccak256")
      .update(Buffer.from(message.buffer, message.byteOffset, message.byteLength))
      .digest();
    return new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength);
  };
}

let nativeSecp: NativeSecp256k1 | null | undefined;

function nativeSecp256k1(): NativeSecp256k1 | undefined {
  if (nativeSecp === undefined) nativeSecp = load<NativeSecp256k1>("secp256k1") ?? null;
  return nativeSecp ?? undefined;
}

/** secp256k1 public key of `privateKey` (33 bytes compressed, or 65 with the 0x04 prefix). */
export function publicKeyOf(privateKey: Uint8Array, compressed: boolean): Uint8Array {
  const secp = nativeSecp256k1();
  if (secp !== undefined) return secp.publicKeyCreate(privateKey, compressed);
  return secp256k1.getPublicKey(privateKey, compressed);
}

/** keccak256, native when the addon loads. */
export function keccak256(message: Uint8Array): Uint8Array {
  return (nativeCrypto().keccak256 ?? keccak_256)(message);
}

let cached: CustomCrypto | undefined;

export function nativeCrypto(): CustomCrypto {
  if (cached !== undefined) return cached;
  const crypto: CustomCrypto = {};
  // The secp256k1 addon loads on the first recovery or signature, not with the chain: loading it
  // is ~20 ms of CPU that a first answer does not need (row W6d). Without the addon each call is
  // what @ethereumjs does when these are unset (@ethereumjs/tx 10.1.3, capabilities/legacy.ts:
  // util's `ecrecover`, noble's `secp256k1.sign`), so the answers are the same either way.
  crypto.ecrecover = (msgHash, v, r, s, chainId) => {
    const secp = nativeSecp256k1();
    if (secp === undefined) return ecrecover(msgHash, v, r, s, chainId);
    const recid = recoveryId(v, chainId);
    if (recid !== 0 && recid !== 1) throw new Error("invalid signature v value");
    const signature = new Uint8Array(64);
    signature.set(leftPad32(r), 0);
    signature.set(leftPad32(s), 32);
    // ethereumjs expects the 64-byte public key without the 0x04 prefix.
    return secp.ecdsaRecover(signature, recid, msgHash, false).slice(1);
  };
  // eth_sendTransaction's signing (tx.sign): ~1 ms in pure JS, ~0.05 ms native. @ethereumjs/tx
  // 10.1.3 reads noble's "recovered" layout, recovery byte then r and s, which this returns; the
  // signature is RFC 6979 deterministic and low-s, as Hardhat's and geth's dev signers make it.
  crypto.ecsign = ((msgHash: Uint8Array, privateKey: Uint8Array, options?: Parameters<typeof secp256k1.sign>[2]) => {
    const secp = nativeSecp256k1();
    if (secp === undefined) return secp256k1.sign(msgHash, privateKey, options);
    const { signature, recid } = secp.ecdsaSign(msgHash, privateKey);
    const recovered = new Uint8Array(65);
    recovered[0] = recid;
    recovered.set(signature, 1);
    return recovered;
  }) as unknown as CustomCrypto["ecsign"];
  const keccak256 = nativeKeccak256();
  if (keccak256 !== undefined) crypto.keccak256 = keccak256;
  cached = crypto;
  return crypto;
}
