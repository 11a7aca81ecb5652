/**
 * The chain's live state: the accounts, code and storage the open block executes on and every
 * sealed block's state is taken from. It is a ViewStateManager (viewState.ts) whose overlay is not
 * thrown away: txs, system calls, deposits and dev edits write plain objects with one journal entry
 * each (a checkpoint is the journal's length, so a tx's revert undoes only what it changed), and
 * the tries see the writes only when a state root is asked for (a seal, a snapshot, a read of the
 * live state, a dev edit): each account and slot written since the last root is put into its trie
 * once, one batch per trie. What was written is then carried, as read, into memos under the new
 * root, so the next block reads it from a Map, not a trie walk (memos of its own: views share
 * theirs, by sealed root); the memos of a snapshot's root stay under it too (`keepMemos`), so that
 * evm_revert comes back to them.
 *
 * @ethereumjs/statemanager's MerkleStateManager (which it replaces for the chain's own state; a
 * forked chain's state stays a ForkStateManager, fork/forkState.ts) keeps accounts and slots in
 * caches as RLP, copies each cache's diff at every call frame's checkpoint and writes the tries at
 * every outermost commit. What it answers is the same, which test/liveState.test.ts checks on random
 * operations and txs against the plain state layer (plainState.ts) and fresh tries: roots, reads,
 * dumps, after reverts and roots taken at any point. One difference: an account's `storageRoot`
 * is as of the last root written, not the last tx (as geth's state object reports it until
 * IntermediateRoot, core/state/state_object.go); only EIP-7610's collision check reads it, and only
 * a dev edit can give storage to an account without code or nonce, so an edit asks for a root at
 * once (stateEdits.ts).
 *
 * A root asked for inside a checkpoint (runBlock's, a tx's receipt before Byzantium) is computed as
 * a view computes it, in copies of the tries reverted after (the checkpoint may still be
 * reverted), and the overlay is written into the tries once the outermost checkpoint commits.
 */
import { KECCAK256_RLP } from "@ethereumjs/util";

import { nodeStoreOfTrie } from "../ethereumjs/internals.ts";
import { bytesTrie } from "../ethereumjs/stateManager.ts";
import { ViewMemos, ViewStateManager } from "./viewState.ts";

import type { Common } from "@ethereumjs/common";

/**
 * Accounts and slots the live state's memos hold before they start over (~200 bytes each; what is
 * dropped is read from the tries again), and bytes of code.
 */
const MAX_LIVE_ENTRIES = 250_000;
const MAX_LIVE_CODE_BYTES = 64 * 1024 * 1024;

/**
 * The chain's live state: a ViewStateManager whose roots are written into the tries (see the module
 * comment). One class with the views, not a subclass: every state manager the EVM calls then has one
 * shape, so its call sites stay monomorphic and the code optimized for one workload's states is not
 * thrown away when another's appear (bench/benchmarks-notes.md, "Thirteenth round").
 */
export type LiveStateManager = ViewStateManager;

/** An empty live state on a new in-memory node store; `maxEntries` bounds the memos (tests make it small). */
export function createLiveState(common: Common, maxEntries = MAX_LIVE_ENTRIES): LiveStateManager {
  const trie = bytesTrie(common);
  return new ViewStateManager({
    common,
    trie,
    root: KECCAK256_RLP,
    memos: new ViewMemos(maxEntries, MAX_LIVE_CODE_BYTES),
    live: { store: nodeStoreOfTrie(trie), copyMemos: () => new ViewMemos(MAX_LIVE_ENTRIES, MAX_LIVE_CODE_BYTES) },
  });
}

/** Whether `state` is the chain's live state (a fork's is a ForkStateManager, a view is not live). */
export function isLiveState(state: unknown): state is LiveStateManager {
  return state instanceof ViewStateManager && state.isLive;
}
