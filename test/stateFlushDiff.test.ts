/**
 * The live state (createStateManager: batched flush, decoded-node memo, one-pass account RLP)
 * against @ethereumjs/statemanager 10.1.3 as published, none of the engine's patches installed (the
 * build this process did not load, whose @ethereumjs/mpt is untouched): random sequences of account,
 * storage and code writes, deletes and re-creations, storage clears, checkpoints committed and
 * reverted, flushes with checkpoints open and roots asked for mid-sequence must give the same roots;
 * afterwards every root seen must still be readable (accounts, slots, proofs byte for byte), as
 * state views and eth_getProof read older roots from the shared node store; dumps of the last one agree.
 */
import { createRequire } from "node:module";
import { sep } from "node:path";
import { pathToFileURL } from "node:url";

import { Common, Mainnet } from "@ethereumjs/common";
import { createMerkleProof, MerklePatriciaTrie } from "@ethereumjs/mpt";
import { MerkleStateManager } from "@ethereumjs/statemanager";
import { Account, Address, bytesToHex, MapDB, ValueEncoding } from "@ethereumjs/util";
import { expect } from "chai";
import fc from "fast-check";

import { merkleInternals } from "../src/node/ethereumjs/internals.ts";
import { createStateManager, dropStorageTrie } from "../src/node/ethereumjs/stateManager.ts";

const require = createRequire(import.meta.url);

type Upstream = {
  sm: { MerkleStateManager: typeof MerkleStateManager; Caches: new () => unknown };
  mpt: { MerklePatriciaTrie: typeof MerklePatriciaTrie; createMerkleProof: typeof createMerkleProof };
};

/** The build of a package this process did not load as its name (see test/trieBatch.test.ts). */
async function otherBuild<T>(name: string, loadedExport: unknown, pick: (module: T) => unknown): Promise<T> {
  const loaded = require.resolve(name);
  const cjs = loaded.replace(`${sep}esm${sep}`, `${sep}cjs${sep}`);
  const esm = loaded.replace(`${sep}cjs${sep}`, `${sep}esm${sep}`);
  for (const build of [require(cjs) as T, (await import(pathToFileURL(esm).href)) as T]) if (pick(build) !== loadedExport) return build;
  throw new Error(`no other build of ${name}`);
}

async function upstream(): Promise<Upstream> {
  const sm = await otherBuild<Upstream["sm"]>("@ethereumjs/statemanager", MerkleStateManager, (m) => m.MerkleStateManager);
  const mpt = await otherBuild<Upstream["mpt"]>("@ethereumjs/mpt", MerklePatriciaTrie, (m) => m.MerklePatriciaTrie);
  return { sm, mpt };
}

const runs = (base: number) => (process.env.FC_RUNS === undefined ? base : Number(process.env.FC_RUNS));
const SEED = Number(process.env.FC_SEED ?? 20_261_128);

const ADDRESSES = [1, 2, 3, 0x1000].map((n) => new Address(Uint8Array.from({ length: 20 }, (_, i) => (i === 19 ? n & 0xff : i === 18 ? n >> 8 : 0))));
/** Slots: a few small ones and one sharing a long prefix with them (hashed keys scatter anyway). */
const SLOTS = [0, 1, 2, 3, 255].map((n) => Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? n : 0)));

type Op =
  | { kind: "putAccount"; a: number; nonce: bigint; balance: bigint }
  | { kind: "deleteAccount"; a: number }
  | { kind: "putStorage"; a: number; s: number; value: Uint8Array }
  | { kind: "clearStorage"; a: number }
  | { kind: "putCode"; a: number; code: Uint8Array }
  | { kind: "checkpoint" }
  | { kind: "commit" }
  | { kind: "revert" }
  | { kind: "flush" }
  | { kind: "root" }
  | { kind: "read"; a: number; s: number };

const address = fc.nat(ADDRESSES.length - 1);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant("putAccount" as const), a: address, nonce: fc.bigInt(0n, 3n), balance: fc.constantFrom(0n, 1n, 10n ** 30n) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("deleteAccount" as const), a: address }) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("putStorage" as const),
      a: address,
      s: fc.nat(SLOTS.length - 1),
      value: fc.oneof(fc.constant(new Uint8Array()), fc.uint8Array({ minLength: 1, maxLength: 32 })),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("clearStorage" as const), a: address }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("putCode" as const), a: address, code: fc.uint8Array({ minLength: 1, maxLength: 40 }) }) },
  { weight: 2, arbitrary: fc.constantFrom<Op>({ kind: "checkpoint" }, { kind: "commit" }, { kind: "revert" }) },
  { weight: 2, arbitrary: fc.constantFrom<Op>({ kind: "flush" }, { kind: "root" }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("read" as const), a: address, s: fc.nat(SLOTS.length - 1) }) },
);

type State = MerkleStateManager;

/** What `op` answers on `state` (a read, a root, or whether it threw). */
async function apply(state: State, op: Op, depth: { n: number }, onDelete: (state: State, a: Address) => void): Promise<string> {
  try {
    switch (op.kind) {
      case "putAccount":
        await state.putAccount(ADDRESSES[op.a]!, new Account(op.nonce, op.balance));
        return "";
      case "deleteAccount":
        await state.deleteAccount(ADDRESSES[op.a]!);
        onDelete(state, ADDRESSES[op.a]!);
        return "";
      case "putStorage":
        await state.putStorage(ADDRESSES[op.a]!, SLOTS[op.s]!, op.value);
        return "";
      case "clearStorage":
        if ((await state.getAccount(ADDRESSES[op.a]!)) === undefined) return "none";
        await state.clearStorage(ADDRESSES[op.a]!);
        return "";
      case "putCode":
        await state.putCode(ADDRESSES[op.a]!, op.code);
        return "";
      case "checkpoint":
        await state.checkpoint();
        depth.n++;
        return "";
      case "commit":
        if (depth.n === 0) return "";
        await state.commit();
        depth.n--;
        return "";
      case "revert":
        if (depth.n === 0) return "";
        await state.revert();
        depth.n--;
        return "";
      case "flush":
        await state.flush();
        return "";
      case "root":
        return bytesToHex(await state.getStateRoot());
      case "read": {
        const account = await state.getAccount(ADDRESSES[op.a]!);
        if (account === undefined) return "no account";
        return `${account.nonce}/${account.balance}/${bytesToHex(account.codeHash)}/${bytesToHex(await state.getStorage(ADDRESSES[op.a]!, SLOTS[op.s]!))}`;
      }
    }
  } catch (error) {
    return `threw ${(error as Error).message}`;
  }
}

/** Accounts, slots and proofs at `root`, read on a copy of `state` (as a state view reads an older block). */
async function at(state: State, root: Uint8Array, prove: typeof createMerkleProof): Promise<string[]> {
  const view = state.shallowCopy(false);
  await view.setStateRoot(root);
  const out: string[] = [];
  for (const a of ADDRESSES) {
    const account = await view.getAccount(a);
    out.push(account === undefined ? "none" : bytesToHex(account.serialize()));
    out.push((await prove(merkleInternals(view)._trie as never, a.bytes)).map((node) => bytesToHex(node)).join(","));
    if (account !== undefined) for (const s of SLOTS) out.push(bytesToHex(await view.getStorage(a, s)));
  }
  return out;
}

describe("the live state against @ethereumjs/statemanager 10.1.3 unpatched (batched flush, node memo)", () => {
  it("gives the same roots, reads and errors, and every root seen stays readable with the same proofs", async () => {
    const { sm, mpt } = await upstream();
    const common = new Common({ chain: Mainnet });
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 60 }), async (ops) => {
        const ours = createStateManager(common);
        const trie = new mpt.MerklePatriciaTrie({ useKeyHashing: true, common, db: new MapDB<string, Uint8Array>(), valueEncoding: ValueEncoding.Bytes });
        expect(trie.findPath).to.not.equal(MerklePatriciaTrie.prototype.findPath);
        const theirs = new sm.MerkleStateManager({ common, caches: new sm.Caches() as never, trie: trie as never }) as unknown as State;
        // createStateManager drops a deleted account's storage trie (stateManager.ts: the package keeps it,
        // so an account created again would read its old storage); the reference does the same.
        const dropTries = (state: State, a: Address) => dropStorageTrie(state, a);
        const depths = [{ n: 0 }, { n: 0 }];
        const roots: Uint8Array[] = [];
        for (const [i, op] of ops.entries()) {
          const a = await apply(ours, op, depths[0]!, () => {});
          const b = await apply(theirs, op, depths[1]!, dropTries);
          expect(a, `op ${i} ${JSON.stringify(op, (_, v) => (typeof v === "bigint" ? v.toString() : v))}`).to.equal(b);
          if (op.kind === "root" && depths[0]!.n === 0) roots.push(await ours.getStateRoot());
        }
        while (depths[0]!.n > 0) {
          await ours.commit();
          await theirs.commit();
          depths[0]!.n--;
        }
        const root = await ours.getStateRoot();
        expect(bytesToHex(root)).to.equal(bytesToHex(await theirs.getStateRoot()));
        roots.push(root);
        for (const r of roots) expect(await at(ours, r, createMerkleProof)).to.deep.equal(await at(theirs, r, mpt.createMerkleProof));
        for (const a of ADDRESSES) {
          if ((await ours.getAccount(a)) === undefined) continue;
          expect(await ours.dumpStorage(a)).to.deep.equal(await theirs.dumpStorage(a));
        }
      }),
      { numRuns: runs(150), seed: SEED },
    );
  });
});
