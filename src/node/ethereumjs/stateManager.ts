/**
 * The state manager of a chain (live state and loaded dumps), and the patches of
 * @ethereumjs/statemanager 10.1.3 it carries. Each patch is checked by test/engineInternals.test.ts
 * or test/ethereumjs.test.ts, which fail if an upgrade changes what it relies on.
 */
import { RLP } from "@ethereumjs/rlp";
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { Account, bytesToUnprefixedHex, createAccountFromRLP, MapDB, unpadBytes, ValueEncoding } from "@ethereumjs/util";
import { Caches, MerkleStateManager } from "@ethereumjs/statemanager";

import { isPlainMerkleStateManager, merkleInternals } from "./internals.ts";
import { reuseStorageTries } from "./storageTries.ts";
import { batchFlush } from "./stateFlush.ts";
import { encodeNode } from "./trieNodeEncoding.ts";

import type { Common } from "@ethereumjs/common";
import type { Address } from "@ethereumjs/util";

export function createStateManager(common: Common): MerkleStateManager {
  const stateManager = new MerkleStateManager({ common, caches: new Caches(), trie: bytesTrie(common) });
  const deleteAccount = stateManager.deleteAccount.bind(stateManager);
  stateManager.deleteAccount = async (address: Address) => {
    await deleteAccount(address);
    dropStorageTrie(stateManager, address);
  };
  writeStorageToCacheOnly(stateManager);
  memoiseAccounts(stateManager);
  reuseStorageTries(stateManager);
  batchFlush(stateManager);
  return stateManager;
}

/**
 * The account trie MerkleStateManager would build (`useKeyHashing`, the chain's keccak), with its
 * nodes kept as bytes. Its default already keeps the account trie's nodes as bytes, but it passes
 * no `valueEncoding` on to `shallowCopy`, whose copies (every storage trie, every state view) get
 * @ethereumjs/mpt 10.1.3's default for a trie given a database: hex strings (mpt.js constructor).
 * Each storage-trie node read then decodes hex and each write encodes it, the larger part of a
 * storage write's cost; with `valueEncoding` in the trie's options, every copy inherits bytes.
 */
export function bytesTrie(common: Common): MerklePatriciaTrie {
  return new MerklePatriciaTrie({ useKeyHashing: true, common, db: new MapDB<string, Uint8Array>(), valueEncoding: ValueEncoding.Bytes });
}

/**
 * Patch (@ethereumjs/statemanager 10.1.3, `deleteAccount`): the package keeps a storage trie per
 * account in `_storageTries` and `deleteAccount` leaves it there, so an account deleted (EIP-161
 * touch, SELFDESTRUCT before Cancun) and created again would read its old storage, and the next
 * state root would include it. Dropping the trie makes the account's storage read from its (empty)
 * storage root again. A fork's state uses it too.
 */
export function dropStorageTrie(stateManager: MerkleStateManager, address: Address): void {
  const internals = merkleInternals(stateManager);
  // Keyed as _getStorageTrie keys it: the unprefixed hex of keccak(address).
  delete internals._storageTries[bytesToUnprefixedHex(internals.keccakFunction(address.bytes))];
}

/**
 * Patch (@ethereumjs/statemanager 10.1.3, `putStorage` and `dumpStorage`): `putStorage` writes
 * every SSTORE twice: `caches.storage.put(...) ?? this._writeContractStorage(...)` runs the trie
 * write too, because `put` returns undefined. That trie write (a storage-trie copy, a path walk,
 * re-hashing, the account's new storage root) is most of an SSTORE's cost, and dry runs pay it only
 * to revert it. With caches, the cache is the write the package means: `flush` (at the outermost
 * commit or revert, and before every state root) writes cached slots to the tries. So the override
 * puts into the cache only, with the same checks. `dumpStorage` reads the trie, so it flushes first
 * when no checkpoint is open (a dev edit can leave slots in the cache until then). Also for copies:
 * `shallowCopy` builds a plain MerkleStateManager (state views apply it to theirs).
 */
export function writeStorageToCacheOnly(stateManager: MerkleStateManager): void {
  const internals = merkleInternals(stateManager);
  const storageCache = internals._caches?.storage;
  // Plain instances only: a subclass (a fork's state) has its own putStorage, which this would replace.
  if (storageCache === undefined || !isPlainMerkleStateManager(stateManager)) return;
  stateManager.putStorage = async (address: Address, key: Uint8Array, value: Uint8Array) => {
    if (key.length !== 32) throw new Error("Storage key must be 32 bytes long");
    if (value.length > 32) throw new Error("Storage value cannot be longer than 32 bytes");
    if ((await stateManager.getAccount(address)) === undefined) throw new Error("putStorage() called on non-existing account");
    storageCache.put(address, key, RLP.encode(unpadBytes(value)));
  };
  const dumpStorage = stateManager.dumpStorage.bind(stateManager);
  stateManager.dumpStorage = async (address: Address) => {
    if (internals._checkpointCount === 0) await stateManager.flush();
    return dumpStorage(address);
  };
}

/**
 * An entry of the account cache written by memoiseAccounts: the account as written, and its RLP
 * (what upstream's entries hold) encoded when first read.
 */
class AccountEntry {
  readonly account: Account;
  #rlp: Uint8Array | undefined;
  constructor(account: Account) {
    this.account = account;
  }
  get accountRLP(): Uint8Array {
    this.#rlp ??= accountRLP(this.account);
    return this.#rlp;
  }
}

/**
 * `account.serialize()` byte for byte (@ethereumjs/util 10.1.3 account.js: `RLP.encode` of nonce
 * and balance as unpadded big-endian bytes, storage root, code hash), in one pass: the package
 * turns each bigint into bytes through a hex string, `hexToBytes` and its regex check, then
 * `RLP.encode` builds an array per item. Every account written is encoded so at each flush (sender,
 * fee recipient, callee, system contracts: ~3 % of W5's CPU in `serialize`). The account's fields
 * are valid (the Account constructor checks them). test/engineInternals.test.ts compares the two.
 */
export function accountRLP(account: Account): Uint8Array {
  return encodeNode([unpaddedBytes(account.nonce), unpaddedBytes(account.balance), account.storageRoot, account.codeHash]);
}

/** A non-negative bigint as big-endian bytes without leading zeros (0: no bytes), as util's `bigIntToUnpaddedBytes`. */
function unpaddedBytes(value: bigint): Uint8Array {
  if (value === 0n) return new Uint8Array(0);
  if (value <= 0xffffffffn) {
    const number = Number(value);
    const length = number > 0xffffff ? 4 : number > 0xffff ? 3 : number > 0xff ? 2 : 1;
    const bytes = new Uint8Array(length);
    for (let i = length - 1, rest = number; i >= 0; i--, rest = Math.floor(rest / 256)) bytes[i] = rest & 0xff;
    return bytes;
  }
  const hex = value.toString(16);
  const bytes = Buffer.from(hex.length % 2 === 0 ? hex : `0${hex}`, "hex");
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
}

/** The accounts decoded from upstream's entries (written before the patch, or partial), by entry. */
const decodedEntries = new WeakMap<object, Account>();

/**
 * Patch (@ethereumjs/statemanager 10.1.3, `getAccount` in merkleStateManager.js and `put` in
 * cache/account.js): the account cache keeps each account as its RLP, encoded on every write and
 * decoded on every read, so a dry run encodes and decodes the sender, the callee and the fee
 * recipient at each step that writes or reads them (a storage read reads the account for its
 * storage root; runTx writes the sender and the fee recipient several times), then reverts it all.
 * An entry of the cache is never changed in place (a write puts a new one, a revert puts the old
 * one back), so a write here puts an entry that holds a copy of the account and encodes its RLP only
 * when something reads it (a flush into the trie), and a read gets a fresh Account from the entry's
 * (callers change the one they get); upstream's entries are decoded once. Writes go through the
 * cache's own bookkeeping (the value before the checkpoint's first write, kept for revert). For
 * the live state (createStateManager: every tx reads the sender, the callee and the fee recipient
 * several times) and state views (stateViews.ts); a cache in LRU mode keeps upstream's writes.
 */
export function memoiseAccounts(stateManager: MerkleStateManager): void {
  const cache = merkleInternals(stateManager)._caches?.account;
  // Not for a subclass (a fork's state reads accounts it lacks from upstream in its own getAccount).
  if (cache === undefined || !isPlainMerkleStateManager(stateManager)) return;
  const getAccount = stateManager.getAccount.bind(stateManager);
  stateManager.getAccount = async (address: Address) => {
    const entry = cache.get(address);
    if (entry === undefined) return getAccount(address);
    let account = entry instanceof AccountEntry ? entry.account : decodedEntries.get(entry);
    if (account === undefined) {
      if (entry.accountRLP === undefined) return undefined;
      account = createAccountFromRLP(entry.accountRLP);
      decodedEntries.set(entry, account);
    }
    return new Account(account.nonce, account.balance, account.storageRoot, account.codeHash);
  };
  const map = cache._orderedMapCache;
  if (map === undefined) return;
  const put = cache.put.bind(cache);
  cache.put = (address: Address, account: Account | undefined, couldBePartialAccount = false) => {
    if (account === undefined || couldBePartialAccount) return put(address, account, couldBePartialAccount);
    const addressHex = bytesToUnprefixedHex(address.bytes);
    cache._saveCachePreState(addressHex);
    map.setElement(addressHex, new AccountEntry(new Account(account.nonce, account.balance, account.storageRoot, account.codeHash)));
    cache._stats.writes += 1;
  };
}
