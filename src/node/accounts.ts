/**
 * Dev accounts: BIP-39 mnemonic → BIP-32 keys at m/44'/60'/0'/0/i (the path Hardhat, anvil and
 * MetaMask use), or explicit private keys. Derivation costs a PBKDF2 run and one EC multiplication
 * per key, so results are cached per (mnemonic, path, count): a warm provider creation pays nothing.
 */
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { bytesToHex, hexToBytes, privateToAddress } from "@ethereumjs/util";

import type { Hex } from "../rpc/schema.ts";

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
  return { address: bytesToHex(privateToAddress(key)) as Hex, privateKey: bytesToHex(key) as Hex };
}

export function accountsFromMnemonic(mnemonic: string, count: number, path = DEFAULT_HD_PATH): DevAccount[] {
  const cacheKey = `${mnemonic}\u0000${path}`;
  const known = derived.get(cacheKey) ?? [];
  if (known.length < count) {
    const root = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic)).derive(path);
    for (let index = known.length; index < count; index++) {
      const privateKey = root.deriveChild(index).privateKey;
      if (privateKey === null) throw new Error(`no private key at ${path}/${index}`);
      known.push(accountFromPrivateKey(bytesToHex(privateKey) as Hex));
    }
    derived.set(cacheKey, known);
  }
  return known.slice(0, count);
}
