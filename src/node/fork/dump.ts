/**
 * State dumps of a forked chain (stateDump.ts does the rest): the dump holds the blocks from the
 * fork block on, and the accounts the fork wrote together with its markers account (forkState.ts),
 * so that once loaded into a fork of the same block every read answers as before the dump: written
 * accounts and slots from the dump, the rest from the upstream.
 */
import { Caches } from "@ethereumjs/statemanager";

import { asBlockchain } from "../ethereumjs/blockchain.ts";
import { withUpstreamHash } from "./engine.ts";
import { ForkBlockchain } from "./forkBlockchain.ts";
import { ForkStateManager } from "./forkState.ts";

import type { Common } from "@ethereumjs/common";
import type { ForkRestore } from "../chain/dumpRestore.ts";
import type { ForkSource } from "./source.ts";

export function forkRestore(source: ForkSource, common: Common): ForkRestore {
  return {
    blockNumber: source.blockNumber,
    blockHash: source.block.hash,
    firstBlock: (decoded) => withUpstreamHash(decoded, source.block.hash),
    stateManager: () => {
      const stateManager = new ForkStateManager({ common, caches: new Caches() }, source);
      stateManager.raw = true;
      return stateManager;
    },
    stateWritten: (stateManager) => {
      (stateManager as ForkStateManager).raw = false;
    },
    blockchain: async (blocks) => {
      const blockchain = new ForkBlockchain(source, blocks[0]!);
      for (const block of blocks.slice(1)) await blockchain.putBlock(block);
      return asBlockchain(blockchain);
    },
  };
}
