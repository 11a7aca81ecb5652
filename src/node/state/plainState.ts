/**
 * A state layer for a dev chain: every account and storage slot as plain objects in memory, a
 * journal for checkpoints and reverts, and the Merkle Patricia tries only as the way state roots
 * are computed, once when a root is asked for (a sealed block, `stateRoot`, a proof).
 *
 * @ethereumjs/statemanager's MerkleStateManager keeps state in tries and caches accounts and slots
 * as RLP bytes: a read decodes them again, a read the caches miss walks the trie, and every
 * outermost commit re-hashes the paths of what changed. Here a read is a Map lookup, a write is a
 * Map update plus one journal entry, a checkpoint is the journal's length (so a revert undoes only
 * what changed since, and a snapshot costs nothing), and only `getStateRoot` touches the tries:
 * each account or slot written since the last root is put into its trie once.
 *
 * It implements what @ethereumjs/vm 10.1.3 asks of a state manager (`StateManagerInterface` of
 * @ethereumjs/common), with MerkleStateManager's semantics, which test/plainState.test.ts checks
 * by running the same random transactions on both and comparing every state root. Where the two
 * differ on purpose:
 *   - an account's storage root is always the root of its storage (MerkleStateManager keeps the
 *     `storageRoot` a `putAccount` wrote until that account's storage is next flushed);
 *   - `putAccount(address, undefined)` removes the account's storage with it, as `deleteAccount` does;
 *   - `setStateRoot` and `hasStateRoot` know only the current root: state at older roots (history)
 *     is the chain's (stateHistory.ts), not this layer's.
 * `getAccount(...).storageRoot` reads the root last computed, as MerkleStateManager's account cache
 * does between flushes.
 */
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { OriginalStorageCache } from "@ethereumjs/statemanager";
import { Account, bytesToUnprefixedHex, equalsBytes, KECCAK256_NULL, KECCAK256_RLP, unprefixedHexToBytes } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";

import { withoutLeadingZeros } from "../common/bytes.ts";

import type { AccountFields, Common, StateManagerInterface, StorageDump } from "@ethereumjs/common";
import type { Address } from "@ethereumjs/util";

/** An account's fields (its storage is kept apart, in `PlainState.#storage`). */
interface AccountRecord {
  nonce: bigint;
  balance: bigint;
  codeHash: Uint8Array;
}

/** Slot (32-byte key, unprefixed hex) → value (leading zeros stripped, never empty). */
type Storage = Map<string, Uint8Array>;

/** What one write changed, to undo it: the previous account, slot value, or whole storage. */
type Undo =
  | { kind: "account"; address: string; previous: AccountRecord | undefined }
  | { kind: "slot"; address: string; slot: string; previous: Uint8Array | undefined }
  | { kind: "storage"; address: string; previous: Storage | undefined };

export interface PlainStateOptions {
  common: Common;
}

export class PlainStateManager implements StateManagerInterface {
  readonly common: Common;
  readonly originalStorageCache: OriginalStorageCache;
  readonly #keccak: (data: Uint8Array) => Uint8Array;

  // ── The state ──
  readonly #accounts = new Map<string, AccountRecord>();
  readonly #storage = new Map<string, Storage>();
  /** Code by its hash (unprefixed hex); contracts deployed twice share it. */
  readonly #code = new Map<string, Uint8Array>();

  // ── The journal ──
  #journal: Undo[] = [];
  /** Journal lengths at each open checkpoint. */
  readonly #checkpoints: number[] = [];

  // ── The tries, for roots only ──
  readonly #accountTrie: MerklePatriciaTrie;
  readonly #storageTries = new Map<string, MerklePatriciaTrie>();
  /** Storage roots as last computed (for `getAccount`), by address. */
  readonly #storageRoots = new Map<string, Uint8Array>();
  /** Written since the last root: accounts, and per account the slots (undefined: all of its storage was replaced). */
  readonly #dirtyAccounts = new Set<string>();
  readonly #dirtySlots = new Map<string, Set<string> | undefined>();
  #root: Uint8Array = KECCAK256_RLP;

  constructor(options: PlainStateOptions, copyOf?: PlainStateManager) {
    this.common = options.common;
    this.#keccak = options.common.customCrypto.keccak256 ?? keccak_256;
    this.originalStorageCache = new OriginalStorageCache(this.getStorage.bind(this));
    if (copyOf === undefined) {
      this.#accountTrie = new MerklePatriciaTrie({ useKeyHashing: true, common: options.common });
      return;
    }
    // A copy shares the tries' node database (nodes never change) and the code; accounts and storage are its own.
    this.#accountTrie = copyOf.#accountTrie.shallowCopy(false);
    this.#root = copyOf.#root;
    for (const [address, record] of copyOf.#accounts) this.#accounts.set(address, { ...record });
    for (const [address, slots] of copyOf.#storage) this.#storage.set(address, new Map(slots));
    for (const [hash, code] of copyOf.#code) this.#code.set(hash, code);
    for (const [address, trie] of copyOf.#storageTries) this.#storageTries.set(address, trie.shallowCopy(false));
    for (const [address, root] of copyOf.#storageRoots) this.#storageRoots.set(address, root);
    for (const address of copyOf.#dirtyAccounts) this.#dirtyAccounts.add(address);
    for (const [address, slots] of copyOf.#dirtySlots) this.#dirtySlots.set(address, slots === undefined ? undefined : new Set(slots));
  }

  // ── Accounts ────────────────────────────────────────────────────────────────────────────────

  async getAccount(address: Address): Promise<Account | undefined> {
    return this.#account(key(address));
  }

  #account(address: string): Account | undefined {
    const record = this.#accounts.get(address);
    if (record === undefined) return undefined;
    return new Account(record.nonce, record.balance, this.#storageRoots.get(address) ?? KECCAK256_RLP, record.codeHash);
  }

  async putAccount(address: Address, account?: Account): Promise<void> {
    const id = key(address);
    if (account === undefined) {
      this.#remove(id);
      return;
    }
    this.#setAccount(id, { nonce: account.nonce, balance: account.balance, codeHash: account.codeHash });
  }

  async deleteAccount(address: Address): Promise<void> {
    this.#remove(key(address));
  }

  async modifyAccountFields(address: Address, fields: AccountFields): Promise<void> {
    const id = key(address);
    const current = this.#accounts.get(id);
    this.#setAccount(id, {
      nonce: fields.nonce ?? current?.nonce ?? 0n,
      balance: fields.balance ?? current?.balance ?? 0n,
      codeHash: fields.codeHash ?? current?.codeHash ?? KECCAK256_NULL,
    });
  }

  #setAccount(address: string, record: AccountRecord): void {
    this.#journal.push({ kind: "account", address, previous: this.#accounts.get(address) });
    this.#accounts.set(address, record);
    this.#dirtyAccounts.add(address);
  }

  /** The account and its storage go (a deleted account created again starts with empty storage). */
  #remove(address: string): void {
    if (this.#accounts.has(address)) {
      this.#journal.push({ kind: "account", address, previous: this.#accounts.get(address) });
      this.#accounts.delete(address);
      this.#dirtyAccounts.add(address);
    }
    this.#replaceStorage(address);
  }

  // ── Code ────────────────────────────────────────────────────────────────────────────────────

  async putCode(address: Address, value: Uint8Array): Promise<void> {
    const codeHash = this.#keccak(value);
    this.#code.set(bytesToUnprefixedHex(codeHash), value);
    const id = key(address);
    const current = this.#accounts.get(id);
    this.#setAccount(id, { nonce: current?.nonce ?? 0n, balance: current?.balance ?? 0n, codeHash });
  }

  async getCode(address: Address): Promise<Uint8Array> {
    const record = this.#accounts.get(key(address));
    if (record === undefined || equalsBytes(record.codeHash, KECCAK256_NULL)) return new Uint8Array(0);
    return this.#code.get(bytesToUnprefixedHex(record.codeHash)) ?? new Uint8Array(0);
  }

  async getCodeSize(address: Address): Promise<number> {
    return (await this.getCode(address)).length;
  }

  // ── Storage ─────────────────────────────────────────────────────────────────────────────────

  /** The slot's value, leading zeros stripped (empty when unset); treat it as read-only. */
  async getStorage(address: Address, slot: Uint8Array): Promise<Uint8Array> {
    if (slot.length !== 32) throw new Error("Storage key must be 32 bytes long");
    const id = key(address);
    if (!this.#accounts.has(id)) return new Uint8Array();
    return this.#storage.get(id)?.get(bytesToUnprefixedHex(slot)) ?? new Uint8Array();
  }

  async putStorage(address: Address, slot: Uint8Array, value: Uint8Array): Promise<void> {
    if (slot.length !== 32) throw new Error("Storage key must be 32 bytes long");
    if (value.length > 32) throw new Error("Storage value cannot be longer than 32 bytes");
    const id = key(address);
    if (!this.#accounts.has(id)) throw new Error("putStorage() called on non-existing account");
    const stripped = withoutLeadingZeros(value);
    let slots = this.#storage.get(id);
    if (slots === undefined) {
      slots = new Map();
      this.#storage.set(id, slots);
    }
    const name = bytesToUnprefixedHex(slot);
    this.#journal.push({ kind: "slot", address: id, slot: name, previous: slots.get(name) });
    if (stripped.length === 0) slots.delete(name);
    else slots.set(name, stripped);
    const dirty = this.#dirtySlots.get(id);
    if (dirty !== undefined) dirty.add(name);
    else if (!this.#dirtySlots.has(id)) this.#dirtySlots.set(id, new Set([name]));
    this.#dirtyAccounts.add(id);
  }

  /** All of the account's storage goes; an account that does not exist is created empty (as MerkleStateManager does). */
  async clearStorage(address: Address): Promise<void> {
    const id = key(address);
    if (!this.#accounts.has(id)) this.#setAccount(id, { nonce: 0n, balance: 0n, codeHash: KECCAK256_NULL });
    this.#replaceStorage(id);
  }

  #replaceStorage(address: string): void {
    const previous = this.#storage.get(address);
    if (previous === undefined && !this.#storageTries.has(address)) return;
    this.#journal.push({ kind: "storage", address, previous });
    this.#storage.delete(address);
    this.#dirtySlots.set(address, undefined);
    this.#dirtyAccounts.add(address);
  }

  /** The account's slots as MerkleStateManager dumps them: keccak(slot) → RLP(value), unprefixed hex. */
  async dumpStorage(address: Address): Promise<StorageDump> {
    const id = key(address);
    if (!this.#accounts.has(id)) throw new Error("dumpStorage f() can only be called for an existing account");
    const dump: StorageDump = {};
    for (const [slot, value] of this.#storage.get(id) ?? []) {
      dump[bytesToUnprefixedHex(this.#keccak(unprefixedHexToBytes(slot)))] = bytesToUnprefixedHex(RLP.encode(value));
    }
    return dump;
  }

  // ── Checkpoints ─────────────────────────────────────────────────────────────────────────────

  async checkpoint(): Promise<void> {
    this.#checkpoints.push(this.#journal.length);
  }

  async commit(): Promise<void> {
    this.#checkpoints.pop();
    this.#settle();
  }

  async revert(): Promise<void> {
    const mark = this.#checkpoints.pop() ?? 0;
    this.#undoTo(mark);
    this.#settle();
  }

  /** The journal's length: what `rewind` goes back to. Costs nothing; valid until a commit or revert closes the checkpoints around it. */
  get journalLength(): number {
    return this.#journal.length;
  }

  /** Open checkpoints (0: none). */
  get checkpointDepth(): number {
    return this.#checkpoints.length;
  }

  /** Undoes every write after the journal was `length` long. */
  #undoTo(length: number): void {
    const journal = this.#journal;
    for (let at = journal.length - 1; at >= length; at--) {
      const undo = journal[at]!;
      switch (undo.kind) {
        case "account":
          if (undo.previous === undefined) this.#accounts.delete(undo.address);
          else this.#accounts.set(undo.address, undo.previous);
          this.#dirtyAccounts.add(undo.address);
          break;
        case "slot": {
          let slots = this.#storage.get(undo.address);
          if (slots === undefined) {
            slots = new Map();
            this.#storage.set(undo.address, slots);
          }
          if (undo.previous === undefined) slots.delete(undo.slot);
          else slots.set(undo.slot, undo.previous);
          const dirty = this.#dirtySlots.get(undo.address);
          if (dirty !== undefined) dirty.add(undo.slot);
          else if (!this.#dirtySlots.has(undo.address)) this.#dirtySlots.set(undo.address, new Set([undo.slot]));
          this.#dirtyAccounts.add(undo.address);
          break;
        }
        case "storage":
          if (undo.previous === undefined) this.#storage.delete(undo.address);
          else this.#storage.set(undo.address, undo.previous);
          this.#dirtySlots.set(undo.address, undefined);
          this.#dirtyAccounts.add(undo.address);
          break;
      }
    }
    journal.length = length;
  }

  /** Outside every checkpoint nothing can be reverted any more: the journal and the tx's original values go. */
  #settle(): void {
    if (this.#checkpoints.length > 0) return;
    this.#journal = [];
    this.originalStorageCache.clear();
  }

  // ── Roots ───────────────────────────────────────────────────────────────────────────────────

  /** The state root: what was written since the last root goes into the tries, once. */
  async getStateRoot(): Promise<Uint8Array> {
    for (const address of this.#dirtyAccounts) {
      const addressBytes = unprefixedHexToBytes(address);
      const record = this.#accounts.get(address);
      const storageRoot = await this.#hashStorage(address);
      if (record === undefined) await this.#accountTrie.del(addressBytes);
      else await this.#accountTrie.put(addressBytes, new Account(record.nonce, record.balance, storageRoot, record.codeHash).serialize());
    }
    this.#dirtyAccounts.clear();
    this.#root = this.#accountTrie.root();
    return this.#root;
  }

  /** The account's storage root after its written slots are put into its trie. */
  async #hashStorage(address: string): Promise<Uint8Array> {
    if (!this.#dirtySlots.has(address)) return this.#storageRoots.get(address) ?? KECCAK256_RLP;
    const dirty = this.#dirtySlots.get(address);
    this.#dirtySlots.delete(address);
    const slots = this.#storage.get(address);
    let trie = this.#storageTries.get(address);
    if (dirty === undefined || trie === undefined) {
      // All of the storage was replaced (or never hashed): a fresh trie with every slot.
      trie = this.#accountTrie.shallowCopy(false);
      trie.root(trie.EMPTY_TRIE_ROOT);
      for (const [slot, value] of slots ?? []) await trie.put(unprefixedHexToBytes(slot), RLP.encode(value));
    } else {
      for (const slot of dirty) {
        const value = slots?.get(slot);
        if (value === undefined) await trie.del(unprefixedHexToBytes(slot));
        else await trie.put(unprefixedHexToBytes(slot), RLP.encode(value));
      }
    }
    const root = trie.root();
    if (slots === undefined || slots.size === 0) {
      this.#storageTries.delete(address);
      this.#storageRoots.delete(address);
      return KECCAK256_RLP;
    }
    this.#storageTries.set(address, trie);
    this.#storageRoots.set(address, root);
    return root;
  }

  /** Only the current root: older states are the chain's history, not this layer's. */
  async setStateRoot(stateRoot: Uint8Array): Promise<void> {
    if (!equalsBytes(stateRoot, await this.getStateRoot())) throw new Error("PlainStateManager holds only its current state root");
  }

  async hasStateRoot(root: Uint8Array): Promise<boolean> {
    return equalsBytes(root, await this.getStateRoot());
  }

  // ── The rest of the interface ───────────────────────────────────────────────────────────────

  /** Nothing to drop: the objects are the state, not a cache of it. */
  clearCaches(): void {}

  /** An independent copy of the current state (open checkpoints are not copied). */
  shallowCopy(): PlainStateManager {
    return new PlainStateManager({ common: this.common }, this);
  }

  /** Genesis allocations: address → balance, or [balance, code, storage, nonce] (MerkleStateManager's format). */
  async generateCanonicalGenesis(initState: Record<string, bigint | string | [string?, string?, [string, string][]?, string?]>): Promise<void> {
    for (const [address, state] of Object.entries(initState)) {
      const id = address.toLowerCase().replace(/^0x/, "");
      if (!Array.isArray(state)) {
        this.#setAccount(id, { nonce: 0n, balance: BigInt(state), codeHash: KECCAK256_NULL });
        continue;
      }
      const [balance, code, storage, nonce] = state;
      this.#setAccount(id, { nonce: BigInt(nonce ?? 0), balance: BigInt(balance ?? 0), codeHash: KECCAK256_NULL });
      const where = { bytes: unprefixedHexToBytes(id) } as Address;
      if (code !== undefined) await this.putCode(where, unprefixedHexToBytes(code.replace(/^0x/, "")));
      for (const [slot, value] of storage ?? []) {
        await this.putStorage(where, unprefixedHexToBytes(slot.replace(/^0x/, "").padStart(64, "0")), unprefixedHexToBytes(value.replace(/^0x/, "")));
      }
    }
    this.#settle();
  }
}

/** The map key of an address: its unprefixed hex. */
const key = (address: Address): string => bytesToUnprefixedHex(address.bytes);
