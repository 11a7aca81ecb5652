/**
 * The private members of @ethereumjs/statemanager 10.1.3's MerkleStateManager
 * (dist/esm/merkleStateManager.js) that the engine reads, in one interface. Every read of them goes
 * through `merkleInternals`; test/ethereumjs.test.ts asserts each exists with the shape used here,
 * so an upgrade that renames or reshapes one fails there first.
 */
import type { MerkleStateManager } from "@ethereumjs/statemanager";

import type { MerkleStateManagerOpts } from "@ethereumjs/statemanager";
import type { Account, Address } from "@ethereumjs/util";

/** MapDB's store: unprefixed hex key → node (bytes, or hex where a trie copy encodes strings). */
export type NodeStore = Map<string, Uint8Array | string>;

export interface StorageCache {
  get(address: Address, key: Uint8Array): Uint8Array | undefined;
  put(address: Address, key: Uint8Array, value: Uint8Array): void;
}

/**
 * @ethereumjs/statemanager 10.1.3's AccountCache (cache/account.js): an entry per address (unprefixed
 * hex), the account's RLP or undefined for a deleted one, in an ordered map (the default) or an LRU cache.
 */
export interface AccountCacheInternals {
  get(address: Address): { accountRLP: Uint8Array | undefined } | undefined;
  put(address: Address, account: Account | undefined, couldBePartialAccount?: boolean): void;
  /** Keeps the entry's value before the first write in the current checkpoint, for revert. */
  _saveCachePreState(addressHex: string): void;
  _orderedMapCache?: { setElement(addressHex: string, entry: { accountRLP: Uint8Array | undefined }): unknown };
  _stats: { writes: number };
}

export interface MerkleInternals {
  /** The account trie; its database is the MapDB every copy of the state shares (`db._database`, below). */
  _trie: NonNullable<MerkleStateManagerOpts["trie"]>;
  /** Storage tries opened so far, keyed by the unprefixed hex of keccak(address) (`_getStorageTrie`). */
  _storageTries: Record<string, { root(): Uint8Array }>;
  _caches?: MerkleStateManagerOpts["caches"] & { storage?: StorageCache; account?: AccountCacheInternals };
  /** The account's storage trie (a copy of `_trie` at its storage root, on the same database), opened and kept in `_storageTries`. */
  _getStorageTrie(address: Address, account: { storageRoot: Uint8Array }): NonNullable<MerkleStateManagerOpts["trie"]>;
  /** The cache SSTORE's gas reads a slot's value at the start of the tx through (EIP-2200). */
  originalStorageCache: { getStorage: (address: Address, key: Uint8Array) => Promise<Uint8Array> };
  /** Open journal checkpoints: 0 when no tx or dry run is running. */
  _checkpointCount: number;
  _prefixCodeHashes: boolean;
  _prefixStorageTrieKeys: boolean;
  keccakFunction: (bytes: Uint8Array) => Uint8Array;
}

/** The private side of a MerkleStateManager (the members above, as 10.1.3 has them). */
export const merkleInternals = (stateManager: MerkleStateManager): MerkleInternals => stateManager as unknown as MerkleInternals;

/**
 * The options that rebuild `copy` (a `shallowCopy`) as another class: what 10.1.3's shallowCopy
 * hands its own copy (merkleStateManager.js), for a subclass whose copies must be of the subclass.
 */
export function copyOptionsOf(copy: MerkleStateManager): MerkleStateManagerOpts {
  const internals = merkleInternals(copy);
  return {
    common: copy.common,
    trie: internals._trie,
    caches: internals._caches,
    prefixCodeHashes: internals._prefixCodeHashes,
    prefixStorageTrieKeys: internals._prefixStorageTrieKeys,
  };
}

/** Open checkpoints of the state manager (0: no tx or dry run is running on it). */
export const checkpointDepth = (stateManager: MerkleStateManager): number => merkleInternals(stateManager)._checkpointCount;

/** The node map behind a state manager; undefined when it is not the in-memory MapDB. */
export const nodeStoreOf = (stateManager: MerkleStateManager): NodeStore | undefined => nodeStoreOfTrie(merkleInternals(stateManager)._trie);

/** The node map behind a trie (and every copy of it: views, storage tries); undefined when it is not the in-memory MapDB. */
export function nodeStoreOfTrie(trie: { database(): { db: unknown } }): NodeStore | undefined {
  const store = (trie.database().db as { _database?: unknown })._database;
  return store instanceof Map ? (store as NodeStore) : undefined;
}

/** Storage-trie roots the state manager holds open (they must survive pruning even if unreachable). */
export function openStorageRoots(stateManager: MerkleStateManager): Uint8Array[] {
  return Object.values(merkleInternals(stateManager)._storageTries).map((trie) => trie.root());
}
