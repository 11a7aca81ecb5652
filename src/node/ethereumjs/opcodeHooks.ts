/**
 * Patch (@ethereumjs/evm 10.1.3, `EVM.prototype.getActiveOpcodes` and the private `_opcodeMap`):
 * a hook that runs before chosen opcodes of every EVM. getActiveOpcodes builds each EVM's opcode
 * table (at creation and at every fork change); the patched version wraps the chosen opcodes'
 * handlers and marks them async, so that the interpreter awaits what the hook returns (the
 * opcode objects are frozen: each gets an async copy). evmBudget.ts uses it to yield to the event
 * loop and to stop dry runs past their time budget. test/ethereumjs.test.ts fails if the table's
 * shape changes; test/budgets.test.ts if the hook stops working.
 */
import { EVM } from "@ethereumjs/evm";

import { installOpcodeTables } from "./opcodeTables.ts";

type OpHandler = (runState: unknown, common: unknown) => unknown;

export interface OpcodeEntry {
  opcodeInfo: { isAsync: boolean; isInvalid: boolean };
  opHandler: OpHandler;
  gasHandler?: unknown;
}

/** Before each of `opcodes` runs: undefined to go on at once, a promise to wait for, or a throw to halt. */
export type OpcodeHook = (evm: EVM) => Promise<void> | undefined;

/** The opcode table of an EVM (10.1.3's `_opcodeMap`: entries indexed by opcode). */
export const opcodeTableOf = (evm: EVM): OpcodeEntry[] => (evm as unknown as { _opcodeMap: OpcodeEntry[] })._opcodeMap;

/** The handlers `hookOpcodes` made: a patch that replaces a package handler leaves these alone (wordOpcodes.ts). */
const hooked = new WeakSet<object>();

/** Whether `handler` is a hook's wrapper of an opcode's handler. */
export const isHooked = (handler: unknown): boolean => typeof handler === "function" && hooked.has(handler);

/**
 * Runs `edit` on every EVM's opcode table as getActiveOpcodes builds it (at the EVM's creation and at
 * every fork change), above the tables' cache (opcodeTables.ts), which it installs first: each EVM's
 * entries are its own to edit. The patches of this folder that replace handlers go through here.
 */
export function editOpcodeTables(edit: (evm: EVM, table: OpcodeEntry[]) => void): void {
  installOpcodeTables();
  const getActiveOpcodes = EVM.prototype.getActiveOpcodes;
  EVM.prototype.getActiveOpcodes = function (this: EVM) {
    const active = getActiveOpcodes.call(this);
    edit(this, opcodeTableOf(this));
    return active;
  };
}

/** Installs `hook` before `opcodes` in every EVM's opcode table, once per process. */
export function hookOpcodes(opcodes: readonly number[], hook: OpcodeHook): void {
  editOpcodeTables((evm, table) => {
    for (const code of opcodes) {
      const entry = table[code];
      if (entry === undefined || entry.opcodeInfo.isInvalid) continue;
      const handler = entry.opHandler;
      entry.opHandler = (runState, common) => {
        const wait = hook(evm);
        return wait === undefined ? handler(runState, common) : wait.then(() => handler(runState, common));
      };
      hooked.add(entry.opHandler);
      if (!entry.opcodeInfo.isAsync) entry.opcodeInfo = Object.freeze({ ...entry.opcodeInfo, isAsync: true });
    }
  });
}
