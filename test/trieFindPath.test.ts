/**
 * The trie's path walk as a loop (src/node/ethereumjs/trieFindPath.ts) is a patch of
 * @ethereumjs/mpt 10.1.3's `findPath`. These tests fail when any lookup answers differently than
 * the package's own walk (the node found, the nibbles left, the nodes on the path), when a trie
 * built through it has another root, or when a missing node is handled otherwise.
 */
import { BranchMPTNode, ExtensionMPTNode, LeafMPTNode, MerklePatriciaTrie } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { expect } from "chai";
import fc from "fast-check";

import { installTrieFindPath, loadStoredNode, originalFindPath, syncNodeMap } from "../src/node/ethereumjs/trieFindPath.ts";
import { decodeNodeItems, encodeNode } from "../src/node/ethereumjs/trieNodeEncoding.ts";

import type { MPTNode, Path } from "@ethereumjs/mpt";

const runs = (base: number) => (process.env.FC_RUNS === undefined ? base : Number(process.env.FC_RUNS));
const SEED = Number(process.env.FC_SEED ?? 20_261_127);

/** A path as comparable data: every node's encoding. */
const shape = (path: Path) => ({
  node: path.node === null ? null : bytesToHex(path.node.serialize()),
  remaining: [...path.remaining],
  stack: path.stack.map((node: MPTNode) => bytesToHex(node.serialize())),
});

/** Keys sharing prefixes often (short keys over few byte values), so that extensions and branch values occur. */
const keyArb = fc.uint8Array({ minLength: 1, maxLength: 4 }).map((bytes) => bytes.map((byte) => byte % 4));
const valueArb = fc.uint8Array({ minLength: 1, maxLength: 40 });

describe("trie path walk (trieFindPath.ts)", () => {
  before(() => installTrieFindPath());

  it("replaces the package's walk, once", () => {
    const patched = MerklePatriciaTrie.prototype.findPath;
    expect(patched).to.not.equal(originalFindPath());
    installTrieFindPath();
    expect(MerklePatriciaTrie.prototype.findPath).to.equal(patched);
  });

  it("finds what the package's walk finds, in tries built through either", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(keyArb, valueArb), { maxLength: 40 }),
        fc.array(keyArb, { maxLength: 20 }),
        fc.boolean(),
        async (entries, probes, hashed) => {
          const ours = new MerklePatriciaTrie({ useKeyHashing: hashed });
          const theirs = new MerklePatriciaTrie({ useKeyHashing: hashed });
          const original = originalFindPath();
          theirs.findPath = original.bind(theirs);
          for (const [key, value] of entries) {
            await ours.put(key, value);
            await theirs.put(key, value);
          }
          // Some deletes too, through both walks.
          for (const [key] of entries.slice(0, entries.length >> 2)) {
            await ours.del(key);
            await theirs.del(key);
          }
          expect(bytesToHex(ours.root())).to.equal(bytesToHex(theirs.root()));
          for (const key of [...entries.map(([key]) => key), ...probes]) {
            // The key as the trie walks it (`appliedKey`): hashed with useKeyHashing.
            const applied = hashed ? keccak_256(key) : key;
            expect(shape(await ours.findPath(applied))).to.deep.equal(shape(await original.call(ours, applied)));
            expect(await ours.get(key)).to.deep.equal(await theirs.get(key));
          }
        },
      ),
      { numRuns: runs(150), seed: SEED },
    );
  });

  it("keeps no array of a caller's: a put's value or a value got, changed afterwards, changes nothing stored", async () => {
    // Short unhashed keys and values keep the leaves embedded in their branch (under 32 bytes),
    // where a memoised node once shared its arrays with the caller.
    const ours = new MerklePatriciaTrie();
    const theirs = new MerklePatriciaTrie();
    theirs.findPath = originalFindPath().bind(theirs);
    const reused = Uint8Array.of(1, 2, 3);
    for (const trie of [ours, theirs]) {
      await trie.put(Uint8Array.of(0x11), Uint8Array.of(1));
      await trie.put(Uint8Array.of(0x12), Uint8Array.of(9));
      await trie.put(Uint8Array.of(0x13), reused);
    }
    reused[0] = 0xff;
    (await ours.get(Uint8Array.of(0x11)))![0] = 0xee;
    (await theirs.get(Uint8Array.of(0x11)))![0] = 0xee;
    for (const trie of [ours, theirs]) await trie.put(Uint8Array.of(0x14), Uint8Array.of(4));
    expect(bytesToHex((await ours.get(Uint8Array.of(0x13)))!)).to.equal("0x010203");
    expect(bytesToHex((await ours.get(Uint8Array.of(0x11)))!)).to.equal("0x01");
    expect(bytesToHex(ours.root())).to.equal(bytesToHex(theirs.root()));
  });

  it("encodes nodes and their items byte for byte as RLP.encode (trieNodeEncoding.ts)", () => {
    // Byte strings of the lengths where the prefix changes (1 byte under 0x80, 55/56, 255/256), nested lists, empty slots.
    const bytes = fc.oneof(fc.uint8Array({ maxLength: 3 }), fc.uint8Array({ minLength: 50, maxLength: 60 }), fc.uint8Array({ minLength: 250, maxLength: 300 }));
    const { item } = fc.letrec((tie) => ({
      item: fc.oneof({ depthSize: "small" }, bytes, fc.constant(null), fc.array(tie("item"), { maxLength: 17 })),
    }));
    fc.assert(
      fc.property(fc.array(item, { maxLength: 17 }), (raw) => {
        expect(bytesToHex(encodeNode(raw))).to.equal(bytesToHex(RLP.encode(raw as never)));
      }),
      { numRuns: runs(500), seed: SEED },
    );
    const branch = BranchMPTNode.fromArray([...new Array(16).fill(new Uint8Array()), new Uint8Array()]);
    branch.setBranch(3, new Uint8Array(32).fill(7));
    branch.setBranch(9, [Uint8Array.of(0x20), Uint8Array.of(1)]);
    const nodes = [branch, new BranchMPTNode(), new LeafMPTNode([1, 2, 3], new Uint8Array(70).fill(1)), new ExtensionMPTNode([4], new Uint8Array(32))];
    for (const node of nodes) expect(bytesToHex(node.serialize())).to.equal(bytesToHex(RLP.encode(node.raw() as never)));
    // Leaves and extensions: paths of every length from none to a whole key, odd and even, their hex-prefix encoding made from the nibbles.
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 15 }), { maxLength: 64 }), fc.boolean(), item, (nibbles, leaf, value) => {
        const node = leaf ? new LeafMPTNode(nibbles, value as Uint8Array) : new ExtensionMPTNode(nibbles, value as Uint8Array);
        expect(bytesToHex(node.serialize())).to.equal(bytesToHex(RLP.encode(node.raw() as never)));
        expect(node.key(), "the node's own path is left as it was").to.deep.equal(nibbles);
      }),
      { numRuns: runs(500), seed: SEED },
    );
  });

  it("decodes stored nodes as RLP.decode does, leaving it whatever it would refuse (trieNodeEncoding.ts decodeNodeItems)", () => {
    const bytes = fc.oneof(fc.uint8Array({ maxLength: 3 }), fc.uint8Array({ minLength: 50, maxLength: 60 }), fc.uint8Array({ minLength: 250, maxLength: 300 }));
    const { item } = fc.letrec((tie) => ({
      item: fc.oneof({ depthSize: "small" }, bytes, fc.array(tie("item"), { maxLength: 17 })),
    }));
    const decodedBoth = (encoded: Uint8Array) => {
      let expected: unknown;
      try {
        expected = RLP.decode(encoded);
      } catch {
        expected = "throws";
      }
      return { ours: decodeNodeItems(encoded), expected };
    };
    fc.assert(
      fc.property(fc.array(item, { maxLength: 17 }), fc.nat(), fc.integer({ min: 0, max: 255 }), fc.nat(4), (raw, at, byte, cut) => {
        const encoded = RLP.encode(raw as never);
        // A node as stored: decoded the same, items as copies.
        expect(decodeNodeItems(encoded)).to.deep.equal(RLP.decode(encoded));
        // Damaged (one byte changed, or cut short, or a byte after it): the same answer, or none (RLP.decode answers).
        const changed = encoded.slice();
        changed[at % changed.length] = byte;
        for (const damaged of [changed, encoded.subarray(0, Math.max(0, encoded.length - 1 - cut)), Uint8Array.of(...encoded, byte)]) {
          const { ours, expected } = decodedBoth(damaged);
          if (ours !== undefined) expect(ours).to.deep.equal(expected);
        }
      }),
      { numRuns: runs(1000), seed: SEED },
    );
    // Non-canonical encodings RLP.decode refuses are left to it: a prefixed byte under 0x80, a long form of a short string or list, a length with a leading zero.
    for (const refused of ["0xc28105", "0xc3b80105", "0xf80100", "0xc5b9000105"] as const) {
      expect(decodeNodeItems(hexToBytes(refused)), refused).to.equal(undefined);
      expect(() => RLP.decode(hexToBytes(refused)), refused).to.throw();
    }
    // Not a list (a node is always one), or trailing bytes: left to it too.
    for (const other of ["0x", "0x05", "0x8105", "0xc0c0"] as const) expect(decodeNodeItems(hexToBytes(other)), other).to.equal(undefined);
    // If this fails, each empty slot of a decoded branch is an array of its own again (what the decoder saves).
    const branch = decodeNodeItems(RLP.encode([...new Array(16).fill(new Uint8Array()), new Uint8Array()]))!;
    expect(branch[0]).to.equal(branch[15]).and.to.have.length(0);
  });

  it("reads a stored node through that decoder (the trie's walk and batches, loadStoredNode)", async () => {
    const trie = new MerklePatriciaTrie();
    await trie.put(Uint8Array.of(0x10), new Uint8Array(40).fill(1));
    await trie.put(Uint8Array.of(0x20), new Uint8Array(40).fill(2));
    const nodes = syncNodeMap(trie)!;
    // The root's bytes under a fresh array: not the node the write memoised, so it is decoded.
    const key = bytesToHex(trie.root()).slice(2);
    nodes.set(key, (nodes.get(key) as Uint8Array).slice());
    const root = loadStoredNode(trie, nodes, trie.root()) as BranchMPTNode;
    expect(root).to.be.instanceOf(BranchMPTNode);
    const branches = (root as unknown as { _branches: Uint8Array[] })._branches;
    expect(branches[0]).to.have.length(0);
    expect(branches[0], "one shared empty slot: decoded by decodeNodeItems").to.equal(branches[15]);
  });

  it("ends at a missing node as the package does: the path so far, or its error when asked", async () => {
    const trie = new MerklePatriciaTrie();
    for (let i = 0; i < 40; i++) await trie.put(Uint8Array.of(i, i * 7), new Uint8Array(33).fill(i + 1));
    const key = Uint8Array.of(5, 35);
    // Drop a node below the root: the walk reaches it and finds nothing there.
    const path = await trie.findPath(key);
    const below = path.stack[1]!.serialize();
    await trie.database().del(keccak_256(below));
    expect(shape(await trie.findPath(key))).to.deep.equal(shape(await originalFindPath().call(trie, key)));
    expect((await trie.findPath(key)).stack).to.have.length(1);
    const failures: string[] = [];
    for (const walk of [trie.findPath.bind(trie), originalFindPath().bind(trie)]) {
      try {
        await walk(key, true);
      } catch (error) {
        failures.push((error as Error).message);
      }
    }
    expect(failures).to.deep.equal(["Missing node in DB", "Missing node in DB"]);
    // An unknown root: nothing found, no path.
    trie.root(hexToBytes(`0x${"11".repeat(32)}`));
    expect(shape(await trie.findPath(key))).to.deep.equal({ node: null, remaining: [], stack: [] });
  });
});
