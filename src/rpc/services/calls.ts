/**
 * Dry runs on a block's state: resolving the block a request names, the block a call executes in,
 * eth_call and gas estimation, each within the RPC's gas cap and EVM time budget.
 */
import { bigIntToHex, bytesToHex } from "@ethereumjs/util";

import { createAccessList } from "../../node/execution/accessList.ts";
import { callBlock, callGasCap, callOutcome, capGas, dryRun } from "../../node/execution/dryRun.ts";
import { estimateGas } from "../../node/execution/estimate.ts";
import { withTimeBudget } from "../../node/execution/evmBudget.ts";
import { applyStateOverrides } from "../../node/state/stateOverrides.ts";
import { ExecutionFailedError, ExecutionRevertedError } from "../../node/common/errors.ts";
import { unknownBlock } from "../errors.ts";
import { hardhatFailure } from "../hardhatErrors.ts";
import { LATEST, PENDING } from "../schema.ts";

import type { Block } from "@ethereumjs/block";
import type { VM } from "@ethereumjs/vm";
import type { ResolvedBlock } from "../../node/chain/chain.ts";
import type { SimulatedBlock, SimulatedBlockCalls, SimulationOptions } from "../../node/execution/simulate.ts";
import type { StateOverrides } from "../../node/state/stateOverrides.ts";
import type { DryRunOptions } from "../../node/execution/dryRun.ts";
import type { BlockSelector, CallRequest, Hex } from "../schema.ts";
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

/**
 * Under automine, Hardhat's dry runs: no balance checks, so a call or estimate from an account that
 * cannot pay its value or fees runs as if it could (docs/behaviour.md#hardhats-semantics).
 */
const dryRunOptions = (ctx: NodeContext): DryRunOptions => ({ ignoreBalance: ctx.chain.automine });

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
function withOverrides<T>(vm: VM, overrides: StateOverrides, run: () => Promise<T>): Promise<T> {
  return overrides === undefined ? run() : withOverridesApplied(vm, overrides, run);
}

async function withOverridesApplied<T>(vm: VM, overrides: NonNullable<StateOverrides>, run: () => Promise<T>): Promise<T> {
  await vm.stateManager.checkpoint();
  // Overrides that move precompiles (movePrecompileToAddress) are undone with the state.
  let restorePrecompiles = () => {};
  try {
    restorePrecompiles = await applyStateOverrides(vm, overrides);
    return await run();
  } finally {
    restorePrecompiles();
    await vm.stateManager.revert();
  }
}

/**
 * eth_call: the call's return data, or its revert as an error: geth's (code 3), or under automine
 * with `throwOnCallFailures` Hardhat's (docs/behaviour.md#hardhats-semantics).
 */
export async function call(ctx: NodeContext, request: CallRequest, selector: BlockSelector | undefined, overrides: StateOverrides): Promise<string> {
  try {
    return await runCall(ctx, request, selector, overrides);
  } catch (error) {
    if (!ctx.chain.automine || !ctx.options.throwOnCallFailures) throw error;
    if (error instanceof ExecutionRevertedError) throw hardhatFailure({ error: "revert", returnData: error.returnData as Hex });
    // The halts Hardhat names (others, and calls that could not run, keep their own error).
    if (error instanceof ExecutionFailedError && (error.message === "invalid opcode" || error.message === "out of gas")) {
      throw hardhatFailure({ error: error.message, returnData: "0x" });
    }
    throw error;
  }
}

function runCall(ctx: NodeContext, request: CallRequest, selector: BlockSelector | undefined, overrides: StateOverrides): Promise<string> {
  return withDryRun(ctx, request, selector, async (vm, block) => {
    const capped = capGas(request, callGasCap(block), ctx.options.rpcGasCap);
    const options = dryRunOptions(ctx);
    return withOverrides(vm, overrides, async () => callOutcome(await dryRun(vm, capped, block, capped.gas ?? callGasCap(block), options)));
  });
}

/**
 * eth_simulateV1 on the state `selector` names, within the RPC's gas cap (for all calls together,
 * as go-ethereum's gas budget) and EVM time budget. The simulated blocks follow the block the
 * state is at: a sealed block, or the open block on `pending` (Base's rules: the latest sealed
 * block over the pre-confirmed state, as for calls).
 */
export function simulate(
  ctx: NodeContext,
  blocks: readonly SimulatedBlockCalls[],
  options: SimulationOptions,
  selector: BlockSelector | undefined,
): Promise<SimulatedBlock[]> {
  const resolved = resolveOrThrow(ctx, selector ?? LATEST);
  const block = executionBlockOf(ctx, resolved);
  const hash = resolved.kind === "sealed" ? resolved.sealed.hash : block === ctx.chain.latest.block ? ctx.chain.latest.hash : bytesToHex(block.hash());
  const budget = { blockMs: ctx.options.fragmentIntervalMs * ctx.options.fragmentsPerBlock, gasBudget: ctx.options.rpcGasCap };
  return ctx.chain.withState(
    resolved,
    (vm) => withTimeBudget(vm, ctx.options.rpcEvmTimeoutMs, () => ctx.chain.simulate(vm, { block, hash }, blocks, options, budget)),
    DRY_RUN,
  );
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

/**
 * eth_estimateGas, and the gas eth_sendTransaction fills in. Without a block: `latest` (the
 * interface's default), or under automine `pending`, the next block's context as Hardhat estimates
 * (EDR crates/edr_provider/src/requests/eth/gas.rs: number + 1, the time evm_setNextBlockTimestamp
 * or evm_increaseTime set, the next base fee; docs/behaviour.md#hardhats-semantics).
 */
export function estimate(ctx: NodeContext, request: CallRequest, selector: BlockSelector | undefined): Promise<bigint> {
  return withDryRun(ctx, request, selector ?? (ctx.chain.automine ? PENDING : LATEST), async (vm, block) => {
    const { gas } = await estimateGas(vm, capGas(request, block.header.gasLimit, ctx.options.rpcGasCap), block, dryRunOptions(ctx));
    return gas;
  });
}
