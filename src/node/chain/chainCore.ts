/**
 * The parts of a chain its modules share, and the steps they all take inside the writer queue:
 * executing a fragment, sealing, re-opening the open block, and installing a whole new chain.
 * `Chain` (chain.ts) holds one core and is the way in from outside the engine.
 */
import { flatHex } from "../common/hex.ts";
import { decodeFeeParams } from "../opstack/feeParams.ts";
import { endBlockRequests } from "../execution/systemCalls.ts";

import type { Common, GethGenesis } from "@ethereumjs/common";
import type { VM } from "@ethereumjs/vm";
import type { AccountIndex } from "../state/accountIndex.ts";
import type { BlockStore } from "./blockStore.ts";
import type { ChainConfig, ChainEvents, InitialState } from "./chainTypes.ts";
import type { FragmentRunner } from "../execution/fragmentRunner.ts";
import type { Mempool } from "../pool/mempool.ts";
import type { Defaults, NextBlock } from "./nextBlock.ts";
import type { OpenBlock } from "../execution/openBlock.ts";
import type { PendingFeed } from "../pool/pendingFeed.ts";
import type { Fragment, SealedBlock } from "./records.ts";
import type { SerialQueue } from "../common/serialQueue.ts";
import type { Snapshots } from "./snapshots.ts";
import type { StateHistory } from "../state/stateHistory.ts";

export interface ChainCore {
  /** Replaced by hardhat_reset with `forking` (the fork it resets to from then on). */
  config: ChainConfig;
  readonly common: Common;
  /** The single writer: every state change runs here, one at a time. */
  readonly queue: SerialQueue;
  readonly store: BlockStore;
  readonly history: StateHistory;
  readonly next: NextBlock;
  readonly snapshots: Snapshots;
  readonly runner: FragmentRunner;
  readonly pool: Mempool;
  readonly feed: PendingFeed;
  // Set by `install`: at creation, load and reset.
  vm: VM;
  index: AccountIndex;
  genesis: GethGenesis;
  open: OpenBlock;
  /** Hardhat's automine: every admitted tx gets a fragment and a seal of its own, at once. */
  automine: boolean;
  emit<K extends keyof ChainEvents>(event: K, ...args: ChainEvents[K]): void;
}

/** Fragments the open block has before it seals: the `fragmentsPerBlock` option, else its fork's cadence. */
export const fragmentsPerBlockOf = (core: ChainCore): number => core.config.fragmentsPerBlock ?? core.open.fork.rules.fragmentsPerBlock;

/** `alone`: the block is sealed right after this fragment (seal(), evm_mine), which then carries its txs too. */
export async function executeFragment(core: ChainCore, alone = false): Promise<Fragment> {
  const fragment = await core.runner.execute(alone);
  core.emit("fragment", fragment);
  return fragment;
}

/** Automine: the tx or deposit just admitted gets a fragment and a block of its own, at the clock's time (as Hardhat mines it). */
export async function automineNow(core: ChainCore): Promise<void> {
  if (!core.automine) return;
  if (core.open.fragments.length === 0 && core.next.isStale(core.open, core.store.latest.block)) reopenIfEmpty(core);
  await executeFragment(core);
  await seal(core);
}

export async function seal(core: ChainCore): Promise<SealedBlock> {
  const open = core.open;
  // An L1 chain's block ends with the EIP-7002/7251 request dequeues; an OP chain's has none (systemCalls.ts).
  const requests = core.config.op === undefined ? await endBlockRequests(core.vm, open.executionBlock) : [];
  const stateRoot = await core.vm.stateManager.getStateRoot();
  const block = await open.seal(stateRoot, { requests });
  const hash = flatHex(block.hash());
  for (const record of open.transactions) record.blockHash = hash;
  const sealed: SealedBlock = { block, hash, transactions: [...open.transactions], fragmentCount: open.fragments.length };
  if (open.edits.length > 0) sealed.edits = [...open.edits];
  core.store.push(sealed);
  core.next.sealed();
  core.open = core.next.openAfter(block);
  core.history.afterSeal(sealed, stateRoot, core.vm, (number) => core.store.byNumber(number), core.snapshots);
  core.emit("sealed", sealed);
  return sealed;
}

/** Opens the open block again with the current overrides, unless it already pre-confirmed something. */
export function reopenIfEmpty(core: ChainCore): void {
  if (core.open.fragments.length > 0) return;
  core.open = core.next.reopenAfter(core.store.latest.block);
}

/** Swaps the whole chain for `restored`: what can fail (opening its next block) runs before anything changes. */
export function install(core: ChainCore, restored: InitialState): void {
  const head = restored.sealed[restored.sealed.length - 1]!;
  const defaults: Defaults = {
    coinbase: core.config.coinbase,
    gasLimit: head.block.header.gasLimit,
    // An OP chain's fee parameters are in its head's extraData (a fork's upstream's too), else the profile's.
    ...(core.config.feeParams !== undefined && { feeParams: decodeFeeParams(head.block.header.extraData) ?? core.config.feeParams }),
  };
  const built = restored.open === undefined ? core.next.build(head.block, restored.nextTimestamp, restored.timeOffset, {}, defaults) : undefined;
  const open = restored.open ?? built!.open;
  core.vm = restored.vm;
  core.index = restored.index;
  core.store.shareHeaders(restored.blockchain);
  core.genesis = restored.genesis;
  core.store.replace(restored.sealed);
  core.next.reset(
    restored.timeOffset,
    restored.nextTimestamp,
    restored.open !== undefined,
    defaults,
    built && { parentHash: head.hash, defaults: built.defaults },
  );
  core.open = open;
  for (const record of open.transactions) core.store.indexTransaction(record);
  core.pool.clear();
  core.config.op?.clear();
  for (const entry of restored.pool) core.pool.add({ ...entry, seq: core.pool.nextSeq() }, core.config.clock.now());
  const headNumber = core.store.latest.block.header.number;
  core.history.reset(restored.vm, restored.historyFrom ?? headNumber, headNumber);
  // A dump's head state may hold dev edits its blocks do not give (stateEdits.ts).
  if (restored.headEditedRoot !== undefined) core.history.setEditedRoot(core.store.latest, restored.headEditedRoot);
  core.snapshots.clear();
  core.emit("rewound", core.store.latest);
}
