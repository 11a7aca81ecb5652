/**
 * Read-only views of sealed blocks' states: a VM whose state manager sits at the block's state
 * root. The trie database is shared with the live state, so a view costs a shallow copy, made on
 * first use and kept for the few most recent blocks. Each view runs one read at a time, because
 * dry runs checkpoint and revert its journal. Pruning (prune.ts) keeps the roots of every cached
 * view and of every read still in flight (`roots`).
 */
import { bytesToHex } from "@ethereumjs/util";

import { SerialQueue } from "./serialQueue.ts";

import type { Block } from "@ethereumjs/block";
import type { VM } from "@ethereumjs/vm";

const MAX_VIEWS = 8;

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

  constructor(live: VM) {
    this.#live = live;
  }

  run<T>(block: Block, read: (vm: VM) => Promise<T>): Promise<T> {
    const view = this.#view(block);
    view.reads++;
    return view.queue.run(async () => read(await view.vm)).finally(() => {
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
      view = { block, vm: this.#createVm(block), queue: new SerialQueue(), reads: 0 };
      if (this.#views.size >= MAX_VIEWS) {
        const [oldestKey, oldest] = this.#views.entries().next().value!;
        this.#evict(oldestKey, oldest);
      }
    }
    this.#views.set(key, view);
    return view;
  }

  async #createVm(block: Block): Promise<VM> {
    const vm = await this.#live.shallowCopy(false);
    await vm.stateManager.setStateRoot(block.header.stateRoot);
    return vm;
  }
}
