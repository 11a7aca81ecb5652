/**
 * Read-only views of sealed blocks' states: a VM whose state manager sits at the block's state
 * root. The trie database is shared with the live state (nodes are never pruned), so a view costs
 * a shallow copy, made on first use and kept for the few most recent blocks. Each view runs one
 * read at a time, because dry runs checkpoint and revert its journal.
 */
import { bytesToHex } from "@ethereumjs/util";

import { SerialQueue } from "./serialQueue.ts";

import type { Block } from "@ethereumjs/block";
import type { VM } from "@ethereumjs/vm";

const MAX_VIEWS = 8;

interface View {
  vm: Promise<VM>;
  queue: SerialQueue;
}

export class StateViews {
  readonly #live: VM;
  /** Insertion-ordered, so the first key is the least recently used. */
  readonly #views = new Map<string, View>();

  constructor(live: VM) {
    this.#live = live;
  }

  run<T>(block: Block, read: (vm: VM) => Promise<T>): Promise<T> {
    const view = this.#view(block);
    return view.queue.run(async () => read(await view.vm));
  }

  #view(block: Block): View {
    const key = bytesToHex(block.header.stateRoot) + block.header.number.toString(16);
    let view = this.#views.get(key);
    if (view !== undefined) {
      this.#views.delete(key);
    } else {
      view = { vm: this.#createVm(block), queue: new SerialQueue() };
      if (this.#views.size >= MAX_VIEWS) this.#views.delete(this.#views.keys().next().value!);
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
