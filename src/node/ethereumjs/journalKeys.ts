/**
 * Patch (@ethereumjs/evm 10.1.3 journal.js, `Journal`): the EVM journal's warm sets (EIP-2929)
 * looked up by flat hex keys. The journal keeps the warm addresses and each address's warm slots in
 * maps and sets keyed by unprefixed hex, built by @ethereumjs/util's `bytesToUnprefixedHex`, which
 * appends two digits per byte: a rope that every lookup flattens, then hashes. An address is looked
 * up at every account access and a slot at every SLOAD and SSTORE (twice: is it warm, then make it
 * so): with flat keys an `eth_estimateGas` of an ERC-20 transfer runs ~3.5 % fewer instructions
 * (`npx tsx bench/instructions.ts estimate`; bench/benchmarks-notes.md, "Eleventh round").
 *
 * The five methods below are the package's `isWarmedAddress`, `addWarmedAddress`,
 * `isWarmedStorage` and `addWarmedStorage`, and `touchAddress` (EIP-161's touched set, at every
 * account written: the package keys it by `address.toString().slice(2)`, util's rope again), with
 * the same keys (common/hex.ts `unprefixedHex` gives the same digits in one flat string), the same
 * maps and sets, the same entries in the journal's diff of the open checkpoint (what `revert` takes
 * back) and in the access list being recorded (`eth_createAccessList`). Everything else of the
 * journal is the package's and reads the same keys. test/journalKeys.test.ts runs random sequences
 * of warm reads and writes, touches, checkpoints, commits and reverts on a patched and an unpatched
 * journal and fails if an answer or a map differs.
 *
 * `Journal` is not exported by the package; it is reached through its file beside each build's
 * entry point, as framePool.ts reaches `EVM` (`evmFile`).
 */
import { bytesToUnprefixedHex } from "@ethereumjs/util";

import type { Address } from "@ethereumjs/util";
import type { Diff } from "./journalDiffs.ts";

import { unprefixedHex } from "../common/hex.ts";
import { evmFile } from "./framePool.ts";
import { checkJournalDiffs, openDiff, patchJournalDiffs } from "./journalDiffs.ts";
import { loadedCommonJs } from "./jumpAnalysis.ts";

/** What the five methods read and write of a journal (journal.js 10.1.3). */
interface JournalState {
  journal: Map<string, Set<string>>;
  alwaysWarmJournal: Map<string, Set<string>>;
  /** Per checkpoint: [height, [addresses warmed, slots warmed by address, addresses touched]] (journalDiffs.ts). */
  journalDiff: [number, Diff][];
  accessList?: Map<string, Set<string>>;
  /**
   * The fork's precompiles, warm for the tx running (EIP-2929): one set shared by every dry run on
   * the fork's table, where runTx adds each to `alwaysWarmJournal` (~1 µs a dry run for ~20 entries
   * and the map's growth). Set by leanDryRun.ts, cleared by `cleanJournal` (journalDiffs.ts).
   */
  warmPrecompiles: ReadonlySet<string> | undefined;
  /** The package's: records a touched account by its key. */
  touchAccount(address: string): void;
}

interface WarmMethods {
  isWarmedAddress(address: Uint8Array): boolean;
  addWarmedAddress(address: Uint8Array): void;
  isWarmedStorage(address: Uint8Array, slot: Uint8Array): boolean;
  addWarmedStorage(address: Uint8Array, slot: Uint8Array): void;
  touchAddress(address: Address): void;
}

type JournalPrototype = WarmMethods & { [ORIGINAL]?: WarmMethods };
export type JournalClass = { prototype: object };

/** Registered (Symbol.for): a second copy of this module in the process finds the patch in place. */
const ORIGINAL = Symbol.for("hardhat-preconf.journalKeys.original");

/** The key of `bytes`; anything but bytes goes through the package's function, which rejects it as before. */
const keyOf = (bytes: Uint8Array): string => (bytes instanceof Uint8Array ? unprefixedHex(bytes) : bytesToUnprefixedHex(bytes));

/** `address` (a key) warm in this tx: recorded in the open checkpoint's diff, and in the access list when one is recorded. */
function warmAddress(journal: JournalState, address: string): Set<string> {
  let slots = journal.journal.get(address);
  if (slots === undefined) {
    slots = new Set();
    journal.journal.set(address, slots);
    openDiff(journal)[0].add(address);
  }
  if (journal.accessList !== undefined && !journal.accessList.has(address)) journal.accessList.set(address, new Set());
  return slots;
}

const methods: WarmMethods & ThisType<JournalState> = {
  isWarmedAddress(address) {
    const key = keyOf(address);
    return this.journal.has(key) || this.alwaysWarmJournal.has(key) || this.warmPrecompiles?.has(key) === true;
  },
  addWarmedAddress(address) {
    warmAddress(this, keyOf(address));
  },
  isWarmedStorage(address, slot) {
    const addressKey = keyOf(address);
    const slots = this.journal.get(addressKey);
    const warm = this.alwaysWarmJournal.get(addressKey);
    // The slot's key only once a set is found, as the package reads it (a cold address answers false
    // unread). A warm precompile's set is empty there: its slot is read, and is never warm.
    if (slots === undefined && warm === undefined) {
      if (this.warmPrecompiles?.has(addressKey) === true) keyOf(slot);
      return false;
    }
    const slotKey = keyOf(slot);
    return slots?.has(slotKey) === true || warm?.has(slotKey) === true;
  },
  addWarmedStorage(address, slot) {
    const addressKey = keyOf(address);
    const slots = this.journal.get(addressKey) ?? warmAddress(this, addressKey);
    const slotKey = keyOf(slot);
    if (!slots.has(slotKey)) {
      slots.add(slotKey);
      const warmedSlots = openDiff(this)[1];
      let diff = warmedSlots.get(addressKey);
      if (diff === undefined) {
        diff = new Set();
        warmedSlots.set(addressKey, diff);
      }
      diff.add(slotKey);
    }
    // As the package: an address warm before the access list began recording is not in it (and throws here, as there).
    if (this.accessList !== undefined) this.accessList.get(addressKey)!.add(slotKey);
  },
  touchAddress(address) {
    // The package's key is `address.toString().slice(2)`: the same digits (Address.toString is util's bytesToHex).
    this.touchAccount(address?.bytes instanceof Uint8Array ? unprefixedHex(address.bytes) : address.toString().slice(2));
  },
};

/** Whether `journal`'s warm checks are this module's, which read `warmPrecompiles` (a journal of an unpatched build's are not). */
export function readsWarmPrecompiles(journal: object): boolean {
  return (journal as Partial<WarmMethods>).isWarmedAddress === methods.isWarmedAddress;
}

/** The package's own five methods of `Journal`'s build (the test compares with them). */
export function originalWarmMethods(Journal: JournalClass): WarmMethods {
  const proto = Journal.prototype as JournalPrototype;
  return proto[ORIGINAL] ?? proto;
}

const NAMES = Object.keys(methods) as (keyof WarmMethods)[];

/** Patches a build's `Journal` class: the warm methods here and journalDiffs.ts's, together (exported for tests). */
export function patchJournal(Journal: JournalClass): void {
  const proto = Journal.prototype as JournalPrototype;
  for (const name of NAMES) {
    if (typeof proto[name] !== "function") throw new Error(`@ethereumjs/evm: Journal.${name} is gone; update src/node/ethereumjs/journalKeys.ts`);
  }
  checkJournalDiffs(Journal);
  // Another copy of this module patched the class first: its warm methods stay, with the diffs they
  // were written for (a copy from before journalDiffs.ts writes into the package's own diffs).
  if (proto[ORIGINAL] !== undefined) return;
  // The warm methods here take their diff from openDiff: the two patches go on together, or not at all.
  patchJournalDiffs(Journal);
  proto[ORIGINAL] = Object.fromEntries(NAMES.map((name) => [name, proto[name]])) as unknown as WarmMethods;
  Object.assign(proto, methods);
}

let installed: Promise<void> | undefined;

/**
 * Installs the methods in the ES module build (once per process; later calls return the same
 * promise), and in the CommonJS build when the process has loaded it (checked on every call, as
 * framePool.ts does: a test runner may load both).
 */
export function installJournalKeys(): Promise<void> {
  installed ??= (async () => patchJournal(((await import(evmFile("esm", "journal.js"))) as { Journal: JournalClass }).Journal))();
  const commonJs = loadedCommonJs<{ Journal: JournalClass }>(evmFile("cjs", "journal.js"));
  if (commonJs !== undefined) patchJournal(commonJs.Journal);
  return installed;
}
