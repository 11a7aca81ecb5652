import { RLP } from "@ethereumjs/rlp";
import { Account, Address, concatBytes, unprefixedHexToBytes } from "@ethereumjs/util";
import { CODEHASH_PREFIX } from "@ethereumjs/statemanager";

import { isPlainMerkleStateManager, merkleInternals } from "./internals.ts";
import { applyBatch, canBatch } from "./trieBatch.ts";

import type { MerkleStateManager } from "@ethereumjs/statemanager";
import type { MerkleInternals } from "./internals.ts";
import type { BatchOp } from "./trieBatch.ts";

/**
 * Patch (@ethereumjs/statemanager 10.1.3, `flush` in merkleStateManager.js): `flush` writes the
 * caches into the tries one key at a time (`_writeContractStorage` per slot, `put`/`del` per
 * account), each write re-hashing its path up to the root. Here each trie gets its keys as one
 * batch (trieBatch.ts), every changed node hashed once. The same steps in the same order: code
 * first (its account's code hash, through the account cache), then each account's slots (an
 * account that no longer exists is skipped; the new storage root goes to the account cache, and
 * the trie into `_storageTries` under the address's hex as the package also keeps it), then the
 * accounts. A trie with a checkpoint open (a flush inside a tx: only `getStateRoot` and the like
 * flush there) takes the package's path. A slot's storage root goes back to its account once per
 * flush rather than once per slot.
 *
 * test/engineInternals.test.ts fails if the caches' `flush` items or the trie members used change,
 * and compares roots and reads with the package's flush; test/plainState.test.ts runs random txs
 * on the chain's state with and without this flush (and on the plain state) and compares them.
 */
export function batchFlush(stateManager: MerkleStateManager): void {
  const internals = merkleInternals(stateManager);
  const caches = internals._caches as
    | (MerkleInternals["_caches"] & { storage?: FlushingCache<StorageItem>; account?: FlushingCache<AccountItem>; code?: FlushingCache<CodeItem> })
    | undefined;
  const storageCache = caches?.storage;
  const accountCache = caches?.account;
  if (storageCache === undefined || accountCache === undefined || !isPlainMerkleStateManager(stateManager)) return;
  const flush = stateManager.flush.bind(stateManager);
  stateManager.flush = async () => {
    if (!canBatch(internals._trie)) return flush();
    for (const [addressHex, { code }] of caches?.code?.flush() ?? []) {
      if (code === undefined) continue;
      const address = addressOf(addressHex);
      const codeHash = internals.keccakFunction(code);
      await internals._trie.database().put(internals._prefixCodeHashes ? concatBytes(CODEHASH_PREFIX, codeHash) : codeHash, code);
      if ((await stateManager.getAccount(address)) === undefined) await stateManager.putAccount(address, new Account());
      await stateManager.modifyAccountFields(address, { codeHash });
    }
    const slotsByAccount = new Map<string, BatchOp[]>();
    for (const [addressHex, keyHex, value] of storageCache.flush()) {
      const decoded = RLP.decode(value ?? new Uint8Array(0)) as Uint8Array;
      const op: BatchOp = [unprefixedHexToBytes(keyHex), decoded instanceof Uint8Array && decoded.length > 0 ? RLP.encode(decoded) : null];
      const ops = slotsByAccount.get(addressHex);
      if (ops === undefined) slotsByAccount.set(addressHex, [op]);
      else ops.push(op);
    }
    for (const [addressHex, ops] of slotsByAccount) {
      const address = addressOf(addressHex);
      const account = await stateManager.getAccount(address);
      if (account === undefined) continue;
      const trie = internals._getStorageTrie(address, account);
      if (canBatch(trie)) await applyBatch(trie, ops);
      else for (const [key, value] of ops) await (value === null ? trie.del(key) : trie.put(key, value));
      internals._storageTries[addressHex] = trie;
      account.storageRoot = trie.root();
      await stateManager.putAccount(address, account);
    }
    const accounts: BatchOp[] = [];
    for (const [addressHex, entry] of accountCache.flush()) accounts.push([unprefixedHexToBytes(addressHex), entry.accountRLP ?? null]);
    await applyBatch(internals._trie, accounts);
  };
}

/** What 10.1.3's caches' `flush` returns (cache/code.js, storage.js, account.js): the entries written since the last flush. */
interface FlushingCache<Item> {
  flush(): Item[];
}
type CodeItem = [addressHex: string, entry: { code?: Uint8Array }];
type StorageItem = [addressHex: string, keyHex: string, value: Uint8Array | undefined];
type AccountItem = [addressHex: string, entry: { accountRLP: Uint8Array | undefined }];

/**
 * The address a cache keys by its unprefixed hex (always 40 digits: the caches key by
 * `bytesToUnprefixedHex(address.bytes)`), as upstream's `createAddressFromString(`0x${hex}`)` builds
 * it, without that function's regex check of a string that cannot fail it.
 */
const addressOf = (addressHex: string): Address => new Address(unprefixedHexToBytes(addressHex));
