/**
 * Patch (@ethereumjs/mpt 10.1.3, `MerklePatriciaTrie.prototype.findPath`): every trie read and
 * write (`get`, `put`, `del`, proofs) first finds the key's path from the root. The package walks it
 * through a `WalkController`: a prioritized task queue, a promise and a closure per node, a
 * callback that schedules the next node, for a walk that only ever follows one child. Here the same
 * walk is a loop over `lookupNode` (the package's own node read: the database, then
 * `decodeMPTNode`), with the same matching rules and the same result: the node found (or null), the
 * key's nibbles left below the last node, and the nodes on the path, root first. A missing node ends
 * the walk as the package's does: with nothing found and the path so far, or, with `throwIfMissing`
 * (proof verification), with its error. A walk resumed from `partialPath` runs the package's own.
 * test/trieFindPath.test.ts compares the two on random tries; the state roots the tests pin check
 * the writes.
 */
import { BranchMPTNode, ExtensionMPTNode, LeafMPTNode, MerklePatriciaTrie } from "@ethereumjs/mpt";

import type { MPTNode, Path } from "@ethereumjs/mpt";

type FindPath = MerklePatriciaTrie["findPath"];

const ORIGINAL = Symbol.for("hardhat-preconf.trieFindPath.original");

type Patched = { [ORIGINAL]?: FindPath };

/** The package's own walk, for the test that compares the two. */
export function originalFindPath(): FindPath {
  const proto = MerklePatriciaTrie.prototype as MerklePatriciaTrie & Patched;
  return proto[ORIGINAL] ?? proto.findPath;
}

/** Installs the loop (once per process). */
export function installTrieFindPath(): void {
  const proto = MerklePatriciaTrie.prototype as MerklePatriciaTrie & Patched;
  if (proto[ORIGINAL] !== undefined) return;
  if (typeof proto.findPath !== "function" || typeof proto.lookupNode !== "function") {
    throw new Error("@ethereumjs/mpt: findPath or lookupNode changed; update src/node/ethereumjs/trieFindPath.ts");
  }
  const original = proto.findPath;
  proto[ORIGINAL] = original;
  proto.findPath = function (this: MerklePatriciaTrie, key: Uint8Array, throwIfMissing = false, partialPath?: { stack: MPTNode[] }): Promise<Path> {
    if (partialPath !== undefined && partialPath.stack.length > 0) return original.call(this, key, throwIfMissing, partialPath);
    return findPath(this, key, throwIfMissing);
  };
}

/** The nibbles of `key`, as the package's `bytesToNibbles`. */
function nibblesOf(key: Uint8Array): number[] {
  const nibbles = new Array<number>(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    nibbles[2 * i] = key[i]! >> 4;
    nibbles[2 * i + 1] = key[i]! & 0x0f;
  }
  return nibbles;
}

async function findPath(trie: MerklePatriciaTrie, key: Uint8Array, throwIfMissing: boolean): Promise<Path> {
  const target = nibblesOf(key);
  const length = target.length;
  const stack: MPTNode[] = [];
  let progress = 0;
  let ref: Uint8Array | Uint8Array[] = trie.root();
  for (;;) {
    let node: MPTNode;
    try {
      node = await trie.lookupNode(ref);
    } catch (error) {
      if ((error as Error).message !== "Missing node in DB" || throwIfMissing) throw error;
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
