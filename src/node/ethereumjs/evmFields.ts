/**
 * The fields this package keeps on an @ethereumjs/evm `EVM` instance, given to every EVM when it is
 * made (the chain's VM, each state view's copy: `initEvmFields`), in one order, and never deleted.
 *
 * V8 gives an object a hidden class (map) per order in which its properties were added, and turns an
 * object that loses a property other than the last one added into a dictionary with a map of its own.
 * The interpreter's code reads the EVM at every frame and many opcodes; compiled for one map, it
 * deoptimizes on meeting another ("wrong map" in `node --trace-deopt`). The dry-run budget used to be
 * added at a view's first eth_call or estimate, the frame pool's last frame at its first frame, and
 * the budget then deleted: from its first dry run on, every view's EVM was a dictionary of its own, so
 * every dry run ran through property lookups by hash, and the interpreter's optimized code, compiled
 * for the live EVM's map, was thrown away and compiled again in the first workload of dry runs
 * (bench/benchmarks-notes.md, "Fourteenth round").
 *
 * - `budget`: the dry run's wall-time budget under way (execution/evmBudget.ts);
 * - `recording`: the estimate's gas record under way (gasRecord.ts; registered with Symbol.for, so
 *   that two copies of that module in one process read one record);
 * - `lastFrame`: the EVM's last frame, kept for its hidden classes (framePool.ts);
 * - `poolOff`: frames run on the package's own runInterpreter (framePool.ts, for tests);
 * - `runCall`: the prototype's method as an own field, which a dry run through runTx replaces for
 *   its run and sets back (dryRunLogs.ts);
 * - `_block`, `_tx`: the package's own, set by its `runCall` at a tx's first frame (evm.js 10.1.3):
 *   given here too, so that an EVM that has not run a tx yet (a state view's, at its first dry run)
 *   has the live EVM's map.
 */
export const EVM_BUDGET = Symbol("hardhat-preconf.evm.budget");
export const EVM_RECORDING = Symbol.for("hardhat-preconf.gasRecording");
export const EVM_LAST_FRAME = Symbol("hardhat-preconf.framePool.lastFrame");
export const EVM_POOL_OFF = Symbol("hardhat-preconf.framePool.off");

type EvmFields = {
  [EVM_BUDGET]?: unknown;
  [EVM_RECORDING]?: unknown;
  [EVM_LAST_FRAME]?: unknown;
  [EVM_POOL_OFF]?: boolean;
};

/**
 * Two objects of different hidden classes: a field that has held both is typed "any object" in its
 * map from then on. V8 tracks, per field of a map, the class of the objects it has held and whether
 * it was ever written again; the first write that widens either replaces the map ("field type
 * generalization", `--trace-generalization`) and throws away the code optimized for the old one.
 */
const WIDENERS: readonly object[] = [{}, []];
const NO_CALL = () => undefined;

/**
 * Gives `evm` every field above, unset, in this order (an EVM that has them already keeps their
 * values), each already widened to what it will hold: the budget, record and frame are set and
 * cleared by dry runs, estimates and frames, and `runCall` is replaced for a logged dry run's run.
 * Left narrow, the first dry run on a view (whose EVM is made when the view is) widened the view
 * EVM's map, and the code of the block path, optimized for the live EVM's, was compiled again
 * (bench/benchmarks-notes.md, "Nineteenth round").
 */
export function initEvmFields(evm: object): void {
  const fields = evm as EvmFields;
  if (Object.hasOwn(fields, EVM_BUDGET)) return;
  for (const widener of WIDENERS) {
    fields[EVM_BUDGET] = widener;
    fields[EVM_RECORDING] = widener;
    fields[EVM_LAST_FRAME] = widener;
  }
  fields[EVM_BUDGET] = undefined;
  fields[EVM_RECORDING] = undefined;
  fields[EVM_LAST_FRAME] = undefined;
  fields[EVM_POOL_OFF] = false;
  // The method the prototype gives, as an own field (written again as a logged dry run does).
  const withRunCall = evm as { runCall?: unknown };
  const runCall = withRunCall.runCall;
  withRunCall.runCall = NO_CALL;
  withRunCall.runCall = runCall;
  const txFields = evm as { _block?: unknown; _tx?: unknown };
  for (const widener of WIDENERS) {
    txFields._block = widener;
    txFields._tx = widener;
  }
  txFields._block = undefined;
  txFields._tx = undefined;
}
