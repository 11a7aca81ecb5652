/** The VM of a chain: ethereumjs' over the chain's state and blocks, with the chain's own precompiles (an OP chain's: opstack/precompiles.ts). */
import { createVM } from "@ethereumjs/vm";

import { initEvmFields } from "../ethereumjs/evmFields.ts";
import { installWordStore } from "../ethereumjs/wordStore.ts";

import type { Blockchain } from "@ethereumjs/blockchain";
import type { Common, StateManagerInterface } from "@ethereumjs/common";
import type { CustomPrecompile } from "@ethereumjs/evm";
import type { VM } from "@ethereumjs/vm";

/** `vm.shallowCopy()` keeps the precompiles (ethereumjs 10.1.3 rebuilds the EVM from its cached options), so state views have them too. */
export async function createChainVm(
  common: Common,
  stateManager: StateManagerInterface,
  blockchain: Blockchain,
  precompiles: CustomPrecompile[] | undefined,
): Promise<VM> {
  installWordStore();
  const vm = await createVM({ common, stateManager, blockchain, ...(precompiles !== undefined && { evmOpts: { customPrecompiles: precompiles } }) });
  initEvmFields(vm.evm);
  return vm;
}
