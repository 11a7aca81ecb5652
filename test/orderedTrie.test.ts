/**
 * The one-pass transactions/receipts trie root (src/node/execution/orderedTrie.ts) against @ethereumjs/mpt
 * building the same trie item by item: the roots must be equal for every list length (keys RLP(0),
 * RLP(1)... cross 0x7f and 0x80, where RLP(i) changes shape) and for values short enough that
 * nodes are embedded in their parent instead of hashed.
 */
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { bytesToHex, KECCAK256_RLP } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { expect } from "chai";

import { keccak256 } from "../src/node/common/crypto.ts";
import { orderedTrieRoot } from "../src/node/execution/orderedTrie.ts";

/** A deterministic byte string of `length` bytes (xorshift), so failures reproduce. */
function bytes(seed: number, length: number): Uint8Array {
  let state = seed * 2654435761 + 1;
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = state & 0xff;
  }
  return out;
}

async function referenceRoot(values: Uint8Array[]): Promise<string> {
  const trie = new MerklePatriciaTrie();
  for (const [index, value] of values.entries()) await trie.put(RLP.encode(index), value);
  return bytesToHex(trie.root());
}

describe("orderedTrieRoot (transactions and receipts trie roots)", () => {
  it("is the empty trie's root for no items", () => {
    expect(bytesToHex(orderedTrieRoot([], keccak256))).to.equal(bytesToHex(KECCAK256_RLP));
  });

  it("equals @ethereumjs/mpt's root for 1..300 items of tx-like sizes (100-200 bytes)", async () => {
    for (const count of [1, 2, 3, 15, 16, 17, 127, 128, 129, 200, 255, 256, 257, 300]) {
      const values = Array.from({ length: count }, (_, i) => bytes(count * 1000 + i, 100 + ((i * 37) % 100)));
      expect(bytesToHex(orderedTrieRoot(values, keccak256)), `${count} items`).to.equal(await referenceRoot(values));
    }
  });

  it("equals @ethereumjs/mpt's root when nodes are short enough to be embedded (values of 1-5 bytes; an empty value would be a deletion in a trie)", async () => {
    for (const count of [1, 2, 5, 16, 17, 130]) {
      const values = Array.from({ length: count }, (_, i) => bytes(count + i, 1 + (i % 5)));
      expect(bytesToHex(orderedTrieRoot(values, keccak256)), `${count} short items`).to.equal(await referenceRoot(values));
    }
  });

  it("gives the same root with the pure-JS keccak", () => {
    const values = Array.from({ length: 40 }, (_, i) => bytes(i, 120));
    expect(bytesToHex(orderedTrieRoot(values, keccak_256))).to.equal(bytesToHex(orderedTrieRoot(values, keccak256)));
  });
});
