/**
 * EVM failures in go-ethereum's words (core/vm/errors.go, read at v1.17.5): what eth_call,
 * eth_estimateGas and the tracers report for a frame that did not succeed, from @ethereumjs/evm's
 * texts (its EVMError messages).
 */
import { bytesToHex } from "@ethereumjs/util";

import { ExecutionFailedError, ExecutionRevertedError } from "../common/errors.ts";

import type { ExecResult } from "@ethereumjs/evm";

/** The designated invalid instruction (EIP-141). */
const INVALID_OPCODE = 0xfe;

/** ethereumjs' text → go-ethereum's, where they differ. */
const GETH_TEXTS: Readonly<Record<string, string>> = {
  revert: "execution reverted",
  "code store out of gas": "contract creation code storage out of gas",
  "code size to deposit exceeds maximum code size": "max code size exceeded",
  "initcode exceeds max initcode size": "max initcode size exceeded",
  "invalid JUMP": "invalid jump destination",
  "static state change": "write protection",
  "create collision": "contract address collision",
  "insufficient balance": "insufficient balance for transfer",
  "invalid bytecode deployed": "invalid code: must not begin with 0xef",
  "value out of range": "return data out of bounds",
  // geth adds the stack's size and the limit ("stack limit reached 1024 (1023)"); ethereumjs reports neither.
  "stack overflow": "stack limit reached 1024",
};

/**
 * go-ethereum's text for ethereumjs' `error`. An invalid opcode names the byte as geth's
 * ErrInvalidOpCode does: `invalid opcode: INVALID` for 0xfe, `invalid opcode: opcode 0xc not
 * defined` for a byte no instruction has (`opcode` unknown: just `invalid opcode`).
 */
export function gethErrorText(error: string, opcode?: number): string {
  if (error === "invalid opcode" && opcode !== undefined) {
    return `invalid opcode: ${opcode === INVALID_OPCODE ? "INVALID" : `opcode 0x${opcode.toString(16)} not defined`}`;
  }
  return GETH_TEXTS[error] ?? error;
}

/** The byte the frame stopped at: an invalid opcode stops before its program counter moves on. */
function failedOpcode(result: ExecResult): number | undefined {
  const runState = result.runState;
  return runState === undefined ? undefined : runState.code[runState.programCounter];
}

/**
 * The engine error of a dry run whose EVM run failed: a revert with its data (`operation`: which
 * dry run, docs/behaviour.md#engine-errors), or go-ethereum's text of the halt. An invalid opcode
 * also carries empty return data, `0x`, as Hardhat's error does: hardhat-chai-matchers' `.reverted`
 * reads a failed call's `data` (docs/dev-methods.md, "Reverts and estimates").
 */
export function executionFailure(result: ExecResult, operation: "call" | "estimate"): ExecutionRevertedError | ExecutionFailedError {
  const error = result.exceptionError?.error ?? "internal error";
  if (error === "revert") return new ExecutionRevertedError(bytesToHex(result.returnValue), operation);
  if (error === "invalid opcode") return new ExecutionFailedError(gethErrorText(error, failedOpcode(result)), "0x");
  return new ExecutionFailedError(gethErrorText(error));
}
