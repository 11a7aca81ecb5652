/**
 * eth_simulateV1 (execution-apis; go-ethereum's internal/ethapi/simulate.go is the reference for
 * what the spec leaves to clients): a chain of blocks on top of a block's state, each made of
 * calls from any sender (no signatures), run in order with the state each leaves, then thrown
 * away. Each simulated block is built as the chain builds its own (openBlock.ts): the
 * start-of-block system calls, the calls run with `runTx`, the end-of-block request calls where
 * the chain has them, withdrawals, the tries and the header — so its hash, roots and receipts are
 * those of a real block. Everything runs on a state view inside one checkpoint that is reverted,
 * and the view is put back at the state root it started from.
 */
import { createBlock } from "@ethereumjs/block";
import { Account, bytesToHex, createAddressFromString, createWithdrawal } from "@ethereumjs/util";

import { callBlock, callTransaction, peakGasUsed } from "./dryRun.ts";
import { EIP7825_MAX_TX_GAS } from "../common/defaults.ts";
import { runTxAllowingAssertedSender } from "../ethereumjs/assertedSender.ts";
import { overrideBlobGasPrice, withExtraBlocks } from "../ethereumjs/blockLookup.ts";
import { hashUnsigned } from "../ethereumjs/unsignedTx.ts";
import { ExecutionTimeoutError, NodeError, SimulationError, txConstructionFailure } from "../common/errors.ts";
import { recordOf } from "./fragmentRunner.ts";
import { OpenBlock } from "./openBlock.ts";
import { millisPartOf } from "../opstack/baseTime.ts";
import { applyStateOverrides } from "../state/stateOverrides.ts";
import { endBlockRequests, startBlock } from "./systemCalls.ts";
import { simulatedTimeAfter, simulatedTimeAllowed } from "../common/time.ts";
import { gethErrorText } from "./vmErrors.ts";
import { traceTransfers } from "./transferLogs.ts";

import type { ActiveFork } from "../profiles/forkSchedule.ts";
import type { Block, BlockHeader } from "@ethereumjs/block";
import type { TypedTransaction } from "@ethereumjs/tx";
import type { RunTxResult, VM } from "@ethereumjs/vm";
import type { StateOverrides } from "../state/stateOverrides.ts";
import type { SimulatedTiming, SubsecondTime } from "../common/time.ts";
import type { SealedBlock, TxRecord } from "../chain/records.ts";
import type { CallRequest, Hex } from "../common/types.ts";

/** go-ethereum's bounds (simulate.go): blocks one request may simulate, calls per block and in all. */
export const SIMULATE_LIMITS = { blocks: 256, callsPerBlock: 5000, calls: 10_000 } as const;

export interface SimulatedWithdrawal {
  index: bigint;
  validatorIndex: bigint;
  address: Hex;
  /** In gwei. */
  amount: bigint;
}

/** execution-apis' BlockOverrides of eth_simulateV1. */
export interface SimulatedBlockOverrides {
  number?: bigint | undefined;
  time?: bigint | undefined;
  gasLimit?: bigint | undefined;
  feeRecipient?: Hex | undefined;
  prevRandao?: Hex | undefined;
  baseFeePerGas?: bigint | undefined;
  blobBaseFee?: bigint | undefined;
  beaconRoot?: Hex | undefined;
  withdrawals?: SimulatedWithdrawal[] | undefined;
}

export interface SimulatedBlockCalls {
  blockOverrides?: SimulatedBlockOverrides | undefined;
  stateOverrides?: StateOverrides;
  calls: CallRequest[];
}

export interface SimulationOptions {
  /** Run the calls as txs are checked (nonces, fees, balances) instead of as eth_call runs them. */
  validation: boolean;
  /** Report ETH transfers as ERC-7528 logs (transferLogs.ts). */
  traceTransfers: boolean;
}

/** What the chain adds to a simulation: its rules for the blocks' times, base fees and requests, and the RPC's gas budget. */
export interface SimulationRules {
  timing: SimulatedTiming;
  /** The base fee of the block after `parent` (the chain's EIP-1559 parameters). */
  nextBaseFee(parent: BlockHeader): bigint;
  /** Whether blocks end with EIP-7685's request calls (an L1 chain; no OP chain). */
  requests: boolean;
  /** Gas all calls together may use (the RPC gas cap); 0: no budget. */
  gasBudget: bigint;
  /** The fork of the profile's ladder a block at `number` and `timestamp` runs (forkSchedule.ts). */
  forkAt(number: bigint, timestamp: bigint): ActiveFork;
}

/** Why a call failed: reverted (with its data), or halted (go-ethereum's text). */
export type SimulatedCallError = { kind: "reverted"; data: Hex } | { kind: "halted"; message: string };

export interface SimulatedCall {
  returnData: Hex;
  /** The call's logs (with transfers when traced); each `logIndex` counts in its block. */
  logs: { address: Hex; topics: Hex[]; data: Hex; logIndex: number }[];
  gasUsed: bigint;
  /** The gas the call needed before its refund (go-ethereum's MaxUsedGas). */
  maxUsedGas: bigint;
  status: 0 | 1;
  error: SimulatedCallError | undefined;
  /** The call's gas was lowered to what was left of the RPC gas budget. */
  gasCapped: boolean;
}

export interface SimulatedBlock {
  sealed: SealedBlock;
  calls: SimulatedCall[];
}

/** The block a simulation starts from, and where its state is. */
export interface SimulationBase {
  block: Block;
  hash: Hex;
}

/** A block of the simulation with its number and time fixed (filler blocks have no calls). */
interface PlannedBlock {
  number: bigint;
  time: SubsecondTime;
  overrides: SimulatedBlockOverrides;
  stateOverrides: StateOverrides;
  calls: CallRequest[];
}

/** Checks the request's size (go-ethereum's SimulateV1 and sanitizeChain). */
export function checkSimulationSize(blocks: readonly SimulatedBlockCalls[]): void {
  if (blocks.length === 0) throw new SimulationError("invalidParams", "empty input");
  if (blocks.length > SIMULATE_LIMITS.blocks) throw new SimulationError("clientLimitExceeded", "too many blocks");
  let total = 0;
  for (const block of blocks) {
    if (block.calls.length > SIMULATE_LIMITS.callsPerBlock) {
      throw new SimulationError("clientLimitExceeded", `too many calls in block: ${block.calls.length} > ${SIMULATE_LIMITS.callsPerBlock}`);
    }
    total += block.calls.length;
    if (total > SIMULATE_LIMITS.calls) throw new SimulationError("clientLimitExceeded", `too many calls: ${total} > ${SIMULATE_LIMITS.calls}`);
  }
}

/**
 * The blocks to build: numbers in order (a gap is filled with empty blocks), times in order
 * (omitted ones one block time after the previous: time.ts `simulatedTimeAfter`), as go-ethereum's
 * sanitizeChain; at most SIMULATE_LIMITS.blocks after the base.
 */
export function planBlocks(base: SimulationBase, blocks: readonly SimulatedBlockCalls[], timing: SimulatedTiming): PlannedBlock[] {
  const baseNumber = base.block.header.number;
  let number = baseNumber;
  let time: SubsecondTime = { timestamp: base.block.header.timestamp, millisPart: millisPartOf(base.block) };
  const planned: PlannedBlock[] = [];
  for (const block of blocks) {
    const overrides = block.blockOverrides ?? {};
    const wanted = overrides.number ?? number + 1n;
    if (wanted <= number) throw new SimulationError("blockNumberInvalid", `block numbers must be in order: ${wanted} <= ${number}`);
    if (wanted - baseNumber > BigInt(SIMULATE_LIMITS.blocks)) throw new SimulationError("clientLimitExceeded", "too many blocks");
    for (let filler = number + 1n; filler < wanted; filler++) {
      time = simulatedTimeAfter(time, timing);
      planned.push({ number: filler, time, overrides: {}, stateOverrides: undefined, calls: [] });
    }
    number = wanted;
    if (overrides.time !== undefined && !simulatedTimeAllowed(time.timestamp, overrides.time, timing)) {
      throw new SimulationError("blockTimestampInvalid", `block timestamps must be in order: ${overrides.time} <= ${time.timestamp}`);
    }
    time = simulatedTimeAfter(time, timing, overrides.time);
    planned.push({ number, time, overrides, stateOverrides: block.stateOverrides, calls: block.calls });
  }
  return planned;
}

/**
 * Simulates `blocks` on `vm`, whose state is `base`'s, and leaves the state as it found it. A
 * request that cannot be simulated (a call a real block would refuse, in validation mode; a bad
 * override) throws a SimulationError; a call that reverts or halts is reported in its result.
 */
export async function simulateBlocks(
  vm: VM,
  base: SimulationBase,
  blocks: readonly SimulatedBlockCalls[],
  options: SimulationOptions,
  rules: SimulationRules,
): Promise<SimulatedBlock[]> {
  checkSimulationSize(blocks);
  const planned = planBlocks(base, blocks, rules.timing);
  const built = new Map<bigint, Block>();
  const budget = { remaining: rules.gasBudget > 0n ? rules.gasBudget : undefined };
  const state = vm.stateManager;
  // Each block's state root flushes the state manager's caches into the trie inside the checkpoint,
  // where a revert no longer finds what it flushed: the state is put back by its root as well.
  const root = await state.getStateRoot();
  await state.checkpoint();
  try {
    return await withExtraBlocks(vm, built, async () => {
      const results: SimulatedBlock[] = [];
      let parent = { block: base.block, hash: base.hash };
      for (const plan of planned) {
        const result = await simulateBlock(vm, parent, plan, options, rules, budget);
        built.set(plan.number, result.sealed.block);
        results.push(result);
        parent = { block: result.sealed.block, hash: result.sealed.hash };
      }
      return results;
    });
  } finally {
    await state.revert();
    await state.setStateRoot(root);
  }
}

async function simulateBlock(
  vm: VM,
  parent: SimulationBase,
  plan: PlannedBlock,
  options: SimulationOptions,
  rules: SimulationRules,
  budget: { remaining: bigint | undefined },
): Promise<SimulatedBlock> {
  const { overrides } = plan;
  const parentHeader = parent.block.header;
  const common = vm.common;
  // go-ethereum: without validation the base fee is 0 unless overridden (a call's gas price may then be 0).
  const baseFee = overrides.baseFeePerGas ?? (options.validation ? rules.nextBaseFee(parentHeader) : 0n);
  const fork = rules.forkAt(plan.number, plan.time.timestamp);
  let open = new OpenBlock(
    common,
    {
      number: plan.number,
      parentHash: parent.hash,
      timestamp: plan.time.timestamp,
      // A millisecond part only on a Denim block (Base's blockTimestampMs); other chains' blocks have none.
      millisPart: fork.rules.denim ? plan.time.millisPart : undefined,
      // Gas limit and fee recipient carry over from the previous block (go-ethereum's makeHeaders).
      gasLimit: overrides.gasLimit ?? parentHeader.gasLimit,
      baseFeePerGas: baseFee,
      coinbase: overrides.feeRecipient ?? (parentHeader.coinbase.toString() as Hex),
      prevRandao: overrides.prevRandao ?? (bytesToHex(new Uint8Array(32)) as Hex),
      excessBlobGas: common.isActivatedEIP(4844) ? parentHeader.calcNextExcessBlobGas(common) : undefined,
      parentBeaconBlockRoot: overrides.beaconRoot,
    },
    fork,
  );
  if (overrides.blobBaseFee !== undefined) {
    const execution = createBlock(
      { header: open.executionBlock.header.toJSON() },
      { common: open.executionBlock.common, skipConsensusFormatValidation: true, freeze: false },
    );
    overrideBlobGasPrice(execution, overrides.blobBaseFee);
    open = new OpenBlock(common, open.header, open.fork, 0, execution);
  }
  const restorePrecompiles = plan.stateOverrides === undefined ? () => {} : await applyStateOverrides(vm, plan.stateOverrides);
  try {
    const header = open.executionBlock.header;
    await startBlock(vm, {
      number: plan.number,
      timestamp: plan.time.timestamp,
      parentHash: parent.hash,
      parentBeaconBlockRoot: header.parentBeaconBlockRoot ?? new Uint8Array(32),
    });
    const calls: SimulatedCall[] = [];
    // The calls' logs are numbered across the block, traced transfers included (go-ethereum's simulation tracer).
    const logCount = { next: 0 };
    for (const request of plan.calls) calls.push(await simulateCall(vm, open, request, options, budget, logCount));
    const withdrawals = (overrides.withdrawals ?? []).map((withdrawal) =>
      createWithdrawal({ index: withdrawal.index, validatorIndex: withdrawal.validatorIndex, address: withdrawal.address, amount: withdrawal.amount }),
    );
    await creditWithdrawals(vm, withdrawals);
    const requests = rules.requests ? await endBlockRequests(vm, open.executionBlock) : [];
    const block = await open.seal(await vm.stateManager.getStateRoot(), { requests, withdrawals });
    const hash = bytesToHex(block.hash()) as Hex;
    for (const record of open.transactions) record.blockHash = hash;
    return { sealed: { block, hash, transactions: [...open.transactions], fragmentCount: 1 }, calls };
  } finally {
    restorePrecompiles();
  }
}

/** Withdrawals credit their amount (gwei) to their address, after the txs (EIP-4895). */
async function creditWithdrawals(vm: VM, withdrawals: ReturnType<typeof createWithdrawal>[]): Promise<void> {
  const state = vm.stateManager;
  for (const withdrawal of withdrawals) {
    if (withdrawal.amount === 0n) continue;
    const account = (await state.getAccount(withdrawal.address)) ?? new Account();
    account.balance += withdrawal.amount * 1_000_000_000n;
    await state.putAccount(withdrawal.address, account);
  }
}

async function simulateCall(
  vm: VM,
  open: OpenBlock,
  request: CallRequest,
  options: SimulationOptions,
  budget: { remaining: bigint | undefined },
  logCount: { next: number },
): Promise<SimulatedCall> {
  const remaining = open.remainingGas;
  // go-ethereum's sanitizeCall: a call without gas may use what the block has left; no call may ask for more.
  let gas = request.gas ?? remaining;
  if (gas > remaining) throw new SimulationError("blockGasLimitReached", `block gas limit reached: remaining: ${remaining}, required: ${gas}`);
  const gasCapped = budget.remaining !== undefined && gas > budget.remaining;
  if (gasCapped) gas = budget.remaining!;
  const from = request.from ?? (`0x${"00".repeat(20)}` as Hex);
  const sender = createAddressFromString(from);
  const nonce = request.nonce ?? (await vm.stateManager.getAccount(sender))?.nonce ?? 0n;
  // go-ethereum's ToTransaction(DynamicFeeTxType): a call that names no fee is an EIP-1559 tx paying 0.
  const named = request.gasPrice !== undefined || request.maxFeePerGas !== undefined || request.maxPriorityFeePerGas !== undefined;
  const fees = named ? {} : { maxFeePerGas: 0n, maxPriorityFeePerGas: 0n };
  // Without validation, a call paying nothing runs with base fee 0 (go-ethereum's NoBaseFee).
  const block = options.validation ? open.executionBlock : callBlock(open.executionBlock, request);
  let tx: TypedTransaction;
  try {
    // go-ethereum's simulation skips EIP-7825's per-tx cap (SkipTransactionChecks); ethereumjs checks it
    // only when it builds a tx, so the tx is built within it and given its gas after (as dryRun.ts does).
    // Likewise a nonce at 2^64 - 1, which only a state override can give (go-ethereum runs it unchecked without validation).
    const buildGas = vm.common.isActivatedEIP(7825) && gas > EIP7825_MAX_TX_GAS ? EIP7825_MAX_TX_GAS : gas;
    const buildNonce = nonce >= MAX_NONCE && !options.validation ? 0n : nonce;
    tx = hashUnsigned(callTransaction(vm, { ...request, ...fees, from }, block, buildNonce, buildGas));
    Object.assign(tx, { gasLimit: gas, nonce });
  } catch (error) {
    throw asSimulationError(txConstructionFailure(error), from, gas);
  }
  const tracer = options.traceTransfers ? traceTransfers(vm, logCount) : undefined;
  let result: RunTxResult;
  try {
    result = await runTxAllowingAssertedSender(vm, {
      tx,
      block,
      blockGasUsed: open.gasUsed,
      skipNonce: !options.validation,
      skipBlockGasLimitValidation: true,
      skipHardForkValidation: true,
    });
  } catch (error) {
    const balance = (await vm.stateManager.getAccount(sender))?.balance ?? 0n;
    throw asSimulationError(error, from, gas, { have: balance, want: maxCostOf(tx) });
  } finally {
    tracer?.detach();
  }
  if (budget.remaining !== undefined) budget.remaining -= result.totalGasSpent;
  await wrapNonce(vm, sender);
  const record: TxRecord = recordOf(tx, from.toLowerCase() as Hex, result, open);
  open.addRecord(record);
  const failure = result.execResult.exceptionError;
  let logs: SimulatedCall["logs"] = [];
  if (tracer !== undefined) logs = tracer.logs(record.logs);
  else if (failure === undefined) logs = record.logs.map(({ address, topics, data }) => ({ address, topics, data, logIndex: logCount.next++ }));
  return {
    // go-ethereum's ExecutionResult.Return(): nothing for a failed call (a revert's data is in its error).
    returnData: failure === undefined ? (bytesToHex(result.execResult.returnValue) as Hex) : "0x",
    logs,
    gasUsed: result.totalGasSpent,
    maxUsedGas: peakGasUsed(tx, result),
    status: failure === undefined ? 1 : 0,
    error:
      failure === undefined
        ? undefined
        : failure.error === "revert"
          ? { kind: "reverted", data: bytesToHex(result.execResult.returnValue) as Hex }
          : { kind: "halted", message: gethErrorText(failure.error) },
    gasCapped,
  };
}

/** What go-ethereum's buyGas requires of the sender: gas × fee cap + value (+ blob gas × blob fee cap). */
function maxCostOf(tx: TypedTransaction): bigint {
  const feeCap = "maxFeePerGas" in tx ? tx.maxFeePerGas : tx.gasPrice;
  const blobs = "maxFeePerBlobGas" in tx ? BigInt(tx.blobVersionedHashes.length) * 131_072n * tx.maxFeePerBlobGas : 0n;
  return tx.gasLimit * feeCap + tx.value + blobs;
}

/** The largest nonce an account can have (EIP-2681). */
const MAX_NONCE = 2n ** 64n - 1n;

/** An account nonce is a uint64 in go-ethereum: one past 2^64 - 1 (a call that skipped the check) is 0. */
async function wrapNonce(vm: VM, sender: ReturnType<typeof createAddressFromString>): Promise<void> {
  const account = await vm.stateManager.getAccount(sender);
  if (account === undefined || account.nonce <= MAX_NONCE) return;
  account.nonce %= MAX_NONCE + 1n;
  await vm.stateManager.putAccount(sender, account);
}

/** A call runTx refused, as go-ethereum's simulation names the refusal (its txValidationError). */
function asSimulationError(error: unknown, from: Hex, gas: bigint, funds?: { have: bigint; want: bigint }): unknown {
  if (error instanceof ExecutionTimeoutError || error instanceof SimulationError) return error;
  const message = (error instanceof Error ? error.message : String(error)).replace(/ \([^()]*->.*$/s, "");
  const supplied = ` (supplied gas ${gas})`;
  const nonce = /account has nonce of: (\d+) tx has nonce of: (\d+)/.exec(message);
  if (nonce !== null) {
    const [state, tx] = [BigInt(nonce[1]!), BigInt(nonce[2]!)];
    const low = tx < state;
    return new SimulationError(
      low ? "nonceTooLow" : "nonceTooHigh",
      `err: nonce too ${low ? "low" : "high"}: address ${from}, tx: ${tx} state: ${state}${supplied}`,
    );
  }
  if (/enough funds|upfront cost/.test(message)) {
    const amounts = funds === undefined ? "" : ` have ${funds.have} want ${funds.want}`;
    return new SimulationError("insufficientFunds", `err: insufficient funds for gas * price + value: address ${from}${amounts}${supplied}`);
  }
  const fee = /\((\d+)\) is less than the block's baseFeePerGas \((\d+)\)/.exec(message);
  if (fee !== null) {
    return new SimulationError(
      "baseFeeTooLow",
      `err: max fee per gas less than block base fee: address ${from}, maxFeePerGas: ${fee[1]}, baseFee: ${fee[2]}${supplied}`,
    );
  }
  // go-ethereum has no code of its own for it: -32603 (txValidationError's default).
  if (/nonce has max value|nonce cannot equal or exceed MAX_UINT64/.test(message))
    return new SimulationError("internal", `err: nonce has max value: address ${from}${supplied}`);
  if (/gas limit is too low|INTRINSIC_GAS|intrinsic gas/i.test(message)) return new SimulationError("intrinsicGas", `err: intrinsic gas too low${supplied}`);
  if (/initcode size/i.test(message)) return new SimulationError("maxInitCodeSize", `err: max initcode size exceeded${supplied}`);
  if (/higher than max fee per gas|maxFeePerGas cannot be less than maxPriorityFeePerGas/.test(message)) {
    return new SimulationError("invalidParams", `err: max priority fee per gas higher than max fee per gas: address ${from}${supplied}`);
  }
  if (error instanceof NodeError) return new SimulationError("invalidParams", error.message);
  return new SimulationError("internal", message);
}
