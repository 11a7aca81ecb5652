/**
 * Dev accounts: BIP-39 mnemonic → BIP-32 keys at m/44'/60'/0'/0/i (the path Hardhat, anvil and
 * MetaMask use), or explicit private keys. Derived with node:crypto (PBKDF2, HMAC-SHA512) and the
 * native secp256k1 addon when it loads: in pure JS the derivation was ~150 ms of a cold start.
 * Results are cached per (mnemonic, path, count): a warm provider creation pays nothing.
 */
import { createHmac, pbkdf2Sync } from "node:crypto";

import { bytesToHex, hexToBytes } from "@ethereumjs/util";

import { keccak256, publicKeyOf } from "./crypto.ts";

import type { Hex } from "./types.ts";

export const DEFAULT_MNEMONIC = "test test test test test test test test test test test junk";
export const DEFAULT_HD_PATH = "m/44'/60'/0'/0";

export interface DevAccount {
  /** Lower-case 0x address. */
  address: Hex;
  privateKey: Hex;
}

const derived = new Map<string, DevAccount[]>();

export function accountFromPrivateKey(privateKey: Hex): DevAccount {
  const key = hexToBytes(privateKey);
  if (key.length !== 32) throw new Error(`private key must be 32 bytes, got ${key.length}`);
  // The address: the last 20 bytes of keccak256 of the uncompressed public key without its 0x04.
  const address = keccak256(publicKeyOf(key, false).subarray(1)).subarray(12);
  return { address: bytesToHex(address), privateKey: bytesToHex(key) };
}

/** secp256k1's group order n (SEC 2, §2.4.1). */
const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const HARDENED = 0x80000000;

interface ExtendedKey {
  key: Uint8Array;
  chainCode: Uint8Array;
}

/** BIP-39 seed = PBKDF2-HMAC-SHA512(NFKD(mnemonic), "mnemonic" + NFKD(passphrase), 2048 rounds, 64 bytes). */
function seedOf(mnemonic: string, passphrase = ""): Uint8Array {
  return pbkdf2Sync(mnemonic.normalize("NFKD"), `mnemonic${passphrase.normalize("NFKD")}`, 2048, 64, "sha512");
}

function split(digest: Buffer): ExtendedKey {
  return { key: digest.subarray(0, 32), chainCode: digest.subarray(32) };
}

function toBytes32(value: bigint): Uint8Array {
  return hexToBytes(`0x${value.toString(16).padStart(64, "0")}`);
}

/** BIP-32 CKDpriv: a hardened child hashes the parent key, a normal one its compressed public key. */
function childOf(parent: ExtendedKey, index: number): ExtendedKey {
  const data = new Uint8Array(37);
  if (index >= HARDENED) data.set(parent.key, 1);
  else data.set(publicKeyOf(parent.key, true), 0);
  new DataView(data.buffer).setUint32(33, index);
  const { key: tweak, chainCode } = split(createHmac("sha512", parent.chainCode).update(data).digest());
  const child = (BigInt(bytesToHex(tweak)) + BigInt(bytesToHex(parent.key))) % CURVE_ORDER;
  // BIP-32 says to skip to the next index here; the odds are below 2^-127.
  if (BigInt(bytesToHex(tweak)) >= CURVE_ORDER || child === 0n) throw new Error(`invalid BIP-32 child at index ${index}`);
  return { key: toBytes32(child), chainCode };
}

/** "m/44'/60'/0'/0" → its indices, hardened ones with the 2^31 bit. */
function pathIndices(path: string): number[] {
  const [root, ...levels] = path.split("/");
  if (root !== "m") throw new Error(`HD path must start with m/, got "${path}"`);
  return levels.map((level) => {
    const match = /^(\d+)('?)$/.exec(level);
    const index = match === null ? Number.NaN : Number(match[1]);
    if (!Number.isSafeInteger(index) || index >= HARDENED) throw new Error(`invalid HD path level "${level}" in "${path}"`);
    return match![2] === "'" ? index + HARDENED : index;
  });
}

export function accountsFromMnemonic(mnemonic: string, count: number, path = DEFAULT_HD_PATH): DevAccount[] {
  const cacheKey = `${mnemonic}\u0000${path}`;
  const known = derived.get(cacheKey) ?? [];
  if (known.length < count) {
    // BIP-32 master key: HMAC-SHA512 keyed with "Bitcoin seed".
    let node = split(createHmac("sha512", "Bitcoin seed").update(seedOf(mnemonic)).digest());
    for (const index of pathIndices(path)) node = childOf(node, index);
    for (let index = known.length; index < count; index++) {
      known.push(accountFromPrivateKey(bytesToHex(childOf(node, index).key)));
    }
    derived.set(cacheKey, known);
  }
  return known.slice(0, count);
}
