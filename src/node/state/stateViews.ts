/**
 * Read-only views of sealed blocks' states: a VM whose state manager sits at the block's state
 * root. The trie database is shared with the live state, so a view costs a shallow copy, made on
 * first use and kept for the few most recent blocks. A VM runs one read at a time, because dry
 * runs checkpoint and revert its journal; a view has up to MAX_LANES of them, so that one heavy
 * call (up to its time budget) does not hold up other clients' reads of the same block, as geth
 * runs each call on its own. Pruning (prune.ts) keeps the roots of every cached view and of every
 * read still in flight (`roots`).
 *
 * Snapshots of the live (pre-confirmed) state are views too (`transient`): the chain takes the live
 * state root inside its writer queue and the dry run reads it here, so fragments never wait for a
 * call. The live root moves with every fragment, so a VM is not copied again for each one: the VMs
 * of an idle view that leaves the cache (superseded, or the least recently used past MAX_VIEWS) are
 * kept as spares and pointed at the next view's root (`setStateRoot`, a trie lookup, against ~1 ms
 * for a copy: a new EVM and its opcode table).
 *
 * A view of the chain's own state reads through a ViewStateManager (viewState.ts): the block's
 * tries under an overlay of plain objects that its dry runs write into and revert, with what the
 * tries answered remembered by root in memos every view shares (a value under a root never
 * changes), and, where those have nothing, in the live state's own memos, which hold the block just
 * sealed as it was written. A view of a forked chain's state is a copy of the live
 * ForkStateManager, which reads what it lacks from upstream.
 */
import { flatHex } from "../common/hex.ts";
import { SerialQueue } from "../common/serialQueue.ts";
import { hardforkAt } from "../ethereumjs/hardforkAt.ts";
import { merkleInternals } from "../ethereumjs/internals.ts";
import { initEvmFields } from "../ethereumjs/evmFields.ts";
import { copyVmOver } from "../ethereumjs/vmCopy.ts";
import { isLiveState } from "./liveState.ts";
import { ViewMemos, ViewStateManager } from "./viewState.ts";

import type { Block } from "@ethereumjs/block";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import type { VM } from "@ethereumjs/vm";

const MAX_VIEWS = 8;
/** Accounts and slots each of the views' memos holds before it starts over (~200 bytes each). */
const MAX_MEMO_ENTRIES = 100_000;
/** Bytes of contracts' code the views' memo holds before it starts over. */
const MAX_MEMO_CODE_BYTES = 32 * 1024 * 1024;

/** VMs copied from the live one, and spares pointed at another root instead: counts for the tests, never reset (they compare before and after). */
export const stateViewsStats = { copied: 0, moved: 0 };

/** One VM of a view and the reads queued on it. */
interface Lane {
  vm: Promise<VM>;
  /** The VM once made (or moved): an idle view's VMs are then spares at once (`#spare`). */
  ready: VM | undefined;
  queue: SerialQueue;
  reads: number;
}

interface View {
  block: Block;
  lanes: Lane[];
  /** Reads queued or running on this view, all lanes together. */
  reads: number;
  /** A snapshot of the live state: superseded by the next one. */
  transient: boolean;
}

/** VMs per view: concurrent reads of one block beyond this queue behind the least busy. */
const MAX_LANES = 4;
/** Idle VMs kept for reuse; more than this are let go. */
const MAX_SPARES = 4;

export class StateViews {
  readonly #live: VM;
  /** Insertion-ordered, so the first key is the least recently used. */
  readonly #views = new Map<string, View>();
  /** Views evicted from the cache while reads were still queued on them. */
  readonly #busy = new Set<View>();
  /** Base-state reads by root, shared by every view (see the module comment). */
  readonly #memos = new ViewMemos(MAX_MEMO_ENTRIES, MAX_MEMO_CODE_BYTES);
  /** VMs of views no longer cached nor read, at no particular root (see the module comment). */
  readonly #spares: VM[] = [];

  constructor(live: VM) {
    this.#live = live;
  }

  /**
   * Runs `read` on a view at `block`'s state root. `transient`: `block` is a snapshot of the live
   * state (only its state root and number are read), and replaces the snapshots before it. The
   * view is registered before this returns, so its root is kept from pruning from then on.
   */
  run<T>(block: Block, read: (vm: VM) => Promise<T>, transient = false): Promise<T> {
    const view = this.#view(block, transient);
    const lane = this.#laneOf(view);
    view.reads++;
    lane.reads++;
    return lane.queue
      .run(async () => read(await lane.vm))
      .finally(() => {
        lane.reads--;
        view.reads--;
        if (view.reads > 0) return;
        if (this.#busy.delete(view)) this.#spare(view);
      });
  }

  /** State roots that views may still read: cached views and reads in flight. */
  roots(): Uint8Array[] {
    return [...this.#views.values(), ...this.#busy].map((view) => view.block.header.stateRoot);
  }

  /** Forgets the cached views of blocks below `number` (reads in flight finish on their view). */
  dropBelow(number: bigint): void {
    for (const [key, view] of [...this.#views]) {
      if (view.block.header.number < number) this.#evict(key, view);
    }
  }

  #evict(key: string, view: View): void {
    this.#views.delete(key);
    if (view.reads > 0) this.#busy.add(view);
    else this.#spare(view);
  }

  /**
   * Keeps the VMs of an idle view that left the cache for the next views, at once: the view that
   * evicted this one (a new snapshot of the live state supersedes the last) takes one in the same
   * call, where a spare handed back a microtask later would have made it copy the live VM again.
   * Every lane of an idle view has run a read, which waited for its VM: `ready` is set unless the
   * VM could not be made.
   */
  #spare(view: View): void {
    for (const lane of view.lanes) {
      if (lane.ready !== undefined && this.#spares.length < MAX_SPARES) this.#spares.push(lane.ready);
    }
  }

  /** An idle lane of the view, a new one while there are fewer than MAX_LANES, or the least busy. */
  #laneOf(view: View): Lane {
    const idle = view.lanes.find((lane) => lane.reads === 0);
    if (idle !== undefined) return idle;
    if (view.lanes.length < MAX_LANES) {
      const spare = this.#spares.pop();
      const vm = spare === undefined ? this.#createVm(view.block) : this.#moveTo(spare, view.block);
      const lane: Lane = { vm, ready: undefined, queue: new SerialQueue(), reads: 0 };
      vm.then(
        (made) => {
          lane.ready = made;
        },
        () => undefined,
      );
      view.lanes.push(lane);
      return lane;
    }
    return view.lanes.reduce((least, lane) => (lane.reads < least.reads ? lane : least));
  }

  #view(block: Block, transient: boolean): View {
    const key = flatHex(block.header.stateRoot) + block.header.number.toString(16);
    let view = this.#views.get(key);
    if (view !== undefined) {
      this.#views.delete(key);
    } else {
      // A new snapshot supersedes the cached ones: the live state has moved on from them.
      if (transient) for (const [oldKey, old] of [...this.#views]) if (old.transient) this.#evict(oldKey, old);
      view = { block, lanes: [], reads: 0, transient };
      if (this.#views.size >= MAX_VIEWS) {
        const [oldestKey, oldest] = this.#views.entries().next().value!;
        this.#evict(oldestKey, oldest);
      }
    }
    this.#views.set(key, view);
    return view;
  }

  /**
   * An idle view's VM at another root (the memos stay valid), or a new copy when the live VM's
   * hardfork has moved on since it was made. A ViewStateManager drops its overlay as it moves. A
   * fork's state manager has its caches emptied first, their pending entries handed back and
   * dropped (each cache's flush() writes nothing): setStateRoot would write them into the trie at
   * the old root, whose nodes pruning may have deleted, and clear() alone leaves entries behind
   * that the next flush cannot find (@ethereumjs/statemanager 10.1.3).
   */
  async #moveTo(vm: VM, block: Block): Promise<VM> {
    if (vm.common.hardfork() !== this.#hardforkOf(block)) return this.#createVm(block);
    stateViewsStats.moved++;
    if (!(vm.stateManager instanceof ViewStateManager)) {
      const caches = merkleInternals(vm.stateManager as MerkleStateManager)._caches as
        | Record<"account" | "storage" | "code", { flush(): unknown } | undefined>
        | undefined;
      caches?.account?.flush();
      caches?.storage?.flush();
      caches?.code?.flush();
      vm.stateManager.clearCaches();
    }
    await vm.stateManager.setStateRoot(block.header.stateRoot);
    return vm;
  }

  /**
   * The fork a block ran under (a fork scheduled after the genesis: docs/profiles.md): a view of an
   * older block runs its calls under that block's rules. A view of a root without a block (a
   * snapshot of the live state) is the live VM's.
   */
  #hardforkOf(block: Block): string {
    const { number, timestamp } = block.header;
    return timestamp === undefined ? this.#live.common.hardfork() : hardforkAt(this.#live.common, number, timestamp);
  }

  /**
   * A copy of the live VM (the newest fork: everything an older one needs is initialised) at
   * `block`'s root and fork: over a ViewStateManager for the chain's own state, a copy of the
   * live state manager for a fork's.
   */
  async #createVm(block: Block): Promise<VM> {
    stateViewsStats.copied++;
    const live = this.#live.stateManager;
    const vm = isLiveState(live)
      ? await copyVmOver(
          this.#live,
          new ViewStateManager({ common: live.common, trie: live.baseTries(), root: block.header.stateRoot, memos: this.#memos, readThrough: live.memos }),
        )
      : await this.#live.shallowCopy(false);
    // The live EVM's fields, in its order: one hidden class for every EVM (evmFields.ts).
    initEvmFields(vm.evm);
    const hardfork = this.#hardforkOf(block);
    if (vm.common.hardfork() !== hardfork) vm.common.setHardfork(hardfork);
    if (!(vm.stateManager instanceof ViewStateManager)) await vm.stateManager.setStateRoot(block.header.stateRoot);
    return vm;
  }
}
