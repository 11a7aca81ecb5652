/**
 * Patch (@ethereumjs/evm 10.1.3, `EVM.prototype.getActiveOpcodes`): each fork's opcode table built
 * once. The package builds an EVM's table from scratch at its creation and at every fork change
 * (opcodes/codes.js `getOpcodesForHF`: ~150 frozen Opcode objects, a fee read per opcode, two Map
 * copies): ~70 µs, paid by every VM copy a state view makes (stateViews.ts) and twice by every new
 * chain (bench/benchmarks-notes.md, "Twenty-first round").
 *
 * What the table depends on: the Common's fork and the forks before it (`gteHardfork`), its active
 * EIPs (`isActivatedEIP`), each opcode's fee param, and the EVM's custom opcodes. A table is kept
 * per fork, fork sequence and EIP list (a new chain's Commons reuse the tables of an earlier chain
 * of the same rules), and reused only when every fee param it read holds the same value; EVMs with
 * custom opcodes build their own. The key is made once per active-EIP list (the array Common
 * rebuilds whenever its fork or EIPs change, and copies share: leanDryRun.ts keys on it too). The
 * fees are compared in the params cache, where the package's `param` reads them: a Common's own
 * `param` (codeSizeLimit.ts) must answer no opcode's fee (`<name>Gas`), or the comparison would
 * miss it. The Opcode objects are frozen and the three Maps are read only (ethereumjs and this
 * engine never write them after the build), so EVMs share them; the table the interpreter reads
 * (`_opcodeMap`) is a copy per EVM, entry by entry, because the patches above this one
 * (opcodeHooks.ts, wordOpcodes.ts, wordStore.ts) replace entries' handlers in their EVM.
 *
 * This must be the first patch of getActiveOpcodes, so that the others patch each EVM's copy:
 * they install through opcodeHooks.ts `editOpcodeTables`, which installs this one first. It refuses
 * to run on top of another patch, and marks the EVM class, which a second copy of this engine in the
 * process then leaves alone.
 * test/opcodeTables.test.ts compares a reused table with a fresh one of the package's.
 */
import { EVM } from "@ethereumjs/evm";

import type { Common } from "@ethereumjs/common";

/** One entry of an EVM's `_opcodeMap` (@ethereumjs/evm 10.1.3 opcodes/codes.js). */
interface TableEntry {
  opcodeInfo: { name: string; isInvalid: boolean };
  opHandler: unknown;
  gasHandler: unknown;
}

/** The fields getActiveOpcodes sets on its EVM, in its order (evm.js 10.1.3). */
interface OpcodeFields {
  _customOpcodes?: readonly unknown[];
  _opcodes: Map<number, { name: string }>;
  _dynamicGasHandlers: Map<number, unknown>;
  _handlers: Map<number, unknown>;
  _opcodeMap: TableEntry[];
}

interface Table {
  opcodes: OpcodeFields["_opcodes"];
  dynamicGasHandlers: OpcodeFields["_dynamicGasHandlers"];
  handlers: OpcodeFields["_handlers"];
  /** The package's entries, never handed out: each EVM gets copies. */
  opcodeMap: TableEntry[];
  /** The fee param of each opcode (`<name>Gas`, as getOpcodesForHF reads it), and the value it read. */
  feeNames: string[];
  feeValues: unknown[];
}

const packageGetActiveOpcodes = EVM.prototype.getActiveOpcodes;

/** Tables by fork, fork sequence and active EIPs (`keyOf`); the oldest goes past MAX_TABLES. */
const tables = new Map<string, Table>();
/** Distinct rules a process keeps tables for: a few forks of a few chains. */
const MAX_TABLES = 64;
/** The key of each active-EIP list (a list belongs to one Common lineage at one fork). */
const keys = new WeakMap<readonly number[], string>();

/** How many tables were built and reused (the tests read them). */
export const opcodeTableStats = { built: 0, reused: 0 };

const paramsOf = (common: Common) => (common as unknown as { _paramsCache: Record<string, unknown> })._paramsCache;
const activeEipsOf = (common: Common) => (common as unknown as { _activatedEIPsCache: readonly number[] })._activatedEIPsCache;

/** Whether every fee the table read is still what `common` answers. */
function feesHold(table: Table, common: Common): boolean {
  const params = paramsOf(common);
  for (let i = 0; i < table.feeNames.length; i++) {
    const name = table.feeNames[i]!;
    if (!(name in params) || params[name] !== table.feeValues[i]) return false;
  }
  return true;
}

/** The EVM's own entries: one copy per distinct entry (the package fills unused codes with one INVALID entry). */
function copyEntries(entries: readonly TableEntry[]): TableEntry[] {
  const copies = new Map<TableEntry, TableEntry>();
  return entries.map((entry) => {
    let copy = copies.get(entry);
    if (copy === undefined) {
      // A literal in the package's order: the same hidden class as the package's entries.
      copy = { opcodeInfo: entry.opcodeInfo, opHandler: entry.opHandler, gasHandler: entry.gasHandler };
      copies.set(entry, copy);
    }
    return copy;
  });
}

/** What getOpcodesForHF reads of a Common but its fees: the fork, the forks in order, the active EIPs. */
function keyOf(common: Common): string {
  const eips = activeEipsOf(common);
  let key = keys.get(eips);
  if (key === undefined) {
    key = `${common.hardfork()} ${common
      .hardforks()
      .map((fork) => fork.name)
      .join(",")} ${eips.join(",")}`;
    keys.set(eips, key);
  }
  return key;
}

function tableOf(evm: EVM): Table | undefined {
  const table = tables.get(keyOf(evm.common));
  return table !== undefined && feesHold(table, evm.common) ? table : undefined;
}

function remember(evm: EVM, fields: OpcodeFields): Table {
  const common = evm.common;
  const params = paramsOf(common);
  const feeNames = [...fields._opcodes.values()].map((opcode) => `${opcode.name.toLowerCase()}Gas`);
  const table: Table = {
    opcodes: fields._opcodes,
    dynamicGasHandlers: fields._dynamicGasHandlers,
    handlers: fields._handlers,
    opcodeMap: fields._opcodeMap,
    feeNames,
    feeValues: feeNames.map((name) => params[name]),
  };
  const key = keyOf(common);
  tables.delete(key);
  if (tables.size >= MAX_TABLES) tables.delete(tables.keys().next().value!);
  tables.set(key, table);
  return table;
}

let installed = false;
/**
 * Set on the EVM class once a table cache is its first patch: a second copy of this engine in one
 * process (its ES module and CommonJS builds both loaded) finds the class patched by the first, and
 * must not put a cache of its own above the first one's opcode hooks, whose handlers are each one
 * EVM's.
 */
const CACHED = Symbol.for("hardhat-preconf.opcodeTables");

/** Installs the table cache (once per EVM class), before any other patch of getActiveOpcodes. */
export function installOpcodeTables(): void {
  if (installed) return;
  const prototype = EVM.prototype as EVM & { [CACHED]?: true };
  if (prototype[CACHED] !== true && prototype.getActiveOpcodes !== packageGetActiveOpcodes) {
    throw new Error("opcodeTables.ts: EVM.prototype.getActiveOpcodes was patched before the table cache; install it first");
  }
  installed = true;
  if (prototype[CACHED] === true) return;
  prototype[CACHED] = true;
  EVM.prototype.getActiveOpcodes = function (this: EVM) {
    const fields = this as unknown as OpcodeFields;
    if (fields._customOpcodes !== undefined && fields._customOpcodes.length > 0) return packageGetActiveOpcodes.call(this);
    let table = tableOf(this);
    if (table === undefined) {
      packageGetActiveOpcodes.call(this);
      table = remember(this, fields);
      opcodeTableStats.built++;
    } else {
      // The package's fields, in its order (evm.js `getActiveOpcodes`): the EVM keeps one hidden class.
      fields._opcodes = table.opcodes;
      fields._dynamicGasHandlers = table.dynamicGasHandlers;
      fields._handlers = table.handlers;
      opcodeTableStats.reused++;
    }
    fields._opcodeMap = copyEntries(table.opcodeMap);
    return table.opcodes as unknown as ReturnType<EVM["getActiveOpcodes"]>;
  };
}
