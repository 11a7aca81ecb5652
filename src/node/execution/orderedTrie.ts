/**
 * The root of a block's transactions or receipts trie, computed in one pass: the Merkle Patricia
 * trie whose keys are RLP(0), RLP(1), ... and whose values are the list's items (the tries a block
 * header commits to; go-ethereum's types.DeriveSha over a StackTrie, core/types/hashing.go).
 *
 * Building the same root through @ethereumjs/mpt puts each item into a trie object, re-hashing
 * and storing every node on its path at each put (~0.2 ms an item on the bench machine; a
 * 1,000-transaction block spent most of its seal there). Here every node is encoded and hashed
 * once, and nothing is stored: only the root is needed. Nodes are encoded in one pass each by the
 * trie's own node encoder (ethereumjs/trieNodeEncoding.ts: `RLP.encode`'s bytes, without its
 * array per item and concatenations, which were a third of this root's time on a 1,000-tx block).
 */
import { KECCAK256_RLP } from "@ethereumjs/util";

import { encodeNode, hexPrefixed } from "../ethereumjs/trieNodeEncoding.ts";

import type { NestedUint8Array } from "@ethereumjs/rlp";

/** A node as RLP input: the list of a leaf, extension or branch. */
type Node = NestedUint8Array;

interface Entry {
  /** The key's nibbles. */
  key: Uint8Array;
  value: Uint8Array;
}

const EMPTY = new Uint8Array();

/** The root of the trie mapping RLP(i) → `values[i]`; the empty trie's root for no values. */
export function orderedTrieRoot(values: readonly Uint8Array[], keccak256: (data: Uint8Array) => Uint8Array): Uint8Array {
  if (values.length === 0) return KECCAK256_RLP;
  const entries = values.map((value, index): Entry => ({ key: keyNibbles(index), value }));
  // The root is always hashed, whatever its length.
  return keccak256(encodeNode(nodeOf(entries, 0, keccak256)));
}

/** The node holding `entries` (distinct keys, all sharing their first `depth` nibbles) below `depth`. */
function nodeOf(entries: Entry[], depth: number, keccak256: (data: Uint8Array) => Uint8Array): Node {
  if (entries.length === 1) {
    const [{ key, value }] = entries as [Entry];
    return [hexPrefixed(key.subarray(depth), true), value];
  }
  // The nibbles every key shares from `depth` on: an extension when there are any.
  const first = entries[0]!.key;
  let shared = first.length - depth;
  for (let i = 1; i < entries.length && shared > 0; i++) {
    const key = entries[i]!.key;
    let common = 0;
    while (common < shared && depth + common < key.length && key[depth + common] === first[depth + common]) common++;
    shared = common;
  }
  if (shared > 0) return [hexPrefixed(first.subarray(depth, depth + shared), false), reference(nodeOf(entries, depth + shared, keccak256), keccak256)];

  const branch: (Node | Uint8Array)[] = new Array(17).fill(EMPTY);
  const children: Entry[][] = Array.from({ length: 16 }, () => []);
  for (const entry of entries) {
    // A key that ends here holds the branch's value (keys RLP(i) never do: none is a prefix of another).
    if (entry.key.length === depth) branch[16] = entry.value;
    else children[entry.key[depth]!]!.push(entry);
  }
  for (let nibble = 0; nibble < 16; nibble++) {
    const group = children[nibble]!;
    if (group.length > 0) branch[nibble] = reference(nodeOf(group, depth + 1, keccak256), keccak256);
  }
  return branch;
}

/** How a parent refers to a child node: the node itself when its encoding is under 32 bytes, else its hash. */
function reference(node: Node, keccak256: (data: Uint8Array) => Uint8Array): Node | Uint8Array {
  const encoded = encodeNode(node);
  return encoded.length < 32 ? node : keccak256(encoded);
}

/**
 * The nibbles of RLP(index), the key of item `index`: 0x80 for 0, the byte itself below 0x80,
 * else 0x80 + its length and its big-endian bytes (Yellow Paper, appendix B).
 */
export function keyNibbles(index: number): Uint8Array {
  if (index === 0) return Uint8Array.of(8, 0);
  if (index < 0x80) return Uint8Array.of(index >> 4, index & 0x0f);
  let length = 0;
  for (let rest = index; rest > 0; rest = Math.floor(rest / 256)) length++;
  const out = new Uint8Array(2 + 2 * length);
  out[0] = 8;
  out[1] = length;
  for (let i = length - 1, rest = index; i >= 0; i--, rest = Math.floor(rest / 256)) {
    out[2 + 2 * i] = (rest & 0xff) >> 4;
    out[3 + 2 * i] = rest & 0x0f;
  }
  return out;
}
