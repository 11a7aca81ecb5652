/**
 * Dev accounts: BIP-39 mnemonic → BIP-32 keys at m/44'/60'/0'/0/i (the path Hardhat, anvil and
 * MetaMask use), or explicit private keys. Derived with node:crypto (PBKDF2, HMAC-SHA512) and the
 * native secp256k1 addon when it loads: in pure JS the derivation was ~150 ms of a cold start.
 * Results are cached per (mnemonic, path, count): a warm provider creation pays nothing, and the
 * default mnemonic's first 20 are in the cache from the start (DEFAULT_ACCOUNTS).
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

/**
 * The default mnemonic's first 20 accounts at the default path (Hardhat's and anvil's well-known
 * accounts), as the derivation below gives them (test/accounts.test.ts derives them again and
 * compares): a provider with the default accounts derives nothing, and loads no secp256k1 addon
 * before its first transaction (docs/benchmarks.md, row W6d).
 */
const DEFAULT_ACCOUNTS: readonly (readonly [Hex, Hex])[] = [
  ["0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"],
  ["0x70997970c51812dc3a010c7d01b50e0d17dc79c8", "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"],
  ["0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc", "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a"],
  ["0x90f79bf6eb2c4f870365e785982e1f101e93b906", "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6"],
  ["0x15d34aaf54267db7d7c367839aaf71a00a2c6a65", "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a"],
  ["0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc", "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba"],
  ["0x976ea74026e726554db657fa54763abd0c3a0aa9", "0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e"],
  ["0x14dc79964da2c08b23698b3d3cc7ca32193d9955", "0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356"],
  ["0x23618e81e3f5cdf7f54c3d65f7fbc0abf5b21e8f", "0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97"],
  ["0xa0ee7a142d267c1f36714e4a8f75612f20a79720", "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6"],
  ["0xbcd4042de499d14e55001ccbb24a551f3b954096", "0xf214f2b2cd398c806f84e317254e0f0b801d0643303237d97a22a48e01628897"],
  ["0x71be63f3384f5fb98995898a86b02fb2426c5788", "0x701b615bbdfb9de65240bc28bd21bbc0d996645a3dd57e7b12bc2bdf6f192c82"],
  ["0xfabb0ac9d68b0b445fb7357272ff202c5651694a", "0xa267530f49f8280200edf313ee7af6b827f2a8bce2897751d06a843f644967b1"],
  ["0x1cbd3b2770909d4e10f157cabc84c7264073c9ec", "0x47c99abed3324a2707c28affff1267e45918ec8c3f20b8aa892e8b065d2942dd"],
  ["0xdf3e18d64bc6a983f673ab319ccae4f1a57c7097", "0xc526ee95bf44d8fc405a158bb884d9d1238d99f0612e9f33d006bb0789009aaa"],
  ["0xcd3b766ccdd6ae721141f452c550ca635964ce71", "0x8166f546bab6da521a8369cab06c5d2b9e46670292d85c875ee9ec20e84ffb61"],
  ["0x2546bcd3c84621e976d8185a91a922ae77ecec30", "0xea6c44ac03bff858b476bba40716402b03e41b8e97e276d1baec7c37d42484a0"],
  ["0xbda5747bfd65f08deb54cb465eb87d40e51b197e", "0x689af8efa8c651a91ad287602527f3af2fe9f6501a7ac4b061667b5a93e037fd"],
  ["0xdd2fd4581271e230360230f9337d5c0430bf44c0", "0xde9be858da4a475276426320d5e9262ecfc3ba460bfac56360bfa6c4c28b4ee0"],
  ["0x8626f6940e2eb28930efb4cef49b2d1f2c9c1199", "0xdf57089febbacf7ba0bc227dafbffa9fc08a93fdc68e1e42411a14efcf23656e"],
];
derived.set(
  `${DEFAULT_MNEMONIC}\u0000${DEFAULT_HD_PATH}`,
  DEFAULT_ACCOUNTS.map(([address, privateKey]) => ({ address, privateKey })),
);

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
    known.push(...deriveAccounts(mnemonic, known.length, count, path));
    derived.set(cacheKey, known);
  }
  return known.slice(0, count);
}

/** The accounts at indices [from, to) of `mnemonic` at `path`, derived (no cache). */
export function deriveAccounts(mnemonic: string, from: number, to: number, path = DEFAULT_HD_PATH): DevAccount[] {
  // BIP-32 master key: HMAC-SHA512 keyed with "Bitcoin seed".
  let node = split(createHmac("sha512", "Bitcoin seed").update(seedOf(mnemonic)).digest());
  for (const index of pathIndices(path)) node = childOf(node, index);
  const accounts: DevAccount[] = [];
  for (let index = from; index < to; index++) accounts.push(accountFromPrivateKey(bytesToHex(childOf(node, index).key)));
  return accounts;
}
