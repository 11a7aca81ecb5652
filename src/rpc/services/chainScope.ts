/**
 * The RPC layer's own state of one chain, in one object that the chain's context holds: the
 * instance id clients see, the memoised sizes of sealed blocks, and the sends waiting per sender.
 * What a reset ends lives in an `Era`: `reset()` (hardhat_reset) replaces it, so nothing of the
 * chain before the reset survives and no reset has to remember which map to clear.
 */
import { bytesToHex } from "@ethereumjs/util";

import { SerialQueue } from "../../node/common/serialQueue.ts";

import type { SealedBlock } from "../../node/chain/records.ts";
import type { Hex } from "../schema.ts";

/** What one chain's history is known by until it is reset. */
class Era {
  /** hardhat_metadata's instanceId: one random id, so a client can tell a restarted node from the one it knew. */
  instanceId: Hex | undefined;
  /** A block's serialized size (its `size` field), computed once: sealed blocks never change. */
  readonly blockSizes = new WeakMap<SealedBlock, number>();
}

interface SenderQueue {
  queue: SerialQueue;
  waiting: number;
}

export class ChainScope {
  #era = new Era();
  /**
   * Sends in flight that fill in their nonce, per sender (lowercase). Not part of an era: a send
   * queued before a reset still runs before the sender's next one, on the chain as it then is.
   */
  readonly #senders = new Map<string, SenderQueue>();

  get instanceId(): Hex {
    this.#era.instanceId ??= bytesToHex(crypto.getRandomValues(new Uint8Array(32)));
    return this.#era.instanceId;
  }

  blockSize(sealed: SealedBlock): number {
    const sizes = this.#era.blockSizes;
    let size = sizes.get(sealed);
    if (size === undefined) {
      size = sealed.block.serialize().length;
      sizes.set(sealed, size);
    }
    return size;
  }

  /** Runs `task` after the sender's earlier tasks (one at a time per sender). */
  async serialPerSender<T>(sender: string, task: () => Promise<T>): Promise<T> {
    const key = sender.toLowerCase();
    let entry = this.#senders.get(key);
    if (entry === undefined) this.#senders.set(key, (entry = { queue: new SerialQueue(), waiting: 0 }));
    entry.waiting++;
    try {
      return await entry.queue.run(task);
    } finally {
      // The map holds only senders with sends in flight.
      if (--entry.waiting === 0) this.#senders.delete(key);
    }
  }

  /** A new node as far as clients can tell (Hardhat changes instanceId on hardhat_reset). */
  reset(): void {
    this.#era = new Era();
  }
}
