/**
 * evm_snapshot's records: ids, what each one holds, and the parts outside the chain that a
 * snapshot also covers. A revert uses up its snapshot and every later one (Hardhat's semantics).
 */
import type { PooledTx } from "../pool/mempool.ts";
import type { NextBlockPlan } from "./nextBlock.ts";
import type { OpenBlock, OpenBlockMark } from "../execution/openBlock.ts";
import type { SealedBlock } from "./records.ts";
import type { SnapshotPart } from "./chainTypes.ts";

export interface Snapshot {
  stateRoot: Uint8Array;
  /** Sealed blocks at the snapshot (reserved ones included). */
  sealedCount: number;
  /** The head at the snapshot, when its state was readable (pruning keeps it for the revert). */
  head: SealedBlock | undefined;
  /** The head's state root after the dev edits that had landed on it (stateEdits.ts). */
  headEditedRoot: Uint8Array | undefined;
  open: OpenBlock;
  openMark: OpenBlockMark;
  pool: PooledTx[];
  plan: NextBlockPlan;
  /** What the revert calls to restore each part (`SnapshotPart`). */
  parts: (() => void)[];
}

export class Snapshots {
  readonly #byId = new Map<number, Snapshot>();
  /**
   * How many live snapshots have each head, by the head's number (StateHistory keeps a head's state
   * readable as its window moves past it).
   */
  readonly #heads = new Map<bigint, Map<SealedBlock, number>>();
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
    if (snapshot.head !== undefined) this.#countHead(snapshot.head, 1);
    return id;
  }

  /** Snapshot `id`, used up with every later one; undefined when there is none. */
  use(id: number): Snapshot | undefined {
    const snap = this.#byId.get(id);
    if (snap === undefined) return undefined;
    for (const [later, { head }] of [...this.#byId]) {
      if (later < id) continue;
      this.#byId.delete(later);
      if (head !== undefined) this.#countHead(head, -1);
    }
    return snap;
  }

  #countHead(head: SealedBlock, change: 1 | -1): void {
    const number = head.block.header.number;
    const heads = this.#heads.get(number) ?? new Map<SealedBlock, number>();
    const count = (heads.get(head) ?? 0) + change;
    if (count > 0) heads.set(head, count);
    else heads.delete(head);
    if (heads.size > 0) this.#heads.set(number, heads);
    else this.#heads.delete(number);
  }

  /** The live snapshots (pruning keeps their states). */
  values(): IterableIterator<Snapshot> {
    return this.#byId.values();
  }

  /** The heads of live snapshots numbered `from` to `to - 1`: a lookup per number, or a scan of the head numbers, whichever is fewer. */
  headsIn(from: bigint, to: bigint): SealedBlock[] {
    const found: SealedBlock[] = [];
    if (to - from <= BigInt(this.#heads.size)) {
      for (let number = from; number < to; number++) for (const head of this.#heads.get(number)?.keys() ?? []) found.push(head);
    } else {
      for (const [number, heads] of this.#heads) if (number >= from && number < to) found.push(...heads.keys());
    }
    return found;
  }

  /** Every snapshot is used up (a load, a reset); ids keep counting. */
  clear(): void {
    this.#byId.clear();
    this.#heads.clear();
  }
}
