/**
 * eth_simulateV1 (execution-apis; the engine's part is src/node/execution/simulate.ts): params, the dry run
 * it is, and the answer — per simulated block, the block as eth_getBlockByNumber shows it (full
 * transactions with `returnFullTransactions`) and its `calls`, in go-ethereum's shapes
 * (internal/ethapi/simulate.go simCallResult). docs/methods.md "eth_simulateV1" says what differs.
 */
import { bigIntToHex, intToHex } from "@ethereumjs/util";
import { z } from "zod";

import { stateOverrides } from "../node/state/stateOverrides.ts";
import { callReverted } from "./errors.ts";
import { formatBlock } from "./format.ts";
import { address, blockSelector, callRequest, hash, quantity, uint64 } from "./schema.ts";
import { simulate } from "./services/calls.ts";
import { method, positional } from "./table.ts";

import type { SimulatedBlock, SimulatedCall } from "../node/execution/simulate.ts";
import type { MethodContext } from "./context.ts";
import type { MethodTable } from "./table.ts";

const withdrawal = z.object({ index: uint64, validatorIndex: uint64, address, amount: uint64 });

/** execution-apis' BlockOverrides (go-ethereum's override.BlockOverrides; `difficulty` is read and ignored after the merge). */
const blockOverrides = z.object({
  number: quantity.optional(),
  difficulty: quantity.optional(),
  time: uint64.optional(),
  gasLimit: uint64.optional(),
  feeRecipient: address.optional(),
  prevRandao: hash.optional(),
  baseFeePerGas: quantity.optional(),
  blobBaseFee: quantity.optional(),
  beaconRoot: hash.optional(),
  withdrawals: z.array(withdrawal).optional(),
});

const simulatePayload = z.object({
  blockStateCalls: z.array(
    z.object({
      blockOverrides: blockOverrides.optional(),
      stateOverrides,
      calls: z.array(callRequest).optional(),
    }),
  ),
  traceTransfers: z.boolean().optional(),
  validation: z.boolean().optional(),
  returnFullTransactions: z.boolean().optional(),
});

const q = (value: bigint) => bigIntToHex(value);

/** A call's result: go-ethereum's simCallResult, with its revert (code 3) or halt (-32015) error. */
function formatCall(call: SimulatedCall, index: number, block: SimulatedBlock): Record<string, unknown> {
  const { header } = block.sealed.block;
  const blockHash = block.sealed.hash;
  const record = block.sealed.transactions[index];
  const out: Record<string, unknown> = {
    returnData: call.returnData,
    logs: call.logs.map((log) => ({
      address: log.address,
      topics: log.topics,
      data: log.data,
      blockNumber: q(header.number),
      blockTimestamp: q(header.timestamp),
      transactionHash: record?.hash,
      transactionIndex: intToHex(index),
      blockHash,
      logIndex: intToHex(log.logIndex),
      removed: false,
    })),
    gasUsed: q(call.gasUsed),
    maxUsedGas: q(call.maxUsedGas),
    status: intToHex(call.status),
  };
  if (call.error?.kind === "reverted") {
    const reverted = callReverted(call.error.data);
    out.error = { message: reverted.message, code: reverted.code, data: call.error.data };
  } else if (call.error !== undefined) {
    const capped = call.gasCapped ? " (gas limit was capped by the RPC server's global gas cap)" : "";
    out.error = { message: `${call.error.message}${capped}`, code: SIMULATED_VM_ERROR };
  }
  return out;
}

/** go-ethereum's errCodeVMError: a simulated call that halted (out of gas, invalid opcode…). */
const SIMULATED_VM_ERROR = -32015;

/** Unsigned txs have V, R and S 0 (go-ethereum), which the tx objects of eth_getBlockByNumber leave out when absent. */
function withZeroSignature(tx: Record<string, unknown>): Record<string, unknown> {
  return tx.v === undefined ? { ...tx, v: "0x0", r: "0x0", s: "0x0", ...(tx.type !== "0x0" && { yParity: "0x0" }) } : tx;
}

function formatSimulated(block: SimulatedBlock, full: boolean, ctx: MethodContext): Record<string, unknown> {
  const json = formatBlock({ kind: "sealed", sealed: block.sealed }, full, ctx.scope);
  if (full) json.transactions = (json.transactions as Record<string, unknown>[]).map(withZeroSignature);
  return { ...json, calls: block.calls.map((call, index) => formatCall(call, index, block)) };
}

export const simulateMethods: MethodTable = {
  eth_simulateV1: method(positional(simulatePayload, blockSelector.optional()), async ([payload, selector], ctx) => {
    const calls = payload.blockStateCalls.map((spec) => ({
      blockOverrides: spec.blockOverrides,
      stateOverrides: spec.stateOverrides,
      calls: spec.calls ?? [],
    }));
    const options = { validation: payload.validation ?? false, traceTransfers: payload.traceTransfers ?? false };
    const blocks = await simulate(ctx, calls, options, selector);
    return blocks.map((block) => formatSimulated(block, payload.returnFullTransactions ?? false, ctx));
  }),
};
