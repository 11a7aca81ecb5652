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
  /**
   * Any change that bypasses the two writes above: a state root set (snapshot revert, reorg, load),
   * a checkpoint reverted, an account deleted or its storage cleared. A listener that keeps facts
   * about the state forgets them all here.
   */
  reset?(): void;
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
  const reset = listener.reset;
  if (reset === undefined) return;
  const setStateRoot = stateManager.setStateRoot.bind(stateManager);
  const revert = stateManager.revert.bind(stateManager);
  const deleteAccount = stateManager.deleteAccount.bind(stateManager);
  const clearStorage = stateManager.clearStorage.bind(stateManager);
  stateManager.setStateRoot = (stateRoot: Uint8Array, clearCache?: boolean) => {
    reset();
    return setStateRoot(stateRoot, clearCache);
  };
  stateManager.revert = () => {
    reset();
    return revert();
  };
  stateManager.deleteAccount = (where: Address) => {
    reset();
    return deleteAccount(where);
  };
  stateManager.clearStorage = (where: Address) => {
    reset();
    return clearStorage(where);
  };
}
