/**
 * debug_traceTransaction and debug_traceCall with go-ethereum's tracers (node/execution/trace.ts): the
 * default struct logger, or `{ tracer: "callTracer" }`. A mined or pre-confirmed tx is replayed
 * on the state it ran on (its parent block's, then the txs and dev edits before it in its block),
 * and nothing is kept.
 */
import { z } from "zod";

import { runTxAllowingAssertedSender } from "../node/ethereumjs/assertedSender.ts";
import { callGasCap, capGas, prepareCall } from "../node/execution/dryRun.ts";
import { callTracer } from "../node/execution/callTracer.ts";
import { structLogger } from "../node/execution/structLogger.ts";
import { ErrorCode, RpcError } from "./errors.ts";
import { withDryRun } from "./services/calls.ts";
import { blockSelector, callRequest, hash } from "./schema.ts";
import { method, positional } from "./table.ts";

import type { Tracer } from "../node/execution/trace.ts";
import type { MethodContext } from "./context.ts";
import type { Hex } from "./schema.ts";
import type { MethodTable } from "./table.ts";

const traceOptions = z
  .object({
    tracer: z.string().optional(),
    tracerConfig: z.object({ onlyTopCall: z.boolean().optional(), withLog: z.boolean().optional() }).passthrough().optional(),
    disableStack: z.boolean().optional(),
    disableStorage: z.boolean().optional(),
    enableMemory: z.boolean().optional(),
    // Hardhat 2's switch (its struct logs have memory unless told not to).
    disableMemory: z.boolean().optional(),
    enableReturnData: z.boolean().optional(),
    timeout: z.string().optional(),
  })
  .passthrough()
  .optional();

type TraceOptions = z.output<typeof traceOptions>;

function tracerOf(options: TraceOptions, ctx: MethodContext): Tracer<unknown> {
  // The struct logs' shape is the chain's `traceFormat` (docs/dev-methods.md, "Struct logs").
  if (options?.tracer === undefined || options.tracer === "") return structLogger(options, ctx.options.traceFormat);
  if (options.tracer === "callTracer") return callTracer(options.tracerConfig);
  // go-ethereum's text for a tracer it does not know (eth/tracers/api.go).
  throw new RpcError(ErrorCode.server, "tracer not found", { tracer: options.tracer, supported: ["callTracer", "(default struct logger)"] });
}

async function traceTransaction(ctx: MethodContext, txHash: Hex, options: TraceOptions): Promise<unknown> {
  const tracer = tracerOf(options, ctx);
  const { chain } = ctx;
  const record = chain.transaction(txHash);
  // go-ethereum's errTxNotFound.
  if (record === undefined) throw new RpcError(ErrorCode.server, "transaction not found", { hash: txHash });
  // Replaying a block's deposits and L1 fees is not built yet (docs/dev-methods.md).
  if (chain.op !== undefined) throw new RpcError(ErrorCode.server, "debug_traceTransaction is not supported on OP-stack profiles", { hash: txHash });
  // On the state the tx actually ran on, dev edits made before it included (replay.ts).
  return chain.replayBefore(record, async ({ vm, block, blockGasUsed }) => {
    const detach = tracer.attach(vm);
    try {
      const result = await runTxAllowingAssertedSender(vm, { tx: record.tx, block, blockGasUsed, skipHardForkValidation: true });
      return tracer.result({ from: record.from, gasLimit: record.tx.gasLimit, gasUsed: result.totalGasSpent, result: result.execResult });
    } finally {
      detach();
    }
  });
}

export const debugMethods: MethodTable = {
  debug_traceTransaction: method(positional(hash, traceOptions), ([txHash, options], ctx) => traceTransaction(ctx, txHash, options)),
  debug_traceCall: method(positional(callRequest, blockSelector.optional(), traceOptions), ([request, selector, options], ctx) => {
    const tracer = tracerOf(options, ctx);
    // The same gas and wall-time budgets as eth_call (docs/limits.md).
    return withDryRun(ctx, request, selector, async (vm, block) => {
      const capped = capGas(request, callGasCap(block), ctx.options.rpcGasCap);
      const prepared = await prepareCall(vm, capped, block);
      const detach = tracer.attach(vm);
      try {
        const run = await prepared.run(capped.gas ?? callGasCap(block));
        return tracer.result({
          from: request.from ?? `0x${"00".repeat(20)}`,
          gasLimit: run.gasLimit,
          gasUsed: run.result.totalGasSpent,
          result: run.result.execResult,
        });
      } finally {
        detach();
      }
    });
  }),
};
