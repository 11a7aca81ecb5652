/**
 * Patch (@ethereumjs/statemanager 10.1.3 and @ethereumjs/vm 10.1.3, the writes of one state
 * manager as own-property overrides): the state trie is keyed by hashes, so it cannot list its
 * addresses or slots; a state dump needs them. Every write the VM makes goes through the state
 * manager's `putAccount`, `modifyAccountFields`, `putCode`, `clearStorage` and `putStorage` (the
 * journal, the EVM and runTx call them on the instance), so wrapping the instance's methods sees
 * every address and slot written (MerkleStateManager's own `modifyAccountFields`, `putCode` and
 * `clearStorage` go through its `putAccount` too: an address may be seen twice). Copies (state
 * views) are not wrapped. test/ethereumjs.test.ts fails if a tx's writes stop going through them.
 * The chain's own states (viewState.ts) tell their writes themselves (`watchStateWrites`, below):
 * only a fork's state, a MerkleStateManager, is wrapped.
 */
import type { AccountFields, StateManagerInterface } from "@ethereumjs/common";
import type { Account, Address } from "@ethereumjs/util";
import type { Hex } from "../common/types.ts";

/**
 * A watcher of one state manager's writes, told each written account by its key: its address as
 * lowercase `0x` hex, what `Address.toString()` answers (`reset` as StateWriteListener's). A
 * wrapped state manager (`onStateWrites`) tells a slot before its own checks; the chain's own
 * states tell it once they pass (a write they refuse is not told).
 */
export interface WriteWatcher {
  account(id: Hex): void;
  slot(id: Hex, key: Uint8Array): void;
  reset?(): void;
}

/** A state manager that tells watchers of its writes itself (viewState.ts), rather than having its methods wrapped. */
interface TellsWrites {
  watchWrites(watcher: WriteWatcher): void;
}

/**
 * Tells `watcher` of every account and slot write of this state manager instance: the chain's own
 * states (viewState.ts, liveState.ts) tell it themselves, a fork's (a MerkleStateManager) has its
 * methods wrapped (`onStateWrites`). Telling keeps the live state an instance of its class like any
 * other: own-property methods gave it a shape of its own, and every call the EVM makes on a state
 * manager a second target.
 */
export function watchStateWrites(stateManager: StateManagerInterface, watcher: WriteWatcher): void {
  if (typeof (stateManager as Partial<TellsWrites>).watchWrites === "function") {
    (stateManager as unknown as TellsWrites).watchWrites(watcher);
    return;
  }
  onStateWrites(stateManager, {
    account: (where) => watcher.account(where.toString() as Hex),
    slot: (where, key) => watcher.slot(where.toString() as Hex, key),
    ...(watcher.reset !== undefined && { reset: () => watcher.reset!() }),
  });
}

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
export function onStateWrites(stateManager: StateManagerInterface, listener: StateWriteListener): void {
  const putAccount = stateManager.putAccount.bind(stateManager);
  const modifyAccountFields = stateManager.modifyAccountFields.bind(stateManager);
  const putCode = stateManager.putCode.bind(stateManager);
  const putStorage = stateManager.putStorage.bind(stateManager);
  stateManager.putAccount = (where: Address, account?: Account) => {
    listener.account(where);
    return putAccount(where, account);
  };
  stateManager.modifyAccountFields = (where: Address, fields: AccountFields) => {
    listener.account(where);
    return modifyAccountFields(where, fields);
  };
  stateManager.putCode = (where: Address, code: Uint8Array) => {
    listener.account(where);
    return putCode(where, code);
  };
  stateManager.putStorage = (where: Address, key: Uint8Array, value: Uint8Array) => {
    listener.slot(where, key);
    return putStorage(where, key, value);
  };
  const reset = listener.reset;
  const clearStorage = stateManager.clearStorage.bind(stateManager);
  stateManager.clearStorage = (where: Address) => {
    listener.account(where);
    reset?.();
    return clearStorage(where);
  };
  if (reset === undefined) return;
  const setStateRoot = stateManager.setStateRoot.bind(stateManager);
  const revert = stateManager.revert.bind(stateManager);
  const deleteAccount = stateManager.deleteAccount.bind(stateManager);
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
}
