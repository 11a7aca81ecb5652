/**
 * The state manager of a state view (stateViews.ts): a sealed block's state, read from the tries
 * at its root, under an overlay of plain objects that a dry run writes into and reverts.
 *
 * A view's VM only runs dry runs (eth_call, estimates, access lists, traces, eth_simulateV1,
 * proofs), each inside a checkpoint that is reverted: nothing it writes ever reaches the tries. (The
 * chain's live state is this class too, made by liveState.ts with `live` options: its overlay is
 * written into the tries whenever its root is asked for outside a checkpoint, or when the outermost
 * checkpoint commits after a root was asked for inside it, `#writeOverlay`.)
 * @ethereumjs/statemanager's MerkleStateManager pays for writes it would flush: its caches keep
 * accounts and slots as RLP, checkpoint each cache's diff per call frame, and drop what a reverted
 * checkpoint read. Here a write is a Map update and one journal entry, a checkpoint is the journal's
 * length, and a read of the base state is a trie walk done once per state root and address (or
 * storage root and slot), remembered in memos the views share: a value under a root never changes.
 *
 * What it answers is MerkleStateManager's with caches (10.1.3 merkleStateManager.js), which
 * test/viewState.test.ts checks against the plain state layer on random operations:
 *   - a slot not written is read from the account's storage trie (a deleted and recreated account,
 *     or one whose storage was cleared, reads an empty trie; a write that gives an existing account
 *     another storage root, which the EVM never makes, does not move where its slots are read);
 *   - `clearStorage` drops the slots written before it and sets the account's storage root to the
 *     empty trie's; `deleteAccount` drops the account and its written slots; `putAccount(address,
 *     undefined)` drops the account only;
 *   - `getAccount(...).storageRoot` is the root as last put (written slots change it only when a
 *     state root is computed; the package's flush, at every outermost commit, does so per tx).
 * `getStateRoot` (eth_simulateV1 seals its blocks with it) puts the overlay into copies of the
 * tries inside a trie checkpoint that it reverts, so the shared node store is left as it was.
 */
import { RLP } from "@ethereumjs/rlp";
import { Account, createAccountFromRLP, equalsBytes, KECCAK256_NULL, KECCAK256_RLP } from "@ethereumjs/util";

import { keccak_256 } from "@noble/hashes/sha3.js";

import { withoutLeadingZeros } from "../common/bytes.ts";
import { bytesOfCheckedHex, flatHex } from "../common/hex.ts";
import { accountRLP } from "../ethereumjs/stateManager.ts";
import { applyBatch, canBatch } from "../ethereumjs/trieBatch.ts";
import { hasTrieRoot } from "../ethereumjs/trieFindPath.ts";

import type { AccountFields, Common, StateManagerInterface, StorageDump } from "@ethereumjs/common";
import type { MerklePatriciaTrie } from "@ethereumjs/mpt";
import type { Address } from "@ethereumjs/util";
import type { Hex } from "../common/types.ts";
import type { WriteWatcher } from "../ethereumjs/stateWrites.ts";
import type { NodeStore } from "../ethereumjs/internals.ts";
import type { BatchOp } from "../ethereumjs/trieBatch.ts";

/**
 * An account's fields, never changed in place (a write puts a new one). `storageRoot` is the root
 * the account reports (as put, or as a state root last computed it); `readRoot` is the trie its
 * slots not written in the overlay are read from: a root in the node store (the base state's, or
 * the empty trie's once its storage was cleared or it was created anew).
 */
interface AccountRecord {
  readonly nonce: bigint;
  readonly balance: bigint;
  readonly storageRoot: Uint8Array;
  readonly codeHash: Uint8Array;
  readonly readRoot: Uint8Array;
}

/** Slot (flat hex) → value (leading zeros stripped; empty: zero). */
type Slots = Map<string, Uint8Array>;

/**
 * What one write changed, to undo it: an account's overlay entry, an account's map of written slots
 * (replaced whole when its storage is cleared), one slot of such a map, or code put (undefined: none).
 */
type Undo =
  | { kind: "account"; address: string; previous: AccountRecord | null | undefined }
  | { kind: "slots"; address: string; previous: Slots | undefined }
  | { kind: "slot"; slots: Slots; slot: string; previous: Uint8Array | undefined }
  | { kind: "code"; hash: string };

/** State roots whose memos are kept (`ViewMemos.keep`): a test file's fixture, and a few nested snapshots. */
const MAX_KEPT_ROOTS = 4;
/** Entries of a kept root's memo copied at most when the live state moves on; a larger one is moved (copying it would cost more than reading again what a test reads). */
const MAX_KEPT_COPY = 4096;

/**
 * What every view's state shares: base-state reads by root. Accounts: state root + address → the
 * account (null: none). Slots: storage root + slot → the value. Code: code hash → code. Each memo
 * starts over at its bound: `maxEntries` accounts or slots, `maxCodeBytes` bytes of code.
 */
export class ViewMemos {
  /** By state root, then address; slots by storage root, then slot (two maps: no key is built by joining two long strings). */
  readonly accounts = new Map<string, Map<string, AccountRecord | null>>();
  readonly slots = new Map<string, Map<string, Uint8Array>>();
  readonly code = new Map<string, Uint8Array>();
  readonly #counts = new Map<Map<string, unknown>, number>();
  #codeBytes = 0;
  /** State roots whose memos `carry` copies rather than moves (`keep`), the most recent last. */
  readonly #kept: string[] = [];
  constructor(
    readonly maxEntries: number,
    readonly maxCodeBytes: number,
  ) {}

  rememberCode(hash: string, code: Uint8Array): void {
    if (this.#codeBytes + code.length > this.maxCodeBytes) {
      this.code.clear();
      this.#codeBytes = 0;
    }
    this.code.set(hash, code);
    this.#codeBytes += code.length;
  }

  /** Puts `value` under `root` then `key` in `memo` (accounts or slots), which starts over at `maxEntries` entries in all. */
  remember<T>(memo: Map<string, Map<string, T>>, root: string, key: string, value: T): void {
    const count = this.#counts.get(memo) ?? 0;
    if (count >= this.maxEntries) memo.clear();
    this.#counts.set(memo, count >= this.maxEntries ? 1 : count + 1);
    let entries = memo.get(root);
    if (entries === undefined) {
      entries = new Map();
      memo.set(root, entries);
    }
    entries.set(key, value);
  }

  /**
   * Keeps what is read at the state root `root` when the live state moves on from it: evm_snapshot's
   * root (chainSnapshots.ts), to which evm_revert comes back (a test file reverts to its fixture's
   * before each test). The memos under a root are otherwise moved to the next root at each seal
   * (`carry`), and every account and slot the next test reads would be read from the tries again.
   * The last MAX_KEPT_ROOTS roots are kept. What is kept: the accounts memo under the root, and the
   * slots memo under each storage root the first block after it writes (a slot of an account only
   * a later block writes is read from its trie again after the revert). Each map is copied only up
   * to MAX_KEPT_COPY entries, and the copies count towards `maxEntries` as any entry does: a client
   * that snapshots before every block without reverting fills the memos sooner.
   */
  keep(root: string): void {
    const at = this.#kept.indexOf(root);
    if (at !== -1) this.#kept.splice(at, 1);
    this.#kept.push(root);
    if (this.#kept.length > MAX_KEPT_ROOTS) this.#kept.shift();
  }

  /** Whether the memos under the state root `root` are kept (`keep`). */
  isKept(root: string): boolean {
    return this.#kept.includes(root);
  }

  /**
   * Moves what `memo` holds under the root `from` to the root `to`, with `written` put in: the
   * live state's next root (liveState.ts), where what it did not write reads as before. With
   * `keepFrom` (a kept state root's memos: `keep`) what `from` holds is copied instead, and stays,
   * up to MAX_KEPT_COPY entries (a larger map is moved, as without). Past the bound the memo
   * starts over, empty.
   */
  carry<T>(memo: Map<string, Map<string, T>>, from: string, to: string, written: Iterable<[string, T]>, keepFrom = false): void {
    const held = memo.get(from);
    let count = this.#counts.get(memo) ?? 0;
    let entries: Map<string, T>;
    if (keepFrom && held !== undefined && held.size <= MAX_KEPT_COPY && from !== to) {
      entries = new Map(held);
      count += held.size;
    } else {
      entries = held ?? new Map<string, T>();
      memo.delete(from);
    }
    // What `to` held goes (the same content: the same root), and no longer counts.
    count = Math.max(0, count - (memo.get(to)?.size ?? 0));
    for (const [key, value] of written) {
      if (!entries.has(key)) count++;
      entries.set(key, value);
    }
    if (count > this.maxEntries) {
      memo.clear();
      count = 0;
    } else {
      memo.set(to, entries);
    }
    this.#counts.set(memo, count);
  }
}

/** What makes a ViewStateManager the chain's live state (liveState.ts). */
export interface LiveOptions {
  /** The node map of the chain's tries. */
  store: NodeStore | undefined;
  /** Memos for a copy of the live state (its own: the live state's move with it). */
  copyMemos(): ViewMemos;
}

/**
 * The hex key of an address's or a root's bytes, remembered per array: the EVM hands the same
 * Address objects to every read of a run, and an account's storage root array is shared by every
 * Account built from its record. Such arrays are never changed in place (@ethereumjs builds new ones).
 */
const keys = new WeakMap<Uint8Array, Hex>();

function keyOf(bytes: Uint8Array): Hex {
  let key = keys.get(bytes);
  if (key === undefined) {
    key = flatHex(bytes);
    keys.set(bytes, key);
  }
  return key;
}

/** What a missing account is read as by a write that creates it (`modifyAccountFields`, `clearStorage`). */
const NO_ACCOUNT: AccountRecord = { nonce: 0n, balance: 0n, storageRoot: KECCAK256_RLP, codeHash: KECCAK256_NULL, readRoot: KECCAK256_RLP };

/** MerkleStateManager's key of code in the trie's database (its default `prefixCodeHashes`: `c` + code hash). */
const CODE_PREFIX = Uint8Array.of(0x63);

const EMPTY = new Uint8Array(0);

/** What a write that is done at once answers: one settled promise for all of them. */
const DONE: Promise<void> = Promise.resolve();

/** MerkleStateManager's error for a slot written to an account that does not exist. */
const missingForStorage = () => new Error("putStorage() called on non-existing account");

const accountOf = (record: AccountRecord | null): Account | undefined =>
  record === null ? undefined : new Account(record.nonce, record.balance, record.storageRoot, record.codeHash);

/**
 * An empty array whose elements are already of V8's kind for objects. A `[]` starts as an array
 * of small integers and changes kind (its hidden class) at its first object: the live state's
 * journal and watchers had, a fresh view's had not, and the first dry run on a view after the
 * block path was optimized threw that code away ("wrong map" where it pushes or reads them,
 * bench/benchmarks-notes.md, "Nineteenth round"). Emptying an array keeps its kind.
 */
export function emptyObjectArray<T>(): T[] {
  const array: (T | undefined)[] = [undefined];
  array.length = 0;
  return array as T[];
}

export class ViewStateManager implements StateManagerInterface {
  readonly common: Common;
  readonly originalStorageCache: OriginalValues;
  readonly #memos: ViewMemos;
  /** Memos read after this view's own miss, before the tries: the live state's (see the constructor). */
  readonly #readThrough: ViewMemos | undefined;
  /** The account trie at the base root; its copies read storage tries (useKeyHashing, the shared node store). */
  readonly #accountTrie: MerklePatriciaTrie;
  readonly #storageTrie: MerklePatriciaTrie;
  readonly #keccak: (data: Uint8Array) => Uint8Array;
  #root: Uint8Array;
  #rootKey: string;

  // ── The overlay (null: deleted) and its journal ──
  // Emptied in place, never replaced: V8 treats a field that has only ever held one value as a
  // constant of the shape, and the first replacement (a view moved to another root) discarded the
  // optimized code of every method that reads these (`--trace-generalization`, bench/benchmarks-notes.md,
  // "Thirteenth round").
  readonly #accounts = new Map<string, AccountRecord | null>();
  readonly #slots = new Map<string, Slots>();
  /** Code put by dry runs, by code hash. */
  readonly #code = new Map<string, Uint8Array>();
  readonly #journal: Undo[] = emptyObjectArray();
  readonly #checkpoints: number[] = [];
  /** Told of every write (stateWrites.ts `watchStateWrites`): the live state's account index and system-call facts; none on views. */
  readonly #watchers: WriteWatcher[] = emptyObjectArray();
  /** Set on the chain's live state (liveState.ts): its roots are written into the tries. */
  readonly #live: LiveOptions | undefined;
  /** The live state: a root was asked for inside the open checkpoints, so the overlay is written when they commit. */
  #rootAskedInside = false;

  /**
   * `trie`: the live state's account trie (a copy at `root` is taken; it is not changed).
   * `readThrough`: memos to read where `memos` have nothing, before the tries: the live state's,
   * which hold what it read and wrote at its last root (carried there as it wrote the root), so a
   * view of the block just sealed finds its accounts, slots and code without a trie walk. Memos
   * are keyed by root, whose content never changes: any memo's entry is right for any view.
   */
  constructor(options: { common: Common; trie: MerklePatriciaTrie; root: Uint8Array; memos: ViewMemos; readThrough?: ViewMemos; live?: LiveOptions }) {
    this.#live = options.live;
    this.common = options.common;
    this.#memos = options.memos;
    this.#readThrough = options.readThrough;
    this.#accountTrie = options.trie.shallowCopy(false);
    this.#accountTrie.root(options.root);
    this.#storageTrie = options.trie.shallowCopy(false);
    this.#keccak = options.common.customCrypto.keccak256 ?? keccak_256;
    this.#root = options.root;
    this.#rootKey = flatHex(options.root);
    this.originalStorageCache = new OriginalValues((address, slot) => this.getStorage(address, slot));
  }

  // ── Accounts ────────────────────────────────────────────────────────────────────────────────
  //
  // The interface's methods answer promises, but most calls need none of the tries: the overlay or
  // a memo has the account, slot or code, and a write is a map entry. Those answer an already
  // settled promise (`DONE` for writes), and only a trie read is awaited (`#readAccount`, `#readSlot`,
  // `#readCode`). The EVM awaits every state call; an `async` method added a promise and microtask
  // turns of its own under each await (an eth_call of an ERC-20 `balanceOf` made 126 promises, now
  // 99: bench/benchmarks-notes.md, "Twentieth round"). The errors the package's own state managers
  // raise (a slot's or a value's length, a slot written to a missing account) still reject. A call
  // given no Address or no account throws at the call: every caller (the EVM, its journal, ours)
  // awaits these inside an async function, where the two are the same. A try/catch in each method
  // to turn that into a rejection gave back the whole gain (`npx tsx bench/instructions.ts call`:
  // ~876–882k instructions without, ~910–913k with; ~907k before this change).

  getAccount(address: Address): Promise<Account | undefined> {
    const record = this.#record(keyOf(address.bytes), address.bytes);
    return record instanceof Promise ? record.then(accountOf) : Promise.resolve(accountOf(record));
  }

  /** The account's record: at once when the overlay or a memo has it, else once the trie has answered. */
  #record(id: string, addressBytes: Uint8Array): AccountRecord | null | Promise<AccountRecord | null> {
    const written = this.#accounts.get(id);
    if (written !== undefined) return written;
    let record = this.#memos.accounts.get(this.#rootKey)?.get(id);
    if (record === undefined) {
      record = this.#readThrough?.accounts.get(this.#rootKey)?.get(id);
      if (record === undefined) return this.#readAccount(id, addressBytes);
      this.#memos.remember(this.#memos.accounts, this.#rootKey, id, record);
    }
    return record;
  }

  async #readAccount(id: string, addressBytes: Uint8Array): Promise<AccountRecord | null> {
    const rootKey = this.#rootKey;
    const rlp = await this.#accountTrie.get(addressBytes);
    let record: AccountRecord | null = null;
    if (rlp !== null) {
      const { nonce, balance, storageRoot, codeHash } = createAccountFromRLP(rlp);
      record = { nonce, balance, storageRoot, codeHash, readRoot: storageRoot };
    }
    this.#memos.remember(this.#memos.accounts, rootKey, id, record);
    return record;
  }

  putAccount(address: Address, account?: Account): Promise<void> {
    const id = keyOf(address.bytes);
    this.#tellAccount(id);
    if (account === undefined) {
      this.#setAccount(id, null);
      return DONE;
    }
    const { nonce, balance, storageRoot, codeHash } = account;
    const current = this.#record(id, address.bytes);
    if (current instanceof Promise) {
      return current.then((read) => this.#setAccount(id, { nonce, balance, storageRoot, codeHash, readRoot: this.#readRootOf(read, storageRoot) }));
    }
    this.#setAccount(id, { nonce, balance, storageRoot, codeHash, readRoot: this.#readRootOf(current, storageRoot) });
    return DONE;
  }

  deleteAccount(address: Address): Promise<void> {
    const id = keyOf(address.bytes);
    this.#tellReset();
    this.#setAccount(id, null);
    this.#setSlots(id, undefined);
    return DONE;
  }

  modifyAccountFields(address: Address, fields: AccountFields): Promise<void> {
    const id = keyOf(address.bytes);
    this.#tellAccount(id);
    const current = this.#record(id, address.bytes);
    if (current instanceof Promise) return current.then((read) => this.#modifyAccount(id, read ?? NO_ACCOUNT, fields));
    this.#modifyAccount(id, current ?? NO_ACCOUNT, fields);
    return DONE;
  }

  #modifyAccount(id: string, current: AccountRecord, fields: AccountFields): void {
    const storageRoot = fields.storageRoot ?? current.storageRoot;
    this.#setAccount(id, {
      nonce: fields.nonce ?? current.nonce,
      balance: fields.balance ?? current.balance,
      storageRoot,
      codeHash: fields.codeHash ?? current.codeHash,
      readRoot: this.#readRootOf(current, storageRoot),
    });
  }

  /**
   * The trie a written account's unwritten slots are read from: an account that exists keeps the
   * one it has (the EVM puts back what it read; it changes a storage root only through
   * `clearStorage`, and a view's computed root's nodes are not kept), a new one reads the root it is put
   * with (the empty trie's).
   */
  #readRootOf(current: AccountRecord | null, storageRoot: Uint8Array): Uint8Array {
    return current === null ? storageRoot : current.readRoot;
  }

  #setAccount(id: string, record: AccountRecord | null): void {
    this.#journal.push({ kind: "account", address: id, previous: this.#accounts.get(id) });
    this.#accounts.set(id, record);
  }

  // ── Code ────────────────────────────────────────────────────────────────────────────────────

  async putCode(address: Address, value: Uint8Array): Promise<void> {
    this.#tellAccount(keyOf(address.bytes));
    const codeHash = this.#keccak(value);
    const hash = keyOf(codeHash);
    if (!this.#code.has(hash)) {
      this.#code.set(hash, value);
      this.#journal.push({ kind: "code", hash });
    }
    await this.modifyAccountFields(address, { codeHash });
  }

  getCode(address: Address): Promise<Uint8Array> {
    const record = this.#record(keyOf(address.bytes), address.bytes);
    const code = record instanceof Promise ? record.then((read) => this.#codeOf(read)) : this.#codeOf(record);
    return code instanceof Promise ? code : Promise.resolve(code);
  }

  #codeOf(record: AccountRecord | null): Uint8Array | Promise<Uint8Array> {
    if (record === null || equalsBytes(record.codeHash, KECCAK256_NULL)) return EMPTY;
    const hash = keyOf(record.codeHash);
    const code = this.#code.get(hash) ?? this.#memos.code.get(hash);
    if (code !== undefined) return code;
    const known = this.#readThrough?.code.get(hash);
    if (known !== undefined) {
      this.#memos.rememberCode(hash, known);
      return known;
    }
    return this.#readCode(record.codeHash, hash);
  }

  async #readCode(codeHash: Uint8Array, hash: string): Promise<Uint8Array> {
    const key = new Uint8Array(1 + codeHash.length);
    key.set(CODE_PREFIX);
    key.set(codeHash, 1);
    const stored = ((await this.#accountTrie.database().get(key)) as Uint8Array | null | undefined) ?? EMPTY;
    this.#memos.rememberCode(hash, stored);
    return stored;
  }

  async getCodeSize(address: Address): Promise<number> {
    return (await this.getCode(address)).length;
  }

  // ── Storage ─────────────────────────────────────────────────────────────────────────────────

  /** The slot's value, leading zeros stripped (empty when unset); read-only. */
  getStorage(address: Address, slot: Uint8Array): Promise<Uint8Array> {
    if (slot.length !== 32) return Promise.reject(new Error("Storage key must be 32 bytes long"));
    const id = keyOf(address.bytes);
    const slotKey = flatHex(slot);
    const written = this.#slots.get(id)?.get(slotKey);
    if (written !== undefined) return Promise.resolve(written);
    const record = this.#record(id, address.bytes);
    const value = record instanceof Promise ? record.then((read) => this.#slotOf(read, slot, slotKey)) : this.#slotOf(record, slot, slotKey);
    return value instanceof Promise ? value : Promise.resolve(value);
  }

  /** An unwritten slot's value: at once when a memo has it, else once the account's storage trie has answered. */
  #slotOf(record: AccountRecord | null, slot: Uint8Array, slotKey: string): Uint8Array | Promise<Uint8Array> {
    if (record === null || equalsBytes(record.readRoot, KECCAK256_RLP)) return EMPTY;
    const rootKey = keyOf(record.readRoot);
    let value = this.#memos.slots.get(rootKey)?.get(slotKey);
    if (value === undefined) {
      value = this.#readThrough?.slots.get(rootKey)?.get(slotKey);
      if (value === undefined) return this.#readSlot(record.readRoot, rootKey, slot, slotKey);
      this.#memos.remember(this.#memos.slots, rootKey, slotKey, value);
    }
    return value;
  }

  async #readSlot(readRoot: Uint8Array, rootKey: string, slot: Uint8Array, slotKey: string): Promise<Uint8Array> {
    this.#storageTrie.root(readRoot);
    const rlp = await this.#storageTrie.get(slot);
    const value = rlp === null ? EMPTY : (RLP.decode(rlp) as Uint8Array);
    this.#memos.remember(this.#memos.slots, rootKey, slotKey, value);
    return value;
  }

  putStorage(address: Address, slot: Uint8Array, value: Uint8Array): Promise<void> {
    if (slot.length !== 32) return Promise.reject(new Error("Storage key must be 32 bytes long"));
    if (value.length > 32) return Promise.reject(new Error("Storage value cannot be longer than 32 bytes"));
    const id = keyOf(address.bytes);
    const record = this.#record(id, address.bytes);
    if (record instanceof Promise) {
      return record.then((read) => {
        if (read === null) throw missingForStorage();
        this.#putSlot(id, slot, value);
      });
    }
    if (record === null) return Promise.reject(missingForStorage());
    this.#putSlot(id, slot, value);
    return DONE;
  }

  #putSlot(id: Hex, slot: Uint8Array, value: Uint8Array): void {
    this.#tellSlot(id, slot);
    let slots = this.#slots.get(id);
    if (slots === undefined) {
      slots = new Map();
      this.#setSlots(id, slots);
    }
    // One journal entry per slot written (a copy of the map per write would cost n² for n slots).
    const name = flatHex(slot);
    this.#journal.push({ kind: "slot", slots, slot: name, previous: slots.get(name) });
    slots.set(name, withoutLeadingZeros(value));
  }

  /** The written slots go, and the account (created if missing) reads an empty trie from now on. */
  async clearStorage(address: Address): Promise<void> {
    const id = keyOf(address.bytes);
    this.#tellAccount(id);
    this.#tellReset();
    const current = (await this.#record(id, address.bytes)) ?? NO_ACCOUNT;
    this.#setSlots(id, undefined);
    this.#setAccount(id, { nonce: current.nonce, balance: current.balance, storageRoot: KECCAK256_RLP, codeHash: current.codeHash, readRoot: KECCAK256_RLP });
  }

  /**
   * The account's slots as the package dumps them (0x keccak(slot) → 0x RLP(value), in the trie's
   * order): its storage trie at the account's storage root, with the slots written since put in.
   */
  async dumpStorage(address: Address): Promise<StorageDump> {
    const id = keyOf(address.bytes);
    const record = await this.#record(id, address.bytes);
    if (record === null) throw new Error("dumpStorage f() can only be called for an existing account");
    const base: StorageDump = equalsBytes(record.readRoot, KECCAK256_RLP) ? {} : (await this.baseTries(record.readRoot).getValueMap()).values;
    const written = this.#slots.get(id);
    if (written === undefined) return base;
    for (const [slot, value] of written) {
      const hashed = flatHex(this.#keccak(bytesOfCheckedHex(slot)));
      if (value.length === 0) delete base[hashed];
      else base[hashed] = flatHex(RLP.encode(value));
    }
    const dump: StorageDump = {};
    for (const hashed of Object.keys(base).sort()) dump[hashed] = base[hashed]!;
    return dump;
  }

  /** An account's map of written slots replaced whole (a new one, or none when its storage goes); the journal keeps the old one. */
  #setSlots(id: string, slots: Slots | undefined): void {
    const previous = this.#slots.get(id);
    if (previous === undefined && slots === undefined) return;
    this.#journal.push({ kind: "slots", address: id, previous });
    if (slots === undefined) this.#slots.delete(id);
    else this.#slots.set(id, slots);
  }

  // ── Watchers ───────────────────────────────────────────────────────────────────────────────

  /**
   * Tells `watcher` of this state's writes from now on, before each is made: an account's
   * (`putAccount`, `modifyAccountFields`, `putCode`, `clearStorage`), a slot's (`putStorage`, once
   * its checks pass), and `reset` for what bypasses those two (a root set, a checkpoint reverted,
   * an account deleted or its storage cleared), as stateWrites.ts' wrappers tell a MerkleStateManager's
   * (but for a slot whose write these checks refuse, which they tell).
   */
  watchWrites(watcher: WriteWatcher): void {
    this.#watchers.push(watcher);
  }

  // Indexed loops: a view's dry runs write with no watcher, and for-of makes an iterator even over nothing.
  #tellAccount(id: Hex): void {
    const watchers = this.#watchers;
    for (let at = 0; at < watchers.length; at++) watchers[at]!.account(id);
  }

  #tellSlot(id: Hex, slot: Uint8Array): void {
    const watchers = this.#watchers;
    for (let at = 0; at < watchers.length; at++) watchers[at]!.slot(id, slot);
  }

  #tellReset(): void {
    const watchers = this.#watchers;
    for (let at = 0; at < watchers.length; at++) watchers[at]!.reset?.();
  }

  // ── Checkpoints ─────────────────────────────────────────────────────────────────────────────

  checkpoint(): Promise<void> {
    this.#checkpoints.push(this.#journal.length);
    return DONE;
  }

  commit(): Promise<void> {
    this.#checkpoints.pop();
    if (this.#checkpoints.length > 0) return DONE;
    this.#settle();
    if (!this.#rootAskedInside) return DONE;
    this.#rootAskedInside = false;
    return this.#writeOverlay().then(() => undefined);
  }

  revert(): Promise<void> {
    this.#tellReset();
    const mark = this.#checkpoints.pop() ?? 0;
    const journal = this.#journal;
    for (let at = journal.length - 1; at >= mark; at--) {
      const undo = journal[at]!;
      if (undo.kind === "slot") {
        if (undo.previous === undefined) undo.slots.delete(undo.slot);
        else undo.slots.set(undo.slot, undo.previous);
      } else if (undo.kind === "code") {
        this.#code.delete(undo.hash);
      } else {
        const overlay: Map<string, unknown> = undo.kind === "account" ? this.#accounts : this.#slots;
        if (undo.previous === undefined) overlay.delete(undo.address);
        else overlay.set(undo.address, undo.previous);
      }
    }
    journal.length = mark;
    if (this.#checkpoints.length > 0) return DONE;
    this.#settle();
    this.#rootAskedInside = false;
    return DONE;
  }

  /** Outside every checkpoint nothing can be reverted any more: the journal and the tx's original values go. */
  #settle(): void {
    this.#journal.length = 0;
    this.originalStorageCache.clear();
  }

  // ── Roots ───────────────────────────────────────────────────────────────────────────────────

  /**
   * The root of the base state with the overlay put in: copies of the tries inside a checkpoint
   * of their own, reverted after, so no node reaches the shared store. An account whose slots were
   * written then reports its new storage root, as after the package's flush (a CREATE's collision
   * check reads it, EIP-7610: eth_simulateV1's next block may CREATE2 onto an address a state
   * override gave storage); its unwritten slots are still read from its `readRoot`, whose nodes are
   * in the store. The new roots are journaled writes: a revert undoes them with the slots.
   */
  async getStateRoot(): Promise<Uint8Array> {
    // The live state, outside every checkpoint: the overlay goes into the tries. Inside one (runBlock
    // takes a block's root inside the block's checkpoint, then commits it), a view's root as below, and
    // the overlay goes into the tries when the outermost checkpoint commits: the block's state must be
    // readable at that root from then on.
    if (this.#live !== undefined) {
      if (this.#checkpoints.length === 0) return this.#writeOverlay();
      this.#rootAskedInside = true;
    }
    if (this.#accounts.size === 0 && this.#slots.size === 0) return this.#root;
    const accountTrie = this.#accountTrie.shallowCopy(false);
    accountTrie.checkpoint();
    try {
      const ids = new Set([...this.#accounts.keys(), ...this.#slots.keys()]);
      for (const id of ids) {
        const addressBytes = bytesOfCheckedHex(id);
        let record = await this.#record(id, addressBytes);
        if (record === null) {
          await accountTrie.del(addressBytes);
          continue;
        }
        const slots = this.#slots.get(id);
        if (slots !== undefined && slots.size > 0) {
          const storageTrie = this.#accountTrie.shallowCopy(false);
          storageTrie.root(record.readRoot);
          storageTrie.checkpoint();
          for (const [slot, value] of slots) {
            const slotBytes = bytesOfCheckedHex(slot);
            if (value.length === 0) await storageTrie.del(slotBytes);
            else await storageTrie.put(slotBytes, RLP.encode(value));
          }
          const storageRoot = storageTrie.root();
          await storageTrie.revert();
          if (!equalsBytes(storageRoot, record.storageRoot)) {
            record = { ...record, storageRoot };
            this.#setAccount(id, record);
          }
        }
        await accountTrie.put(addressBytes, new Account(record.nonce, record.balance, record.storageRoot, record.codeHash).serialize());
      }
      return accountTrie.root();
    } finally {
      await accountTrie.revert();
    }
  }

  /**
   * The live state's root (liveState.ts), outside every checkpoint: the overlay written into the
   * tries themselves, one batch per trie (trieBatch.ts: each changed node encoded and hashed once),
   * their nodes and the code put into the shared store. The base moves to the new root and what the
   * overlay held is carried into the memos under it (`ViewMemos.carry`): an account's slots under its
   * new storage root, the accounts under the new state root, so the next block reads what this one
   * wrote without a trie walk. The overlay is then empty.
   */
  async #writeOverlay(): Promise<Uint8Array> {
    if (this.#accounts.size === 0 && this.#slots.size === 0 && this.#code.size === 0) return this.#root;
    const store = this.#accountTrie.database();
    for (const [hash, code] of this.#code) {
      const codeHash = bytesOfCheckedHex(hash);
      const key = new Uint8Array(1 + codeHash.length);
      key.set(CODE_PREFIX);
      key.set(codeHash, 1);
      await store.put(key, code);
      this.#memos.rememberCode(hash, code);
    }
    const accounts: BatchOp[] = [];
    const records = new Map<string, AccountRecord | null>();
    // A kept root (a snapshot's) keeps its memos, and those of its accounts' storage roots this block writes.
    const keepFrom = this.#memos.isKept(this.#rootKey);
    for (const id of new Set([...this.#accounts.keys(), ...this.#slots.keys()])) {
      const addressBytes = bytesOfCheckedHex(id);
      const record = await this.#record(id, addressBytes);
      if (record === null) {
        accounts.push([addressBytes, null]);
        records.set(id, null);
        continue;
      }
      let storageRoot = record.storageRoot;
      const slots = this.#slots.get(id);
      if (slots !== undefined && slots.size > 0) {
        const ops: BatchOp[] = [];
        for (const [slot, value] of slots) ops.push([bytesOfCheckedHex(slot), value.length === 0 ? null : RLP.encode(value)]);
        this.#storageTrie.root(record.readRoot);
        await writeBatch(this.#storageTrie, ops);
        storageRoot = this.#storageTrie.root();
        this.#memos.carry(this.#memos.slots, keyOf(record.readRoot), keyOf(storageRoot), slots, keepFrom);
      }
      const written: AccountRecord = { nonce: record.nonce, balance: record.balance, storageRoot, codeHash: record.codeHash, readRoot: storageRoot };
      records.set(id, written);
      accounts.push([addressBytes, accountRLP(new Account(written.nonce, written.balance, storageRoot, written.codeHash))]);
    }
    await writeBatch(this.#accountTrie, accounts);
    const root = this.#accountTrie.root();
    const rootKey = flatHex(root);
    this.#memos.carry(this.#memos.accounts, this.#rootKey, rootKey, records, keepFrom);
    this.#root = root;
    this.#rootKey = rootKey;
    this.#accounts.clear();
    this.#slots.clear();
    this.#code.clear();
    return root;
  }

  /** Open checkpoints (0: no tx or dry run is running). */
  get checkpointDepth(): number {
    return this.#checkpoints.length;
  }

  /** What this state's reads of its tries are remembered in, by root (the live state's: what views read through). */
  get memos(): ViewMemos {
    return this.#memos;
  }

  /** The base state's root (the overlay not in it). */
  get baseRoot(): Uint8Array {
    return this.#root;
  }

  /** Moves the view to another root: the overlay and its journal go. */
  async setStateRoot(stateRoot: Uint8Array): Promise<void> {
    this.#tellReset();
    if (!equalsBytes(stateRoot, this.#accountTrie.EMPTY_TRIE_ROOT) && !(await hasTrieRoot(this.#accountTrie, stateRoot))) {
      throw new Error("State trie does not contain state root");
    }
    this.#accountTrie.root(stateRoot);
    this.#root = stateRoot;
    this.#rootKey = flatHex(stateRoot);
    this.clearCaches();
  }

  async hasStateRoot(root: Uint8Array): Promise<boolean> {
    return hasTrieRoot(this.#accountTrie, root);
  }

  /** Copies of the tries at the base root, for proofs (proof.ts): the account trie, and a storage trie at `storageRoot`. */
  baseTries(storageRoot?: Uint8Array): MerklePatriciaTrie {
    const trie = this.#accountTrie.shallowCopy(false);
    if (storageRoot !== undefined) trie.root(storageRoot);
    return trie;
  }

  /** Entries in the journal (what a revert to the outermost checkpoint undoes). */
  get journalLength(): number {
    return this.#journal.length;
  }

  // ── The rest of the interface ───────────────────────────────────────────────────────────────

  /** The overlay goes (what the package's clearCaches does to unflushed writes). */
  clearCaches(): void {
    this.#accounts.clear();
    this.#slots.clear();
    this.#code.clear();
    this.#checkpoints.length = 0;
    this.#rootAskedInside = false;
    this.#settle();
  }

  /**
   * Another view at the same base root, sharing the memos (an overlay is not copied, as the
   * package's caches are not). The live state's copy is a view at the last root written (writes
   * since are not in it: ask for the root first, as the chain does before every read of the live
   * state), with memos of its own (the live ones move).
   */
  shallowCopy(): ViewStateManager {
    if (this.#live !== undefined) {
      return new ViewStateManager({ common: this.common, trie: this.baseTries(), root: this.#root, memos: this.#live.copyMemos() });
    }
    return new ViewStateManager({ common: this.common, trie: this.#accountTrie, root: this.#root, memos: this.#memos, readThrough: this.#readThrough });
  }

  /** Whether this is the chain's live state (liveState.ts). */
  get isLive(): boolean {
    return this.#live !== undefined;
  }

  /** The live state: the node map of every trie of the chain (pruning reads it: prune.ts). */
  get nodeStore(): NodeStore | undefined {
    return this.#live?.store;
  }

  /** The live state's: keeps the memos of the state at `root` (a snapshot's) when it moves on from it (`ViewMemos.keep`). */
  keepMemos(root: Uint8Array): void {
    this.#memos.keep(flatHex(root));
  }
}

/** Applies `ops` to `trie` as one batch where the batch may write it, else key by key (the package's put and del). */
async function writeBatch(trie: MerklePatriciaTrie, ops: BatchOp[]): Promise<void> {
  if (canBatch(trie)) return applyBatch(trie, ops);
  for (const [key, value] of ops) await (value === null ? trie.del(key) : trie.put(key, value));
}

/**
 * Each slot's value when the tx began, for SSTORE's gas (EIP-2200, EIP-3529): the first read
 * since the outermost checkpoint opened, as @ethereumjs/statemanager's OriginalStorageCache keeps.
 */
class OriginalValues {
  /** By address, then slot. */
  #values = new Map<string, Map<string, Uint8Array>>();
  readonly #read: (address: Address, slot: Uint8Array) => Promise<Uint8Array>;
  constructor(read: (address: Address, slot: Uint8Array) => Promise<Uint8Array>) {
    this.#read = read;
  }

  async get(address: Address, slot: Uint8Array): Promise<Uint8Array> {
    const id = keyOf(address.bytes);
    const slotKey = flatHex(slot);
    let slots = this.#values.get(id);
    let value = slots?.get(slotKey);
    if (value === undefined) {
      value = await this.#read(address, slot);
      if (slots === undefined) {
        slots = new Map();
        this.#values.set(id, slots);
      }
      slots.set(slotKey, value);
    }
    return value;
  }

  clear(): void {
    if (this.#values.size > 0) this.#values = new Map();
  }
}
