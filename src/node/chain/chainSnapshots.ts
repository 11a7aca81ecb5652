/** evm_snapshot and evm_revert over every part of the chain (the records themselves: snapshots.ts). */
import { isLiveState } from "../state/liveState.ts";

import type { ChainCore } from "./chainCore.ts";

/** evm_snapshot (inside the queue): records everything a revert restores (state, sealed chain, open block, pool, time). */
export async function takeSnapshot(core: ChainCore): Promise<number> {
  const latest = core.store.latest;
  const stateRoot = await core.vm.stateManager.getStateRoot();
  // What the state reads at this root stays remembered: evm_revert comes back to it.
  const state = core.vm.stateManager;
  if (isLiveState(state)) state.keepMemos(stateRoot);
  return core.snapshots.take({
    stateRoot,
    sealedCount: core.store.count,
    head: core.history.hasState(latest) ? latest : undefined,
    headEditedRoot: core.history.editedRootOf(latest),
    open: core.open,
    openMark: core.open.mark(),
    pool: [...core.pool.all()],
    plan: core.next.capture(),
  });
}

/** evm_revert (inside the queue): back to snapshot `id`; false when there is none. */
export async function revertTo(core: ChainCore, id: number): Promise<boolean> {
  const snap = core.snapshots.use(id);
  if (snap === undefined) return false;
  const { store } = core;
  store.cutTo(snap.sealedCount);
  const dropped = store.dropped;
  core.history.rewind(store.latest, dropped === undefined ? 0n : dropped.to + 1n, core.snapshots);
  if (core.open !== snap.open) for (const record of core.open.transactions) store.forgetTransaction(record.hash);

  const open = snap.open;
  for (const record of open.rewindTo(snap.openMark)) store.forgetTransaction(record.hash);
  // The snapshot's open block may have been sealed since, and its records' lookups dropped with
  // that block above: the records it keeps are pre-confirmed again, so they are indexed again.
  for (const record of open.transactions) {
    record.blockHash = undefined;
    store.indexTransaction(record);
  }
  core.open = open;

  core.pool.clear();
  // Restored txs start a new lifetime.
  for (const entry of snap.pool) core.pool.add(entry, core.config.clock.now());
  core.next.restore(snap.plan);
  await core.vm.stateManager.setStateRoot(snap.stateRoot);
  // The head's state as it was, with the dev edits that had landed on it then (stateEdits.ts).
  core.history.setEditedRoot(store.latest, snap.headEditedRoot);
  for (const restore of snap.parts) restore();
  core.emit("rewound", store.latest);
  return true;
}
