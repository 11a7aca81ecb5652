/**
 * State-history pruning. The state manager writes every trie node and every contract's code into
 * one in-memory, content-addressed map shared by the live state, its storage tries and every
 * state view; nothing is deleted when a write makes a node unreachable, so each sealed block
 * leaves the paths it changed behind. A pass deletes every entry the kept state roots (the
 * account tries, each account's storage trie and code) no longer reach.
 *
 * It counts references instead of walking the kept state: a node's key is the hash of its
 * content, so what it links to never changes, and each entry is decoded once, which adds one
 * reference to each of its children (and, for an account, to its storage root and code). An entry
 * nothing references and no kept root names is unreachable: it goes, and its children lose a
 * reference, which may free them in turn (the store is a DAG: no cycles). The entries new to a
 * pass are those the store says were set since the last one (ethereumjs/nodeStore.ts); of those,
 * only the ones the kept roots reach are decoded, and the rest go unread. A pass so costs what
 * the kept states gained since the last one, not the size of the state (a system contract's ring
 * buffer of 8191 slots, docs/profiles.md "Genesis code", grows by a slot a block and would
 * otherwise be re-walked, or re-iterated, every pass), nor what the blocks that left the window
 * since the last pass wrote (the older ones' nodes are still counted down as they go).
 *
 * The pass is synchronous from the first mark to the last delete: no read of any view can run in
 * between, so a read only needs its root to be among the kept ones. The store and the open
 * storage tries are ethereumjs internals, read in src/node/ethereumjs/internals.ts.
 */
import { bytesToUnprefixedHex, hexToBytes } from "@ethereumjs/util";

import { NodeStoreMap } from "../ethereumjs/nodeStore.ts";

import type { NodeStore } from "../ethereumjs/internals.ts";

/** `c`, MerkleStateManager's prefix of code keys (its default `prefixCodeHashes`): a code key is longer than a node's 32-byte hash. */
const CODE_PREFIX = "63";
const NODE_KEY_LENGTH = 64;

export interface PruneResult {
  kept: number;
  deleted: number;
}

/**
 * A key some pass has seen, stored or linked to: its links once the entry is seen, and how many
 * links of seen entries point at it. Entries link to each other's records, so a pass follows a
 * link and counts it down without looking its key up again (a lookup of a 64-digit key was most
 * of a pass's time, measured).
 */
interface Reference {
  key: string;
  /** What the stored entry links to (a record twice if it links to it twice); undefined: not seen stored. */
  links: Reference[] | undefined;
  /** Links of seen entries pointing here (the key may not be stored: the empty trie's root). */
  count: number;
  /** The next node record whose hash starts with the same INDEX_BITS bits (`References.nodes`). */
  next: Reference | undefined;
}

/** What a store's entries reference, as far as passes have seen them. */
interface References {
  /**
   * Node records (keys of 64 digits) by the first INDEX_BITS bits of their hash, records sharing
   * them chained through `next`: a link read from a node's bytes is found by a small number and a
   * comparison of its bytes with the record's key, without making its hex key, which a string map
   * needs made and hashed for every lookup (a pass over 64 automined transfers' blocks: 5.0 → 4.5
   * ms, bench/benchmarks-notes.md "Fifteenth round").
   */
  nodes: Map<number, Reference>;
  /** Code records (`c` + code hash): an account leaf's link to its code, by key. */
  code: Map<string, Reference>;
  /** Seen entries no link points at: each is a kept root or garbage. */
  unreferenced: Set<Reference>;
  /** 32 - the bits of a hash that index its record (INDEX_BITS, fewer in tests). */
  shift: number;
}

/**
 * Bits of a node hash that index its record: a small integer to V8 (31 bits at most) for any
 * value. Hashes are keccak-256 digests, uniform in these bits: among n records, a record shares
 * its index with another with a chance of about n / 2^30, and they are told apart by their keys.
 */
const INDEX_BITS = 30;

const referencesByStore = new WeakMap<NodeStore, References>();

/** The char codes of lowercase hex digits: a store's keys are unprefixed lowercase hex. */
const DIGIT_CODES = Array.from("0123456789abcdef", (digit) => digit.charCodeAt(0));

/** Whether `key` is the hex of the 32 bytes of `bytes` from `at`. */
function keyIsHash(key: string, bytes: Uint8Array, at: number): boolean {
  for (let i = 0; i < 32; i++) {
    const byte = bytes[at + i]!;
    if (key.charCodeAt(2 * i) !== DIGIT_CODES[byte >> 4] || key.charCodeAt(2 * i + 1) !== DIGIT_CODES[byte & 15]) return false;
  }
  return true;
}

/** The index of the hash whose 32 bytes start at `at`. */
const indexOfHash = (bytes: Uint8Array, at: number, shift: number): number =>
  ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> shift;

/** The index of a node key (64 lowercase hex digits): the same number as indexOfHash of its bytes. */
function indexOfKey(key: string, shift: number): number {
  let word = 0;
  for (let i = 0; i < 8; i++) {
    const code = key.charCodeAt(i);
    word = word * 16 + (code <= 0x39 ? code - 0x30 : code - 0x57);
  }
  return Math.floor(word / 2 ** shift);
}

/** The record of the node whose 32-byte hash starts at `at` in `bytes`, made on first sight. */
function nodeReference(references: References, bytes: Uint8Array, at: number): Reference {
  const index = indexOfHash(bytes, at, references.shift);
  const first = references.nodes.get(index);
  for (let reference = first; reference !== undefined; reference = reference.next) if (keyIsHash(reference.key, bytes, at)) return reference;
  return addNodeReference(references, index, hashHex(bytes, at), first);
}

/** The record of a key the store holds (a node's or a code's), made on first sight. */
function storedReference(references: References, key: string): Reference {
  if (key.length !== NODE_KEY_LENGTH) return codeReference(references, key);
  const found = findReference(references, key);
  if (found !== undefined) return found;
  const index = indexOfKey(key, references.shift);
  return addNodeReference(references, index, key, references.nodes.get(index));
}

/** The record of a key, if there is one. */
function findReference(references: References, key: string): Reference | undefined {
  if (key.length !== NODE_KEY_LENGTH) return references.code.get(key);
  for (let reference = references.nodes.get(indexOfKey(key, references.shift)); reference !== undefined; reference = reference.next) {
    if (reference.key === key) return reference;
  }
  return undefined;
}

/** A new node record, first at its index, ahead of `first`. */
function addNodeReference(references: References, index: number, key: string, first: Reference | undefined): Reference {
  const reference: Reference = { key, links: undefined, count: 0, next: first };
  references.nodes.set(index, reference);
  return reference;
}

function codeReference(references: References, key: string): Reference {
  let reference = references.code.get(key);
  if (reference === undefined) references.code.set(key, (reference = { key, links: undefined, count: 0, next: undefined }));
  return reference;
}

/** Drops a record: its key is counted no more. */
function forget(references: References, reference: Reference): void {
  if (reference.key.length !== NODE_KEY_LENGTH) {
    references.code.delete(reference.key);
    return;
  }
  const index = indexOfKey(reference.key, references.shift);
  const first = references.nodes.get(index);
  if (first === reference) {
    if (reference.next === undefined) references.nodes.delete(index);
    else references.nodes.set(index, reference.next);
    return;
  }
  for (let previous = first; previous !== undefined; previous = previous.next) {
    if (previous.next === reference) {
      previous.next = reference.next;
      return;
    }
  }
}

/**
 * Deletes every entry of `store` that `stateRoots` (account tries) and `storageRoots` do not reach.
 * `indexBits`: how many bits of a node hash index its record (1 to INDEX_BITS), fixed by a store's
 * first pass, later values ignored (tests give few, so that records share indexes).
 */
export function pruneStore(store: NodeStore, stateRoots: Iterable<Uint8Array>, storageRoots: Iterable<Uint8Array>, indexBits = INDEX_BITS): PruneResult {
  if (!Number.isInteger(indexBits) || indexBits < 1 || indexBits > INDEX_BITS) throw new RangeError(`index bits ${indexBits} not in 1..${INDEX_BITS}`);
  let references = referencesByStore.get(store);
  if (references === undefined) {
    references = { nodes: new Map(), code: new Map(), unreferenced: new Set(), shift: 32 - indexBits };
    referencesByStore.set(store, references);
  }
  const { unreferenced } = references;

  // Entries written since the last pass and not yet read ("fresh"). A NodeStoreMap says which keys
  // were set since its last pass (all of them on the first); another map is read whole.
  const written = store instanceof NodeStoreMap ? store.takeWritten() : undefined;
  const fresh = new Set<Reference>();
  for (const key of written ?? store.keys()) {
    // Set, then deleted (a pass is what deletes, and runs after): nothing stored to count.
    if (store.get(key) === undefined) continue;
    const reference = storedReference(references, key);
    if (reference.links === undefined) fresh.add(reference);
  }

  const kept = new Set<string>();
  for (const root of stateRoots) kept.add(bytesToUnprefixedHex(root));
  for (const root of storageRoots) kept.add(bytesToUnprefixedHex(root));

  // Only the fresh entries a kept root reaches are read: from the kept roots, and from the fresh
  // entries that entries read by earlier passes link to (content written again after it was
  // deleted, or a fork's node that arrived after its parent), down through fresh entries (an entry
  // read before has had its links counted). A fresh entry nothing reaches is garbage, deleted
  // unread: when passes are further apart than the readable window (stateHistory.ts), most of what
  // the blocks between them wrote.
  const reached: Reference[] = [];
  for (const key of kept) {
    const reference = findReference(references, key);
    if (reference !== undefined && fresh.has(reference)) reached.push(reference);
  }
  for (const reference of fresh) if (reference.count > 0) reached.push(reference);
  while (reached.length > 0) {
    const reference = reached.pop()!;
    if (!fresh.delete(reference)) continue;
    const value = store.get(reference.key)!;
    const links = reference.key.length === NODE_KEY_LENGTH ? linksOf(typeof value === "string" ? hexToBytes(`0x${value}`) : value, references) : [];
    for (const target of links) {
      if (target.count++ === 0) unreferenced.delete(target);
      if (fresh.has(target)) reached.push(target);
    }
    reference.links = links;
    if (reference.count === 0) unreferenced.add(reference);
  }

  let deleted = 0;
  // Unreached fresh entries: no entry read links to them (count 0), so deleting them changes no count.
  for (const reference of fresh) {
    store.delete(reference.key);
    forget(references, reference);
    deleted++;
  }
  const garbage: Reference[] = [];
  for (const reference of unreferenced) if (!kept.has(reference.key)) garbage.push(reference);
  while (garbage.length > 0) {
    const reference = garbage.pop()!;
    store.delete(reference.key);
    forget(references, reference);
    unreferenced.delete(reference);
    deleted++;
    for (const target of reference.links!) {
      if (--target.count > 0) continue;
      // Never stored (the empty trie's root): nothing to delete, nothing left to count.
      if (target.links === undefined) forget(references, target);
      else if (kept.has(target.key)) unreferenced.add(target);
      else garbage.push(target);
    }
  }
  return { kept: store.size, deleted };
}

/**
 * The RLP item last read by `readItem` (the RLP spec, ethereum.org "Recursive-length prefix"):
 * whether it is a list, where its payload starts and where the item ends. Module state rather
 * than an object per item: a pass reads each new node the kept roots reach, a dozen items each.
 */
let itemIsList = false;
let itemStart = 0;
let itemEnd = 0;

function readItem(bytes: Uint8Array, at: number): void {
  const first = bytes[at]!;
  if (first < 0x80) {
    itemIsList = false;
    itemStart = at;
    itemEnd = at + 1;
    return;
  }
  itemIsList = first >= 0xc0;
  const short = itemIsList ? 0xc0 : 0x80;
  const long = itemIsList ? 0xf7 : 0xb7;
  if (first <= long) {
    itemStart = at + 1;
    itemEnd = itemStart + first - short;
    return;
  }
  const lengthOfLength = first - long;
  let length = 0;
  for (let i = 1; i <= lengthOfLength; i++) length = length * 256 + bytes[at + i]!;
  itemStart = at + 1 + lengthOfLength;
  itemEnd = itemStart + length;
}

/** Whether `bytes[start, end)` is a 32-byte string that is all there (a truncated entry links to nothing). */
const isHash = (bytes: Uint8Array, start: number, end: number): boolean => end - start === 32 && end <= bytes.length;

/**
 * The 32 bytes of `bytes` from `at` as unprefixed lowercase hex: the store's key of a node hash.
 * Node's native encoder gives a flat string, which the reference maps hash without first joining
 * the pieces a loop of concatenations would leave (about a third of the time per key, measured).
 */
function hashHex(bytes: Uint8Array, at: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset + at, 32).toString("hex");
}

/**
 * The keys a stored node links to: its children's hashes (nodes of 32 bytes or more; shorter ones
 * are embedded in it and read through) and, at an account leaf, the account's storage root and
 * code. An account leaf's value is the RLP list [nonce, balance, storageRoot, codeHash]; a storage
 * leaf's is an RLP string, so the two never mix up. Read in place, without decoding the node
 * (every node written is read once).
 */
function linksOf(bytes: Uint8Array, references: References): Reference[] {
  const targets: Reference[] = [];
  readItem(bytes, 0);
  if (itemIsList) nodeLinks(bytes, itemStart, itemEnd, targets, references);
  return targets;
}

/** The links of the node whose list payload is `bytes[from, to)`: a branch (17 items), an extension or a leaf (2). */
function nodeLinks(bytes: Uint8Array, from: number, to: number, targets: Reference[], references: References): void {
  let count = 0;
  for (let at = from; at < to; at = itemEnd, count++) readItem(bytes, at);
  if (count === 17) {
    let at = from;
    for (let i = 0; i < 16; i++, at = itemEnd) {
      readItem(bytes, at);
      childLinks(bytes, targets, references);
    }
    readItem(bytes, at);
    leafLinks(bytes, targets, references);
  } else if (count === 2) {
    readItem(bytes, from);
    // Hex-prefix flag 2 or 3: a leaf; 0 or 1: an extension to one child.
    const isLeaf = !itemIsList && itemEnd > itemStart && bytes[itemStart]! >> 4 >= 2;
    readItem(bytes, itemEnd);
    if (isLeaf) leafLinks(bytes, targets, references);
    else childLinks(bytes, targets, references);
  }
}

/** A child reference, the item just read: a node embedded in place (read through), or a 32-byte hash. */
function childLinks(bytes: Uint8Array, targets: Reference[], references: References): void {
  if (itemIsList) {
    const end = itemEnd;
    nodeLinks(bytes, itemStart, end, targets, references);
    itemEnd = end;
  } else if (isHash(bytes, itemStart, itemEnd)) {
    targets.push(nodeReference(references, bytes, itemStart));
  }
}

/** A leaf's value, the item just read: an account's storage root and code, or nothing (a storage value). */
function leafLinks(bytes: Uint8Array, targets: Reference[], references: References): void {
  if (itemIsList || itemEnd === itemStart) return;
  const valueEnd = itemEnd;
  readItem(bytes, itemStart);
  if (!itemIsList || itemEnd !== valueEnd) return; // an RLP string: a storage value
  const fields: number[] = [];
  for (let at = itemStart; at < valueEnd; at = itemEnd) {
    readItem(bytes, at);
    if (itemIsList || fields.length === 8) return;
    fields.push(itemStart, itemEnd);
  }
  if (fields.length !== 8) return;
  const [, , , , rootStart, rootEnd, codeStart, codeEnd] = fields as [number, number, number, number, number, number, number, number];
  if (isHash(bytes, rootStart, rootEnd)) targets.push(nodeReference(references, bytes, rootStart));
  if (isHash(bytes, codeStart, codeEnd)) targets.push(codeReference(references, CODE_PREFIX + hashHex(bytes, codeStart)));
}
