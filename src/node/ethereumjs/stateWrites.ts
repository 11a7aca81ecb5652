/**
 * Patch (@ethereumjs/statemanager 10.1.3 and @ethereumjs/vm 10.1.3, `putAccount` and `putStorage`
 * as own-property overrides of one state manager): the state trie is keyed by hashes, so it cannot
 * list its addresses or slots; a state dump needs them. Every write the VM makes goes through the
 * state manager's `putAccount` and `putStorage` (the journal and runTx call them on the instance),
 * so wrapping the instance's two methods sees every address and slot written. Copies (state
 * views) are not wrapped. test/ethereumjs.test.ts fails if a tx's writes stop going through them.
 */
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import type { Account, Address } from "@ethereumjs/util";

export interface StateWriteListener {
  account(address: Address): void;
  slot(address: Address, key: Uint8Array): void;
}

/** Calls `listener` before each account and slot write of this state manager instance. */
export function onStateWrites(stateManager: MerkleStateManager, listener: StateWriteListener): void {
  const putAccount = stateManager.putAccount.bind(stateManager);
  const putStorage = stateManager.putStorage.bind(stateManager);
  stateManager.putAccount = (where: Address, account: Account | undefined) => {
    listener.account(where);
    return putAccount(where, account);
  };
  stateManager.putStorage = (where: Address, key: Uint8Array, value: Uint8Array) => {
    listener.slot(where, key);
    return putStorage(where, key, value);
  };
}
