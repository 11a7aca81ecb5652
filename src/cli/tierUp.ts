/**
 * How soon V8 optimizes the server's code. Node 22's V8 optimizes a function with TurboFan once it
 * has run ~3,000 invocations' worth (`--invocation-count-for-turbofan=3000`, with Maglev off), so
 * the code a request runs through stays in the interpreter and baseline tiers for the first several
 * thousand requests: most of a test suite's life. `preconf node` owns its process, so it lowers the
 * threshold to 500 before it loads the chain (docs/cli.md; figures in bench/benchmarks-notes.md).
 * A threshold given on Node's own command line or in NODE_OPTIONS is left as it is. The library,
 * which runs inside its users' processes, never changes V8's flags.
 */
import { setFlagsFromString } from "node:v8";

const FLAG = "--invocation-count-for-turbofan";
/** The flag as Node may have been given it: V8 reads `-` and `_` in a flag's name alike. */
const GIVEN = /--invocation[-_]count[-_]for[-_]turbofan\b/;
export const SERVER_TURBOFAN_INVOCATIONS = 500;

/** Sets the threshold unless Node was given one; answers whether it did. */
export function lowerTierUpThreshold(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? "",
  setFlags: (flags: string) => void = setFlagsFromString,
): boolean {
  if (execArgv.some((arg) => GIVEN.test(arg)) || GIVEN.test(nodeOptions)) return false;
  setFlags(`${FLAG}=${SERVER_TURBOFAN_INVOCATIONS}`);
  return true;
}
