/**
 * A dry run's logs kept out of runTx's bloom and receipt. After the EVM has run, @ethereumjs/vm's
 * runTx builds the tx's logs bloom (a keccak per address and topic: an ERC-20 transfer's one log
 * is ~5 % of its eth_estimateGas) and a receipt holding the logs. A dry run (eth_call,
 * eth_estimateGas, eth_createAccessList, debug_traceCall) answers from the execution result alone
 * and drops both; eth_simulateV1 and the chain's own txs, which need them, do not come here.
 *
 * Patch (@ethereumjs/vm 10.1.3, runTx.js `_runTx`): for one run, `vm.evm.runCall` (an own field of
 * a chain's EVM: evmFields.ts) is replaced by one that moves the result's `execResult.logs` aside;
 * runTx then builds an empty bloom and a receipt without logs, and the logs are put back on the
 * result it returns, followed by any runTx appended itself (EIP-7708's burn logs,
 * processSelfdestructs), the order runTx gives them. It relies on runTx calling `vm.evm.runCall`
 * once and reading the logs only from that result after it; test/dryRunLogs.test.ts fails if a dry
 * run builds a bloom again or its logs change.
 *
 * A VM runs one thing at a time (a state view's lane, the live VM's queue), so the override is
 * seen by this run only, as assertedSender.ts's are.
 */
import type { EVMInterface, EVMResult, EVMRunCallOpts, Log } from "@ethereumjs/evm";
import type { RunTxResult, VM } from "@ethereumjs/vm";

/** Runs `run` (one runTx on `vm`) with its logs kept out of the bloom and receipt, and returns its result with the logs. */
export async function runTxWithoutBloom(vm: VM, run: () => Promise<RunTxResult>): Promise<RunTxResult> {
  const evm = vm.evm as EVMInterface & { runCall(opts: EVMRunCallOpts): Promise<EVMResult> };
  const upstream = evm.runCall;
  // An own runCall (evmFields.ts gives every EVM one) is set back rather than deleted: a deleted
  // field would make the EVM a dictionary with a hidden class of its own.
  const own = Object.hasOwn(evm, "runCall");
  let aside: Log[] | undefined;
  evm.runCall = async function (this: unknown, opts: EVMRunCallOpts): Promise<EVMResult> {
    const result = await upstream.call(this, opts);
    aside = result.execResult.logs;
    result.execResult.logs = undefined;
    return result;
  };
  let result: RunTxResult;
  try {
    result = await run();
  } finally {
    if (own) {
      evm.runCall = upstream;
    } else {
      // Back to the prototype's method (the override is an own property of this instance).
      delete (evm as { runCall?: unknown }).runCall;
      if (evm.runCall !== upstream) evm.runCall = upstream;
    }
  }
  const appended = result.execResult.logs;
  if (aside !== undefined) result.execResult.logs = appended === undefined ? aside : [...aside, ...appended];
  return result;
}
