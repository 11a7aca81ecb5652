/**
 * BIP-39 mnemonic check (https://github.com/bitcoin/bips/blob/master/bip-0039.mediawiki): 12–24
 * words of the English wordlist whose last bits are a SHA-256 checksum of the entropy. Any phrase
 * derives keys (PBKDF2 takes any string), so without this check a typo silently gives other accounts.
 */
import { createHash } from "node:crypto";

import { wordlist } from "@scure/bip39/wordlists/english";

const WORD_COUNTS = [12, 15, 18, 21, 24];
let indexOf: Map<string, number> | undefined;

/** Why `mnemonic` is not a BIP-39 English mnemonic, or undefined when it is one. */
export function mnemonicProblem(mnemonic: string): string | undefined {
  const words = mnemonic
    .normalize("NFKD")
    .trim()
    .split(/\s+/u)
    .filter((word) => word !== "");
  if (!WORD_COUNTS.includes(words.length)) return `a BIP-39 mnemonic has 12, 15, 18, 21 or 24 words, got ${words.length}`;
  indexOf ??= new Map(wordlist.map((word, index) => [word, index]));
  let bits = "";
  for (const [position, word] of words.entries()) {
    const index = indexOf.get(word);
    if (index === undefined) return `word ${position + 1} ("${word}") is not in the BIP-39 English wordlist`;
    bits += index.toString(2).padStart(11, "0");
  }
  // 11 bits per word: ENT bits of entropy, then ENT / 32 bits of SHA-256(entropy).
  const entropyBits = (bits.length * 32) / 33;
  const entropy = Uint8Array.from(bits.slice(0, entropyBits).match(/.{8}/gu)!, (byte) => Number.parseInt(byte, 2));
  const digest = createHash("sha256").update(entropy).digest();
  const expected = [...digest]
    .map((byte) => byte.toString(2).padStart(8, "0"))
    .join("")
    .slice(0, entropyBits / 32);
  if (bits.slice(entropyBits) !== expected) return "its checksum does not match (a word is wrong or out of order)";
  return undefined;
}
