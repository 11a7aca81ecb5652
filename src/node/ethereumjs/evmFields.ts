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

/** What each field below holds for a moment when it is made (see initEvmFields). */
const PLACEHOLDER = {};
const NO_CALL = () => undefined;

/**
 * Gives `evm` every field above, unset, in this order (an EVM that has them already keeps their
 * values), each written a second time: V8 marks a field written again after its object was made
 * as mutable in the object's hidden class, once, and throws away the code that had read it as a
 * constant. The budget, record and frame are set and cleared by dry runs, estimates and frames, and
 * `runCall` is replaced for a logged dry run's run; written twice here, before anything is
 * optimized, a view's first dry run changes nothing the block path's code relies on
 * (bench/benchmarks-notes.md, "Nineteenth round").
 */
export function initEvmFields(evm: object): void {
  const fields = evm as EvmFields;
  if (Object.hasOwn(fields, EVM_BUDGET)) return;
  fields[EVM_BUDGET] = PLACEHOLDER;
  fields[EVM_RECORDING] = PLACEHOLDER;
  fields[EVM_LAST_FRAME] = PLACEHOLDER;
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
  txFields._block = PLACEHOLDER;
  txFields._tx = PLACEHOLDER;
  txFields._block = undefined;
  txFields._tx = undefined;
}
