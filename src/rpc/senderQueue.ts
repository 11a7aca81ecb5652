/**
 * eth_sendTransaction fills the nonce in (the sender's pending nonce), then awaits the gas
 * estimate before the tx reaches admission. Two un-awaited sends from one account would both read
 * the same nonce, and the second would fail `nonce too low`. Sends that fill in a nonce therefore
 * run one at a time per sender, from the read of the nonce to the end of admission; other senders
 * and sends with an explicit nonce are not held up.
 */
import { SerialQueue } from "../node/serialQueue.ts";

import type { Chain } from "../node/chain.ts";

interface SenderQueue {
  queue: SerialQueue;
  waiting: number;
}

const queues = new WeakMap<Chain, Map<string, SenderQueue>>();

export async function serialPerSender<T>(chain: Chain, sender: string, task: () => Promise<T>): Promise<T> {
  let bySender = queues.get(chain);
  if (bySender === undefined) queues.set(chain, (bySender = new Map()));
  const key = sender.toLowerCase();
  let entry = bySender.get(key);
  if (entry === undefined) bySender.set(key, (entry = { queue: new SerialQueue(), waiting: 0 }));
  entry.waiting++;
  try {
    return await entry.queue.run(task);
  } finally {
    // The map holds only senders with sends in flight.
    if (--entry.waiting === 0) bySender.delete(key);
  }
}
