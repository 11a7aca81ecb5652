/**
 * A batch of puts and deletes applied to a @ethereumjs/mpt 10.1.3 trie with each touched node
 * encoded and hashed once. The package's `put` and `del` (mpt.js) each walk the key's path, change
 * it, and re-encode and re-hash every node on it up to the root (`saveStack`), so a flush writing n
 * keys hashes the upper nodes n times, each time for a root nobody reads again. Here the keys are
 * applied to nodes held in memory (read from the trie's database as the package reads them), and
 * one bottom-up pass then encodes each changed node with the package's own `_formatNode` (its
 * encoding, its hash, its database key, its rule that a node under 32 bytes is kept inline and the
 * root always hashed) and writes them at once (trieFindPath.ts `writeTrieNodes`: into the MapDB's
 * map itself, where the trie's CheckpointDB would only pass them on). The batch reads and writes that
 * map synchronously: no promise per node visited (the package's reads are async, a promise and an
 * await per level of every key's path, all for a map lookup). The database then holds every
 * node of the new root, as after the package's puts (which also leave the nodes of the roots in
 * between, reachable from nothing). A trie's structure is a function of its keys and values alone
 * (the Yellow Paper, appendix D, https://ethereum.github.io/yellowpaper/paper.pdf), so the order of
 * the batch does not matter. A delete of a key the trie does not hold changes nothing, as the
 * package's `del`. (The package's `del` of a key passing through a branch that holds a value of its
 * own, possible only with keys of different lengths, drops that value; here it stays. A state
 * trie's keys are all 32-byte hashes: no branch there holds a value.)
 *
 * Nodes are read from the memo of decoded nodes without a copy (nothing here changes a node it
 * read: the batch builds nodes of its own) and the nodes written go into the memo as they are
 * (trieFindPath.ts `formatNodeToMemo`; one whose key the map holds already is dropped from it, and
 * the stored array stays: `writeTrieNodes`), with the batch's values themselves: a value array is the
 * batch's once passed, and its caller never changes it (the live state passes encodings it has just
 * made). A copy of each would be an allocation of its own per value (an account's RLP is ~70
 * bytes, past the 64 that V8 keeps inside its heap: a malloc'd backing store each).
 *
 * Only for a trie in the state the package's per-key path would leave it plain: no checkpoint open
 * (writes would go into the checkpoint's diff), no node pruning, no root persistence, and its nodes
 * kept as bytes in an in-memory map (every trie of the chain's state: stateManager.ts `bytesTrie`);
 * `canBatch` says so, and `applyBatch`'s callers use the package's `put`/`del` otherwise.
 * test/trieBatch.test.ts compares the two on random batches (root, gets, nodes reachable), and
 * with the package unpatched (every node written byte for byte one it writes).
 */
import { BranchMPTNode, decodeRawMPTNode, ExtensionMPTNode, isRawMPTNode, LeafMPTNode, type MerklePatriciaTrie } from "@ethereumjs/mpt";
import { equalsBytes } from "@ethereumjs/util";

import { formatNodeToMemo, installTrieFindPath, loadStoredNode, nibblesOf, syncNodeMap, writeTrieNodes } from "./trieFindPath.ts";

import type { MPTNode } from "@ethereumjs/mpt";
import type { NodeMap, NodeOp } from "./trieFindPath.ts";

/** A child as a package node holds it: a hash, or an inline node's raw form. */
type Ref = Uint8Array | Uint8Array[];

/** A node changed by the batch, held in memory until it is encoded. */
type Node = Branch | Leaf | Extension;
interface Branch {
  kind: 0;
  children: (Child | null)[];
  value: Uint8Array | null;
}
interface Leaf {
  kind: 1;
  key: number[];
  value: Uint8Array;
}
interface Extension {
  kind: 2;
  key: number[];
  child: Child;
}
/** A changed node, or the package's reference to a node the batch left as it was. */
type Child = Node | Ref;

/** One write of a batch: a value to put, or null to delete the key. */
export type BatchOp = [key: Uint8Array, value: Uint8Array | null];

/** The private parts of a 10.1.3 trie the batch uses (mpt.js). */
interface TrieInternals {
  _opts: { useNodePruning: boolean; useRootPersistence: boolean };
  _formatNode(node: MPTNode, topLevel: boolean, opStack: NodeOp[]): Ref;
  /** The key as the trie keeps it: keccak of it for a trie hashing keys. */
  appliedKey(key: Uint8Array): Uint8Array;
}

const internalsOf = (trie: MerklePatriciaTrie): TrieInternals => trie as unknown as TrieInternals;

/**
 * Whether `applyBatch` writes `trie` as the package's `put`/`del` would: a plain trie, no checkpoint
 * open, its nodes in a map it reads and writes synchronously (trieFindPath.ts `syncNodeMap`).
 */
export function canBatch(trie: MerklePatriciaTrie): boolean {
  const internals = internalsOf(trie);
  return (
    !trie.hasCheckpoints() &&
    internals._opts.useNodePruning !== true &&
    internals._opts.useRootPersistence !== true &&
    typeof internals._formatNode === "function" &&
    syncNodeMap(trie) !== undefined
  );
}

/** The trie a batch reads, and the map its nodes are read from. */
interface Source {
  trie: MerklePatriciaTrie;
  nodes: NodeMap;
}

/**
 * Applies `ops` (keys as the caller's `put` takes them: hashed here when the trie hashes keys; an
 * empty value deletes, as `put` does) and sets the trie's root, synchronously: every node is in the
 * map (a missing one throws the package's "Missing node in DB" before anything is written). The
 * values are kept as they are (in the nodes and the memo of decoded nodes): the caller must not
 * change them afterwards. The caller checks `canBatch`.
 */
export function applyBatch(trie: MerklePatriciaTrie, ops: Iterable<BatchOp>): void {
  installTrieFindPath();
  const nodes = syncNodeMap(trie);
  if (nodes === undefined) throw new Error("applyBatch: the trie's nodes are not in a map it reads synchronously (check canBatch)");
  const source: Source = { trie, nodes };
  let root: Child | null = equalsBytes(trie.root(), trie.EMPTY_TRIE_ROOT) ? null : trie.root();
  for (const [key, value] of ops) {
    const nibbles = nibblesOf(internalsOf(trie).appliedKey(key));
    if (value === null || value.length === 0) {
      const result = remove(source, root, nibbles, 0);
      if (result !== UNCHANGED) root = result;
    } else {
      const result = insert(source, root, nibbles, 0, value);
      if (result !== UNCHANGED) root = result;
    }
  }
  if (root === null) {
    trie.root(trie.EMPTY_TRIE_ROOT);
    return;
  }
  if (!isNode(root)) return;
  const opStack: NodeOp[] = [];
  const hash = encode(trie, root, true, opStack) as Uint8Array;
  writeTrieNodes(nodes, opStack);
  trie.root(hash);
}

const isNode = (child: Child): child is Node => !(child instanceof Uint8Array) && !Array.isArray(child);

/** The node `child` refers to, in memory (a fresh object the batch may change). */
function resolve(source: Source, child: Child): Node {
  if (isNode(child)) return child;
  const node = isRawMPTNode(child) ? decodeRawMPTNode(child) : loadStoredNode(source.trie, source.nodes, child);
  if (node instanceof BranchMPTNode) {
    const children: (Child | null)[] = new Array(16);
    for (let i = 0; i < 16; i++) children[i] = node.getBranch(i) as Ref | null;
    return { kind: 0, children, value: node.value() };
  }
  if (node instanceof LeafMPTNode) return { kind: 1, key: node.key(), value: node.value() as Uint8Array };
  if (node instanceof ExtensionMPTNode) return { kind: 2, key: node.key(), child: node.value() as Ref };
  throw new Error("Invalid node");
}

/** How many leading nibbles `key` shares with `nibbles` from `at`. */
function sharedLength(key: number[], nibbles: number[], at: number): number {
  let n = 0;
  while (n < key.length && at + n < nibbles.length && key[n] === nibbles[at + n]) n++;
  return n;
}

const leaf = (key: number[], value: Uint8Array): Leaf => ({ kind: 1, key, value });
const branch = (): Branch => ({ kind: 0, children: new Array<Child | null>(16).fill(null), value: null });

/**
 * `child` with the key `nibbles` (from `at`) set to `value`; UNCHANGED when the trie already holds
 * that value there. A flush puts every key the block read as well as those it wrote (the
 * statemanager's caches list a read like a write: merkleStateManager.js `getAccount`/`getStorage`
 * put what they read into the cache), so most puts of a block can be of a value already held: the
 * path is then left as it was, its nodes neither rebuilt, encoded, hashed nor written again. The
 * trie is the same either way (its structure is a function of its keys and values).
 */
function insert(source: Source, child: Child | null, nibbles: number[], at: number, value: Uint8Array): Node | typeof UNCHANGED {
  // The value itself (the batch's to keep: see applyBatch) goes into the node written and the memo of decoded nodes.
  if (child === null) return leaf(nibbles.slice(at), value);
  const node = resolve(source, child);
  if (node.kind === 0) {
    if (at === nibbles.length) {
      if (node.value !== null && equalsBytes(node.value, value)) return UNCHANGED;
      node.value = value;
      return node;
    }
    const result = insert(source, node.children[nibbles[at]!]!, nibbles, at + 1, value);
    if (result === UNCHANGED) return UNCHANGED;
    node.children[nibbles[at]!] = result;
    return node;
  }
  const shared = sharedLength(node.key, nibbles, at);
  if (node.kind === 1 && shared === node.key.length && at + shared === nibbles.length) {
    if (equalsBytes(node.value, value)) return UNCHANGED;
    node.value = value;
    return node;
  }
  if (node.kind === 2 && shared === node.key.length) {
    const result = insert(source, node.child, nibbles, at + shared, value);
    if (result === UNCHANGED) return UNCHANGED;
    node.child = result;
    return node;
  }
  // The keys part after `shared` nibbles: a branch there, the node's rest under one child, the new key's under another (or as the branch's value).
  const fork = branch();
  const rest = node.key.slice(shared + 1);
  if (node.kind === 1) {
    if (shared === node.key.length) fork.value = node.value;
    else fork.children[node.key[shared]!] = leaf(rest, node.value);
  } else {
    fork.children[node.key[shared]!] = rest.length === 0 ? node.child : { kind: 2, key: rest, child: node.child };
  }
  const end = at + shared;
  if (end === nibbles.length) fork.value = value;
  else fork.children[nibbles[end]!] = leaf(nibbles.slice(end + 1), value);
  return shared === 0 ? fork : { kind: 2, key: node.key.slice(0, shared), child: fork };
}

const UNCHANGED = Symbol("unchanged");

/** `child` without the key `nibbles` (from `at`): null when nothing is left, UNCHANGED when the key is absent. */
function remove(source: Source, child: Child | null, nibbles: number[], at: number): Node | null | typeof UNCHANGED {
  if (child === null) return UNCHANGED;
  const node = resolve(source, child);
  if (node.kind === 1) {
    const shared = sharedLength(node.key, nibbles, at);
    return shared === node.key.length && at + shared === nibbles.length ? null : UNCHANGED;
  }
  if (node.kind === 2) {
    const shared = sharedLength(node.key, nibbles, at);
    if (shared !== node.key.length) return UNCHANGED;
    const result = remove(source, node.child, nibbles, at + shared);
    if (result === UNCHANGED) return UNCHANGED;
    if (result === null) return null;
    return joined(node.key, result);
  }
  if (at === nibbles.length) {
    if (node.value === null) return UNCHANGED;
    node.value = null;
  } else {
    const index = nibbles[at]!;
    const result = remove(source, node.children[index]!, nibbles, at + 1);
    if (result === UNCHANGED) return UNCHANGED;
    node.children[index] = result;
  }
  // A branch left with one entry is no branch: its value becomes a leaf, its only child moves up.
  let only = -1;
  let count = node.value === null ? 0 : 1;
  for (let i = 0; i < 16; i++) {
    if (node.children[i] !== null) {
      only = i;
      count++;
    }
  }
  if (count >= 2) return node;
  if (count === 0) return null;
  if (only === -1) return leaf([], node.value!);
  return joined([only], resolve(source, node.children[only]!));
}

/** `prefix` followed by `node`: leaves and extensions take the prefix into their key. */
function joined(prefix: number[], node: Node): Node {
  if (node.kind === 1) return leaf(prefix.concat(node.key), node.value);
  if (node.kind === 2) return { kind: 2, key: prefix.concat(node.key), child: node.child };
  return { kind: 2, key: prefix, child: node };
}

/** Encodes `node` and the changed nodes under it, queueing their writes; returns its reference. */
function encode(trie: MerklePatriciaTrie, node: Node, topLevel: boolean, opStack: NodeOp[]): Ref {
  let packaged: MPTNode;
  if (node.kind === 0) {
    // A plain loop, no closure per node (tsx names every closure it creates, a call each).
    const raw = new Array<Ref | Uint8Array | null>(17);
    for (let i = 0; i < 16; i++) {
      const child = node.children[i]!;
      raw[i] = child === null ? null : isNode(child) ? encode(trie, child, false, opStack) : child;
    }
    raw[16] = node.value;
    packaged = BranchMPTNode.fromArray(raw as Uint8Array[]);
  } else if (node.kind === 1) {
    packaged = new LeafMPTNode(node.key, node.value);
  } else {
    const child = node.child;
    packaged = new ExtensionMPTNode(node.key, (isNode(child) ? encode(trie, child, false, opStack) : child) as Uint8Array);
  }
  return formatNodeToMemo(trie, packaged, topLevel, opStack);
}
