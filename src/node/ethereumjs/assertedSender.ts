/**
 * Txs whose sender is asserted rather than recovered from a signature: dry runs (eth_call,
 * eth_estimateGas) and impersonated sends. Such a sender may be a contract: go-ethereum's calls
 * skip EIP-3607's "sender has code" check, and Hardhat and anvil send from impersonated contracts.
 * runTx applies EIP-3607 with no switch, so for these txs the check is made to pass (below).
 *
 * Patch (@ethereumjs/tx and @ethereumjs/vm 10.1.3): `tx.getSenderAddress` is replaced per tx, and
 * for one run the state manager's `getAccount` and the journal's `putAccount` are own-property
 * overrides. It relies on runTx reading the sender's account (its EIP-3607 check) through
 * `vm.stateManager.getAccount` before anything else of the sender's, and writing it through
 * `vm.evm.journal.putAccount`; test/ethereumjs.test.ts fails if that changes.
 */
import { Account, equalsBytes, KECCAK256_NULL } from "@ethereumjs/util";
import { runTx } from "@ethereumjs/vm";

import type { TypedTransaction } from "@ethereumjs/tx";
import type { Address } from "@ethereumjs/util";
import type { RunTxOpts, RunTxResult, VM } from "@ethereumjs/vm";

const asserted = new WeakSet<TypedTransaction>();

/** Makes `tx` come from `sender`, without a signature to recover it from. */
export function assertSender(tx: TypedTransaction, sender: Address): TypedTransaction {
  tx.getSenderAddress = () => sender;
  asserted.add(tx);
  return tx;
}

/** EIP-7702's delegation designator: such an account already passes EIP-3607. */
const DELEGATION_PREFIX = Uint8Array.of(0xef, 0x01, 0x00);

/**
 * runTx, letting an asserted sender with code through EIP-3607. For this one run the sender's
 * first read (runTx's check) shows no code, and each write of the sender's account (fee, nonce)
 * keeps its real code hash, so the code is there for the execution itself.
 */
export async function runTxAllowingAssertedSender(vm: VM, opts: RunTxOpts): Promise<RunTxResult> {
  const tx = opts.tx;
  if (!asserted.has(tx)) return runTx(vm, opts);
  const sender = tx.getSenderAddress();
  const state = vm.stateManager;
  const account = await state.getAccount(sender);
  if (account === undefined || equalsBytes(account.codeHash, KECCAK256_NULL)) return runTx(vm, opts);
  if (equalsBytes((await state.getCode(sender)).subarray(0, 3), DELEGATION_PREFIX)) return runTx(vm, opts);

  const { codeHash, codeSize } = account;
  const journal = vm.evm.journal;
  const realGetAccount = state.getAccount;
  const realPutAccount = journal.putAccount;
  let checked = false;
  state.getAccount = async (address: Address) => {
    const found = await realGetAccount.call(state, address);
    if (checked || found === undefined || !address.equals(sender)) return found;
    checked = true;
    return new Account(found.nonce, found.balance, found.storageRoot, KECCAK256_NULL);
  };
  journal.putAccount = async (address: Address, written: Account) => {
    const kept =
      address.equals(sender) && equalsBytes(written.codeHash, KECCAK256_NULL)
        ? new Account(written.nonce, written.balance, written.storageRoot, codeHash, codeSize)
        : written;
    return realPutAccount.call(journal, address, kept);
  };
  try {
    return await runTx(vm, opts);
  } finally {
    // Back to the prototype's methods (the overrides are own properties of these instances).
    delete (state as { getAccount?: unknown }).getAccount;
    delete (journal as { putAccount?: unknown }).putAccount;
    if (state.getAccount !== realGetAccount) state.getAccount = realGetAccount;
    if (journal.putAccount !== realPutAccount) journal.putAccount = realPutAccount;
  }
}
