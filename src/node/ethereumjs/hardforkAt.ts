/**
 * `Common.getHardforkBy` and `setHardforkBy` for a block (the one being opened, the one a state view
 * reads at), without deriving the fork from the schedule at every block. @ethereumjs/common's
 * getHardforkBy (10.1.3) filters and scans the chain's hardfork list, converting each activation,
 * on every call; its answer depends on the block's number and timestamp only through how they
 * compare with the list's activation blocks and timestamps, so it is derived once per such class
 * (once per fork, in practice) and remembered.
 */
import type { Common } from "@ethereumjs/common";

interface Schedule {
  /** Activation blocks and timestamps of the chain's scheduled hardforks, ascending (0 among the timestamps: getHardforkBy's default). */
  blocks: bigint[];
  timestamps: bigint[];
  /** getHardforkBy's answer per class (see `classOf`). */
  answers: Map<string, string>;
}

const schedules = new WeakMap<Common, Schedule>();

/**
 * Timestamps getHardforkBy compares as JavaScript numbers (its bounds checks): above this they
 * round, and its answer is no longer a function of the class alone; such blocks ask it directly.
 */
const EXACT_TIMESTAMPS = BigInt(Number.MAX_SAFE_INTEGER);

/** Sets `common`'s hardfork to the one of block `number` at `timestamp`, as `setHardforkBy` does. */
export function setHardforkAt(common: Common, number: bigint, timestamp: bigint): void {
  common.setHardfork(hardforkAt(common, number, timestamp));
}

/** The hardfork of block `number` at `timestamp` in `common`'s schedule, as `getHardforkBy` answers. */
export function hardforkAt(common: Common, number: bigint, timestamp: bigint): string {
  if (timestamp > EXACT_TIMESTAMPS || number < 0n || timestamp < 0n) return common.getHardforkBy({ blockNumber: number, timestamp });
  const schedule = scheduleOf(common);
  const key = `${classOf(schedule.blocks, number)}/${classOf(schedule.timestamps, timestamp)}`;
  let name = schedule.answers.get(key);
  if (name === undefined) {
    // A refusal (an inconsistent schedule) is not remembered: it is thrown again each time.
    name = common.getHardforkBy({ blockNumber: number, timestamp });
    schedule.answers.set(key, name);
  }
  return name;
}

function scheduleOf(common: Common): Schedule {
  let schedule = schedules.get(common);
  if (schedule === undefined) {
    const blocks = new Set<bigint>();
    const timestamps = new Set<bigint>([0n]);
    for (const hardfork of common.hardforks()) {
      if (hardfork.block !== null && hardfork.block !== undefined) blocks.add(BigInt(hardfork.block));
      if (hardfork.timestamp !== undefined) timestamps.add(BigInt(hardfork.timestamp));
    }
    const ascending = (values: Set<bigint>) => [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    schedule = { blocks: ascending(blocks), timestamps: ascending(timestamps), answers: new Map() };
    schedules.set(common, schedule);
  }
  return schedule;
}

/** Where `value` falls among `sorted`: 2 × the values below it, + 1 when it equals one. */
function classOf(sorted: readonly bigint[], value: bigint): number {
  let below = 0;
  while (below < sorted.length && sorted[below]! < value) below++;
  return 2 * below + (sorted[below] === value ? 1 : 0);
}
