/**
 * How soon V8 optimizes the server's code. `preconf node` owns its process and sets two V8 flags in
 * it (docs/cli.md#the-servers-process; figures in bench/benchmarks-notes.md). The library, which
 * runs inside its users' processes, never changes V8's flags.
 *
 * - `--invocation-count-for-turbofan=500`: Node 22's V8 optimizes a function with TurboFan once it
 *   has run ~3,000 invocations' worth (Maglev off), so the code a request runs through stays in
 *   the interpreter and baseline tiers for the first several thousand requests: most of a test
 *   suite's life. V8 reads it at each tiering decision, so it is set with `v8.setFlagsFromString`.
 * - `--concurrent-recompilation-queue-length=64`: V8 queues at most 8 functions (its default) for
 *   its background TurboFan compiler; a function that turns hot while the queue is full is not
 *   queued, and is only marked again after another full budget of invocations (V8's
 *   src/codegen/compiler.cc, "Compilation queue full, will retry optimizing … later" under
 *   `--trace-concurrent-recompilation`). A request runs through dozens of functions that all turn
 *   hot at the same request, so most of each burst was dropped: tens per 300 requests in the
 *   server rows, none at 64. V8 sizes the queue when the isolate starts, so this one only works on
 *   Node's command line: the CLI starts itself again with it (`process.execve`, Node ≥ 22.15 on
 *   POSIX: the same process, pid and standard streams), before it loads the chain. It does not
 *   where that would lose something: where Node has no execve, in a process with an IPC channel
 *   (`fork()`: execve keeps only the three standard streams) or under an inspector (`--inspect*`,
 *   given to Node or in NODE_OPTIONS: the debugger would be dropped and a `-brk` would pause
 *   twice). The flag has kept its name and its default, 8, for a decade (V8's
 *   src/flags/flag-definitions.h).
 *
 * A value given on Node's own command line is left as it is (Node refuses these two flags in
 * NODE_OPTIONS).
 */
import { setFlagsFromString } from "node:v8";

export const SERVER_TURBOFAN_INVOCATIONS = 500;
export const SERVER_RECOMPILATION_QUEUE_LENGTH = 64;

const TURBOFAN_INVOCATIONS = "invocation-count-for-turbofan";
const QUEUE_LENGTH = "concurrent-recompilation-queue-length";

/** Whether an option names the flag as V8 reads it: `-` and `_` in a name alike, with or without a value. */
const namesFlag = (flag: string) => new RegExp(`^--${flag.replaceAll("-", "[-_]")}(=|$)`);
const TURBOFAN_INVOCATIONS_GIVEN = namesFlag(TURBOFAN_INVOCATIONS);
const QUEUE_LENGTH_GIVEN = namesFlag(QUEUE_LENGTH);
const INSPECTOR = /^--inspect/;
/** Set on the process started again, so that it never starts itself once more (and removed there). */
const RELAUNCHED = "PRECONF_V8_RELAUNCHED";

/** Sets the tier-up threshold unless Node was given one; answers whether it did. */
export function lowerTierUpThreshold(execArgv: readonly string[] = process.execArgv, setFlags: (flags: string) => void = setFlagsFromString): boolean {
  if (execArgv.some((arg) => TURBOFAN_INVOCATIONS_GIVEN.test(arg))) return false;
  setFlags(`--${TURBOFAN_INVOCATIONS}=${SERVER_TURBOFAN_INVOCATIONS}`);
  return true;
}

/**
 * The command line this process starts again with to have the longer compile queue: the queue's
 * flag, then Node's own options, the script and its arguments as given. Undefined when Node was
 * given a queue length, or an inspector on its command line or in NODE_OPTIONS (which the
 * started process would inherit with the environment).
 */
export function relaunchArgv(execArgv: readonly string[], argv: readonly string[], nodeOptions = ""): string[] | undefined {
  if (execArgv.some((arg) => QUEUE_LENGTH_GIVEN.test(arg) || INSPECTOR.test(arg))) return undefined;
  if (nodeOptions.split(/\s+/).some((option) => INSPECTOR.test(option))) return undefined;
  const [execPath, script, ...args] = argv;
  if (execPath === undefined || script === undefined) return undefined;
  return [execPath, `--${QUEUE_LENGTH}=${SERVER_RECOMPILATION_QUEUE_LENGTH}`, ...execArgv, script, ...args];
}

type Execve = (file: string, args: string[], env: NodeJS.ProcessEnv) => never;

/**
 * Replaces this process with itself started with the longer compile queue, where that loses
 * nothing (see the module comment); returns only when it does not. Call before anything is
 * printed or opened.
 */
export function relaunchWithCompileQueue(execve: Execve | undefined = (process as { execve?: Execve }).execve): void {
  if (process.env[RELAUNCHED] !== undefined) {
    delete process.env[RELAUNCHED];
    return;
  }
  const args = relaunchArgv(process.execArgv, process.argv, process.env.NODE_OPTIONS);
  // Undefined on Windows and before Node 22.15; an IPC channel would be closed by the exec.
  if (args === undefined || execve === undefined || process.channel !== undefined) return;
  try {
    execve(process.execPath, args, { ...process.env, [RELAUNCHED]: "1" });
  } catch {
    // Refused where Node has no execve though the function exists (IBM i; a worker thread): V8's queue it is.
  }
}
