/**
 * The map behind the live state's MapDB (stateManager.ts `bytesTrie`): every trie node and every
 * contract's code of the chain, keyed as MapDB keys them. It is a Map that can also say which keys
 * were set since it was last asked, so that a pruning pass (state/prune.ts) reads the entries
 * written since the previous pass instead of iterating the whole store: a pass then costs what the
 * blocks since the last one wrote, not the size of the state (a system contract's ring buffer of
 * 8191 slots alone is ~10,000 nodes, docs/profiles.md "Genesis code").
 *
 * Every new key reaches the map through `set`: MapDB's `put` and `batch` (@ethereumjs/util 10.1.3
 * mapDB.js) and the batched trie writes (trieFindPath.ts `writeTrieNodes`, which skips a key the map
 * holds) call it on this very object, which every copy of the state's tries shares (MapDB
 * `shallowCopy`). Nothing is recorded until the first `takeWritten`, so a chain that never prunes
 * keeps no record. The record is a set: a node's key is its content's hash, so the same states
 * written again (dev edits without a seal, blocks mined and reverted before a pass comes due) set
 * the same keys, and the record stays within the keys the store holds (only a pass deletes). A key
 * written again without a `set` needs no record: it is in the record since its first `set`, or a
 * pass has counted its links already.
 */
export class NodeStoreMap extends Map<string, Uint8Array | string> {
  /** Keys set since the last `takeWritten`; undefined before the first. */
  #written: Set<string> | undefined;

  override set(key: string, value: Uint8Array | string): this {
    this.#written?.add(key);
    return super.set(key, value);
  }

  /**
   * The keys set since the last call, in the order first set, some perhaps deleted since; undefined
   * on the first call, when recording starts: every key the map holds is new then.
   */
  takeWritten(): Set<string> | undefined {
    const written = this.#written;
    this.#written = new Set();
    return written;
  }
}
