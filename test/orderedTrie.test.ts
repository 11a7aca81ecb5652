/**
 * The one-pass transactions/receipts trie root (src/node/execution/orderedTrie.ts) against @ethereumjs/mpt
 * building the same trie item by item: the roots must be equal for every list length (keys RLP(0),
 * RLP(1)... cross 0x7f and 0x80, where RLP(i) changes shape) and for values short enough that
 * nodes are embedded in their parent instead of hashed.
 */
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { bytesToHex, KECCAK256_RLP } from "@ethereumjs/util";
import { encodeReceipt } from "@ethereumjs/vm";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { expect } from "chai";

import { keccak256 } from "../src/node/common/crypto.ts";
import { keyNibbles, orderedTrieRoot } from "../src/node/execution/orderedTrie.ts";
import { receiptBytes } from "../src/node/execution/openBlock.ts";

import type { TxReceipt } from "@ethereumjs/vm";

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

  it("keys item i by the nibbles of RLP(i), across every length of RLP(i)", () => {
    for (const index of [0, 1, 15, 16, 127, 128, 255, 256, 4095, 65535, 65536, 0xffffff, 0x1000000, 0x7fffffff]) {
      const key = RLP.encode(index);
      const nibbles = [...key].flatMap((byte) => [byte >> 4, byte & 0x0f]);
      expect([...keyNibbles(index)], `key of ${index}`).to.deep.equal(nibbles);
    }
  });
});

describe("receiptBytes (a receipt in the receipts trie)", () => {
  it("is @ethereumjs/vm's encodeReceipt byte for byte: every tx type, status, pre-Byzantium state roots, logs and gas", () => {
    let seed = 1;
    for (const type of [0, 1, 2, 3, 4] as const) {
      for (const cumulativeBlockGasUsed of [0n, 1n, 21_000n, 0x80n, 30_000_000n, (1n << 64n) - 1n]) {
        for (let logCount = 0; logCount < 4; logCount++) {
          const logs = Array.from({ length: logCount }, (_, i) => [
            bytes(seed++, 20),
            Array.from({ length: i + (logCount % 2) * 2 }, () => bytes(seed++, 32)),
            bytes(seed++, (i * 29) % 70),
          ]) as TxReceipt["logs"];
          const bitvector = bytes(seed++, 256);
          const receipts: TxReceipt[] = [
            { status: 1, cumulativeBlockGasUsed, bitvector, logs },
            { status: 0, cumulativeBlockGasUsed, bitvector, logs },
            { stateRoot: bytes(seed++, 32), cumulativeBlockGasUsed, bitvector, logs },
          ];
          for (const receipt of receipts) {
            expect(bytesToHex(receiptBytes(receipt, type)), `type ${type}, gas ${cumulativeBlockGasUsed}, ${logCount} logs`).to.equal(
              bytesToHex(encodeReceipt(receipt, type)),
            );
          }
        }
      }
    }
  });
});
