/**
 * evm_snapshot's records: ids, what each one holds, and the parts outside the chain that a
 * snapshot also covers. A revert uses up its snapshot and every later one (Hardhat's semantics).
 */
import type { PooledTx } from "./mempool.ts";
import type { NextBlockPlan } from "./nextBlock.ts";
import type { OpenBlock, OpenBlockMark } from "./openBlock.ts";
import type { SealedBlock } from "./records.ts";
import type { ChainCore } from "./chainCore.ts";
import type { SnapshotPart } from "./chainTypes.ts";

export interface Snapshot {
  stateRoot: Uint8Array;
  /** Sealed blocks at the snapshot (reserved ones included). */
  sealedCount: number;
  /** The head at the snapshot, when its state was readable (pruning keeps it for the revert). */
  head: SealedBlock | undefined;
  open: OpenBlock;
  openMark: OpenBlockMark;
  pool: PooledTx[];
  plan: NextBlockPlan;
  /** What the revert calls to restore each part (`SnapshotPart`). */
  parts: (() => void)[];
}

export class Snapshots {
  readonly #byId = new Map<number, Snapshot>();
  #nextId = 1;
  readonly #parts: SnapshotPart[] = [];

  /** Adds something evm_snapshot / evm_revert also cover. */
  addPart(part: SnapshotPart): void {
    this.#parts.push(part);
  }

  /** Records `snapshot` with its parts captured now; answers its id. */
  take(snapshot: Omit<Snapshot, "parts">): number {
    const id = this.#nextId++;
    this.#byId.set(id, { ...snapshot, parts: this.#parts.map((part) => part.capture()) });
    return id;
  }

  /** Snapshot `id`, used up with every later one; undefined when there is none. */
  use(id: number): Snapshot | undefined {
    const snap = this.#byId.get(id);
    if (snap === undefined) return undefined;
    for (const later of [...this.#byId.keys()]) if (later >= id) this.#byId.delete(later);
    return snap;
  }

  /** The live snapshots (pruning keeps their states). */
  values(): IterableIterator<Snapshot> {
    return this.#byId.values();
  }

  /** Every snapshot is used up (a load, a reset); ids keep counting. */
  clear(): void {
    this.#byId.clear();
  }
}

/** evm_snapshot (inside the queue): records everything a revert restores (state, sealed chain, open block, pool, time). */
export async function takeSnapshot(core: ChainCore): Promise<number> {
  const latest = core.store.latest;
  return core.snapshots.take({
    stateRoot: await core.vm.stateManager.getStateRoot(),
    sealedCount: core.store.count,
    head: core.history.hasState(latest) ? latest : undefined,
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
  core.history.rewind(store.latest.block.header.number + 1n);
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
  // The snapshot may hold dev edits that no sealed block has.
  core.latestEdited = true;
  for (const restore of snap.parts) restore();
  core.emit("rewound", store.latest);
  return true;
}
