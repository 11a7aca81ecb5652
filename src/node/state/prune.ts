/**
 * State-history pruning. The state manager writes every trie node and every contract's code into
 * one in-memory, content-addressed map shared by the live state, its storage tries and every
 * state view; nothing is deleted when a write makes a node unreachable, so each sealed block
 * leaves the paths it changed behind. A pass deletes every entry the kept state roots (the
 * account tries, each account's storage trie and code) no longer reach.
 *
 * It counts references instead of walking the kept state: a node's key is the hash of its
 * content, so what it links to never changes, and each entry is decoded once, on the first pass
 * that sees it, which adds one reference to each of its children (and, for an account, to its
 * storage root and code). An entry nothing references and no kept root names is unreachable: it
 * goes, and its children lose a reference, which may free them in turn (the store is a DAG: no
 * cycles). A pass so costs what changed since the last one, not the size of the state (a system
 * contract's ring buffer of 8191 slots, docs/profiles.md "Genesis code", grows by a slot a block
 * and would otherwise be re-walked every pass).
 *
 * The pass is synchronous from the first mark to the last delete: no read of any view can run in
 * between, so a read only needs its root to be among the kept ones. The store and the open
 * storage tries are ethereumjs internals, read in src/node/ethereumjs/internals.ts.
 */
import { bytesToUnprefixedHex, hexToBytes } from "@ethereumjs/util";

import type { NodeStore } from "../ethereumjs/internals.ts";

/** `c`, MerkleStateManager's prefix of code keys (its default `prefixCodeHashes`): a code key is longer than a node's 32-byte hash. */
const CODE_PREFIX = "63";
const NODE_KEY_LENGTH = 64;

export interface PruneResult {
  kept: number;
  deleted: number;
}

/** What a store's entries reference, as far as passes have seen them. */
interface References {
  /** The keys each seen entry links to (a key twice if it links to it twice). */
  links: Map<string, string[]>;
  /** How many links of seen entries point at each key (the key may not be stored). */
  counts: Map<string, number>;
  /** Seen entries no link points at: each is a kept root or garbage. */
  unreferenced: Set<string>;
}

const referencesByStore = new WeakMap<NodeStore, References>();

/** Deletes every entry of `store` that `stateRoots` (account tries) and `storageRoots` do not reach. */
export function pruneStore(store: NodeStore, stateRoots: Iterable<Uint8Array>, storageRoots: Iterable<Uint8Array>): PruneResult {
  let references = referencesByStore.get(store);
  if (references === undefined) referencesByStore.set(store, (references = { links: new Map(), counts: new Map(), unreferenced: new Set() }));
  const { links, counts, unreferenced } = references;

  // Entries written since the last pass: their links count from now on.
  for (const [key, value] of store) {
    if (links.has(key)) continue;
    const targets = key.length === NODE_KEY_LENGTH ? linksOf(typeof value === "string" ? hexToBytes(`0x${value}`) : value) : [];
    links.set(key, targets);
    for (const target of targets) {
      counts.set(target, (counts.get(target) ?? 0) + 1);
      unreferenced.delete(target);
    }
    if ((counts.get(key) ?? 0) === 0) unreferenced.add(key);
  }

  const kept = new Set<string>();
  for (const root of stateRoots) kept.add(bytesToUnprefixedHex(root));
  for (const root of storageRoots) kept.add(bytesToUnprefixedHex(root));

  let deleted = 0;
  const garbage = [...unreferenced].filter((key) => !kept.has(key));
  while (garbage.length > 0) {
    const key = garbage.pop()!;
    const targets = links.get(key);
    if (targets === undefined) continue;
    store.delete(key);
    links.delete(key);
    unreferenced.delete(key);
    counts.delete(key);
    deleted++;
    for (const target of targets) {
      const count = counts.get(target)! - 1;
      if (count > 0) {
        counts.set(target, count);
        continue;
      }
      counts.delete(target);
      if (!links.has(target)) continue; // never stored (the empty trie's root), or not seen yet
      if (kept.has(target)) unreferenced.add(target);
      else garbage.push(target);
    }
  }
  return { kept: store.size, deleted };
}

/** An RLP item of `bytes` at `at`: whether it is a list, where its payload starts and where the item ends (the RLP spec, ethereum.org "Recursive-length prefix"). */
interface Item {
  list: boolean;
  start: number;
  end: number;
}

function itemAt(bytes: Uint8Array, at: number): Item {
  const first = bytes[at]!;
  if (first < 0x80) return { list: false, start: at, end: at + 1 };
  const list = first >= 0xc0;
  const short = list ? 0xc0 : 0x80;
  const long = list ? 0xf7 : 0xb7;
  if (first <= long) return { list, start: at + 1, end: at + 1 + first - short };
  const lengthOfLength = first - long;
  let length = 0;
  for (let i = 1; i <= lengthOfLength; i++) length = length * 256 + bytes[at + i]!;
  return { list, start: at + 1 + lengthOfLength, end: at + 1 + lengthOfLength + length };
}

/** The items of the list `list` of `bytes`. */
function itemsOf(bytes: Uint8Array, list: Item): Item[] {
  const items: Item[] = [];
  for (let at = list.start; at < list.end; ) {
    const item = itemAt(bytes, at);
    items.push(item);
    at = item.end;
  }
  return items;
}

/**
 * The keys a stored node links to: its children's hashes (nodes of 32 bytes or more; shorter ones
 * are embedded in it and read through) and, at an account leaf, the account's storage root and
 * code. An account leaf's value is the RLP list [nonce, balance, storageRoot, codeHash]; a storage
 * leaf's is an RLP string, so the two never mix up. Read in place, without decoding the node
 * (every node written is read once).
 */
function linksOf(bytes: Uint8Array): string[] {
  const targets: string[] = [];
  const hashAt = (item: Item) => bytesToUnprefixedHex(bytes.subarray(item.start, item.end));
  const child = (item: Item) => {
    if (item.list) node(item);
    else if (item.end - item.start === 32) targets.push(hashAt(item));
  };
  const leaf = (value: Item) => {
    if (value.list || value.end === value.start) return;
    const account = itemAt(bytes, value.start);
    if (!account.list || account.end !== value.end) return; // an RLP string: a storage value
    const fields = itemsOf(bytes, account);
    if (fields.length !== 4 || fields.some((field) => field.list)) return;
    const [, , storageRoot, codeHash] = fields as [Item, Item, Item, Item];
    if (storageRoot.end - storageRoot.start === 32) targets.push(hashAt(storageRoot));
    if (codeHash.end - codeHash.start === 32) targets.push(CODE_PREFIX + hashAt(codeHash));
  };
  const node = (list: Item) => {
    const items = itemsOf(bytes, list);
    if (items.length === 17) {
      for (let i = 0; i < 16; i++) child(items[i]!);
      leaf(items[16]!);
    } else if (items.length === 2) {
      const [path, next] = items as [Item, Item];
      // Hex-prefix flag 2 or 3: a leaf; 0 or 1: an extension to one child.
      const isLeaf = !path.list && path.end > path.start && bytes[path.start]! >> 4 >= 2;
      if (isLeaf) leaf(next);
      else child(next);
    }
  };
  const root = itemAt(bytes, 0);
  if (root.list) node(root);
  return targets;
}
