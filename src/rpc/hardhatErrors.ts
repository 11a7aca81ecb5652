/**
 * Hardhat's answers to a send or a call that failed, under its semantics (automine with
 * `throwOnTransactionFailures` / `throwOnCallFailures`; docs/behaviour.md#hardhats-semantics).
 * The texts are those of Hardhat's network (hardhat 2.28.5,
 * internal/hardhat-network/stack-traces/solidity-errors.js and panic-errors.js; EDR
 * crates/edr_provider/src/error.rs, `TransactionFailure`), compared side by side with
 * `npx hardhat node` (read 2026-11-25). The shape is its node's over HTTP: code -32603 and
 * `data: { message, txHash?, data }`, the revert bytes in `data.data`, which is where
 * hardhat-chai-matchers (`getReturnDataFromError`) and viem (`getContractError`) read them.
 *
 * Without the project's compiled artifacts a custom error is not named: Hardhat's node answers
 * `reverted with custom error 'Name(args)'` for contracts of its own project, and the text below
 * (which Hardhat gives for any other contract) otherwise. The matchers decode `data`, not the text.
 */
import { ErrorCode, errorStringOf, RpcError } from "./errors.ts";

import type { TxFailure } from "../node/chain/records.ts";
import type { Hex } from "./schema.ts";

const PANIC_SELECTOR = "0x4e487b71";
const VM_EXCEPTION = "VM Exception while processing transaction:";

/** Hardhat's reason for each Solidity panic code (panic-errors.js). */
const PANIC_REASONS: ReadonlyMap<bigint, string> = new Map([
  [0x1n, "Assertion error"],
  [0x11n, "Arithmetic operation overflowed outside of an unchecked block"],
  [0x12n, "Division or modulo division by zero"],
  [0x21n, "Tried to convert a value into an enum, but the value was too big or negative"],
  [0x22n, "Incorrectly encoded storage byte array"],
  [0x31n, ".pop() was called on an empty array"],
  [0x32n, "Array accessed at an out-of-bounds or negative index"],
  [0x41n, "Too much memory was allocated, or an array was created that is too large"],
  [0x51n, "Called a zero-initialized variable of internal function type"],
]);

/** The `Panic(uint256)` code of revert data, if it is one. */
function panicCodeOf(returnData: string): bigint | undefined {
  if (!returnData.toLowerCase().startsWith(PANIC_SELECTOR) || returnData.length !== 10 + 64) return undefined;
  return BigInt(`0x${returnData.slice(10)}`);
}

/** Hardhat's message for a failed execution. */
export function hardhatFailureMessage(failure: TxFailure): string {
  const { error, returnData } = failure;
  if (error === "out of gas") return "Transaction ran out of gas";
  if (error === "invalid opcode") return `${VM_EXCEPTION} invalid opcode`;
  if (error !== "revert") return `${VM_EXCEPTION} ${error}`;
  if (returnData === "0x") return "Transaction reverted without a reason string";
  const reason = errorStringOf(returnData);
  if (reason !== undefined) return `${VM_EXCEPTION} reverted with reason string '${reason}'`;
  const panic = panicCodeOf(returnData);
  if (panic !== undefined) {
    const known = PANIC_REASONS.get(panic);
    return known === undefined
      ? `${VM_EXCEPTION} reverted with unknown panic code 0x${panic.toString(16)}`
      : `${VM_EXCEPTION} reverted with panic code 0x${panic.toString(16)} (${known})`;
  }
  return `${VM_EXCEPTION} reverted with an unrecognized custom error (return data: ${returnData})`;
}

/**
 * The error of a failed send (with the tx's hash) or call (without): Hardhat's code, message and
 * data. Running out of gas is -32000 in Hardhat (EDR's INVALID_INPUT); every other failure -32603.
 */
export function hardhatFailure(failure: TxFailure, txHash?: Hex): RpcError {
  const message = hardhatFailureMessage(failure);
  const code = failure.error === "out of gas" ? ErrorCode.server : ErrorCode.internalError;
  return new RpcError(code, message, { message, ...(txHash !== undefined && { txHash }), data: failure.returnData });
}
