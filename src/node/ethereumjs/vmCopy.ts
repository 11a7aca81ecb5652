/**
 * A copy of a VM over another state manager. @ethereumjs/vm 10.1.3's `shallowCopy` (vm.js) builds
 * the copy's EVM from the original's cached options (precompiles, hooks' opcode tables) and takes
 * its state from `this.stateManager.shallowCopy()`; it is called here on a stand-in that hands it
 * the original's fields and, as state manager, one whose `shallowCopy` answers `stateManager`, so
 * the copy is what `vm.shallowCopy(false)` builds, over `stateManager`. test/viewState.test.ts
 * fails if the copy's VM or EVM reads another state.
 *
 * The stand-in is a plain object holding the fields `shallowCopy` reads (vm.js 10.1.3: `common`,
 * `blockchain`, `stateManager`, `evm._optsCached`, `_opts`, `_setHardfork`), not an object whose
 * prototype is `vm`: V8 gives an object that becomes a prototype a map of its own, so the live VM
 * changed hidden class at its first copy, and every function optimized for the old one (runTx,
 * the block runner) was thrown away and compiled again (bench/benchmarks-notes.md, "Nineteenth
 * round"). test/engineShapes.test.ts fails if the copy changes the original's map.
 */
import type { StateManagerInterface } from "@ethereumjs/common";
import type { VM } from "@ethereumjs/vm";

/** The fields of a VM that `VM.prototype.shallowCopy` reads (@ethereumjs/vm 10.1.3 vm.js). */
type CopySource = Pick<VM, "common" | "blockchain" | "evm"> & {
  stateManager: { shallowCopy(downlevelCaches?: boolean): StateManagerInterface };
  _opts: unknown;
  _setHardfork: unknown;
};

export function copyVmOver(vm: VM, stateManager: StateManagerInterface): Promise<VM> {
  const fields = vm as unknown as CopySource;
  const source: CopySource = {
    common: vm.common,
    blockchain: vm.blockchain,
    stateManager: { shallowCopy: () => stateManager },
    evm: vm.evm,
    _opts: fields._opts,
    _setHardfork: fields._setHardfork,
  };
  return vm.shallowCopy.call(source as unknown as VM, false);
}
