/**
 * The chain's `Common.customCrypto`: native secp256k1 when its prebuilt addon loads, and keccak-256
 * in WebAssembly of our own (keccak.ts). Sender recovery dominates admission (~3.5 ms a tx in pure
 * JS, ~0.1 ms native); without the addon the chain silently uses @ethereumjs' pure-JS secp256k1.
 */
import { createRequire } from "node:module";

import { ecrecover } from "@ethereumjs/util";
import { secp256k1 } from "@noble/curves/secp256k1.js";

import type { CustomCrypto } from "@ethereumjs/common";

import { keccak256Wasm } from "./keccak.ts";

interface NativeSecp256k1 {
  ecdsaRecover(signature: Uint8Array, recid: number, message: Uint8Array, compressed: boolean): Uint8Array;
  ecdsaSign(message: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number };
  publicKeyCreate(privateKey: Uint8Array, compressed: boolean): Uint8Array;
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

/** keccak-256 of `message`, a fresh 32-byte array: the chain's own (keccak.ts). */
export function keccak256(message: Uint8Array): Uint8Array {
  return keccak256Wasm(message);
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
  // keccak in WebAssembly (keccak.ts): faster than the keccak addon's sponge at every size the chain
  // hashes (bench/benchmarks-notes.md), with nothing to load but a ~1.3 KB module.
  crypto.keccak256 = keccak256Wasm;
  cached = crypto;
  return crypto;
}
