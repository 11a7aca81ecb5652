/**
 * The EVM journal's warm sets looked up by flat hex keys (src/node/ethereumjs/journalKeys.ts), a
 * patch of @ethereumjs/evm 10.1.3's `Journal`: random sequences of warm reads and writes,
 * checkpoints, commits, reverts and access-list recording must leave a patched journal and one
 * running the package's own methods with the same answers, the same errors and the same maps.
 */
import { Common, Mainnet } from "@ethereumjs/common";
import { createEVM } from "@ethereumjs/evm";
import { Address } from "@ethereumjs/util";
import { expect } from "chai";
import fc from "fast-check";

import { UNWRITTEN, originalDiffMethods } from "../src/node/ethereumjs/journalDiffs.ts";
import { installJournalKeys, originalWarmMethods, patchJournal, readsWarmPrecompiles } from "../src/node/ethereumjs/journalKeys.ts";

import type { JournalClass } from "../src/node/ethereumjs/journalKeys.ts";

const runs = (base: number) => (process.env.FC_RUNS === undefined ? base : Number(process.env.FC_RUNS));
const SEED = Number(process.env.FC_SEED ?? 20_261_129);

interface JournalLike {
  journal: Map<string, Set<string>>;
  alwaysWarmJournal: Map<string, Set<string>>;
  journalDiff: unknown[];
  journalHeight: number;
  accessList?: Map<string, Set<string>>;
  isWarmedAddress(address: Uint8Array): boolean;
  addWarmedAddress(address: Uint8Array): void;
  isWarmedStorage(address: Uint8Array, slot: Uint8Array): boolean;
  addWarmedStorage(address: Uint8Array, slot: Uint8Array): void;
  touchAddress(address: Address): void;
  touched: Set<string>;
  addAlwaysWarmAddress(address: string, addToAccessList?: boolean): void;
  addAlwaysWarmSlot(address: string, slot: string, addToAccessList?: boolean): void;
  checkpoint(): Promise<void>;
  commit(): Promise<void>;
  revert(): Promise<void>;
  cleanJournal(): void;
  startReportingAccessList(): void;
  startReportingPreimages(): void;
  preimages?: Map<string, Uint8Array>;
  warmPrecompiles: ReadonlySet<string> | undefined;
}

/** Bytes of `hex`, at an offset inside a larger buffer half the time (keys must read the view, not its buffer). */
function bytesOf(hex: string, offset: boolean): Uint8Array {
  const bytes = Buffer.from(hex, "hex");
  if (!offset) return new Uint8Array(bytes);
  const padded = new Uint8Array(bytes.length + 7).fill(0xee);
  padded.set(bytes, 3);
  return padded.subarray(3, 3 + bytes.length);
}

// RIPEMD-160's precompile (…03) too: the journal's revert treats its touch specially.
const ADDRESSES = [
  "00000000000000000000000000000000000000aa",
  "5fbdb2315678afecb367f032d93f642f64180aa3",
  "0000000000000000000000000000000000000001",
  "0000000000000000000000000000000000000003",
];
const SLOTS = ["00".repeat(32), `${"00".repeat(31)}01`, "f".repeat(64), "0123456789abcdef".repeat(4)];

type Op =
  | { kind: "isWarmedAddress" | "addWarmedAddress"; address: number; offset: boolean }
  | { kind: "isWarmedStorage" | "addWarmedStorage"; address: number; slot: number; offset: boolean }
  | { kind: "touchAddress"; address: number; offset: boolean }
  | { kind: "addAlwaysWarmAddress"; address: number; report: boolean }
  | { kind: "addAlwaysWarmSlot"; address: number; slot: number; report: boolean }
  | { kind: "checkpoint" | "commit" | "revert" | "cleanJournal" | "startReportingAccessList" | "startReportingPreimages" };

const address = fc.nat(ADDRESSES.length - 1);
const slot = fc.nat(SLOTS.length - 1);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constantFrom("isWarmedAddress" as const, "addWarmedAddress" as const), address, offset: fc.boolean() }),
  { weight: 3, arbitrary: fc.record({ kind: fc.constantFrom("isWarmedStorage" as const, "addWarmedStorage" as const), address, slot, offset: fc.boolean() }) },
  fc.record({ kind: fc.constant("touchAddress" as const), address, offset: fc.boolean() }),
  fc.record({ kind: fc.constant("addAlwaysWarmAddress" as const), address, report: fc.boolean() }),
  fc.record({ kind: fc.constant("addAlwaysWarmSlot" as const), address, slot, report: fc.boolean() }),
  fc.record({
    kind: fc.constantFrom(
      "checkpoint" as const,
      "commit" as const,
      "revert" as const,
      "cleanJournal" as const,
      "startReportingAccessList" as const,
      "startReportingPreimages" as const,
    ),
  }),
);

/** Runs `op`; what it answered, or the error it threw. */
async function apply(journal: JournalLike, op: Op): Promise<unknown> {
  try {
    switch (op.kind) {
      case "isWarmedAddress":
      case "addWarmedAddress":
        return journal[op.kind](bytesOf(ADDRESSES[op.address]!, op.offset)) ?? null;
      case "isWarmedStorage":
      case "addWarmedStorage":
        return journal[op.kind](bytesOf(ADDRESSES[op.address]!, op.offset), bytesOf(SLOTS[op.slot]!, !op.offset)) ?? null;
      case "touchAddress":
        return journal.touchAddress(new Address(bytesOf(ADDRESSES[op.address]!, op.offset))) ?? null;
      case "addAlwaysWarmAddress":
        return journal.addAlwaysWarmAddress(ADDRESSES[op.address]!, op.report) ?? null;
      case "addAlwaysWarmSlot":
        return journal.addAlwaysWarmSlot(ADDRESSES[op.address]!, SLOTS[op.slot]!, op.report) ?? null;
      case "commit":
      case "revert":
        // Only inside a checkpoint, as the EVM calls them.
        if (journal.journalHeight === 0) return "skipped";
        return (await journal[op.kind]()) ?? null;
      default:
        return (await journal[op.kind]()) ?? null;
    }
  } catch (error) {
    return `threw ${(error as Error).constructor.name}: ${(error as Error).message}`;
  }
}

/** A diff as the package keeps it: an unwritten one (journalDiffs.ts) is the three empty collections. */
const diffsOf = (journal: JournalLike) =>
  (journal.journalDiff as [number, unknown][]).map(([height, diff]) => [height, diff === UNWRITTEN ? [new Set(), new Map(), new Set()] : diff]);

const stateOf = (journal: JournalLike) => ({
  journal: journal.journal,
  alwaysWarmJournal: journal.alwaysWarmJournal,
  journalDiff: diffsOf(journal),
  journalHeight: journal.journalHeight,
  accessList: journal.accessList,
  preimages: journal.preimages,
  touched: journal.touched,
});

describe("the EVM journal's warm sets by flat hex keys (journalKeys.ts)", () => {
  let Journal: JournalClass;
  let newJournal: () => JournalLike;
  /** A journal whose state manager has no `getAppliedKey`. */
  let newJournalWithout: () => JournalLike;

  before(async () => {
    await installJournalKeys();
    const evm = await createEVM({ common: new Common({ chain: Mainnet }) });
    Journal = (evm.journal as unknown as { constructor: JournalClass }).constructor;
    const JournalConstructor = Journal as unknown as new (stateManager: unknown, common: Common) => JournalLike;
    // The applied key of an address (its hash in a real trie): any function of its bytes, for the preimages recorded.
    const stateManager = {
      checkpoint: async () => {},
      commit: async () => {},
      revert: async () => {},
      getAppliedKey: (key: Uint8Array) => key.slice().reverse(),
    };
    newJournal = () => new JournalConstructor(stateManager, new Common({ chain: Mainnet }));
    newJournalWithout = () => new JournalConstructor({ ...stateManager, getAppliedKey: undefined }, new Common({ chain: Mainnet }));
  });

  it("is installed in the Journal the EVM runs (the build this process loaded)", () => {
    const original = originalWarmMethods(Journal);
    const proto = Journal.prototype as unknown as JournalLike;
    for (const name of ["isWarmedAddress", "addWarmedAddress", "isWarmedStorage", "addWarmedStorage", "touchAddress"] as const) {
      expect(proto[name], name).to.not.equal(original[name]);
    }
  });

  it("answers, throws and records as the package's methods on random sequences", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 60 }), async (ops) => {
        const ours = newJournal();
        const theirs = newJournal();
        // The package's own methods, as own properties of one journal (they shadow the patched prototype).
        Object.assign(theirs, originalWarmMethods(Journal), originalDiffMethods(Journal));
        // Its constructor ran the patched cleanJournal: start it again on the package's.
        theirs.cleanJournal();
        for (const op of ops) {
          expect(await apply(ours, op), JSON.stringify(op)).to.deep.equal(await apply(theirs, op));
          expect(stateOf(ours), JSON.stringify(op)).to.deep.equal(stateOf(theirs));
        }
      }),
      { numRuns: runs(2000), seed: SEED },
    );
  });

  it("makes a checkpoint's diff only once something is written in it (journalDiffs.ts)", async () => {
    const journal = newJournal();
    const last = () => (journal.journalDiff as [number, unknown][]).at(-1)![1];
    expect(last()).to.equal(UNWRITTEN);
    await journal.checkpoint();
    await journal.checkpoint();
    expect(last()).to.equal(UNWRITTEN);
    journal.addWarmedAddress(bytesOf(ADDRESSES[1]!, false));
    const written = last();
    expect(written).to.not.equal(UNWRITTEN);
    expect([...(written as [Set<string>])[0]]).to.deep.equal([ADDRESSES[1]]);
    await journal.commit();
    expect(last()).to.equal(UNWRITTEN);
    journal.touchAddress(new Address(bytesOf(ADDRESSES[0]!, false)));
    await journal.revert();
    // The revert took back the touch and the warm address, and left the unwritten first entry.
    expect(journal.touched.size).to.equal(0);
    expect(journal.journal.size).to.equal(0);
    expect(journal.journalDiff).to.deep.equal([[0, UNWRITTEN]]);
    expect(() => UNWRITTEN[0].add("aa")).to.throw("a write into the shared unwritten diff");
    expect(UNWRITTEN.every((collection) => collection.size === 0)).to.equal(true);
  });

  it("touching an account while preimages are recorded, without getAppliedKey, throws the package's error", () => {
    const ours = newJournalWithout();
    const theirs = newJournalWithout();
    Object.assign(theirs, originalWarmMethods(Journal), originalDiffMethods(Journal));
    theirs.cleanJournal();
    for (const journal of [ours, theirs]) journal.startReportingPreimages();
    const touch = (journal: JournalLike) => () => journal.touchAddress(new Address(bytesOf(ADDRESSES[1]!, false)));
    expect(touch(ours)).to.throw("touchAccount: stateManager.getAppliedKey can not be undefined if preimage storing is enabled");
    expect(touch(theirs)).to.throw("touchAccount: stateManager.getAppliedKey can not be undefined if preimage storing is enabled");
    expect(stateOf(ours)).to.deep.equal(stateOf(theirs));
  });

  it("patches a class's warm methods and diffs together, or neither where another copy patched it first", () => {
    const theirs = { ...originalWarmMethods(Journal), ...originalDiffMethods(Journal) };
    const clean = { prototype: { ...theirs } };
    patchJournal(clean);
    expect(clean.prototype.checkpoint).to.not.equal(theirs.checkpoint);
    expect(clean.prototype.addWarmedAddress).to.not.equal(theirs.addWarmedAddress);
    // A copy of this module from before journalDiffs.ts: its warm methods write into the package's own diffs.
    const older = { prototype: { ...theirs, [Symbol.for("hardhat-preconf.journalKeys.original")]: theirs } };
    patchJournal(older);
    expect(older.prototype.checkpoint).to.equal(theirs.checkpoint);
    expect(older.prototype.addWarmedAddress).to.equal(theirs.addWarmedAddress);
    // A class without a method either patch replaces: refused before anything is patched.
    const { touchAccount: _, ...withoutTouch } = theirs;
    const broken = { prototype: { ...withoutTouch } };
    expect(() => patchJournal(broken)).to.throw("Journal.touchAccount is gone");
    expect(broken.prototype.addWarmedAddress).to.equal(theirs.addWarmedAddress);
  });

  it("answers the warm precompiles a lean dry run sets as the package answers them in alwaysWarmJournal, until cleanJournal", () => {
    const ours = newJournal();
    const theirs = newJournal();
    Object.assign(theirs, originalWarmMethods(Journal), originalDiffMethods(Journal));
    theirs.cleanJournal();
    expect(readsWarmPrecompiles(ours)).to.equal(true);
    expect(readsWarmPrecompiles(theirs)).to.equal(false);
    expect(ours.warmPrecompiles).to.equal(undefined);
    const precompile = ADDRESSES[2]!;
    ours.warmPrecompiles = new Set([precompile]);
    theirs.addAlwaysWarmAddress(precompile);
    for (const address of ADDRESSES) {
      const bytes = bytesOf(address, false);
      expect(ours.isWarmedAddress(bytes), address).to.equal(theirs.isWarmedAddress(bytes));
      for (const slot of SLOTS) expect(ours.isWarmedStorage(bytes, bytesOf(slot, true)), slot).to.equal(theirs.isWarmedStorage(bytes, bytesOf(slot, true)));
      // A slot that is not bytes: read (and refused) where the package reads it.
      const notBytes = "0x01" as unknown as Uint8Array;
      const answer = (journal: JournalLike) => {
        try {
          return journal.isWarmedStorage(bytes, notBytes);
        } catch (error) {
          return (error as Error).constructor.name;
        }
      };
      expect(answer(ours), address).to.equal(answer(theirs));
    }
    expect(ours.isWarmedAddress(bytesOf(precompile, false))).to.equal(true);
    ours.cleanJournal();
    expect(ours.warmPrecompiles).to.equal(undefined);
    expect(ours.isWarmedAddress(bytesOf(precompile, false))).to.equal(false);
  });

  it("reads a slot only once an address has warm slots, as the package does", () => {
    const journal = newJournal();
    const cold = bytesOf(ADDRESSES[0]!, false);
    // Not bytes: the package answers false for a cold address without reading the slot, and throws once it would.
    expect(journal.isWarmedStorage(cold, "0x01" as unknown as Uint8Array)).to.equal(false);
    journal.addWarmedAddress(cold);
    expect(() => journal.isWarmedStorage(cold, "0x01" as unknown as Uint8Array)).to.throw();
  });

  it("keys a slot by the view's own bytes, not the buffer under it", () => {
    const journal = newJournal();
    const slotInBuffer = bytesOf(SLOTS[1]!, true);
    journal.addWarmedStorage(bytesOf(ADDRESSES[0]!, true), slotInBuffer);
    expect([...journal.journal.get(ADDRESSES[0]!)!]).to.deep.equal([SLOTS[1]]);
    expect(journal.isWarmedStorage(bytesOf(ADDRESSES[0]!, false), bytesOf(SLOTS[1]!, false))).to.equal(true);
    expect(journal.isWarmedStorage(bytesOf(ADDRESSES[0]!, false), bytesOf(SLOTS[0]!, false))).to.equal(false);
  });
});
