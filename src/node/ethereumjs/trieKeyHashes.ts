/**
 * Patch (@ethereumjs/mpt 10.1.3, `MerklePatriciaTrie.prototype.appliedKey` in mpt.js): a trie with
 * `useKeyHashing` (the state's account trie and every storage trie) hashes the key at every `get`,
 * `put` and `del`, so one slot read in a tx and written at its flush is hashed twice, and the same
 * accounts (sender, fee recipient, system contracts) are hashed again in every block. Each was a
 * call into the keccak addon (~2 % of a test file's CPU, W5); with keccak in WebAssembly (common/keccak.ts) a memo hit
 * is still ~0.2 µs against ~0.6 for a hash and its copy. A key's hash never changes, so the
 * account trie's keys (addresses, 20 bytes) are memoised: per hashing function (a trie's
 * `useKeyHashingFunction`; its copies share it), keyed by the key's bytes, at most `MAX_KEYS` keys
 * per function, dropped all at once when full. Each caller gets a copy of its own, as the
 * package's `hash` (`Uint8Array.from`) gives a new array. Storage slots (32 bytes) are hashed as
 * the package hashes them: a workload writing many distinct slots (1,000 ERC-20 transfers, W2)
 * mostly misses, and a miss (the memo's key string, its entry, the copy) cost more than the hash
 * saved: memoising every key made W2 ~8 % slower, addresses alone left it unchanged and kept W5's
 * gain (`npx tsx bench/ab.ts`, alternating fresh processes, 6 pairs).
 *
 * The state roots the tests pin check it; test/engineInternals.test.ts compares it with the
 * package's on tries of both kinds and counts the hashes it saves, and fails if 10.1.3's
 * `appliedKey`, `hash` or `_opts` change.
 */
import { MerklePatriciaTrie } from "@ethereumjs/mpt";

/** Bound of the memo, per hashing function: ~270 bytes of heap a key (measured: 16,383 keys, heap after gc), ~4.5 MB at most. */
export const MAX_KEYS = 16384;

type HashFunction = (bytes: Uint8Array) => Uint8Array;

interface Internal {
  _opts: { useKeyHashing: boolean; useKeyHashingFunction: HashFunction };
  hash(bytes: Uint8Array): Uint8Array;
  appliedKey(key: Uint8Array): Uint8Array;
}

const ORIGINAL = Symbol.for("hardhat-preconf.trieKeyHashes.original");

const memos = new WeakMap<HashFunction, Map<string, Uint8Array>>();

/** Addresses hashed, addresses answered from the memo, and other keys hashed directly, since the process started (tests read it). */
export const trieKeyHashCounts = { hashed: 0, memoised: 0, direct: 0 };

/** The length of the keys memoised: the account trie's (addresses). */
const ADDRESS_LENGTH = 20;

/** The package's own `appliedKey`, for the test that compares the two. */
export function originalAppliedKey(): (key: Uint8Array) => Uint8Array {
  const proto = MerklePatriciaTrie.prototype as unknown as Internal & { [ORIGINAL]?: Internal["appliedKey"] };
  return proto[ORIGINAL] ?? proto.appliedKey;
}

/** Installs the memo once per process. */
export function installTrieKeyHashes(): void {
  const proto = MerklePatriciaTrie.prototype as unknown as Internal & { [ORIGINAL]?: Internal["appliedKey"] };
  if (proto[ORIGINAL] !== undefined) return;
  if (typeof proto.appliedKey !== "function" || typeof proto.hash !== "function") {
    throw new Error("@ethereumjs/mpt: appliedKey or hash changed; update src/node/ethereumjs/trieKeyHashes.ts");
  }
  proto[ORIGINAL] = proto.appliedKey;
  proto.appliedKey = function (this: Internal, key: Uint8Array): Uint8Array {
    if (!this._opts.useKeyHashing) return key;
    if (key.length !== ADDRESS_LENGTH) {
      trieKeyHashCounts.direct++;
      return this.hash(key);
    }
    const hashFunction = this._opts.useKeyHashingFunction;
    let memo = memos.get(hashFunction);
    if (memo === undefined) memos.set(hashFunction, (memo = new Map()));
    const memoKey = Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString("latin1");
    let hashed = memo.get(memoKey);
    if (hashed === undefined) {
      hashed = this.hash(key);
      if (memo.size >= MAX_KEYS) memo.clear();
      memo.set(memoKey, hashed);
      trieKeyHashCounts.hashed++;
    } else {
      trieKeyHashCounts.memoised++;
    }
    return hashed.slice();
  };
}
