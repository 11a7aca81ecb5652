/**
 * Patch (@ethereumjs/mpt 10.1.3, `MerklePatriciaTrie.prototype.findPath`): every trie read and
 * write (`get`, `put`, `del`, proofs) first finds the key's path from the root. The package walks it
 * through a `WalkController`: a prioritized task queue, a promise and a closure per node, a
 * callback that schedules the next node, for a walk that only ever follows one child. Here the same
 * walk is a loop over the trie's nodes, with the same matching rules and the same result: the node
 * found (or null), the key's nibbles left below the last node, and the nodes on the path, root
 * first. A missing node ends the walk as the package's does: with nothing found and the path so
 * far, or, with `throwIfMissing` (proof verification), with its error. A walk resumed from
 * `partialPath` runs the package's own.
 *
 * Each node is read as the package's `lookupNode` reads it (the database under `_getDbKey`, then
 * `decodeRawMPTNode` of the RLP list), with two costs left out: the package copies the stored bytes
 * before decoding them (`Uint8Array.from`, element by element; the RLP decoder copies what it
 * returns anyway), and it reports a missing node by throwing, which this walk catches at every read
 * of an empty storage trie (its root is in no database). A trie whose `lookupNode` is not the
 * package's is read through its own. A node is decoded once: the walk keeps decoded nodes by the
 * stored bytes they came from (and `_formatNode` adds each node it writes), and hands out copies;
 * `get`, which changes no node, walks the memoised nodes themselves and copies only the value.
 * test/trieFindPath.test.ts compares the two on random tries; the state roots the tests pin check
 * the writes.
 */
import { BranchMPTNode, decodeRawMPTNode, ExtensionMPTNode, isRawMPTNode, LeafMPTNode, MerklePatriciaTrie } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { equalsBytes, EthereumJSErrorWithoutCode, hexToBytes, ValueEncoding } from "@ethereumjs/util";

import { unprefixedHex } from "../common/hex.ts";
import { installTrieKeyHashes } from "./trieKeyHashes.ts";
import { decodeNodeItems, installTrieNodeEncoding } from "./trieNodeEncoding.ts";

import type { MPTNode, Path } from "@ethereumjs/mpt";

type FindPath = MerklePatriciaTrie["findPath"];

const ORIGINAL = Symbol.for("hardhat-preconf.trieFindPath.original");

type Patched = { [ORIGINAL]?: FindPath };

/** What the node read uses of the trie (private in 10.1.3). */
interface TrieDb {
  _db: { get(key: Uint8Array): Promise<Uint8Array | string | undefined> };
  _getDbKey(hash: Uint8Array): Uint8Array;
}

/** One operation `_formatNode` adds to the batch `saveStack` writes (mpt.js, 10.1.3). */
export type NodeOp = { type: "put"; key: Uint8Array; value: Uint8Array } | { type: "del"; key: Uint8Array };

/** `_formatNode` (private in 10.1.3): encodes a node, queues its write, returns its hash or, under 32 bytes, its raw form. */
type FormatNode = (node: MPTNode, topLevel: boolean, opStack: NodeOp[], remove?: boolean) => Uint8Array | Uint8Array[];

type Internal = { _formatNode: FormatNode };

/** The package's `_formatNode` (set by installTrieFindPath). */
let unpatchedFormatNode: FormatNode | undefined;

/**
 * `_formatNode` for trieBatch.ts: the package's, and the node written kept in the memo as it is,
 * not copied as the patched `_formatNode` copies the nodes of the package's own writes. The caller
 * gives the node away: it built it, of arrays nothing else changes (values it copied, nibbles and
 * hashes of its own, children shared with memoised nodes, which nothing changes either).
 */
export function formatNodeToMemo(trie: MerklePatriciaTrie, node: MPTNode, topLevel: boolean, opStack: NodeOp[]): Uint8Array | Uint8Array[] {
  if (unpatchedFormatNode === undefined) throw new Error("installTrieFindPath() first");
  const length = opStack.length;
  const result = unpatchedFormatNode.call(trie, node, topLevel, opStack);
  const op = opStack[length];
  if (op !== undefined && op.type === "put") remember(op.value, node);
  return result;
}

/** The package's own walk, for the test that compares the two. */
export function originalFindPath(): FindPath {
  const proto = MerklePatriciaTrie.prototype as MerklePatriciaTrie & Patched;
  return proto[ORIGINAL] ?? proto.findPath;
}

/** Installs the loop, the nodes' encoder (trieNodeEncoding.ts) and the key-hash memo (trieKeyHashes.ts), once per process. */
export function installTrieFindPath(): void {
  installTrieNodeEncoding();
  installTrieKeyHashes();
  const proto = MerklePatriciaTrie.prototype as MerklePatriciaTrie & Patched;
  if (proto[ORIGINAL] !== undefined) return;
  if (typeof proto.findPath !== "function" || typeof proto.lookupNode !== "function" || typeof (proto as unknown as Partial<TrieDb>)._getDbKey !== "function") {
    throw new Error("@ethereumjs/mpt: findPath or lookupNode changed; update src/node/ethereumjs/trieFindPath.ts");
  }
  const formatNode = (proto as unknown as Partial<Internal>)._formatNode;
  if (typeof formatNode !== "function") throw new Error("@ethereumjs/mpt: _formatNode changed; update src/node/ethereumjs/trieFindPath.ts");
  const original = proto.findPath;
  const lookupNode = proto.lookupNode;
  proto[ORIGINAL] = original;
  unpatchedFormatNode = formatNode;
  // A node written is memoised under the bytes written (the op's value is what the database keeps,
  // as is, for a trie storing bytes): the next put of the same flush walks the path just written.
  (proto as unknown as Internal)._formatNode = function (this: MerklePatriciaTrie, node, topLevel, opStack, remove = false) {
    const length = opStack.length;
    const result = formatNode.call(this, node, topLevel, opStack, remove);
    const op = opStack[length];
    if (op !== undefined && op.type === "put") remember(op.value, copyOf(node));
    return result;
  };
  const patched = function (this: MerklePatriciaTrie, key: Uint8Array, throwIfMissing = false, partialPath?: { stack: MPTNode[] }): Promise<Path> {
    if (partialPath !== undefined && partialPath.stack.length > 0) return original.call(this, key, throwIfMissing, partialPath);
    return findPath(this, key, throwIfMissing, this.lookupNode === lookupNode);
  };
  proto.findPath = patched;
  // `get` (mpt.js: findPath of the applied key, then the value of the node found with no nibbles
  // left) walks over the memoised nodes themselves: it changes none of them, so only the value it
  // hands out is copied, not every node on the path. A trie with a walk or lookup of its own, or
  // with debug output on, reads through the package's `get`.
  const get = proto.get;
  proto.get = async function (this: MerklePatriciaTrie & { DEBUG?: boolean }, key: Uint8Array, throwIfMissing = false): Promise<Uint8Array | null> {
    if (this.findPath !== patched || this.lookupNode !== lookupNode || this.DEBUG === true) return get.call(this, key, throwIfMissing);
    const applied = (this as unknown as { appliedKey(key: Uint8Array): Uint8Array }).appliedKey(key);
    const { node, remaining } = await findPath(this, applied, throwIfMissing, true, true);
    if (node === null || remaining.length !== 0) return null;
    const value = node.value();
    return value === null ? null : (value as Uint8Array).slice();
  };
}

/** The nibbles of `key`, as the package's `bytesToNibbles`. */
export function nibblesOf(key: Uint8Array): number[] {
  const nibbles = new Array<number>(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    nibbles[2 * i] = key[i]! >> 4;
    nibbles[2 * i + 1] = key[i]! & 0x0f;
  }
  return nibbles;
}

/**
 * The node `ref` points to, read as the package's `lookupNode` reads it; null when it is missing
 * from the database (where `lookupNode` throws "Missing node in DB"). `shared`: the memoised node
 * itself rather than a copy, for a caller that only reads it (`get`, `hasTrieRoot`).
 */
async function readNode(trie: MerklePatriciaTrie, ref: Uint8Array | Uint8Array[], shared = false): Promise<MPTNode | null> {
  if (isRawMPTNode(ref)) return decodeRawMPTNode(ref);
  const db = trie as unknown as TrieDb;
  const key = db._getDbKey(ref);
  const nodes = nodeMapOf(db._db);
  const stored = nodes !== undefined ? nodes.get(mapKey(key)) : await db._db.get(key);
  // A trie that stores nodes as hex (no bytes encoding): the package's own read.
  if (typeof stored === "string") return trie.lookupNode(ref);
  if (stored === undefined || stored === null) return null;
  const decoded = decodedNode(stored);
  return shared ? decoded : copyOf(decoded);
}

/** The node stored as `stored`, decoded once (the memo's own: the caller changes nothing in it). */
function decodedNode(stored: Uint8Array): MPTNode {
  let decoded = decodedNodes.get(stored);
  if (decoded === undefined) {
    decoded = decodeNodeBytes(stored);
    remember(stored, decoded);
  }
  return decoded;
}

/**
 * The map `trie`'s nodes are read from and written to, when both can be done synchronously: the
 * package's own `lookupNode`, nodes kept as bytes, and the database nodeMapOf reads straight through
 * (no checkpoint, no cache, an in-memory map). trieBatch.ts then reads and writes the map itself,
 * with no promise per node.
 */
export function syncNodeMap(trie: MerklePatriciaTrie): NodeMap | undefined {
  if (trie.lookupNode !== MerklePatriciaTrie.prototype.lookupNode) return undefined;
  const db = (trie as unknown as { _db: TrieDb["_db"] & { valueEncoding?: unknown } })._db;
  return db.valueEncoding === ValueEncoding.Bytes ? nodeMapOf(db) : undefined;
}

/**
 * The node under `hash` in `nodes` (from syncNodeMap), read as `lookupNode` reads it, with the same
 * error when it is missing. The node may be the memo's own: the caller reads it and changes nothing.
 */
export function loadStoredNode(trie: MerklePatriciaTrie, nodes: NodeMap, hash: Uint8Array): MPTNode {
  const stored = nodes.get(mapKey((trie as unknown as TrieDb)._getDbKey(hash)));
  if (stored === undefined || stored === null) throw EthereumJSErrorWithoutCode(MISSING);
  // Bytes are what a trie keeping bytes stores; a hex string is decoded as the package's read would.
  return typeof stored === "string" ? decodeNodeBytes(hexToBytes(`0x${stored}`)) : decodedNode(stored);
}

/** A stored node's bytes decoded as `lookupNode` decodes them (`decodeMPTNode`), with its error for what is not a node. */
function decodeNodeBytes(bytes: Uint8Array): MPTNode {
  const list = decodeNodeItems(bytes) ?? RLP.decode(bytes);
  if (!isRawMPTNode(list)) throw EthereumJSErrorWithoutCode("Invalid node");
  return decodeRawMPTNode(list);
}

/**
 * The package's `checkRoot` (mpt.js 10.1.3: whether the database holds the root's node, or the root
 * is the empty trie's; a node that does not decode throws) read through the memo of decoded nodes:
 * a view moved to the root of a block just sealed finds the node the seal wrote there, decoded,
 * where `lookupNode` would decode it again.
 */
export async function hasTrieRoot(trie: MerklePatriciaTrie, root: Uint8Array): Promise<boolean> {
  if (trie.lookupNode !== MerklePatriciaTrie.prototype.lookupNode) return trie.checkRoot(root);
  return (await readNode(trie, root, true)) !== null || equalsBytes(root, trie.EMPTY_TRIE_ROOT);
}

/**
 * Writes the nodes `_formatNode` queued into `nodes` (from syncNodeMap), under the key's unprefixed
 * hex: what @ethereumjs/mpt 10.1.3's CheckpointDB.batch, then MapDB.batch, put there, one awaited
 * call per node, except that a key the map holds keeps its array (the same bytes) where the package
 * would put the new one.
 */
export function writeTrieNodes(nodes: NodeMap, ops: NodeOp[]): void {
  for (const op of ops) {
    const key = mapKey(op.key);
    if (op.type === "del") {
      nodes.delete(key);
    } else if (nodes.has(key)) {
      // A node's key is its content's hash: the map holds these bytes already (a block mined again
      // after a revert, as a test's loadFixture then the same tx does, writes every node again).
      // The stored array stays, and the new one, forgotten, dies young rather than being promoted.
      decodedNodes.delete(op.value);
    } else {
      nodes.set(key, op.value);
    }
  }
}

/** A MapDB's map: nodes by their key's unprefixed hex. */
export type NodeMap = Map<string, Uint8Array | string>;

/**
 * The map a trie's nodes are kept in, when @ethereumjs/mpt 10.1.3's CheckpointDB (db/checkpointDB.js
 * `get`) would only look there: no checkpoint open (whose diff it reads first), no LRU cache (a
 * trie's `cacheSize`, 0 for every trie here), an in-memory MapDB (keyed by the key's unprefixed
 * hex). Its `get` is two async calls and a hex conversion in each; this read is one map lookup.
 */
function nodeMapOf(db: TrieDb["_db"]): NodeMap | undefined {
  const checkpointDb = db as unknown as CheckpointDbInternals;
  if (checkpointDb.checkpoints?.length !== 0 || checkpointDb._cache !== undefined) return undefined;
  const nodes = checkpointDb.db?._database;
  return nodes instanceof Map ? nodes : undefined;
}

/** A node's key in the MapDB's map: the unprefixed lowercase hex the package's `bytesToUnprefixedHex` gives, flat (common/hex.ts). */
const mapKey = unprefixedHex;

/** What nodeMapOf reads of a CheckpointDB and its MapDB (private in 10.1.3). */
interface CheckpointDbInternals {
  checkpoints?: unknown[];
  _cache?: unknown;
  db?: { _database?: unknown };
}

/**
 * Nodes decoded, by the stored bytes they were decoded from. A walk reads the same nodes again and
 * again (the root and upper branches of the account trie at every account write, the system
 * contracts' storage tries at every block), and a node under a hash never changes: the database
 * holds one encoding per key, and a write puts a new byte array (`_formatNode` encodes afresh), so
 * the stored array itself is the key — no hex, no hash. Bounded: the memo is emptied when full.
 */
const decodedNodes = new Map<Uint8Array, MPTNode>();
const MAX_DECODED_NODES = 4096;

function remember(stored: Uint8Array, node: MPTNode): void {
  if (decodedNodes.size >= MAX_DECODED_NODES) decodedNodes.clear();
  decodedNodes.set(stored, node);
}

/**
 * A node of its own for the caller: @ethereumjs/mpt 10.1.3's `_updateNode` and `_deleteNode`
 * (mpt.js) change the nodes of the path they are given (`setBranch` writes the branch's array;
 * `key(...)` and `value(...)` replace the leaf's or extension's fields, never change them in place),
 * so a memoised node is never handed out itself. Values are copied too, and so is every node
 * embedded in this one (a child under 32 bytes is kept inline, its leaf's value with it): `get`
 * hands values to callers, and a `put`'s value array is the caller's, which it may reuse.
 * Children referred to by hash are shared: nothing writes into a hash.
 */
function copyOf(node: MPTNode): MPTNode {
  if (node instanceof BranchMPTNode) {
    const raw = node.raw() as (Uint8Array | NestedBytes | null)[];
    for (let i = 0; i < 16; i++) {
      const child = raw[i];
      if (Array.isArray(child)) raw[i] = deepCopy(child);
    }
    const value = raw[16];
    if (value instanceof Uint8Array) raw[16] = value.slice();
    return BranchMPTNode.fromArray(raw as Uint8Array[]);
  }
  if (node instanceof LeafMPTNode) return new LeafMPTNode(node.key(), node.value().slice());
  const child = (node as ExtensionMPTNode).value() as Uint8Array | NestedBytes;
  return new ExtensionMPTNode(node.key(), (Array.isArray(child) ? deepCopy(child) : child) as Uint8Array);
}

/** An embedded node's raw form: byte strings and lists of them (null: an empty child of a branch not yet encoded). */
type NestedBytes = (Uint8Array | NestedBytes | null)[];

function deepCopy(items: NestedBytes): NestedBytes {
  return items.map((item) => (item === null ? null : item instanceof Uint8Array ? item.slice() : deepCopy(item)));
}

const MISSING = "Missing node in DB";

/** The walk; `shared`: the path's nodes may be the memo's own, for a caller that changes none (`get`). */
async function findPath(trie: MerklePatriciaTrie, key: Uint8Array, throwIfMissing: boolean, plainLookup: boolean, shared = false): Promise<Path> {
  const target = nibblesOf(key);
  const length = target.length;
  const stack: MPTNode[] = [];
  let progress = 0;
  let ref: Uint8Array | Uint8Array[] = trie.root();
  for (;;) {
    let node: MPTNode | null;
    try {
      node = plainLookup ? await readNode(trie, ref, shared) : await trie.lookupNode(ref);
    } catch (error) {
      if ((error as Error).message !== MISSING || throwIfMissing) throw error;
      node = null;
    }
    if (node === null) {
      if (throwIfMissing) throw EthereumJSErrorWithoutCode(MISSING);
      return { node: null, remaining: [], stack };
    }
    stack.push(node);
    if (node instanceof BranchMPTNode) {
      if (progress === length) return { node, remaining: [], stack };
      const child = node.getBranch(target[progress]!);
      if (child === null) {
        return { node: null, remaining: target.slice(progress), stack };
      }
      progress++;
      ref = child as Uint8Array | Uint8Array[];
    } else if (node instanceof LeafMPTNode) {
      const start = progress;
      const nodeKey = node.key();
      if (length - progress > nodeKey.length) return { node: null, remaining: target.slice(start), stack };
      for (const nibble of nodeKey) {
        if (nibble !== target[progress]) return { node: null, remaining: target.slice(start), stack };
        progress++;
      }
      return { node, remaining: [], stack };
    } else if (node instanceof ExtensionMPTNode) {
      const start = progress;
      for (const nibble of node.key()) {
        if (nibble !== target[progress]) return { node: null, remaining: target.slice(start), stack };
        progress++;
      }
      ref = node.value();
    } else {
      // Not a node the package's walk follows: it would end here with nothing found.
      return { node: null, remaining: [], stack };
    }
  }
}
