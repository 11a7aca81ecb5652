/**
 * A copy of a VM over another state manager. @ethereumjs/vm 10.1.3's `shallowCopy` (vm.js) builds
 * the copy's EVM from the original's cached options (precompiles, hooks' opcode tables) and takes
 * its state from `this.stateManager.shallowCopy()`; it is called here on an object that inherits
 * everything from `vm` but whose state manager hands out `stateManager`, so the copy is what
 * `vm.shallowCopy(false)` builds, over `stateManager`. test/viewState.test.ts fails if the copy's
 * VM or EVM reads another state.
 */
import type { StateManagerInterface } from "@ethereumjs/common";
import type { VM } from "@ethereumjs/vm";

export function copyVmOver(vm: VM, stateManager: StateManagerInterface): Promise<VM> {
  const source = Object.create(vm, { stateManager: { value: { shallowCopy: () => stateManager } } }) as VM;
  return vm.shallowCopy.call(source, false);
}
