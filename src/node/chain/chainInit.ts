/** What a chain starts from (and hardhat_reset returns to): a loaded dump, a fork of an upstream block, or a fresh build. */
import { bytesToHex } from "@ethereumjs/util";

import { writeGenesisState } from "../state/genesis.ts";
import { decodeBlocks, importBlocks } from "./importChain.ts";
import { asBlockchain } from "../ethereumjs/blockchain.ts";
import { createGenesisBlock, LightBlockchain } from "./lightBlockchain.ts";
import { nowSeconds } from "./nextBlock.ts";
import { AccountIndex } from "../state/accountIndex.ts";
import { createLiveState } from "../state/liveState.ts";
import { restoreState } from "./dumpRestore.ts";
import { forkRestore } from "../fork/dump.ts";
import { createForkEngine } from "../fork/engine.ts";
import { createChainVm } from "../execution/vm.ts";
import { commonJsRequire } from "../common/moduleSystem.ts";

import type { Blockchain } from "@ethereumjs/blockchain";
import type { Common } from "@ethereumjs/common";
import type { VM } from "@ethereumjs/vm";
import type { ChainConfig, InitialState } from "./chainTypes.ts";
import type { SealedBlock } from "./records.ts";

export async function initialState(config: ChainConfig, common: Common): Promise<InitialState> {
  if (config.state !== undefined)
    return restoreState(common, config, nowSeconds(config.clock), config.state, config.fork === undefined ? undefined : forkRestore(config.fork, common));
  // A fork starts from the upstream's block; a fresh chain from its genesis (every block has its state).
  const engine =
    config.fork !== undefined ? await createForkEngine(config.fork, common, config.genesis.alloc, config.precompiles) : await build(config, common);
  // A fork of an OP-stack chain goes on with the L1 fees its upstream's L1Block holds at the fork block.
  if (config.fork !== undefined) await config.op?.adoptL1Fees(engine.vm.stateManager);
  return {
    ...engine,
    open: undefined,
    pool: [],
    timeOffset: config.initialTimeOffset ?? 0n,
    nextTimestamp: undefined,
    headEditedRoot: undefined,
    genesis: config.genesis,
    historyFrom: config.fork?.blockNumber ?? 0n,
  };
}

/** The engine of a new chain: genesis state, then the imported blocks. */
async function build(config: ChainConfig, common: Common): Promise<{ vm: VM; blockchain: Blockchain; index: AccountIndex; sealed: SealedBlock[] }> {
  const stateManager = createLiveState(common);
  // Before anything is written: the index must see every account and slot (accountIndex.ts).
  const index = AccountIndex.attach(stateManager);
  const stateRoot = await writeGenesisState(stateManager, config.genesis.alloc);
  // Imported blocks are validated against their parents by runBlock, through the blockchain's
  // validateHeader: @ethereumjs/blockchain's. A new chain needs none of it (lightBlockchain.ts).
  const blockchain =
    config.chainRlp === undefined
      ? asBlockchain(new LightBlockchain(createGenesisBlock(common, stateRoot)))
      : await (await ethereumjsBlockchain()).createBlockchain({ common, genesisStateRoot: stateRoot, validateBlocks: false, validateConsensus: false });
  const vm = await createChainVm(common, stateManager, blockchain, config.precompiles);
  const genesis = await blockchain.getBlock(0n);
  // Imported first: the open block follows the imported head (a pre-merge genesis cannot be built on).
  const imported = config.chainRlp === undefined ? [] : await importBlocks(vm, blockchain, decodeBlocks(config.chainRlp, common));
  const sealedGenesis: SealedBlock = { block: genesis, hash: bytesToHex(genesis.hash()), transactions: [], fragmentCount: 0 };
  return { vm, blockchain, index, sealed: [sealedGenesis, ...imported] };
}

/**
 * @ethereumjs/blockchain (~15 modules), loaded only for a chain that imports blocks. Through
 * `require` where a loader has compiled this file to CommonJS, so that it is the same build as the
 * rest of @ethereumjs there (moduleSystem.ts).
 */
async function ethereumjsBlockchain(): Promise<typeof import("@ethereumjs/blockchain")> {
  const commonJs = commonJsRequire(import.meta.url);
  return commonJs !== undefined ? (commonJs("@ethereumjs/blockchain") as typeof import("@ethereumjs/blockchain")) : await import("@ethereumjs/blockchain");
}
