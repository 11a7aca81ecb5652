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
 *   src/compiler.cc, "Compilation queue full, will retry optimizing … later" under
 *   `--trace-concurrent-recompilation`). A request runs through dozens of functions that all turn
 *   hot at the same request, so most of each burst was dropped: tens per 300 requests in the
 *   server rows, none at 64. V8 sizes the queue when the isolate starts, so this one only works on
 *   Node's command line: the CLI starts itself again with it (`process.execve`, Node ≥ 22.15 on
 *   POSIX: the same process, pid and standard streams), before it loads the chain. Elsewhere it
 *   runs without. The flag has kept its name and default (8) for a decade (V8 src/flags/flag-definitions.h).
 *
 * A value given on Node's own command line is left as it is (Node refuses V8 flags in
 * NODE_OPTIONS).
 */
import { setFlagsFromString } from "node:v8";

/** A flag as V8 reads it: `-` and `_` in its name alike, with or without a value. */
const given = (name: string) => new RegExp(`^--${name.replace(/-/g, "[-_]")}(=|$)`);

const TURBOFAN_INVOCATIONS = "invocation-count-for-turbofan";
const QUEUE_LENGTH = "concurrent-recompilation-queue-length";
export const SERVER_TURBOFAN_INVOCATIONS = 500;
export const SERVER_RECOMPILATION_QUEUE_LENGTH = 64;

/** Sets the tier-up threshold unless Node was given one; answers whether it did. */
export function lowerTierUpThreshold(execArgv: readonly string[] = process.execArgv, setFlags: (flags: string) => void = setFlagsFromString): boolean {
  if (execArgv.some((arg) => given(TURBOFAN_INVOCATIONS).test(arg))) return false;
  setFlags(`--${TURBOFAN_INVOCATIONS}=${SERVER_TURBOFAN_INVOCATIONS}`);
  return true;
}

/**
 * The command line this process starts again with to have the longer compile queue, or undefined
 * when Node was given a queue length: Node's options (the queue's first), the script, its arguments.
 */
export function relaunchArgv(execArgv: readonly string[], argv: readonly string[]): string[] | undefined {
  if (execArgv.some((arg) => given(QUEUE_LENGTH).test(arg))) return undefined;
  const [execPath, script, ...args] = argv;
  if (execPath === undefined || script === undefined) return undefined;
  return [execPath, `--${QUEUE_LENGTH}=${SERVER_RECOMPILATION_QUEUE_LENGTH}`, ...execArgv, script, ...args];
}

type Execve = (file: string, args: string[], env: NodeJS.ProcessEnv) => never;

/**
 * Replaces this process with itself started with the longer compile queue, where Node can
 * (`process.execve`); returns only when it does not. Call before anything is printed or opened.
 */
export function relaunchWithCompileQueue(execve: Execve | undefined = (process as { execve?: Execve }).execve): void {
  const args = relaunchArgv(process.execArgv, process.argv);
  if (args === undefined || execve === undefined || process.platform === "win32") return;
  try {
    execve(process.execPath, args, process.env);
  } catch {
    // Refused where Node has no execve (IBM i; a worker thread): the server runs at V8's queue length.
  }
}
