/**
 * Which sealed blocks' states can be read, at which root (a block's header root, or the root after
 * the dev edits that landed on it: stateEdits.ts), the views that read them (stateViews.ts), and
 * the pruning that drops the states older than `stateHistory` blocks (prune.ts).
 */
import { checkpointDepth, nodeStoreOf, openStorageRoots } from "../ethereumjs/internals.ts";
import { isLiveState } from "./liveState.ts";
import { pruneStore } from "./prune.ts";
import { StateViews } from "./stateViews.ts";

import type { Block } from "@ethereumjs/block";
import type { StateManagerInterface } from "@ethereumjs/common";
import type { NodeStore } from "../ethereumjs/internals.ts";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import type { VM } from "@ethereumjs/vm";
import type { Hex } from "../common/types.ts";
import type { SealedBlock } from "../chain/records.ts";

/** Seals between two pruning passes: a pass walks every kept trie, so not after every block. */
const PRUNE_EVERY = 64;

/** What a pruning pass must keep besides the recent blocks: the states live snapshots go back to. */
export interface KeptState {
  stateRoot: Uint8Array;
  /** The head at the snapshot, when its state was readable. */
  head: SealedBlock | undefined;
  /** The head's state root then, when dev edits had landed on it. */
  headEditedRoot: Uint8Array | undefined;
}

export class StateHistory {
  /** Sealed blocks whose state stays readable (the head's included); undefined keeps every block's. */
  readonly #stateHistory: number | undefined;
  #views!: StateViews;
  /**
   * Blocks below this number have no state: the chain was loaded from a dump at that block, or
   * pruning dropped it (`stateHistory`). `#keptHeads` are the exceptions (see `hasState`).
   */
  #from = 0n;
  /** Blocks below `#from` whose state pruning kept: heads of live snapshots, and the head. */
  #keptHeads = new Set<Hex>();
  /**
   * The chain's first block with state (the genesis; a fork's block; a loaded dump's head): kept
   * by every pruning pass, as geth's pruner keeps the genesis state (core/state/pruner), so that
   * `earliest` and block 0 stay readable while the recent blocks are.
   */
  #first = 0n;
  /** The head's number at the last pruning pass. */
  #prunedAt = 0n;
  /** Blocks whose state is not their header's root: the root after the dev edits that landed on them, by block hash. */
  #edited = new Map<Hex, { number: bigint; root: Uint8Array }>();

  constructor(stateHistory: number | undefined) {
    this.#stateHistory = stateHistory;
  }

  /** Starts over on `live`'s trie: blocks from `from` on have their state; `head` is the head's number. */
  reset(live: VM, from: bigint, head: bigint): void {
    this.#views = new StateViews(live);
    this.#from = from;
    this.#first = from;
    this.#keptHeads.clear();
    this.#prunedAt = head;
    this.#edited.clear();
  }

  /** The root of `sealed`'s state after the dev edits that landed on it; undefined when none did. */
  editedRootOf(sealed: SealedBlock): Uint8Array | undefined {
    return this.#edited.get(sealed.hash)?.root;
  }

  /** `sealed`'s state is now `root` (stateEdits.ts); undefined: its header's again (evm_revert). */
  setEditedRoot(sealed: SealedBlock, root: Uint8Array | undefined): void {
    if (root === undefined) this.#edited.delete(sealed.hash);
    else this.#edited.set(sealed.hash, { number: sealed.block.header.number, root });
  }

  /** The first block with state (pruning and loaded dumps aside, the first block). */
  get from(): bigint {
    return this.#from;
  }

  /** The one rule for which sealed blocks' states can be read. */
  hasState(sealed: SealedBlock): boolean {
    return sealed.block.header.number >= this.#from || this.#keptHeads.has(sealed.hash);
  }

  /** Runs `read` on a view at `block`'s state root; `transient`: a snapshot of the live state (stateViews.ts). */
  read<T>(block: Block, read: (vm: VM) => Promise<T>, transient = false): Promise<T> {
    return this.#views.run(block, read, transient);
  }

  /** The chain went back to `next - 1`: blocks sealed after it have their state again; those pruned below stay gone. */
  rewind(next: bigint): void {
    if (this.#from > next) this.#from = next;
    // A block mined again may get the same hash (a fake clock): the edits of the one cut are not its.
    for (const [hash, { number }] of this.#edited) if (number >= next) this.#edited.delete(hash);
    if (this.#prunedAt >= next) this.#prunedAt = next - 1n;
  }

  /**
   * After a seal, every PRUNE_EVERY blocks: drops the trie nodes that only blocks older than
   * `stateHistory` need (prune.ts). Runs in the writer queue right after the seal: `liveRoot` is
   * the flushed live state. Reads at those blocks answer historicalStateUnavailable from now on; a
   * read already in flight keeps its view's root.
   */
  afterSeal(head: SealedBlock, liveRoot: Uint8Array, live: VM, byNumber: (number: bigint) => SealedBlock | undefined, kept: Iterable<KeptState>): void {
    const headNumber = head.block.header.number;
    if (headNumber - this.#prunedAt < PRUNE_EVERY) return;
    this.#prunedAt = headNumber;
    const history = this.#stateHistory;
    if (history === undefined) return;
    const from = headNumber - BigInt(history) + 1n;
    const { store, depth, openRoots } = triesOf(live.stateManager);
    if (from <= this.#from || store === undefined || depth > 0) return;

    const roots: Uint8Array[] = [liveRoot];
    for (let number = from; number <= headNumber; number++) roots.push(byNumber(number)!.block.header.stateRoot);
    for (const { number, root } of this.#edited.values()) if (number >= from) roots.push(root);
    const keptHeads = new Set<Hex>();
    const keep = (sealed: SealedBlock | undefined) => {
      if (sealed === undefined || !this.hasState(sealed)) return;
      roots.push(sealed.block.header.stateRoot);
      const edited = this.editedRootOf(sealed);
      if (edited !== undefined) roots.push(edited);
      if (sealed.block.header.number < from) keptHeads.add(sealed.hash);
    };
    keep(byNumber(this.#first));
    for (const snap of kept) {
      roots.push(snap.stateRoot);
      if (snap.headEditedRoot !== undefined) roots.push(snap.headEditedRoot);
      keep(snap.head);
    }
    this.#views.dropBelow(from);
    roots.push(...this.#views.roots());
    pruneStore(store, roots, openRoots);
    this.#from = from;
    this.#keptHeads = keptHeads;
    for (const [hash, { number }] of this.#edited) if (number < from && !keptHeads.has(hash)) this.#edited.delete(hash);
  }
}

/**
 * What pruning needs of the live state: its node store, its open checkpoints, and the storage roots
 * it holds tries open at. The chain's own (liveState.ts) holds none between blocks (its storage roots
 * are reachable from its root); a fork's MerkleStateManager may.
 */
function triesOf(stateManager: StateManagerInterface): { store: NodeStore | undefined; depth: number; openRoots: Uint8Array[] } {
  if (isLiveState(stateManager)) return { store: stateManager.nodeStore, depth: stateManager.checkpointDepth, openRoots: [] };
  const merkle = stateManager as MerkleStateManager;
  return { store: nodeStoreOf(merkle), depth: checkpointDepth(merkle), openRoots: openStorageRoots(merkle) };
}
