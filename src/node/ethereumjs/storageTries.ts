/**
 * Patch (@ethereumjs/statemanager 10.1.3, `_getStorageTrie` in merkleStateManager.js): the state
 * manager keeps an account's storage-trie object in `_storageTries` (keyed by the unprefixed hex of
 * keccak(address)) and empties that map on every `revert` and `setStateRoot`. Each account's next
 * storage read or flushed write after that builds a new object: `shallowCopy` of the account trie,
 * whose constructor makes a `debug('mpt:#')` logger (debug 4.x asks `isatty` of stderr, a native
 * call, for each) and a CheckpointDB. A snapshot revert (every test's `evm_revert`, hardhat's
 * `loadFixture`) empties the map, so each test rebuilt a trie for the token and for every system
 * contract the block's system calls write (EIP-2935, EIP-4788), and every lookup hashed the
 * address again.
 *
 * Here a trie object dropped from the map is kept as a spare for its account and, when the account
 * is next asked for, re-pointed at the root the package would build a new one at (the account's
 * storage root, or the empty root without one) with no checkpoints: what the object holds besides
 * is the account trie's options and a copy of its database handle on the one node map every copy
 * shares (internals.ts, `nodeStoreOf`), the same for a fresh copy; a spare is reused only while
 * the account trie's database is still the one it was copied from. Storage tries are never
 * checkpointed themselves (the package writes them at `flush`, outside checkpoints, and drops them
 * on revert), so a root and no checkpoints is all that differs between two copies. Keccak of an
 * address is memoised (`MAX_ENTRIES` addresses, dropped all at once when full; a hash never changes).
 *
 * The roots the tests pin (test/plainState.test.ts, test/snapshot*.test.ts, test/prune*.ts, ...)
 * check the result; test/engineInternals.test.ts fails if 10.1.3's members used here change and
 * counts the trie copies a snapshot revert no longer makes.
 */
import { bytesToUnprefixedHex } from "@ethereumjs/util";

import { isPlainMerkleStateManager, merkleInternals } from "./internals.ts";

import type { MerkleStateManager } from "@ethereumjs/statemanager";
import type { Address } from "@ethereumjs/util";
import type { MerkleInternals } from "./internals.ts";

type StorageTrie = ReturnType<MerkleInternals["_getStorageTrie"]>;

/**
 * Default bound of each memo here (spare tries, address hashes), per state manager: a trie object
 * holds ~2.1 KB (measured: 4,096 `shallowCopy`s, heap after gc), so ~9 MB at most for the live
 * state. State views pass a smaller one (stateViews.ts): up to 36 view VMs each keep their own.
 */
export const MAX_ENTRIES = 4096;

/** What a spare holds: the trie, and the account trie's database it was copied from. */
interface Spare {
  trie: StorageTrie;
  db: unknown;
}

/** How many storage tries a state manager built and reused, and how many spares it holds (tests read it). */
export interface StorageTrieCounts {
  built: number;
  reused: number;
  spares: number;
}

const countsOf = new WeakMap<MerkleStateManager, StorageTrieCounts>();

/** The counts of `stateManager`'s storage tries, if reuseStorageTries patched it. */
export const storageTrieCounts = (stateManager: MerkleStateManager): StorageTrieCounts | undefined => countsOf.get(stateManager);

/** Applies the patch to a plain MerkleStateManager (a fork's subclass keeps the package's); `maxEntries` bounds each memo. */
export function reuseStorageTries(stateManager: MerkleStateManager, maxEntries = MAX_ENTRIES): void {
  const internals = merkleInternals(stateManager);
  if (!isPlainMerkleStateManager(stateManager) || typeof internals._getStorageTrie !== "function") return;
  const spares = new Map<string, Spare>();
  const hashes = new Map<string, { bytes: Uint8Array; hex: string }>();
  const counts: StorageTrieCounts = { built: 0, reused: 0, spares: 0 };
  countsOf.set(stateManager, counts);
  const hashOf = (address: Address) => {
    const key = Buffer.from(address.bytes.buffer, address.bytes.byteOffset, address.bytes.byteLength).toString("latin1");
    let hash = hashes.get(key);
    if (hash === undefined) {
      const bytes = internals.keccakFunction(address.bytes);
      hash = { bytes, hex: bytesToUnprefixedHex(bytes) };
      if (hashes.size >= maxEntries) hashes.clear();
      hashes.set(key, hash);
    }
    return hash;
  };
  internals._getStorageTrie = (addressOrHash: Address | Uint8Array, rootAccount?: { storageRoot: Uint8Array }) => {
    let hashBytes: Uint8Array;
    let hashHex: string;
    if (addressOrHash instanceof Uint8Array) {
      hashBytes = addressOrHash;
      hashHex = bytesToUnprefixedHex(addressOrHash);
    } else {
      ({ bytes: hashBytes, hex: hashHex } = hashOf(addressOrHash));
    }
    let trie = internals._storageTries[hashHex] as StorageTrie | undefined;
    if (trie !== undefined) return trie;
    const db = internals._trie.database().db;
    const spare = spares.get(hashHex);
    if (spare !== undefined && spare.db === db) {
      trie = spare.trie;
      counts.reused++;
    } else {
      const keyPrefix = internals._prefixStorageTrieKeys ? hashBytes.slice(0, 7) : undefined;
      trie = internals._trie.shallowCopy(false, { keyPrefix });
      if (spares.size >= maxEntries) spares.clear();
      spares.set(hashHex, { trie, db });
      counts.spares = spares.size;
      counts.built++;
    }
    trie.root(rootAccount !== undefined ? rootAccount.storageRoot : trie.EMPTY_TRIE_ROOT);
    trie.flushCheckpoints();
    internals._storageTries[hashHex] = trie;
    return trie;
  };
}
