/** A chain as a state dump and back (the format: stateDump.ts), inside the writer queue. */
import { MAX_DUMPED_RESERVED_BLOCKS } from "./blockStore.ts";
import { install } from "./chainCore.ts";
import { BlocksDroppedError } from "../common/errors.ts";
import { captureState } from "./dumpCapture.ts";
import { restoreState } from "./dumpRestore.ts";
import { nowSeconds } from "./nextBlock.ts";
import { StateDumpError } from "../state/stateDump.ts";
import { forkRestore } from "../fork/dump.ts";
import { trieOnly } from "../fork/forkState.ts";
import { stateRootOf } from "../state/stateEdits.ts";

import type { Block } from "@ethereumjs/block";
import type { ChainCore } from "./chainCore.ts";
import type { ParsedStateDump, StateDump } from "../state/stateDump.ts";

/**
 * The chain as a versioned JSON document. The open block is in it once it has fragments; an
 * empty one is re-opened at load, keeping its timestamp only when it is not the clock's
 * (evm_setNextBlockTimestamp).
 */
export function dumpState(core: ChainCore): Promise<StateDump> {
  const { store, open, next, history } = core;
  const head = store.latest;
  const requested =
    open.fragments.length > 0
      ? next.nextTimestamp
      : open.header.timestamp === next.timestampAfter(head.block.header.timestamp, undefined)
        ? undefined
        : open.header.timestamp;
  const every = store.everySealed(MAX_DUMPED_RESERVED_BLOCKS);
  if ("dropped" in every) throw new BlocksDroppedError(every.dropped);
  if ("reserved" in every) {
    throw new StateDumpError(
      "blocks",
      `the chain has ${every.reserved} empty blocks from hardhat_mine; a dump writes every block, and at most ${MAX_DUMPED_RESERVED_BLOCKS} of those`,
    );
  }
  const fork = core.config.fork;
  // A fork's dump holds its trie as it is: what the fork wrote, not what it reads upstream.
  return trieOnly(core.vm, () =>
    captureState({
      chainId: core.common.chainId(),
      genesis: core.genesis,
      sealed: every.blocks,
      open,
      pool: [...core.pool.all()],
      timeOffset: next.timeOffset,
      nextTimestamp: requested,
      index: core.index,
      live: core.vm,
      // The head's state as reads see it: with the dev edits that landed on it (stateEdits.ts).
      atHead: history.hasState(head)
        ? (read) =>
            history.read(
              { header: { stateRoot: stateRootOf(core, head), number: head.block.header.number, timestamp: head.block.header.timestamp } } as Block,
              (vm) => trieOnly(vm, () => read(vm)),
            )
        : undefined,
      fork: fork === undefined ? undefined : { blockNumber: fork.blockNumber, blockHash: fork.block.hash },
    }),
  );
}

/**
 * Replaces the whole chain by a dump's (blocks, receipts, state, open block, pool, time);
 * snapshots are used up. The dump must be of a chain with the same id and fork schedule. Throws
 * StateDumpError, and then nothing has changed.
 */
export async function loadState(core: ChainCore, dump: ParsedStateDump): Promise<void> {
  if (canonicalJson(dump.genesis.config) !== canonicalJson(core.genesis.config)) {
    throw new StateDumpError(
      "genesis.config",
      "the dump's chain has another fork schedule than this one; start a provider from the dump instead (the `state` option, `preconf node --load-state`)",
    );
  }
  const { common, config } = core;
  try {
    install(core, await restoreState(common, config, nowSeconds(config.clock), dump, config.fork === undefined ? undefined : forkRestore(config.fork, common)));
  } catch (error) {
    // Restoring moves the shared Common to the dump's open block; the running open block needs its own fork back.
    common.setHardforkBy({ blockNumber: core.open.number, timestamp: core.open.header.timestamp });
    throw error;
  }
}

/** JSON with sorted keys, so that two objects compare by content. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_, item: unknown) =>
    typeof item === "object" && item !== null && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}
