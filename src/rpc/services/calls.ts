/**
 * Dry runs on a block's state: resolving the block a request names, the block a call executes in,
 * eth_call and gas estimation, each within the RPC's gas cap and EVM time budget.
 */
import { bigIntToHex } from "@ethereumjs/util";

import { createAccessList } from "../../node/accessList.ts";
import { callBlock, callGasCap, callOutcome, capGas, dryRun } from "../../node/dryRun.ts";
import { estimateGas } from "../../node/estimate.ts";
import { withTimeBudget } from "../../node/evmBudget.ts";
import { applyStateOverrides } from "../../node/stateOverrides.ts";
import { unknownBlock } from "../errors.ts";
import { LATEST } from "../schema.ts";

import type { Block } from "@ethereumjs/block";
import type { VM } from "@ethereumjs/vm";
import type { ResolvedBlock } from "../../node/chain.ts";
import type { StateOverrides } from "../../node/stateOverrides.ts";
import type { BlockSelector, CallRequest } from "../schema.ts";
import type { NodeContext } from "./context.ts";

export function resolveOrThrow(ctx: NodeContext, selector: BlockSelector): ResolvedBlock {
  const resolved = ctx.chain.resolve(selector);
  if (resolved === undefined) {
    throw unknownBlock(selector.kind === "hash" ? selector.hash : selector.kind === "number" ? bigIntToHex(selector.number) : selector.tag);
  }
  return resolved;
}

/** The block a dry run executes in: the open block's header, or a sealed block's. */
export function executionBlockOf(ctx: NodeContext, resolved: ResolvedBlock): Block {
  if (resolved.kind === "sealed") return resolved.sealed.block;
  // Base's node runs pending calls at the latest canonical header over the pre-confirmed state
  // (base/base crates/execution/flashblocks/src/rpc/eth.rs, `call` and `estimate_gas`).
  return ctx.chain.baseRpc ? ctx.chain.latest.block : resolved.open.executionBlock;
}

/** Dry runs read a snapshot of the pending state: fragments never wait for one (docs/limits.md). */
const DRY_RUN = { snapshot: true } as const;

/**
 * Runs `run` on the state `selector` names, in the block the request executes in, within the EVM time
 * budget: the shape every dry run shares (eth_call, eth_estimateGas, debug_traceCall).
 */
export function withDryRun<T>(
  ctx: NodeContext,
  request: CallRequest,
  selector: BlockSelector | undefined,
  run: (vm: VM, block: Block) => Promise<T>,
): Promise<T> {
  const resolved = resolveOrThrow(ctx, selector ?? LATEST);
  return ctx.chain.withState(
    resolved,
    (vm) => withTimeBudget(vm, ctx.options.rpcEvmTimeoutMs, () => run(vm, callBlock(executionBlockOf(ctx, resolved), request))),
    DRY_RUN,
  );
}

/** Runs `run` on `vm` with the state overrides applied, in a checkpoint of their own that is reverted whatever it does. */
async function withOverrides<T>(vm: VM, overrides: StateOverrides, run: () => Promise<T>): Promise<T> {
  if (overrides === undefined) return run();
  await vm.stateManager.checkpoint();
  try {
    await applyStateOverrides(vm, overrides);
    return await run();
  } finally {
    await vm.stateManager.revert();
  }
}

/** eth_call: the call's return data, or its revert as an error. */
export function call(ctx: NodeContext, request: CallRequest, selector: BlockSelector | undefined, overrides: StateOverrides): Promise<string> {
  return withDryRun(ctx, request, selector, async (vm, block) => {
    const capped = capGas(request, callGasCap(block), ctx.options.rpcGasCap);
    return withOverrides(vm, overrides, async () => callOutcome(await dryRun(vm, capped, block, capped.gas ?? callGasCap(block))));
  });
}

/**
 * eth_createAccessList (go-ethereum's answer: internal/ethapi/api.go CreateAccessList): the list,
 * the call's failure as `error` rather than as an error answer, and the gas it used with the list.
 * It runs as eth_call runs: the same block default (latest), gas, budgets and state overrides.
 */
export function accessList(ctx: NodeContext, request: CallRequest, selector: BlockSelector | undefined, overrides: StateOverrides) {
  return withDryRun(ctx, request, selector, async (vm, block) => {
    const capped = capGas(request, callGasCap(block), ctx.options.rpcGasCap);
    const created = await withOverrides(vm, overrides, () => createAccessList(vm, capped, block, capped.gas ?? callGasCap(block)));
    return { accessList: created.accessList, ...(created.error !== undefined && { error: created.error }), gasUsed: bigIntToHex(created.gasUsed) };
  });
}

/** eth_estimateGas, and the gas eth_sendTransaction fills in. */
export function estimate(ctx: NodeContext, request: CallRequest, selector: BlockSelector | undefined): Promise<bigint> {
  return withDryRun(ctx, request, selector, async (vm, block) => {
    const { gas } = await estimateGas(vm, capGas(request, block.header.gasLimit, ctx.options.rpcGasCap), block);
    return gas;
  });
}
