/**
 * Patch (@ethereumjs/evm 10.1.3 journal.js, `Journal`): a checkpoint's diff made only once something
 * is written in it, and the journal's maps kept while they are empty.
 *
 * The journal records, per checkpoint, what `revert` takes back: `journalDiff` holds
 * `[height, [addresses warmed, slots warmed by address, addresses touched]]`, and the package's
 * `checkpoint` and `commit` each push a new entry with a new Set, Map and Set, and `cleanJournal`
 * replaces the warm maps, the touched set and the diff list with new ones. An `eth_call` of ERC-20
 * `balanceOf` checkpoints twice, commits once and cleans the journal twice: 21 of the 29 Maps and Sets
 * it made (counted with the two constructors wrapped; bench/benchmarks-notes.md, "Twenty-second
 * round"), though most checkpoints record nothing (the EVM checkpoints around every frame; only
 * warming an address or slot and touching an account write to a diff).
 *
 * Here a checkpoint's and a commit's entry holds `UNWRITTEN`, one shared empty diff that is never
 * written, until the first write in it replaces it with its own (`openDiff`); `revert` skips it, as
 * the package's loop finds nothing in an empty one. `cleanJournal` keeps a map or set that is
 * already empty (nothing holds the journal's maps between two of its calls: journalKeys.ts and the
 * package read them from the journal at every use) and starts the diff list at one unwritten entry.
 * The writers of a diff are the package's `touchAccount` (replaced here, with its own steps) and
 * journalKeys.ts's `addWarmedAddress` and `addWarmedStorage`, which take their diff from
 * `openDiff`. Nothing else reads `journalDiff`: of @ethereumjs/evm, vm and statemanager 10.1.3 only
 * journal.js itself (grep), and of this engine journalKeys.ts.
 *
 * test/journalKeys.test.ts runs random sequences of warm reads and writes, touches, checkpoints,
 * commits, reverts and cleans on a patched journal and on one running the package's own methods,
 * and fails if an answer, a map or a diff (an unwritten one read as empty) differs.
 */
import { EthereumJSErrorWithoutCode, RIPEMD160_ADDRESS_STRING, bytesToHex, unprefixedHexToBytes } from "@ethereumjs/util";

export type Diff = [addresses: Set<string>, slots: Map<string, Set<string>>, touched: Set<string>];

/** A collection whose writes throw: a write into the shared unwritten diff would be a bug here, found at once. */
function readOnly<T extends Set<string> | Map<string, Set<string>>>(collection: T): T {
  for (const name of ["add", "set", "delete", "clear"]) {
    Object.defineProperty(collection, name, {
      value: () => {
        throw new Error("journalDiffs.ts: a write into the shared unwritten diff");
      },
    });
  }
  return Object.freeze(collection);
}

/** The diff of a checkpoint in which nothing was written yet: shared by all of them, never written. */
export const UNWRITTEN: Diff = Object.freeze([
  readOnly(new Set<string>()),
  readOnly(new Map<string, Set<string>>()),
  readOnly(new Set<string>()),
]) as unknown as Diff;

/** What the patched methods read and write of a journal (journal.js 10.1.3). */
interface JournalState {
  journal: Map<string, Set<string>>;
  alwaysWarmJournal: Map<string, Set<string>>;
  touched: Set<string>;
  journalDiff: [number, Diff][];
  journalHeight: number;
  /** journalKeys.ts: the precompiles a lean dry run warms. */
  warmPrecompiles: ReadonlySet<string> | undefined;
  preimages?: Map<string, Uint8Array>;
  stateManager: { checkpoint(): Promise<void>; commit(): Promise<void>; revert(): Promise<void>; getAppliedKey?(address: Uint8Array): Uint8Array };
}

/** The open checkpoint's diff, made now if nothing was written in it yet. */
export function openDiff(journal: { journalDiff: [number, Diff][] }): Diff {
  const entry = journal.journalDiff[journal.journalDiff.length - 1]!;
  if (entry[1] === UNWRITTEN) entry[1] = [new Set(), new Map(), new Set()];
  return entry[1];
}

interface DiffMethods {
  checkpoint(): Promise<void>;
  commit(): Promise<void>;
  revert(): Promise<void>;
  cleanJournal(): void;
  touchAccount(address: string): void;
}

const methods: DiffMethods & ThisType<JournalState> = {
  async checkpoint() {
    this.journalHeight++;
    this.journalDiff.push([this.journalHeight, UNWRITTEN]);
    await this.stateManager.checkpoint();
  },
  async commit() {
    this.journalHeight--;
    this.journalDiff.push([this.journalHeight, UNWRITTEN]);
    await this.stateManager.commit();
  },
  async revert() {
    // The package's loop, step for step: back over the entries at the current height or above,
    // taking back what each recorded; the entry it stops at (or the first) stays.
    const diffs = this.journalDiff;
    let finalIndex: number | undefined;
    for (let index = diffs.length - 1; index >= 0; index--) {
      finalIndex = index;
      const [height, diff] = diffs[index]!;
      if (height < this.journalHeight) break;
      if (diff === UNWRITTEN) continue;
      for (const address of diff[0]) this.journal.delete(address);
      for (const [address, slots] of diff[1]) {
        const warm = this.journal.get(address);
        if (warm !== undefined) for (const slot of slots) warm.delete(slot);
      }
      // A touch of RIPEMD-160's precompile is kept, on every fork, as the package keeps it (the
      // consensus quirk of mainnet block 2,675,119; go-ethereum core/state/journal.go, `touchChange`).
      for (const address of diff[2]) if (address !== RIPEMD160_ADDRESS_STRING) this.touched.delete(address);
    }
    diffs.length = finalIndex === undefined ? 0 : finalIndex + 1;
    this.journalHeight--;
    await this.stateManager.revert();
  },
  cleanJournal() {
    this.journalHeight = 0;
    if (this.journal?.size !== 0) this.journal = new Map();
    if (this.alwaysWarmJournal?.size !== 0) this.alwaysWarmJournal = new Map();
    if (this.touched?.size !== 0) this.touched = new Set();
    // Set here from the constructor on (it cleans the journal first), so every journal has the field.
    this.warmPrecompiles = undefined;
    this.journalDiff = [[0, UNWRITTEN]];
  },
  touchAccount(address) {
    if (this.preimages !== undefined) {
      const bytesAddress = unprefixedHexToBytes(address);
      if (this.stateManager.getAppliedKey === undefined) {
        throw EthereumJSErrorWithoutCode("touchAccount: stateManager.getAppliedKey can not be undefined if preimage storing is enabled");
      }
      this.preimages.set(bytesToHex(this.stateManager.getAppliedKey(bytesAddress)), bytesAddress);
    }
    if (!this.touched.has(address)) {
      this.touched.add(address);
      openDiff(this)[2].add(address);
    }
  },
};

type JournalPrototype = DiffMethods & { [ORIGINAL]?: DiffMethods };

/** Registered (Symbol.for): a second copy of this module in the process finds the patch in place. */
const ORIGINAL = Symbol.for("hardhat-preconf.journalDiffs.original");

const NAMES = Object.keys(methods) as (keyof DiffMethods)[];

/** The package's own five methods of `Journal`'s build (the test compares with them). */
export function originalDiffMethods(Journal: { prototype: object }): DiffMethods {
  const proto = Journal.prototype as JournalPrototype;
  return proto[ORIGINAL] ?? proto;
}

/** Throws if the package's `Journal` lacks a method this patch replaces (before anything is patched). */
export function checkJournalDiffs(Journal: { prototype: object }): void {
  const proto = Journal.prototype as JournalPrototype;
  for (const name of NAMES) {
    if (typeof proto[name] !== "function") throw new Error(`@ethereumjs/evm: Journal.${name} is gone; update src/node/ethereumjs/journalDiffs.ts`);
  }
}

/**
 * Installs the methods on `Journal`: only from journalKeys.ts's installer, together with the warm
 * methods that write through `openDiff` (each build it patches).
 */
export function patchJournalDiffs(Journal: { prototype: object }): void {
  checkJournalDiffs(Journal);
  const proto = Journal.prototype as JournalPrototype;
  if (proto[ORIGINAL] !== undefined) return;
  proto[ORIGINAL] = Object.fromEntries(NAMES.map((name) => [name, proto[name]])) as unknown as DiffMethods;
  Object.assign(proto, methods);
}
