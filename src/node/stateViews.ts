/**
 * Read-only views of sealed blocks' states: a VM whose state manager sits at the block's state
 * root. The trie database is shared with the live state, so a view costs a shallow copy, made on
 * first use and kept for the few most recent blocks; past those, the least recently used idle view's
 * VM is pointed at the new block's root instead of copying another. Each view runs one read at a time, because
 * dry runs checkpoint and revert its journal. Pruning (prune.ts) keeps the roots of every cached
 * view and of every read still in flight (`roots`).
 *
 * Storage reads of views skip the trie when they can. A dry run reads inside a journal checkpoint
 * that is always reverted, and @ethereumjs/statemanager 10.1.3 drops what was read in it (the
 * cached slot, and the account's storage trie object, rebuilt per call with a debug logger and a
 * path walk). A slot's value under a storage root never changes, so the views share a memo from
 * (storage root, slot) to the slot's RLP; it is only consulted where the package would read the
 * trie (after its own cache, for an existing account), so writes inside a call still win
 * (the patch is memoiseStorage in src/node/ethereumjs/stateManager.ts).
 */
import { bytesToHex } from "@ethereumjs/util";

import { SerialQueue } from "./serialQueue.ts";
import { memoiseStorage, writeStorageToCacheOnly } from "./ethereumjs/stateManager.ts";

import type { Block } from "@ethereumjs/block";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import type { VM } from "@ethereumjs/vm";

const MAX_VIEWS = 8;
/** Slots the storage memo holds before it starts over (~100 bytes each). */
const MAX_MEMO_SLOTS = 100_000;

interface View {
  block: Block;
  vm: Promise<VM>;
  queue: SerialQueue;
  /** Reads queued or running on this view. */
  reads: number;
}

export class StateViews {
  readonly #live: VM;
  /** Insertion-ordered, so the first key is the least recently used. */
  readonly #views = new Map<string, View>();
  /** Views evicted from the cache while reads were still queued on them. */
  readonly #busy = new Set<View>();
  /** (storage root, slot) → the slot's RLP, shared by every view (see the module comment). */
  readonly #slots = new Map<string, Uint8Array>();

  constructor(live: VM) {
    this.#live = live;
  }

  run<T>(block: Block, read: (vm: VM) => Promise<T>): Promise<T> {
    const view = this.#view(block);
    view.reads++;
    return view.queue
      .run(async () => read(await view.vm))
      .finally(() => {
        view.reads--;
        if (view.reads === 0) this.#busy.delete(view);
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
  }

  #view(block: Block): View {
    const key = bytesToHex(block.header.stateRoot) + block.header.number.toString(16);
    let view = this.#views.get(key);
    if (view !== undefined) {
      this.#views.delete(key);
    } else {
      let vm: Promise<VM> | undefined;
      if (this.#views.size >= MAX_VIEWS) {
        const [oldestKey, oldest] = this.#views.entries().next().value!;
        this.#evict(oldestKey, oldest);
        // An idle view's VM moves to the new block: a copy of the VM costs ~1 ms (a new EVM and
        // its opcode table), pointing a state manager at another root costs a trie lookup.
        if (oldest.reads === 0) vm = this.#retarget(oldest.vm, block);
      }
      view = { block, vm: vm ?? this.#createVm(block), queue: new SerialQueue(), reads: 0 };
    }
    this.#views.set(key, view);
    return view;
  }

  /** `previous` (an idle view's VM) at `block`'s state, or a new copy when the live VM's hardfork has moved on since. */
  async #retarget(previous: Promise<VM>, block: Block): Promise<VM> {
    const vm = await previous.catch(() => undefined);
    if (vm === undefined || vm.common.hardfork() !== this.#live.common.hardfork()) return this.#createVm(block);
    // Clears the caches too: nothing read at the old root survives (the slot memo is keyed by storage root).
    await vm.stateManager.setStateRoot(block.header.stateRoot);
    return vm;
  }

  async #createVm(block: Block): Promise<VM> {
    const vm = await this.#live.shallowCopy(false);
    await vm.stateManager.setStateRoot(block.header.stateRoot);
    // A copy is a plain MerkleStateManager: SSTOREs of dry runs go to its cache only, as the live state's do.
    writeStorageToCacheOnly(vm.stateManager as MerkleStateManager);
    memoiseStorage(vm.stateManager as MerkleStateManager, this.#slots, MAX_MEMO_SLOTS);
    return vm;
  }
}
