/**
 * Patch (@ethereumjs/evm 10.1.3 and @ethereumjs/vm 10.1.3): the EVM's precompile table is one
 * map (`evm.precompiles`, the `_precompiles` of evm.js) that both runs precompiles (`getPrecompile`)
 * and, through its `entries()`, makes their addresses warm at the start of every tx (runTx.js,
 * EIP-2929). A state override that moves or replaces a precompile changes where it runs; go-ethereum
 * still warms the fork's own precompile addresses (core/state Prepare with vm.ActivePrecompiles).
 * So the table is edited in place and its `entries()` keeps answering the fork's list until
 * `restore`. test/ethereumjs.test.ts fails if runTx stops warming through `entries()`.
 */
import type { PrecompileFunc } from "@ethereumjs/evm";
import type { VM } from "@ethereumjs/vm";

export interface PrecompileEdit {
  /** The precompile at `address` (a 0x address), if there is one now. */
  at(address: string): PrecompileFunc | undefined;
  set(address: string, precompile: PrecompileFunc): void;
  remove(address: string): void;
  /** Back to the fork's table. */
  restore(): void;
}

const keyOf = (address: string) => address.slice(2).toLowerCase();

export function editPrecompiles(vm: VM): PrecompileEdit {
  const table = vm.evm.precompiles;
  const saved = new Map(table);
  Object.defineProperty(table, "entries", { value: () => saved.entries(), configurable: true, writable: true });
  return {
    at: (address) => table.get(keyOf(address)),
    set: (address, precompile) => table.set(keyOf(address), precompile),
    remove: (address) => table.delete(keyOf(address)),
    restore() {
      delete (table as { entries?: unknown }).entries;
      table.clear();
      for (const [key, precompile] of saved) table.set(key, precompile);
    },
  };
}
