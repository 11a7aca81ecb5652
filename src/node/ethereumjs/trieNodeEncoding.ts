/**
 * Patch (@ethereumjs/mpt 10.1.3, `serialize` of `BranchMPTNode` in node/branch.js and of
 * `ExtensionOrLeafMPTNodeBase` in node/extensionOrLeafNodeBase.js): every trie write encodes each
 * node on the key's path (`_formatNode`, then keccak of the encoding). The package encodes with
 * `RLP.encode` of @ethereumjs/rlp 10.1.3, which encodes each of a branch's 17 items into a byte
 * array of its own, its length prefix into another, and concatenates them. Here a node's encoding
 * is measured first, then written into one array: the same bytes (RLP as the Yellow Paper, appendix
 * B, defines it, https://ethereum.github.io/yellowpaper/paper.pdf). An item of a node is a byte
 * array, an empty slot (null, encoded as the empty byte array, as the package's `toBytes` does) or
 * an inline node (a list of those); anything else is encoded by `RLP.encode` itself. A leaf's or an
 * extension's path is hex-prefix encoded straight from its nibbles (`hexPrefixed`).
 * test/trieFindPath.test.ts compares the two encoders on random nodes and items.
 */
import { BranchMPTNode, LeafMPTNode } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";

import type { NestedUint8Array } from "@ethereumjs/rlp";

type Item = Uint8Array | null | undefined | Item[];

/** Bytes of the big-endian length in a long string's or list's prefix. */
const lengthBytes = (length: number): number => (length < 0x100 ? 1 : length < 0x10000 ? 2 : length < 0x1000000 ? 3 : 4);

const prefixLength = (length: number): number => (length < 56 ? 1 : 1 + lengthBytes(length));

/** The length of `item`'s encoding, or -1 for an item this encoder leaves to `RLP.encode`. */
function encodedLength(item: unknown): number {
  if (item instanceof Uint8Array) {
    const length = item.length;
    return length === 1 && item[0]! < 0x80 ? 1 : prefixLength(length) + length;
  }
  if (item === null || item === undefined) return 1;
  if (!Array.isArray(item)) return -1;
  let payload = 0;
  for (const child of item) {
    const length = encodedLength(child);
    if (length < 0) return -1;
    payload += length;
  }
  return prefixLength(payload) + payload;
}

function writePrefix(out: Uint8Array, at: number, length: number, offset: number): number {
  if (length < 56) {
    out[at] = offset + length;
    return at + 1;
  }
  const count = lengthBytes(length);
  out[at++] = offset + 55 + count;
  for (let shift = 8 * (count - 1); shift >= 0; shift -= 8) out[at++] = (length >>> shift) & 0xff;
  return at;
}

/** Writes `item` (measured by encodedLength) at `at`; returns the offset after it. */
function write(out: Uint8Array, at: number, item: Item): number {
  if (item instanceof Uint8Array) {
    if (item.length === 1 && item[0]! < 0x80) {
      out[at] = item[0]!;
      return at + 1;
    }
    at = writePrefix(out, at, item.length, 0x80);
    // A hash or a short value: a loop beats `set`'s call for a few dozen bytes.
    if (item.length <= 64) for (let i = 0; i < item.length; i++) out[at + i] = item[i]!;
    else out.set(item, at);
    return at + item.length;
  }
  if (item === null || item === undefined) {
    out[at] = 0x80;
    return at + 1;
  }
  let payload = 0;
  for (const child of item) payload += encodedLength(child);
  at = writePrefix(out, at, payload, 0xc0);
  for (const child of item) at = write(out, at, child);
  return at;
}

/** The RLP encoding of a node's raw form, byte for byte `RLP.encode(raw)`. */
export function encodeNode(raw: unknown[]): Uint8Array {
  // The node's own items measured once (an inline node below is measured again as it is written).
  let payload = 0;
  for (let i = 0; i < raw.length; i++) {
    const length = encodedLength(raw[i]);
    if (length < 0) return RLP.encode(raw as NestedUint8Array);
    payload += length;
  }
  const out = new Uint8Array(prefixLength(payload) + payload);
  let at = writePrefix(out, 0, payload, 0xc0);
  for (let i = 0; i < raw.length; i++) at = write(out, at, raw[i] as Item);
  return out;
}

const INSTALLED = Symbol.for("hardhat-preconf.trieNodeEncoding.installed");

/** Installs the encoder as the nodes' `serialize` (once per process). */
export function installTrieNodeEncoding(): void {
  const branch = BranchMPTNode.prototype as BranchMPTNode & { [INSTALLED]?: true };
  const base = Object.getPrototypeOf(LeafMPTNode.prototype) as { serialize?: unknown; raw?: unknown };
  if (branch[INSTALLED]) return;
  if (typeof branch.serialize !== "function" || typeof base.serialize !== "function" || typeof base.raw !== "function") {
    throw new Error("@ethereumjs/mpt: node serialize changed; update src/node/ethereumjs/trieNodeEncoding.ts");
  }
  branch[INSTALLED] = true;
  branch.serialize = function (this: BranchMPTNode) {
    return encodeNode(this.raw());
  };
  base.serialize = function (this: ShortNode) {
    return encodeNode([hexPrefixed(this._nibbles, this._isLeaf), this._value]);
  };
}

/** What a leaf or an extension holds (`ExtensionOrLeafMPTNodeBase`, @ethereumjs/mpt 10.1.3). */
interface ShortNode {
  _nibbles: number[];
  _value: unknown;
  _isLeaf: boolean;
}

/**
 * A leaf's or an extension's path in the hex-prefix encoding (Yellow Paper, appendix C): a flag nibble
 * (2 for a leaf, plus 1 for an odd length) before the nibbles, packed two to a byte. The package's
 * `raw()` makes the same bytes from a copy of the nibbles with the flag `unshift`ed in front
 * (util/hex.js `addHexPrefix`, util/nibbles.js `nibblesTypeToPackedBytes`): two arrays a node,
 * and every account and slot written serializes its leaf. The block's ordered tries
 * (execution/orderedTrie.ts) encode their paths here too.
 */
export function hexPrefixed(nibbles: ArrayLike<number>, isLeaf: boolean): Uint8Array {
  const odd = nibbles.length % 2;
  const out = new Uint8Array(((nibbles.length - odd) >> 1) + 1);
  const flag = (isLeaf ? 2 : 0) + odd;
  out[0] = odd === 1 ? (flag << 4) | nibbles[0]! : flag << 4;
  for (let i = odd, at = 1; i < nibbles.length; i += 2, at++) out[at] = (nibbles[i]! << 4) | nibbles[i + 1]!;
  return out;
}

// ── Decoding ────────────────────────────────────────────────────────────────────────────────────
//
// A node read from the database is decoded once and memoised (trieFindPath.ts), and the memo's
// nodes live for hundreds of blocks. `RLP.decode` (@ethereumjs/rlp 10.1.3 `_decode`) copies each
// list's body before splitting it, and gives every empty item a byte array of its own: a sparse
// branch is mostly empty slots, so each decoded branch held a dozen empty arrays, and the GC copied
// them twice (young generation, then old) before they died with the memo.

/** The one empty item of every decoded node: a zero-length array has no byte to change. */
const EMPTY_ITEM = new Uint8Array(0);

type DecodedItem = Uint8Array | DecodedItem[];

/** The length in `bytes[at..at+count)` (big-endian, no leading zero), or -1. */
function readLength(bytes: Uint8Array, at: number, count: number, end: number): number {
  if (at + count > end || bytes[at] === 0) return -1;
  let length = 0;
  for (let i = 0; i < count; i++) length = length * 256 + bytes[at + i]!;
  return length;
}

/**
 * The item at `at` (ending at or before `end`) and where it ends, or undefined where `_decode`
 * would throw or answer otherwise (the caller then asks it).
 */
function readItem(bytes: Uint8Array, at: number, end: number): { item: DecodedItem; next: number } | undefined {
  const first = bytes[at]!;
  if (first <= 0x7f) return { item: bytes.slice(at, at + 1), next: at + 1 };
  if (first <= 0xbf) {
    let start = at + 1;
    let length = first - 0x80;
    if (first > 0xb7) {
      length = readLength(bytes, start, first - 0xb7, end);
      if (length <= 55) return undefined;
      start += first - 0xb7;
    }
    const next = start + length;
    if (next > end || (length === 1 && bytes[start]! < 0x80)) return undefined;
    return { item: length === 0 ? EMPTY_ITEM : bytes.slice(start, next), next };
  }
  let start = at + 1;
  let length = first - 0xc0;
  if (first > 0xf7) {
    length = readLength(bytes, start, first - 0xf7, end);
    if (length < 56) return undefined;
    start += first - 0xf7;
  }
  const next = start + length;
  if (next > end) return undefined;
  const items: DecodedItem[] = [];
  for (let cursor = start; cursor < next; ) {
    const read = readItem(bytes, cursor, next);
    if (read === undefined) return undefined;
    items.push(read.item);
    cursor = read.next;
  }
  return { item: items, next };
}

/**
 * `RLP.decode(bytes)` of a stored node: a list, each byte string a copy of its bytes (an empty one
 * the shared EMPTY_ITEM). Undefined for anything else (not a list, trailing bytes, a non-canonical
 * or truncated encoding), for `RLP.decode` to answer or throw as it does. test/trieFindPath.test.ts
 * compares the two on random nodes and damaged encodings.
 */
export function decodeNodeItems(bytes: Uint8Array): DecodedItem[] | undefined {
  if (bytes.length === 0 || bytes[0]! < 0xc0) return undefined;
  const read = readItem(bytes, 0, bytes.length);
  return read === undefined || read.next !== bytes.length ? undefined : (read.item as DecodedItem[]);
}
