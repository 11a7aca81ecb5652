/**
 * State-history pruning. The state manager writes every trie node and every contract's code into
 * one in-memory, content-addressed map shared by the live state, its storage tries and every
 * state view; nothing is ever deleted (no reference counts), so each sealed block leaves the paths
 * it changed behind. A pass marks what the kept state roots reach (the account trie, each
 * account's storage trie and code) and deletes every other entry.
 *
 * The pass is synchronous from the first mark to the last delete: no read of any view can run in
 * between, so a read only needs its root to be among the kept ones. The store and the open
 * storage tries are ethereumjs internals, read in src/node/ethereumjs/internals.ts.
 */
import { RLP } from "@ethereumjs/rlp";
import { bytesToUnprefixedHex, hexToBytes } from "@ethereumjs/util";

import type { NodeStore } from "./ethereumjs/internals.ts";

/** `c`, MerkleStateManager's prefix of code keys (its default `prefixCodeHashes`). */
const CODE_PREFIX = "63";

type RawNode = Uint8Array | RawNode[];

export interface PruneResult {
  kept: number;
  deleted: number;
}

/** Deletes every entry of `store` that `stateRoots` (account tries) and `storageRoots` do not reach. */
export function pruneStore(store: NodeStore, stateRoots: Iterable<Uint8Array>, storageRoots: Iterable<Uint8Array>): PruneResult {
  const marked = new Set<string>();
  const decode = (key: string): RawNode[] | undefined => {
    const value = store.get(key);
    if (value === undefined) return undefined;
    return RLP.decode(typeof value === "string" ? hexToBytes(`0x${value}`) : value) as RawNode[];
  };

  /** Marks the trie under `root`; `onLeaf` sees each leaf's value (accounts, for the state trie). */
  const markTrie = (root: Uint8Array, onLeaf: ((value: Uint8Array) => void) | undefined) => {
    const pending: RawNode[] = [root];
    const visit = (ref: RawNode) => {
      // A child is a 32-byte hash, or a node shorter than 32 bytes embedded in its parent.
      if (Array.isArray(ref)) pending.push(ref);
      else if (ref.length === 32) pending.push(ref);
    };
    while (pending.length > 0) {
      const item = pending.pop()!;
      let node: RawNode[];
      if (Array.isArray(item)) {
        node = item;
      } else {
        const key = bytesToUnprefixedHex(item);
        if (marked.has(key)) continue; // content-addressed: its whole subtree is marked already
        const decoded = decode(key);
        if (decoded === undefined) continue; // the empty trie, or a root this store never had
        marked.add(key);
        node = decoded;
      }
      if (node.length === 17) {
        for (let i = 0; i < 16; i++) visit(node[i]!);
        const value = node[16] as Uint8Array;
        if (onLeaf !== undefined && value.length > 0) onLeaf(value);
      } else if (node.length === 2) {
        const path = node[0] as Uint8Array;
        // Hex-prefix flag 2 or 3: a leaf; 0 or 1: an extension to one child.
        const isLeaf = path.length > 0 && path[0]! >> 4 >= 2;
        if (isLeaf) {
          if (onLeaf !== undefined) onLeaf(node[1] as Uint8Array);
        } else {
          visit(node[1]!);
        }
      }
    }
  };

  const onAccount = (value: Uint8Array) => {
    const fields = RLP.decode(value) as Uint8Array[];
    const storageRoot = fields[2];
    const codeHash = fields[3];
    if (storageRoot !== undefined) markTrie(storageRoot, undefined);
    if (codeHash !== undefined) {
      const codeKey = CODE_PREFIX + bytesToUnprefixedHex(codeHash);
      if (store.has(codeKey)) marked.add(codeKey);
    }
  };
  for (const root of stateRoots) markTrie(root, onAccount);
  for (const root of storageRoots) markTrie(root, undefined);

  let deleted = 0;
  for (const key of store.keys()) {
    if (!marked.has(key)) {
      store.delete(key);
      deleted++;
    }
  }
  return { kept: marked.size, deleted };
}
