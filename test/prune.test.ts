/**
 * The pruning pass itself (src/node/state/prune.ts), against an oracle: after a pass, the store holds
 * exactly what @ethereumjs/mpt's own walker reaches from the kept roots (every account trie node,
 * each account's storage-trie nodes and code), over a state with accounts, storage set and
 * cleared, code, and dozens of state roots; passes in a row, so the references carried from one
 * pass to the next are checked too.
 */
import { Common, Mainnet } from "@ethereumjs/common";
import { BranchMPTNode, ExtensionMPTNode, LeafMPTNode, MerklePatriciaTrie } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import {
  Account,
  bigIntToBytes,
  bytesToUnprefixedHex,
  createAddressFromString,
  KECCAK256_NULL,
  KECCAK256_RLP,
  MapDB,
  setLengthLeft,
  ValueEncoding,
} from "@ethereumjs/util";
import { expect } from "chai";

import { NodeStoreMap } from "../src/node/ethereumjs/nodeStore.ts";
import { createLiveState } from "../src/node/state/liveState.ts";
import { pruneStore } from "../src/node/state/prune.ts";

import type { NodeStore } from "../src/node/ethereumjs/internals.ts";

const slot = (n: number) => setLengthLeft(bigIntToBytes(BigInt(n)), 32);
const address = (n: number) => createAddressFromString(`0x${(0x1000 + n).toString(16).padStart(40, "0")}`);

/** Every key of `store` the roots reach, by @ethereumjs/mpt's walker; a node they reach that the store lacks fails the test. */
async function reachable(store: NodeStore, stateRoots: Uint8Array[], storageRoots: Uint8Array[]): Promise<Set<string>> {
  const keys = new Set<string>();
  // The walker runs its callbacks in its own task queue, where a thrown assertion would be lost: collected, asserted after.
  const missing: string[] = [];
  const need = (key: string, what: string) => {
    if (!store.has(key)) missing.push(`${what} ${key}`);
  };
  const walk = async (root: Uint8Array, onValue?: (value: Uint8Array) => Promise<void>) => {
    if (bytesToUnprefixedHex(root) === bytesToUnprefixedHex(KECCAK256_RLP)) return;
    need(bytesToUnprefixedHex(root), "root");
    const trie = new MerklePatriciaTrie({ db: new MapDB(store), root, valueEncoding: ValueEncoding.Bytes });
    await trie.walkTrie(root, async (nodeRef, node, key, controller) => {
      if (node === null) return;
      if (nodeRef.length === 32) keys.add(bytesToUnprefixedHex(nodeRef));
      const value = node instanceof LeafMPTNode || node instanceof BranchMPTNode ? node.value() : null;
      if (value !== null && value.length > 0 && onValue !== undefined) await onValue(value);
      const children = node instanceof BranchMPTNode ? node.getChildren().map(([, ref]) => ref) : node instanceof ExtensionMPTNode ? [node.value()] : [];
      for (const child of children) if (child.length === 32) need(bytesToUnprefixedHex(child as Uint8Array), "node");
      controller.allChildren(node, key);
    });
  };
  const onAccount = async (value: Uint8Array) => {
    const [, , storageRoot, codeHash] = RLP.decode(value) as Uint8Array[];
    await walk(storageRoot!);
    if (bytesToUnprefixedHex(codeHash!) === bytesToUnprefixedHex(KECCAK256_NULL)) return;
    need(`63${bytesToUnprefixedHex(codeHash!)}`, "code");
    keys.add(`63${bytesToUnprefixedHex(codeHash!)}`);
  };
  for (const root of stateRoots) await walk(root, onAccount);
  for (const root of storageRoots) await walk(root);
  expect(missing, "kept nodes missing from the store").to.deep.equal([]);
  return keys;
}

describe("pruneStore", () => {
  // 3 bits: eight indexes for hundreds of records, so lookups and deletions walk records sharing one.
  for (const indexBits of [undefined, 3]) {
    const indexed = indexBits === undefined ? "" : `, records indexed by ${indexBits} bits of their hash`;
    it(`leaves exactly what the kept roots reach, pass after pass${indexed}`, async () => {
      const stateManager = createLiveState(new Common({ chain: Mainnet }));
      const store = stateManager.nodeStore!;
      for (let n = 0; n < 12; n++) await stateManager.putAccount(address(n), new Account());
      const roots: Uint8Array[] = [];
      // 60 "blocks": balances move, a ring of slots is overwritten (as EIP-2935's), slots are cleared, code comes and goes.
      for (let block = 1; block <= 60; block++) {
        await stateManager.checkpoint();
        for (let n = 0; n < 4; n++) {
          const who = address((block * 7 + n) % 12);
          const account = (await stateManager.getAccount(who)) ?? new Account();
          await stateManager.putAccount(who, new Account(account.nonce + 1n, account.balance + BigInt(block), account.storageRoot, account.codeHash));
        }
        await stateManager.putStorage(address(0), slot(block % 16), bigIntToBytes(BigInt(block)));
        await stateManager.putStorage(address(1), slot(block), bigIntToBytes(BigInt(block) * 3n));
        if (block > 5) await stateManager.putStorage(address(1), slot(block - 5), new Uint8Array());
        if (block % 10 === 0) await stateManager.putCode(address(2 + block / 10), new Uint8Array([0x60, block, 0x00]));
        await stateManager.commit();
        roots.push(await stateManager.getStateRoot());

        if (block % 20 === 0) {
          const kept = roots.slice(-8);
          // The live state holds no storage trie open between roots (stateHistory.ts passes none).
          const open: Uint8Array[] = [];
          const before = store.size;
          const result = pruneStore(store, kept, open, indexBits);
          expect(result.deleted).to.be.greaterThan(0);
          expect(result.deleted).to.equal(before - store.size);
          const expected = await reachable(store, kept, open);
          expect(new Set(store.keys())).to.deep.equal(expected);
          // A second pass with the same roots has nothing left to delete.
          expect(pruneStore(store, kept, open, indexBits).deleted).to.equal(0);
        }
      }
      // The live state still reads: a balance written at block 60 and a slot of the ring.
      expect((await stateManager.getAccount(address((60 * 7) % 12)))!.nonce).to.be.greaterThan(0n);
      expect(await stateManager.getStorage(address(0), slot(60 % 16))).to.deep.equal(bigIntToBytes(60n));
    });
  }

  // 1 bit: two indexes, so most records deleted are not the first of theirs.
  for (const indexBits of [undefined, 1]) {
    const indexed = indexBits === undefined ? "" : `, records indexed by ${indexBits} bit of their hash`;
    it(`keeps a root it deleted nodes below once the root is kept again (nodes written again are counted again)${indexed}`, async () => {
      const stateManager = createLiveState(new Common({ chain: Mainnet }));
      const store = stateManager.nodeStore!;
      const write = async (value: number) => {
        await stateManager.putStorage(address(0), slot(1), bigIntToBytes(BigInt(value)));
        await stateManager.putAccount(address(5), new Account(0n, BigInt(value)));
        return stateManager.getStateRoot();
      };
      await stateManager.putAccount(address(0), new Account());
      const first = await write(1);
      await write(2);
      pruneStore(store, [await stateManager.getStateRoot()], [], indexBits);
      // The state of `first` is written again (same content, same keys): it is whole and kept.
      expect(await write(1)).to.deep.equal(first);
      pruneStore(store, [first], [], indexBits);
      expect(new Set(store.keys())).to.deep.equal(await reachable(store, [first], []));
      // And once it is no longer kept, the nodes written again go like any others.
      const third = await write(3);
      pruneStore(store, [third], [], indexBits);
      expect(new Set(store.keys())).to.deep.equal(await reachable(store, [third], []));
    });
  }

  it("a pass reads the entries written since the last one, not the whole store", async () => {
    const stateManager = createLiveState(new Common({ chain: Mainnet }));
    const store = stateManager.nodeStore!;
    expect(store).to.be.instanceOf(NodeStoreMap);
    // A large state first (a contract with 2,000 slots), then a block that writes one slot.
    await stateManager.putAccount(address(0), new Account());
    for (let n = 0; n < 2000; n++) await stateManager.putStorage(address(0), slot(n), bigIntToBytes(BigInt(n + 1)));
    let root = await stateManager.getStateRoot();
    pruneStore(store, [root], []);
    const sizeAfterFirstPass = store.size;
    expect(sizeAfterFirstPass).to.be.greaterThan(2000);

    const reads: string[] = [];
    const get = store.get.bind(store);
    store.get = (key: string) => {
      reads.push(key);
      return get(key);
    };
    const written: string[] = [];
    const set = store.set.bind(store);
    store.set = (key: string, value: Uint8Array | string) => {
      written.push(key);
      return set(key, value);
    };
    await stateManager.putStorage(address(0), slot(7), bigIntToBytes(99n));
    root = await stateManager.getStateRoot();
    expect(written.length).to.be.within(2, 20);
    reads.length = 0; // the trie's own reads of the path it wrote
    const result = pruneStore(store, [root], []);
    // The nodes the write replaced (its path) go; each entry read is one written since the last pass.
    expect(new Set(reads)).to.deep.equal(new Set(written));
    // Each node on the slot's path was replaced by one written: as many go, and the state reads whole.
    expect(result.deleted).to.equal(new Set(written).size);
    expect(store.size).to.equal(sizeAfterFirstPass);
    const { storageRoot } = (await stateManager.getAccount(address(0)))!;
    const storage = new MerklePatriciaTrie({ db: new MapDB(store), root: storageRoot, useKeyHashing: true, valueEncoding: ValueEncoding.Bytes });
    for (const n of [0, 7, 1234, 1999]) expect(RLP.decode(await storage.get(slot(n)))).to.deep.equal(bigIntToBytes(n === 7 ? 99n : BigInt(n + 1)));
  });

  it("NodeStoreMap records the keys set from its first takeWritten on, each once", () => {
    const map = new NodeStoreMap();
    map.set("a", new Uint8Array());
    expect(map.takeWritten(), "nothing recorded before the first call").to.equal(undefined);
    map.set("b", new Uint8Array());
    map.set("a", "00");
    map.delete("b");
    expect([...map.takeWritten()!]).to.deep.equal(["b", "a"]);
    expect([...map.takeWritten()!]).to.deep.equal([]);
    expect([...map.keys()]).to.deep.equal(["a"]);
    // The same keys set again and again between two passes (the same states written again): recorded once each.
    for (let n = 0; n < 10_000; n++) map.set(n % 2 === 0 ? "a" : "c", new Uint8Array());
    expect([...map.takeWritten()!]).to.deep.equal(["a", "c"]);
  });

  /** A 64-digit store key (a node's hash) made of one repeated byte. */
  const key = (byte: number) => bytesToUnprefixedHex(new Uint8Array(32).fill(byte));

  it("reads through a node embedded in a branch (under 32 bytes) to the children after it", () => {
    // A branch: child 0 an embedded leaf, child 1 the hash of a stored leaf, the rest empty. The
    // embedded leaf's value reads as an RLP list shorter than the value (not an account): the walk
    // must go on from the end of the embedded node, not from where that inner read stopped (there,
    // 0xa1 would read as a 33-byte string swallowing the next child).
    const embedded = [Uint8Array.of(0x20), Uint8Array.of(0xc0, 0xa1)];
    const children: (Uint8Array | Uint8Array[])[] = Array.from({ length: 17 }, () => new Uint8Array());
    children[0] = embedded;
    children[1] = new Uint8Array(32).fill(0xbb);
    const store: NodeStore = new Map([
      [key(0xaa), RLP.encode(children)],
      [key(0xbb), RLP.encode([Uint8Array.of(0x20), Uint8Array.of(0x02)])],
    ]);
    expect(pruneStore(store, [new Uint8Array(32).fill(0xaa)], []).deleted).to.equal(0);
    expect([...store.keys()]).to.deep.equal([key(0xaa), key(0xbb)]);
    // Once the branch is not kept, both go: the stored leaf only through the branch's link.
    expect(pruneStore(store, [], []).deleted).to.equal(2);
  });

  it("an entry cut short links to nothing and is pruned like any other; later passes still run", () => {
    // A list announcing a 32-byte string of which only 5 bytes are there (review input, not a trie's).
    const store: NodeStore = new Map([
      [key(0x01), Uint8Array.of(0xe2, 0x00, 0xa0, 1, 2, 3, 4, 5)],
      [key(0x02), RLP.encode([Uint8Array.of(0x20), Uint8Array.of(0x03)])],
    ]);
    expect(pruneStore(store, [new Uint8Array(32).fill(0x02)], []).deleted).to.equal(1);
    expect([...store.keys()]).to.deep.equal([key(0x02)]);
    expect(pruneStore(store, [], []).deleted).to.equal(1);
  });
  it("random DAGs of branches, account leaves and code, written and pruned in turns: a pass leaves exactly what the kept roots reach", () => {
    // A fixed-seed linear congruential generator: the same DAGs on every run.
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x80000000;
    };
    const below = (n: number) => Math.floor(random() * n);
    const bytesOf = (n: number) => Uint8Array.from({ length: n }, () => below(256));
    const hexOf = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
    const bytesOfHex = (hex: string) => Uint8Array.from(Buffer.from(hex, "hex"));
    let deleted = 0;
    for (let run = 0; run < 200; run++) {
      // Keys are random (no trie hashes them here): a node links to earlier ones, so the links form a DAG.
      const entries = new Map<string, { bytes: Uint8Array; links: string[] }>();
      const codes = Array.from({ length: 6 }, () => bytesOf(32));
      for (const code of codes) entries.set(`63${hexOf(code)}`, { bytes: bytesOf(10), links: [] });
      const nodes: string[] = [];
      for (let i = 0; i < 60; i++) {
        const kind = i < 5 ? "leaf" : (["leaf", "branch", "account"] as const)[below(3)];
        const links: string[] = [];
        let bytes: Uint8Array;
        if (kind === "leaf") {
          bytes = RLP.encode([Uint8Array.of(0x20, i), bytesOf(4)]);
        } else if (kind === "branch") {
          const children = Array.from({ length: 17 }, (_, slot) => {
            if (slot === 16 || random() >= 0.3) return new Uint8Array();
            const child = nodes[below(nodes.length)]!;
            links.push(child);
            return bytesOfHex(child);
          });
          bytes = RLP.encode(children);
        } else {
          const storageRoot = nodes[below(nodes.length)]!;
          const code = codes[below(codes.length)]!;
          links.push(storageRoot, `63${hexOf(code)}`);
          bytes = RLP.encode([Uint8Array.of(0x20, i), RLP.encode([Uint8Array.of(1), Uint8Array.of(2), bytesOfHex(storageRoot), code])]);
        }
        const key = hexOf(bytesOf(32));
        entries.set(key, { bytes, links });
        nodes.push(key);
      }
      // Odd runs: a plain Map, read whole each pass; even runs: a NodeStoreMap, read by what was written.
      const store: NodeStore = run % 2 === 1 ? new Map() : new NodeStoreMap();
      // A tenth of the links are left unwritten, to come later, as a fork's nodes arrive from its upstream.
      const write = (key: string): void => {
        if (store.has(key)) return;
        const { bytes, links } = entries.get(key)!;
        for (const link of links) if (random() < 0.9) write(link);
        store.set(key, random() < 0.5 ? bytes : hexOf(bytes));
      };
      const indexBits = 1 + below(3);
      for (let turn = 0; turn < 30; turn++) {
        // Entries deleted by an earlier pass come back with the same content, as a trie writes them again.
        for (let n = below(10); n > 0; n--) write(nodes[below(nodes.length)]!);
        if (random() >= 0.4) continue;
        const kept = nodes.filter((key) => store.has(key) && random() < 0.15);
        const expected = new Set<string>();
        // What the roots reach through stored entries (the store has nothing to say past a missing one).
        const reach = (key: string): void => {
          if (expected.has(key) || !store.has(key)) return;
          expected.add(key);
          for (const link of entries.get(key)!.links) reach(link);
        };
        for (const key of kept) reach(key);
        const split = below(kept.length + 1);
        deleted += pruneStore(store, kept.slice(0, split).map(bytesOfHex), kept.slice(split).map(bytesOfHex), indexBits).deleted;
        expect(new Set(store.keys()), `run ${run}, turn ${turn}`).to.deep.equal(expected);
      }
    }
    // Passes deleted in bulk, not a vacuous run (that both the unread deletions and the count-downs are
    // needed shows by breaking either: the comparison above fails).
    expect(deleted).to.be.greaterThan(10_000);
  });
});
