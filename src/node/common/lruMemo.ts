/**
 * A memo bounded in entries and in a weight of its own (bytes, say), forgetting the least recently
 * used entry first: a Map keeps insertion order, and a hit is moved to the end.
 */
export class LruMemo<K, V> {
  readonly #entries = new Map<K, { value: V; weight: number }>();
  #weight = 0;

  /** `maxEntries` entries at most, whose weights add up to `maxWeight` at most. */
  constructor(
    readonly maxEntries: number,
    readonly maxWeight = Number.POSITIVE_INFINITY,
  ) {}

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Remembers `value`; an entry heavier than the whole bound is not kept. */
  set(key: K, value: V, weight = 0): void {
    this.delete(key);
    if (weight > this.maxWeight || this.maxEntries <= 0) return;
    this.#entries.set(key, { value, weight });
    this.#weight += weight;
    for (const [oldest, entry] of this.#entries) {
      if (this.#entries.size <= this.maxEntries && this.#weight <= this.maxWeight) break;
      this.#entries.delete(oldest);
      this.#weight -= entry.weight;
    }
  }

  delete(key: K): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#weight -= entry.weight;
  }

  clear(): void {
    this.#entries.clear();
    this.#weight = 0;
  }
}
