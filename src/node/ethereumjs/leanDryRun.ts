/**
 * A dry run's tx executed without runTx's bookkeeping. eth_call, eth_estimateGas,
 * eth_createAccessList and debug_traceCall run a tx inside a checkpoint that is always reverted
 * (execution/dryRun.ts) and answer from the execution result: what @ethereumjs/vm's runTx does once
 * the EVM has returned (the sender's refund, the fee recipient's credit, EIP-161's cleanup of touched
 * accounts, the bloom and receipt, `afterTx`) is reverted unseen, and its own two checkpoints and
 * their commits only nest inside the dry run's. This runs what the execution can observe, in
 * runTx's order, and computes the gas figures runTx would report.
 *
 * Mirrors @ethereumjs/vm 10.1.3 runTx.js (`runTx`, `_runTx`) for a tx the VM can run as is:
 * - before the call: the journal's cleanup, the access list's warm addresses and slots (EIP-2930),
 *   the precompiles, sender, recipient and (EIP-3651) coinbase warmed (EIP-2929), the intrinsic gas,
 *   the sender's balance topped up as `skipBalance` does, the gas bought at the effective gas price
 *   and the nonce raised (the sender's account as the call sees it);
 * - `evm.runCall` with the same arguments;
 * - after it: gas used = intrinsic + execution gas, the refund capped at gas used / maxRefundQuotient
 *   (EIP-3529), EIP-7623's calldata floor, amountSpent and minerValue as runTx computes them.
 * The sender is always asserted in a dry run (assertedSender.ts), so EIP-3607's check is not made,
 * as runTxAllowingAssertedSender makes it pass.
 *
 * It does not apply (undefined: the caller runs runTx) to EIP-7702 and blob txs, to forks with
 * EIP-7864, 8037, 7928, 7708, 8246 or 2780 (which change runTx beyond this), when the VM has
 * `beforeTx`/`afterTx` listeners or runTx's profiler, or when runTx would reject the tx (intrinsic
 * gas, fee below the base fee, a balance it may not top up, a typed tx its fork lacks): runTx then
 * throws its own error, unchanged. It returns undefined before writing anything.
 *
 * test/leanDryRun.test.ts runs many calls both ways (transfers, reverts, out of gas at many limits,
 * refunds, CREATE, nested calls, precompiles, access lists, fee fields, value above the balance,
 * ignoreBalance) and fails if any answer, gas figure, log or error differs; an upgrade of
 * @ethereumjs/vm that changes runTx's steps must be checked against this list.
 */
import { Capability, isBlob4844Tx } from "@ethereumjs/tx";
import { Account, bytesToUnprefixedHex } from "@ethereumjs/util";

import { unprefixedHex } from "../common/hex.ts";
import { calldataFloorGas } from "./dataGasCache.ts";
import { readsWarmPrecompiles } from "./journalKeys.ts";

import type { Block } from "@ethereumjs/block";
import type { EVMResult } from "@ethereumjs/evm";
import type { FeeMarket1559Tx, LegacyTx, TypedTransaction } from "@ethereumjs/tx";
import type { RunTxResult, VM } from "@ethereumjs/vm";

/** EIPs whose runTx steps this does not mirror: where one is active, dry runs take runTx. */
const UNMIRRORED_EIPS = [7864, 8037, 7928, 7708, 8246, 2780] as const;

/** The warm slots of every precompile: none (see leanDryRun). */
const NO_SLOTS: Set<string> = new Set();

/**
 * The keys of a precompile table's `entries()`, unprefixed (addAlwaysWarmAddress strips a `0x`), per
 * table: a fork's table is a new Map (evm.js `getActivePrecompiles` at each fork change), and only
 * a state override edits one, in place, with its own `entries()` (precompiles.ts), read each time.
 */
const precompileKeys = new WeakMap<Map<string, unknown>, ReadonlySet<string>>();

function warmPrecompilesOf(table: Map<string, unknown>): ReadonlySet<string> {
  const edited = Object.hasOwn(table, "entries");
  let keys = edited ? undefined : precompileKeys.get(table);
  if (keys === undefined) {
    const set = new Set<string>();
    for (const [address] of table.entries()) set.add(address.startsWith("0x") ? address.slice(2) : address);
    keys = set;
    if (!edited) precompileKeys.set(table, keys);
  }
  return keys;
}

/**
 * The journal's key of an address (unprefixed hex), remembered per bytes array: a dry run's sender,
 * recipient (execution/dryRun.ts `callAddress`) and coinbase are the same objects call after call.
 * Such arrays are never changed in place.
 */
const warmKeys = new WeakMap<Uint8Array, string>();

function warmKeyOf(bytes: Uint8Array): string {
  let key = warmKeys.get(bytes);
  if (key === undefined) warmKeys.set(bytes, (key = unprefixedHex(bytes)));
  return key;
}

/** How many dry runs took each path (the tests read them). */
export const leanDryRunStats = { lean: 0, runTx: 0 };

interface JournalInternals {
  touched: Set<string>;
  alwaysWarmJournal: Map<string, Set<string>>;
  warmPrecompiles: ReadonlySet<string> | undefined;
  accessList?: unknown;
  preimages?: unknown;
  cleanup(): Promise<void>;
  cleanJournal(): void;
  addAlwaysWarmAddress(address: string, addToAccessList?: boolean): void;
  addAlwaysWarmSlot(address: string, slot: string, addToAccessList?: boolean): void;
  putAccount(address: TypedTransaction["to"] & object, account: Account): Promise<void>;
}

interface VmInternals {
  _opts: { profilerOpts?: { reportAfterTx?: boolean } };
  evm: { eip7928CallPostTargetOog?: boolean };
}

/** What a dry run asks of its fork's EIPs, each an `Array.includes` over the fork's EIP list in Common. */
interface Fork {
  mirrored: boolean;
  eip1559: boolean;
  eip2718: boolean;
  eip2930: boolean;
  eip2929: boolean;
  eip3651: boolean;
  eip7623: boolean;
  eip7778: boolean;
}

/**
 * The answers per Common's list of active EIPs (`_activatedEIPsCache`, @ethereumjs/common 10.1.3):
 * Common builds a new array whenever its hardfork or EIPs change (`_buildActivatedEIPsCache`), so
 * an array's answers never change. Bounded by the arrays alive (a WeakMap: one per Common and fork).
 */
const forks = new WeakMap<readonly number[], Fork>();

function forkOf(common: VM["common"]): Fork {
  const eips = (common as unknown as { _activatedEIPsCache: readonly number[] })._activatedEIPsCache;
  let fork = forks.get(eips);
  if (fork === undefined) {
    const active = (eip: number) => common.isActivatedEIP(eip);
    fork = {
      mirrored: !UNMIRRORED_EIPS.some(active),
      eip1559: active(1559),
      eip2718: active(2718),
      eip2930: active(2930),
      eip2929: active(2929),
      eip3651: active(3651),
      eip7623: active(7623),
      eip7778: active(7778),
    };
    forks.set(eips, fork);
  }
  return fork;
}

/** Whether this VM's fork and listeners let a dry run skip runTx (see the module comment). */
function mirrors(vm: VM, tx: TypedTransaction, fork: Fork): boolean {
  if (!fork.mirrored || tx.supports(Capability.EIP7702EOACode) || isBlob4844Tx(tx)) return false;
  if ((vm as unknown as VmInternals)._opts.profilerOpts?.reportAfterTx === true) return false;
  return vm.events.listenerCount("beforeTx") === 0 && vm.events.listenerCount("afterTx") === 0;
}

/**
 * Runs `tx` (sender asserted, nonce unchecked, block gas limit and hardfork unvalidated, as every dry
 * run asks runTx) inside the caller's reverted checkpoint, or returns undefined, having written
 * nothing, where runTx must run it (see the module comment).
 */
export async function leanDryRun(vm: VM, tx: TypedTransaction, block: Block, skipBalance: boolean): Promise<RunTxResult | undefined> {
  const common = vm.common;
  const fork = forkOf(common);
  if (!mirrors(vm, tx, fork) || (block.header.baseFeePerGas === undefined && fork.eip1559)) {
    leanDryRunStats.runTx++;
    return undefined;
  }
  const journal = vm.evm.journal as unknown as JournalInternals;
  const header = block.header;
  const caller = tx.getSenderAddress();

  // runTx's checks, in its order; any that fails leaves the tx to runTx, which throws its error.
  const typed = tx.supports(Capability.EIP2718TypedTransaction) && fork.eip2718;
  if (typed && (!fork.eip2930 || (tx.supports(Capability.EIP1559FeeMarket) && !fork.eip1559))) {
    leanDryRunStats.runTx++;
    return undefined;
  }
  const intrinsicGas = tx.getIntrinsicGas();
  const floorCost = calldataFloorGas(tx, caller);
  const is1559Tx = tx.supports(Capability.EIP1559FeeMarket);
  // A 1559 fork's blocks all have a base fee; without one, a legacy tx's figures do not read it.
  const baseFee = header.baseFeePerGas ?? 0n;
  const maxFeePerGas = is1559Tx ? (tx as FeeMarket1559Tx).maxFeePerGas : (tx as LegacyTx).gasPrice;
  if (tx.gasLimit < (intrinsicGas > floorCost ? intrinsicGas : floorCost) || (fork.eip1559 && maxFeePerGas < baseFee)) {
    leanDryRunStats.runTx++;
    return undefined;
  }
  const state = vm.stateManager;
  const account = await state.getAccount(caller);
  const balance = account?.balance ?? 0n;
  const upFrontCost = tx.getUpfrontCost(baseFee);
  const maxCost = is1559Tx ? tx.value + tx.gasLimit * maxFeePerGas : tx.value;
  // Without skipBalance runTx rejects a sender short of either; with it, it tops the balance up.
  if (!skipBalance && (balance < upFrontCost || balance < maxCost)) {
    leanDryRunStats.runTx++;
    return undefined;
  }
  leanDryRunStats.lean++;

  // runTx: the journal starts clean (its cleanup, with no touched account to delete, is cleanJournal
  // and the reports dropped); the access list, then precompiles, sender, recipient, coinbase are warm.
  if (journal.touched.size > 0) {
    await journal.cleanup();
  } else {
    journal.cleanJournal();
    delete journal.accessList;
    delete journal.preimages;
  }
  if (typed) {
    for (const [addressBytes, slots] of (tx as FeeMarket1559Tx).accessList) {
      const address = bytesToUnprefixedHex(addressBytes);
      journal.addAlwaysWarmAddress(address, true);
      for (const slot of slots) journal.addAlwaysWarmSlot(address, bytesToUnprefixedHex(slot), true);
    }
  }
  if (fork.eip2929) {
    // runTx warms the table's `entries()` (the fork's addresses, also where a state override has
    // moved one: precompiles.ts), each by addAlwaysWarmAddress without an access list report. Here
    // they are one set per table, which the journal's warm checks read (journalKeys.ts); the access
    // list's addresses, warmed above, keep their own entries.
    if (readsWarmPrecompiles(journal)) {
      journal.warmPrecompiles = warmPrecompilesOf(vm.evm.precompiles);
    } else {
      // A journal of a build without journalKeys.ts's checks: as runTx, each in alwaysWarmJournal, the
      // unprefixed keys (evm.js getActivePrecompiles) without addAlwaysWarmAddress's hex check. A
      // precompile's warm slots are never added to (addAlwaysWarmSlot runs for the access list only,
      // above, which gives an address it names a set of its own): they share one empty set, which
      // cleanJournal, before this and in the finally, keeps out of the map any runTx starts on.
      const warm = journal.alwaysWarmJournal;
      for (const [address] of vm.evm.precompiles.entries()) {
        if (address.startsWith("0x")) journal.addAlwaysWarmAddress(address);
        else if (!warm.has(address)) warm.set(address, NO_SLOTS);
      }
    }
    journal.addAlwaysWarmAddress(warmKeyOf(caller.bytes));
    if (tx.to !== undefined) journal.addAlwaysWarmAddress(warmKeyOf(tx.to.bytes));
    if (fork.eip3651) journal.addAlwaysWarmAddress(warmKeyOf(header.coinbase.bytes));
  }
  (vm.evm as unknown as VmInternals["evm"]).eip7928CallPostTargetOog = false;

  let gasPrice: bigint;
  let inclusionFeePerGas = 0n;
  if (is1559Tx) {
    inclusionFeePerGas = tx.getEffectivePriorityFee(baseFee);
    gasPrice = inclusionFeePerGas + baseFee;
  } else {
    gasPrice = (tx as LegacyTx).gasPrice;
    if (fork.eip1559) inclusionFeePerGas = gasPrice - baseFee;
  }

  // The sender as the call sees it: topped up (skipBalance), the gas bought, the nonce raised.
  const sender = account ?? new Account();
  // runTx tops a non-1559 tx's sender up to its upfront cost, then any tx's to its max cost.
  if (balance < upFrontCost && !is1559Tx) sender.balance = upFrontCost;
  if (sender.balance < maxCost) sender.balance = maxCost;
  sender.balance -= tx.gasLimit * gasPrice;
  if (skipBalance && sender.balance < 0n) sender.balance = 0n;
  sender.nonce += 1n;

  try {
    await journal.putAccount(caller, sender);
    const results = (await vm.evm.runCall({
      block,
      gasPrice,
      caller,
      gasLimit: tx.gasLimit - intrinsicGas,
      to: tx.to,
      value: tx.value,
      data: tx.data,
      skipNonceIncrement: true,
    })) as EVMResult & RunTxResult;

    // runTx's gas figures (the refund capped by EIP-3529's quotient, then EIP-7623's floor).
    const beforeRefund = results.execResult.executionGasUsed + intrinsicGas;
    let gasRefund = results.execResult.gasRefund ?? 0n;
    results.gasRefund = gasRefund;
    results.totalGasSpent = beforeRefund;
    if (gasRefund !== 0n) {
      const maxRefund = beforeRefund / common.param("maxRefundQuotient");
      if (gasRefund > maxRefund) gasRefund = maxRefund;
      results.totalGasSpent -= gasRefund;
    }
    if (fork.eip7623 && results.totalGasSpent < floorCost) {
      results.gasRefund = 0n;
      results.totalGasSpent = floorCost;
    }
    results.blockGasSpent = fork.eip7778 ? (beforeRefund > floorCost ? beforeRefund : floorCost) : results.totalGasSpent;
    results.amountSpent = results.totalGasSpent * gasPrice;
    results.minerValue = fork.eip1559 ? results.totalGasSpent * inclusionFeePerGas : results.amountSpent;
    return results;
  } finally {
    // runTx clears the journal after every tx: from EIP-2929 in its finally, before it in the
    // cleanup closing _runTx (whose EIP-161 deletions the dry run's revert undoes). Before Berlin
    // that cleanup is what empties `touched`, which the revert would leave holding RIPEMD160
    // (journal.js revert keeps it touched), for the next block's runTx cleanup to delete if empty.
    journal.cleanJournal();
    state.originalStorageCache.clear();
  }
}
