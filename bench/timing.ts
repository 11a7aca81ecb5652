/**
 * Timing for the bench: wall time, and CPU time of the process that does the work. On a loaded
 * machine a process waits for a core, which wall time counts and CPU time does not; ratios of CPU
 * times compare the work each peer does, ratios of wall times what a user waits.
 */
import { readdirSync, readFileSync } from "node:fs";

/** Starts timing: the returned function gives the wall and CPU time since (see `Sample.cpuMs`). */
export function stopwatch(): () => { ms: number; cpuMs: number } {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(cpu);
    return { ms: performance.now() - wall, cpuMs: (used.user + used.system) / 1000 };
  };
}

/** CPU time (user + system, ms) of another process, from /proc (Linux); undefined elsewhere or once it is gone. */
export function processCpuMs(pid: number): number | undefined {
  return statCpuMs(`/proc/${pid}/stat`);
}

/**
 * A reading of another process's CPU time (Linux; undefined elsewhere or once it is gone):
 * `ticksMs`, the whole process's in 10 ms ticks (/proc/<pid>/stat, threads that have exited
 * included), and `ns`, its live threads' to the nanosecond (the scheduler's run time of each,
 * /proc/<pid>/task/<tid>/schedstat; undefined when one could not be read), with which threads
 * those were.
 */
export interface CpuReading {
  ticksMs: number;
  ns: number | undefined;
  threads: string;
}

export function readProcessCpu(pid: number): CpuReading | undefined {
  const ticksMs = processCpuMs(pid);
  if (ticksMs === undefined) return undefined;
  let tids: string[] = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`).sort();
    let ns = 0;
    for (const tid of tids) ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    return { ticksMs, ns, threads: tids.join(",") };
  } catch {
    // A thread gone between the listing and its read, or no schedstat: this reading is in ticks.
    return { ticksMs, ns: undefined, threads: tids.join(",") };
  }
}

/**
 * The CPU time (ms) a process spent between two readings: to the nanosecond when the same threads
 * were alive at both (a thread that ended in between takes its time out of the live threads' sum;
 * a thread id reused within one sample would go unseen, which Linux makes unlikely, since it hands
 * out ids in increasing order), else in ticks. A server row's few hundred requests cost a few
 * ticks, so ticks alone move a ratio by ±10-30 %.
 */
export function cpuMsBetween(before: CpuReading, after: CpuReading): number {
  if (before.ns === undefined || after.ns === undefined || before.threads !== after.threads) return after.ticksMs - before.ticksMs;
  return (after.ns - before.ns) / 1e6;
}

/** CPU time (ms) of this process's main thread alone (Linux; undefined elsewhere): the rest is V8's background threads. */
export function mainThreadCpuMs(): number | undefined {
  return statCpuMs(`/proc/self/task/${process.pid}/stat`);
}

function statCpuMs(path: string): number | undefined {
  try {
    const stat = readFileSync(path, "utf8");
    // Fields after the command name (which may hold spaces, inside parentheses): utime and stime are the 14th and 15th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** USER_HZ: /proc counts CPU time in ticks of 1/100 s on every Linux build Node supports. */
const CLOCK_TICKS = 100;
