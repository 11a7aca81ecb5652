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

import { flatHex } from "../common/hex.ts";
import { nodeStoreOfTrie } from "../ethereumjs/internals.ts";
import { bytesTrie } from "../ethereumjs/stateManager.ts";
import { ViewMemos, ViewStateManager } from "./viewState.ts";

import type { Common } from "@ethereumjs/common";
import type { NodeStore } from "../ethereumjs/internals.ts";

/**
 * Accounts and slots the live state's memos hold before they start over (~200 bytes each; what is
 * dropped is read from the tries again), and bytes of code.
 */
const MAX_LIVE_ENTRIES = 250_000;
const MAX_LIVE_CODE_BYTES = 64 * 1024 * 1024;

export class LiveStateManager extends ViewStateManager {
  readonly #store: NodeStore | undefined;
  /** A root was asked for inside the open checkpoints: the overlay is written when they commit. */
  #rootAskedInside = false;

  /** An empty state on a new in-memory node store; `maxEntries` bounds the memos (tests make it small). */
  constructor(common: Common, maxEntries = MAX_LIVE_ENTRIES) {
    const trie = bytesTrie(common);
    super({ common, trie, root: KECCAK256_RLP, memos: new ViewMemos(maxEntries, MAX_LIVE_CODE_BYTES) });
    this.#store = nodeStoreOfTrie(trie);
  }

  /**
   * Outside every checkpoint the overlay goes into the tries (see the module comment); inside one,
   * a view's reverted root, and the overlay goes into the tries when the outermost checkpoint
   * commits: runBlock (a block imported) takes its root inside the block's checkpoint, then
   * commits it, and the block's state must be readable at that root from then on.
   */
  override async getStateRoot(): Promise<Uint8Array> {
    if (this.checkpointDepth === 0) return this.writeOverlay();
    this.#rootAskedInside = true;
    return super.getStateRoot();
  }

  override async commit(): Promise<void> {
    await super.commit();
    if (this.checkpointDepth > 0 || !this.#rootAskedInside) return;
    this.#rootAskedInside = false;
    await this.writeOverlay();
  }

  override async revert(): Promise<void> {
    await super.revert();
    if (this.checkpointDepth === 0) this.#rootAskedInside = false;
  }

  /** Keeps the memos of the state at `root` (a snapshot's) when the live state moves on from it (`ViewMemos.keep`). */
  keepMemos(root: Uint8Array): void {
    this.memos.keep(flatHex(root));
  }

  /** The node map of every trie of the chain (pruning reads it: prune.ts). */
  get nodeStore(): NodeStore | undefined {
    return this.#store;
  }

  /**
   * A view at the last root written (writes since are not in it: ask for the root first, as the
   * chain does before every read of the live state), with memos of its own (the live ones move).
   */
  override shallowCopy(): ViewStateManager {
    return new ViewStateManager({
      common: this.common,
      trie: this.baseTries(),
      root: this.baseRoot,
      memos: new ViewMemos(MAX_LIVE_ENTRIES, MAX_LIVE_CODE_BYTES),
    });
  }
}
