/**
 * Patch (@ethereumjs/common 10.1.3, the entries of `Common.hardforks()`): a post-merge fork
 * activated at a block number. ethereumjs schedules post-merge forks by timestamp only (a geth
 * genesis has `osakaTime`, no `osakaBlock`), but its fork lookup (`getHardforkBy`) compares block
 * numbers for any entry that has one. A local chain can schedule a fork at a block
 * (docs/profiles.md, "Scheduling a fork"): the genesis gives the fork a placeholder time, so that
 * the entry exists, and this turns the entry into a block activation. Every copy of the Common
 * shares the entries (`copy()` is shallow), so state views and dry runs see the same schedule.
 * test/forkSchedule.test.ts fails if the lookup stops honouring it.
 */
import type { Common } from "@ethereumjs/common";

export function activateHardforkAtBlock(common: Common, hardfork: string, block: bigint): void {
  const entry = common.hardforks().find((hf) => hf.name === hardfork);
  if (entry === undefined) throw new Error(`the genesis schedules no ${hardfork} fork to move to block ${block}`);
  Object.assign(entry, { block: Number(block), timestamp: undefined });
}
