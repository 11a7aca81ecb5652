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

/**
 * Seals between two pruning passes: four readable windows, so that about three quarters of what the
 * blocks between two passes wrote has left the window by the pass and goes unread (prune.ts), at
 * least 64 seals (a pass has a fixed cost: the kept roots and the views) and at most 1,024 (what the
 * passes leave between them grows with the interval: ~1,024 blocks' changed trie paths).
 */
export function passInterval(stateHistory: number): number {
  return Math.min(1024, Math.max(64, 4 * stateHistory));
}

/** The first block of the newest `stateHistory` blocks up to `head` (below 0 on a young chain). */
const windowStartAt = (head: bigint, stateHistory: number): bigint => head + 1n - BigInt(stateHistory);

/** The live snapshots (chain/snapshots.ts): the states they go back to, and their heads. */
export interface KeptStates {
  /** Every live snapshot: a pruning pass keeps the states they go back to. */
  values(): Iterable<KeptState>;
  /** The heads of live snapshots numbered `from` to `to - 1`: their states stay readable when the window moves past them. */
  headsIn(from: bigint, to: bigint): Iterable<SealedBlock>;
}

/** What a pruning pass must keep of a live snapshot: the state it goes back to. */
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
   * they left the window (`stateHistory`), which moves at each seal. `#first` and `#keptHeads` are
   * the exceptions (see `hasState`).
   */
  #from = 0n;
  /** Blocks below `#from` (or that were, before a revert) whose state is kept: heads of live snapshots. */
  #keptHeads = new Set<Hex>();
  /**
   * The chain's first block with state (the genesis; a fork's block; a loaded dump's head): kept
   * by every pruning pass, as geth's pruner keeps the genesis state (core/state/pruner), so that
   * `earliest` and block 0 stay readable while the recent blocks are. Undefined once `blockHistory`
   * dropped it (a loaded dump's head is not the store's first block).
   */
  #first: bigint | undefined = 0n;
  /** The head's number at the last pruning pass. */
  #prunedAt = 0n;
  /**
   * Blocks from here on have their state stored: the window's first block at the last pruning pass,
   * or a later revert's head if lower (everything sealed after it is new).
   */
  #storedFrom = 0n;
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
    this.#storedFrom = from;
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
    const { number } = sealed.block.header;
    return number >= this.#from || number === this.#first || this.#keptHeads.has(sealed.hash);
  }

  /** Runs `read` on a view at `block`'s state root; `transient`: a snapshot of the live state (stateViews.ts). */
  read<T>(block: Block, read: (vm: VM) => Promise<T>, transient = false): Promise<T> {
    return this.#views.run(block, read, transient);
  }

  /**
   * The chain went back to `head` (evm_revert): the window is again the newest `stateHistory`
   * blocks up to it, as far as their states are still stored (from the last pass's window on, and
   * not below `oldestBlock`, the oldest block `blockHistory` kept); it always holds `head`. The
   * heads of the snapshots the revert used up are kept no more; `kept` holds those still live.
   */
  rewind(head: SealedBlock, oldestBlock: bigint, kept: KeptStates): void {
    const headNumber = head.block.header.number;
    // Every block sealed from here on is new, and the head's state is kept (a live snapshot's head
    // at each pass): the states from the head on are stored.
    if (this.#storedFrom > headNumber) this.#storedFrom = headNumber;
    if (this.#stateHistory !== undefined) {
      let from = windowStartAt(headNumber, this.#stateHistory);
      if (from < this.#storedFrom) from = this.#storedFrom;
      if (from < oldestBlock) from = oldestBlock;
      if (from < this.#from) this.#from = from;
    }
    const liveHeads = new Set<Hex>();
    for (const { head: snapshotHead } of kept.values()) if (snapshotHead !== undefined) liveHeads.add(snapshotHead.hash);
    for (const hash of this.#keptHeads) if (!liveHeads.has(hash)) this.#keptHeads.delete(hash);
    // A block mined again may get the same hash (a fake clock): the edits of the one cut are not its.
    for (const [hash, { number }] of this.#edited) if (number > headNumber) this.#edited.delete(hash);
    if (this.#prunedAt > headNumber) this.#prunedAt = headNumber;
  }

  /**
   * After a seal: the window of blocks with state moves to the newest `stateHistory` (reads of the
   * blocks that left it answer historicalStateUnavailable from now on, unless a live snapshot's head
   * or the first block), and every `passInterval` seals a pass deletes the trie nodes no kept state
   * reaches (prune.ts). Runs in the writer queue right after the seal: `liveRoot` is the flushed
   * live state. A read already in flight keeps its view's root.
   */
  afterSeal(head: SealedBlock, liveRoot: Uint8Array, live: VM, byNumber: (number: bigint) => SealedBlock | undefined, kept: KeptStates): void {
    const history = this.#stateHistory;
    if (history === undefined) return;
    const headNumber = head.block.header.number;
    const from = windowStartAt(headNumber, history);
    if (from > this.#from) {
      // Looked up by number, not block by block: hardhat_mine moves the window by any number of blocks at once.
      for (const snapshotHead of kept.headsIn(this.#from, from)) this.#keptHeads.add(snapshotHead.hash);
      this.#from = from;
    }
    if (headNumber - this.#prunedAt < passInterval(history)) return;
    this.#prunedAt = headNumber;
    const { store, depth, openRoots } = triesOf(live.stateManager);
    if (store === undefined || depth > 0) return;

    // The window's first block: `from`, or later on a chain younger than the window or loaded from a dump.
    const windowStart = this.#from;
    const roots: Uint8Array[] = [liveRoot];
    for (let number = windowStart; number <= headNumber; number++) roots.push(byNumber(number)!.block.header.stateRoot);
    for (const { number, root } of this.#edited.values()) if (number >= windowStart) roots.push(root);
    const keptHeads = new Set<Hex>();
    const keep = (sealed: SealedBlock | undefined) => {
      if (sealed === undefined || !this.hasState(sealed)) return;
      roots.push(sealed.block.header.stateRoot);
      const edited = this.editedRootOf(sealed);
      if (edited !== undefined) roots.push(edited);
      const { number } = sealed.block.header;
      if (number < windowStart && number !== this.#first) keptHeads.add(sealed.hash);
    };
    const first = this.#first === undefined ? undefined : byNumber(this.#first);
    // A loaded dump's head may be dropped later (`blockHistory`): its state goes with it.
    if (first === undefined) this.#first = undefined;
    keep(first);
    for (const snap of kept.values()) {
      roots.push(snap.stateRoot);
      if (snap.headEditedRoot !== undefined) roots.push(snap.headEditedRoot);
      keep(snap.head);
    }
    this.#views.dropBelow(windowStart);
    roots.push(...this.#views.roots());
    pruneStore(store, roots, openRoots);
    this.#storedFrom = windowStart;
    this.#keptHeads = keptHeads;
    for (const [hash, { number }] of this.#edited) if (number < windowStart && !keptHeads.has(hash)) this.#edited.delete(hash);
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
