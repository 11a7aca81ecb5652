/**
 * The state manager of a chain (live state and loaded dumps). @ethereumjs/statemanager 10.1.3
 * keeps a storage trie per account in `_storageTries` and `deleteAccount` leaves it there: an
 * account deleted (EIP-161 touch, SELFDESTRUCT before Cancun) and created again would read its
 * old storage, and the next state root would include it. Deleting drops that trie too, so the
 * account's storage is read from its (empty) storage root again.
 *
 * `putStorage` in the same version writes every SSTORE twice: `caches.storage.put(...) ??
 * this._writeContractStorage(...)` runs the trie write too, because `put` returns undefined. That
 * trie write (a storage-trie copy, a path walk, re-hashing, the account's new storage root) is most
 * of an SSTORE's cost, and dry runs pay it only to revert it. With caches, the cache is the write
 * the package means: `flush` (at the outermost commit or revert, and before every state root)
 * writes cached slots to the tries. So the override puts into the cache only, with the same checks.
 * `dumpStorage` reads the trie, so it flushes first when no checkpoint is open (a dev edit can
 * leave slots in the cache until then). test/stateManager.test.ts fails if an upgrade changes this.
 */
import { RLP } from "@ethereumjs/rlp";
import { bytesToUnprefixedHex, unpadBytes } from "@ethereumjs/util";
import { Caches, MerkleStateManager } from "@ethereumjs/statemanager";

import type { Common } from "@ethereumjs/common";
import type { Address } from "@ethereumjs/util";

/** The two private members the fix needs (merkleStateManager.js, `_getStorageTrie`). */
interface MerkleInternals {
  _storageTries: Record<string, unknown>;
  keccakFunction: (bytes: Uint8Array) => Uint8Array;
}

export function createStateManager(common: Common): MerkleStateManager {
  const stateManager = new MerkleStateManager({ common, caches: new Caches() });
  const deleteAccount = stateManager.deleteAccount.bind(stateManager);
  stateManager.deleteAccount = async (address: Address) => {
    await deleteAccount(address);
    dropStorageTrie(stateManager, address);
  };
  writeStorageToCacheOnly(stateManager);
  return stateManager;
}

/** Whether `stateManager` is @ethereumjs' own class, not a subclass with its own reads and writes. */
export const isPlainMerkleStateManager = (stateManager: unknown): boolean => Object.getPrototypeOf(stateManager) === MerkleStateManager.prototype;

/** Forgets the cached storage trie of a deleted account (the fix above; a fork's state uses it too). */
export function dropStorageTrie(stateManager: MerkleStateManager, address: Address): void {
  const internals = stateManager as unknown as MerkleInternals;
  // Keyed as _getStorageTrie keys it: the unprefixed hex of keccak(address).
  delete internals._storageTries[bytesToUnprefixedHex(internals.keccakFunction(address.bytes))];
}

/**
 * ethereumjs 10.1.3's putStorage without its immediate trie write (see the module comment). Also
 * for copies: `shallowCopy` builds a plain MerkleStateManager (state views apply it to theirs).
 */
export function writeStorageToCacheOnly(stateManager: MerkleStateManager): void {
  // biome-ignore lint/complexity/useLiteralKeys: `_caches` is protected in ethereumjs 10.1.3; the index access reads it.
  const storageCache = stateManager["_caches"]?.storage;
  // Plain instances only: a subclass (a fork's state) has its own putStorage, which this would replace.
  if (storageCache === undefined || !isPlainMerkleStateManager(stateManager)) return;
  stateManager.putStorage = async (address: Address, key: Uint8Array, value: Uint8Array) => {
    if (key.length !== 32) throw new Error("Storage key must be 32 bytes long");
    if (value.length > 32) throw new Error("Storage value cannot be longer than 32 bytes");
    if ((await stateManager.getAccount(address)) === undefined) throw new Error("putStorage() called on non-existing account");
    storageCache.put(address, key, RLP.encode(unpadBytes(value)));
  };
  const dumpStorage = stateManager.dumpStorage.bind(stateManager);
  stateManager.dumpStorage = async (address: Address) => {
    if ((stateManager as unknown as { _checkpointCount: number })._checkpointCount === 0) await stateManager.flush();
    return dumpStorage(address);
  };
}
