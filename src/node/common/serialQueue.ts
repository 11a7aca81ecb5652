/**
 * Runs async tasks one at a time, in submission order. Every state change of the chain goes
 * through one queue so that admission, fragments, seals and dry runs on the pending state never
 * interleave their awaits.
 */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T> | T): Promise<T> {
    const result = this.#tail.then(() => task());
    this.#tail = result.catch(() => undefined);
    return result;
  }

  /** Resolves once every task submitted so far has finished. */
  async idle(): Promise<void> {
    await this.#tail;
  }
}
