/**
 * The batched trie update (src/node/ethereumjs/trieBatch.ts) against @ethereumjs/mpt's own puts and
 * deletes, one key at a time: random batches on random tries must give the same root, the same
 * values, and the same nodes reachable from the root in the database. The last test compares with
 * the package as published, none of the engine's patches installed (its CommonJS build: a module
 * instance of its own, whose classes the patches never touch).
 */
import { createRequire } from "node:module";
import { sep } from "node:path";
import { pathToFileURL } from "node:url";

import { BranchMPTNode, ExtensionMPTNode, MerklePatriciaTrie } from "@ethereumjs/mpt";
import { bytesToHex, MapDB, ValueEncoding } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { expect } from "chai";
import fc from "fast-check";

import { applyBatch, canBatch } from "../src/node/ethereumjs/trieBatch.ts";
import { installTrieFindPath, originalFindPath } from "../src/node/ethereumjs/trieFindPath.ts";

import type { BatchOp } from "../src/node/ethereumjs/trieBatch.ts";

const require = createRequire(import.meta.url);
type Mpt = { MerklePatriciaTrie: typeof MerklePatriciaTrie };
/**
 * @ethereumjs/mpt 10.1.3 unpatched: whichever of its two builds (dist/cjs, dist/esm) this process
 * did not load as "@ethereumjs/mpt" (a test run under mocha loads the CommonJS one, tsx scripts the
 * ESM one), so a module instance whose classes the engine's patches never touched.
 */
async function unpatchedMpt(): Promise<Mpt> {
  const loaded = require.resolve("@ethereumjs/mpt");
  const cjs = loaded.replace(`${sep}esm${sep}`, `${sep}cjs${sep}`);
  const esm = loaded.replace(`${sep}cjs${sep}`, `${sep}esm${sep}`);
  for (const build of [require(cjs) as Mpt, (await import(pathToFileURL(esm).href)) as Mpt]) {
    if (build.MerklePatriciaTrie !== MerklePatriciaTrie) return build;
  }
  throw new Error("no unpatched build of @ethereumjs/mpt");
}

const runs = (base: number) => (process.env.FC_RUNS === undefined ? base : Number(process.env.FC_RUNS));
const SEED = Number(process.env.FC_SEED ?? 20_261_128);

/** Short keys over few byte values, so that they share prefixes: extensions, branch values, embedded nodes. */
const keyArb = fc.oneof(
  fc.uint8Array({ minLength: 1, maxLength: 3 }).map((bytes) => bytes.map((byte) => byte % 3)),
  fc.uint8Array({ minLength: 1, maxLength: 5 }).map((bytes) => bytes.map((byte) => (byte % 2) * 0x11)),
);
/** Values of 1–100 bytes, with the lengths where RLP and the 32-byte inline rule change. */
const valueArb = fc.oneof(
  fc.uint8Array({ minLength: 1, maxLength: 3 }),
  fc.constantFrom(31, 32, 33, 55, 56).chain((length) => fc.uint8Array({ minLength: length, maxLength: length })),
  fc.uint8Array({ minLength: 1, maxLength: 100 }),
);
/** A put, a delete (null), or a put of the empty value (a delete too, as the package's `put`). */
const opArb: fc.Arbitrary<BatchOp> = fc.tuple(
  keyArb,
  fc.oneof({ weight: 3, arbitrary: valueArb }, { weight: 2, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constant(new Uint8Array()) }),
);
const batchArb = fc.array(opArb, { minLength: 1, maxLength: 30 });

/** Every node reachable from the root: its reference (a hash, or an inline node's raw form) → its encoding. */
async function reachable(trie: MerklePatriciaTrie): Promise<Map<string, string>> {
  const nodes = new Map<string, string>();
  if (bytesToHex(trie.root()) === bytesToHex(trie.EMPTY_TRIE_ROOT)) return nodes;
  const visit = async (ref: Uint8Array | Uint8Array[]): Promise<void> => {
    const node = await trie.lookupNode(ref);
    nodes.set(Array.isArray(ref) ? `inline:${bytesToHex(node.serialize())}` : bytesToHex(ref), bytesToHex(node.serialize()));
    if (node instanceof BranchMPTNode) for (const [, child] of node.getChildren()) await visit(child as Uint8Array | Uint8Array[]);
    else if (node instanceof ExtensionMPTNode) await visit(node.value() as Uint8Array | Uint8Array[]);
  };
  await visit(trie.root());
  return nodes;
}

/** Puts of 40 one-byte keys, each value its own length (1 to 40 bytes). */
function fortyPuts(): BatchOp[] {
  return Array.from({ length: 40 }, (_, i): BatchOp => [Uint8Array.of(i), Uint8Array.from({ length: 1 + i }, (_, j) => i + j)]);
}

describe("batched trie update (trieBatch.ts)", () => {
  before(() => installTrieFindPath());

  it("gives the root, values and reachable nodes of the package's puts and deletes, batch after batch", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(batchArb, { minLength: 1, maxLength: 4 }), fc.boolean(), fc.boolean(), async (batches, hashed, emptyAtEnd) => {
        const ours = new MerklePatriciaTrie({ useKeyHashing: hashed });
        const theirs = new MerklePatriciaTrie({ useKeyHashing: hashed });
        theirs.findPath = originalFindPath().bind(theirs);
        const model = new Map<string, [Uint8Array, Uint8Array]>();
        const keys = new Map<string, Uint8Array>();
        // The last batch may delete every key written: down to the empty root.
        const all = emptyAtEnd ? [...batches, batches.flat().map(([key]): BatchOp => [key, null])] : batches;
        // @ethereumjs/mpt 10.1.3's `del` loses a branch's value when it deletes a longer key through
        // that branch (keys of different lengths: unhashed only; a state trie's keys are all 32-byte
        // hashes). Where keys differ in length, the package's trie to compare with is the one its
        // `put`s build from the batches' result.
        const sameLength = hashed || new Set(all.flat().map(([key]) => key.length)).size === 1;
        for (const batch of all) {
          expect(canBatch(ours)).to.equal(true);
          await applyBatch(ours, batch);
          for (const [key, value] of batch) {
            keys.set(bytesToHex(key), key);
            if (value === null || value.length === 0) model.delete(bytesToHex(key));
            else model.set(bytesToHex(key), [key, value]);
            if (sameLength) await (value === null ? theirs.del(key) : theirs.put(key, value));
          }
          let reference = theirs;
          if (!sameLength) {
            reference = new MerklePatriciaTrie({ useKeyHashing: hashed });
            for (const [key, value] of model.values()) await reference.put(key, value);
          }
          expect(bytesToHex(ours.root())).to.equal(bytesToHex(reference.root()));
          for (const [hex, key] of keys) {
            const value = await ours.get(key);
            expect(value).to.deep.equal(await reference.get(key));
            expect(value === null ? null : bytesToHex(value)).to.equal(model.has(hex) ? bytesToHex(model.get(hex)![1]) : null);
          }
          expect([...(await reachable(ours))].sort()).to.deep.equal([...(await reachable(reference))].sort());
        }
        if (emptyAtEnd) expect(bytesToHex(ours.root())).to.equal(bytesToHex(ours.EMPTY_TRIE_ROOT));
      }),
      { numRuns: runs(300), seed: SEED },
    );
  });

  it("leaves the trie as it was for deletes of keys it does not hold, writing nothing", async () => {
    const trie = new MerklePatriciaTrie({ useKeyHashing: true });
    await trie.put(Uint8Array.of(1), Uint8Array.of(1));
    await trie.put(Uint8Array.of(2, 2), Uint8Array.of(2));
    const root = trie.root();
    // Nodes go into the MapDB's map itself (trieFindPath.ts writeTrieNodes).
    let writes = 0;
    const nodes = (trie.database() as unknown as { db: { _database: Map<string, unknown> } }).db._database;
    const set = nodes.set.bind(nodes);
    nodes.set = (key, value) => {
      writes++;
      return set(key, value);
    };
    await applyBatch(trie, [
      [Uint8Array.of(2), null],
      [Uint8Array.of(3), new Uint8Array()],
    ]);
    expect(bytesToHex(trie.root())).to.equal(bytesToHex(root));
    expect(writes).to.equal(0);
  });

  it("leaves the trie as it was for puts of the values it already holds, writing nothing", async () => {
    const trie = new MerklePatriciaTrie({ useKeyHashing: true });
    const ops = fortyPuts();
    await applyBatch(trie, ops);
    const root = trie.root();
    // Nodes go into the MapDB's map itself (trieFindPath.ts writeTrieNodes).
    let writes = 0;
    const nodes = (trie.database() as unknown as { db: { _database: Map<string, unknown> } }).db._database;
    const set = nodes.set.bind(nodes);
    nodes.set = (key, value) => {
      writes++;
      return set(key, value);
    };
    // The same values (fresh copies), a delete of an absent key among them: nothing to do.
    await applyBatch(trie, [...ops.map(([key, value]): BatchOp => [key.slice(), value!.slice()]), [Uint8Array.of(200), null]]);
    expect(bytesToHex(trie.root())).to.equal(bytesToHex(root));
    expect(writes).to.equal(0);
    // One changed value among them: written as before.
    await applyBatch(trie, [...ops, [Uint8Array.of(7), Uint8Array.of(99)]]);
    const reference = new MerklePatriciaTrie({ useKeyHashing: true });
    for (const [key, value] of ops) await reference.put(key, key[0] === 7 ? Uint8Array.of(99) : value!);
    expect(bytesToHex(trie.root())).to.equal(bytesToHex(reference.root()));
    expect(writes).to.be.greaterThan(0);
  });

  it("keeps the arrays it holds when a batch writes nodes whose keys it has (a state written again after going back to an earlier root)", async () => {
    const trie = new MerklePatriciaTrie({ useKeyHashing: true });
    const ops = fortyPuts();
    await applyBatch(trie, ops);
    const base = trie.root();
    await applyBatch(trie, [[Uint8Array.of(7), Uint8Array.of(99)]]);
    const changed = trie.root();
    const nodes = (trie.database() as unknown as { db: { _database: Map<string, Uint8Array> } }).db._database;
    const stored = new Map(nodes);
    // Back to the base root (a revert), then the same change again: the same nodes, under the same keys.
    trie.root(base);
    await applyBatch(trie, [[Uint8Array.of(7), Uint8Array.of(99)]]);
    expect(bytesToHex(trie.root())).to.equal(bytesToHex(changed));
    expect(nodes.size).to.equal(stored.size);
    for (const [key, value] of nodes) expect(value, key).to.equal(stored.get(key));
    // And reads through the kept arrays give what was written.
    expect(bytesToHex((await trie.get(Uint8Array.of(7)))!)).to.equal("0x63");
    expect(bytesToHex((await trie.get(Uint8Array.of(8)))!)).to.equal(bytesToHex(ops[8]![1]!));
  });

  it("is not for a trie with a checkpoint open", () => {
    const trie = new MerklePatriciaTrie();
    trie.checkpoint();
    expect(canBatch(trie)).to.equal(false);
  });

  it("is only for a trie whose nodes it reads and writes in a map, synchronously", () => {
    expect(canBatch(new MerklePatriciaTrie()), "bytes in a MapDB").to.equal(true);
    // Given a database and no encoding, the package keeps nodes as hex strings.
    expect(canBatch(new MerklePatriciaTrie({ db: new MapDB() })), "hex strings").to.equal(false);
    expect(canBatch(new MerklePatriciaTrie({ cacheSize: 10 })), "an LRU cache in front of the map").to.equal(false);
    const ownLookup = new MerklePatriciaTrie();
    ownLookup.lookupNode = async (node) => MerklePatriciaTrie.prototype.lookupNode.call(ownLookup, node);
    expect(canBatch(ownLookup), "a lookupNode of its own").to.equal(false);
    expect(() => applyBatch(new MerklePatriciaTrie({ db: new MapDB() }), [])).to.throw("check canBatch");
  });

  it("writes, batch after batch, the roots and nodes the unpatched package writes one key at a time (32-byte keys, random and sharing prefixes)", async () => {
    const upstream = await unpatchedMpt();
    expect(upstream.MerklePatriciaTrie.prototype.findPath).to.not.equal(MerklePatriciaTrie.prototype.findPath);
    /** 32-byte keys: random, or a few random bytes after a shared prefix (extensions, deep branches, embedded nodes). */
    const key32 = fc.oneof(
      fc.uint8Array({ minLength: 32, maxLength: 32 }),
      fc.tuple(fc.constantFrom(0, 1, 30, 31), fc.uint8Array({ minLength: 1, maxLength: 2 })).map(([at, tail]) => {
        const key = new Uint8Array(32).fill(0xab);
        for (let i = 0; i < tail.length; i++) key[Math.min(31, at + i)] = tail[i]! % 4;
        return key;
      }),
    );
    const op32: fc.Arbitrary<BatchOp> = fc.tuple(key32, fc.oneof({ weight: 3, arbitrary: valueArb }, { weight: 1, arbitrary: fc.constant(null) }));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(op32, { minLength: 1, maxLength: 20 }), { minLength: 1, maxLength: 5 }), fc.boolean(), async (batches, hashed) => {
        const options = { useKeyHashing: hashed, useKeyHashingFunction: keccak_256, valueEncoding: ValueEncoding.Bytes };
        const ourStore = new Map<string, Uint8Array>();
        const theirStore = new Map<string, Uint8Array>();
        const ours = new MerklePatriciaTrie({ ...options, db: new MapDB(ourStore) });
        const theirs = new upstream.MerklePatriciaTrie({ ...options, db: new MapDB(theirStore) });
        const written: Uint8Array[] = [];
        for (const batch of batches) {
          await applyBatch(ours, batch);
          for (const [key, value] of batch) {
            written.push(key);
            await (value === null ? theirs.del(key) : theirs.put(key, value));
          }
          expect(bytesToHex(ours.root())).to.equal(bytesToHex(theirs.root()));
        }
        // Every node the batches wrote is one the package wrote, byte for byte (the package also keeps
        // the nodes of the roots between its single writes), and the final root's nodes are all stored.
        for (const [hash, node] of ourStore) expect(bytesToHex(node), hash).to.equal(bytesToHex(theirStore.get(hash) ?? new Uint8Array()));
        for (const [hash] of await reachable(ours)) if (!hash.startsWith("inline:")) expect(ourStore.has(hash.slice(2)), hash).to.equal(true);
        for (const key of written)
          expect(bytesToHex((await ours.get(key)) ?? new Uint8Array())).to.equal(bytesToHex((await theirs.get(key)) ?? new Uint8Array()));
      }),
      { numRuns: runs(200), seed: SEED },
    );
  });
});
