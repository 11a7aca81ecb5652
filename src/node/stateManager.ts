/**
 * The state manager of a chain (live state and loaded dumps). @ethereumjs/statemanager 10.1.3
 * keeps a storage trie per account in `_storageTries` and `deleteAccount` leaves it there: an
 * account deleted (EIP-161 touch, SELFDESTRUCT before Cancun) and created again would read its
 * old storage, and the next state root would include it. Deleting drops that trie too, so the
 * account's storage is read from its (empty) storage root again.
 */
import { bytesToUnprefixedHex } from "@ethereumjs/util";
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
  return stateManager;
}

/** Forgets the cached storage trie of a deleted account (the fix above; a fork's state uses it too). */
export function dropStorageTrie(stateManager: MerkleStateManager, address: Address): void {
  const internals = stateManager as unknown as MerkleInternals;
  // Keyed as _getStorageTrie keys it: the unprefixed hex of keccak(address).
  delete internals._storageTries[bytesToUnprefixedHex(internals.keccakFunction(address.bytes))];
}
