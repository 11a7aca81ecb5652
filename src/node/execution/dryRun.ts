/**
 * Dry runs (`eth_call`, `eth_estimateGas`): a transaction built from call parameters, run as an
 * impersonated sender inside a journal checkpoint that is always reverted: without runTx's
 * bookkeeping after the execution where it applies (ethereumjs/leanDryRun.ts), else with `runTx`.
 * A call without fee fields runs on a copy of the header with base fee 0 and needs no balance for
 * gas (go-ethereum's NoBaseFee), since ethereumjs has no such switch (DESIGN).
 */
import { Block } from "@ethereumjs/block";
import { createTx, TransactionType } from "@ethereumjs/tx";
import { bytesToBigInt, bytesToHex, createAddressFromString, createZeroAddress } from "@ethereumjs/util";

import { txCommonOf } from "../pool/admission.ts";
import { EIP7825_MAX_TX_GAS } from "../common/defaults.ts";
import { assertSender, runTxAllowingAssertedSender } from "../ethereumjs/assertedSender.ts";
import { legacyCallTx } from "../ethereumjs/callTx.ts";
import { cacheLegacyDataGas, calldataFloorGas } from "../ethereumjs/dataGasCache.ts";
import { runTxWithoutBloom } from "../ethereumjs/dryRunLogs.ts";
import { leanDryRun } from "../ethereumjs/leanDryRun.ts";
import { zeroBaseFeeHeader } from "../ethereumjs/sealedHeader.ts";
import { ViewStateManager } from "../state/viewState.ts";
import { executionFailure } from "./vmErrors.ts";
import {
  AdmissionMessage,
  ExecutionFailedError,
  InsufficientFundsError,
  InsufficientFundsForTransferError,
  TxRejectedError,
  txConstructionFailure,
} from "../common/errors.ts";

import type { Common } from "@ethereumjs/common";
import type { TypedTransaction, TypedTxData } from "@ethereumjs/tx";
import type { Address } from "@ethereumjs/util";
import type { RunTxResult, VM } from "@ethereumjs/vm";
import type { CallRequest, Hex } from "../common/types.ts";
import type { LegacyCallFields } from "../ethereumjs/callTx.ts";

export interface DryRun {
  result: RunTxResult;
  /** Gas limit the tx ran with. */
  gasLimit: bigint;
  /**
   * Gas used before the refund (at least the EIP-7623 calldata floor): the least a gas limit must
   * hold for this run to succeed (go-ethereum's ExecutionResult.MaxUsedGas).
   */
  peakGasUsed: bigint;
}

/**
 * Whether the call names a non-zero fee. go-ethereum runs a call whose effective gas price is 0
 * with base fee 0 (NoBaseFee), whichever fee fields were sent as 0.
 */

/** The most gas a call may run with: the block gas limit, capped by EIP-7825 from Osaka on (geth). */
export function callGasCap(block: Block): bigint {
  const limit = block.header.gasLimit;
  return block.common.isActivatedEIP(7825) && limit > EIP7825_MAX_TX_GAS ? EIP7825_MAX_TX_GAS : limit;
}

/**
 * The request with its gas capped at `gasCap` (0: no cap), as geth's `--rpc.gascap` caps a call's
 * gas, given or defaulted (internal/ethapi ToMessage, eth/gasestimator). `fallback` is the gas a
 * request without `gas` runs with.
 */
export function capGas(request: CallRequest, fallback: bigint, gasCap: bigint): CallRequest {
  const gas = request.gas ?? fallback;
  return gasCap > 0n && gas > gasCap ? { ...request, gas: gasCap } : request;
}

export const hasFeeFields = (request: CallRequest) =>
  (request.gasPrice ?? 0n) > 0n || (request.maxFeePerGas ?? 0n) > 0n || (request.maxPriorityFeePerGas ?? 0n) > 0n;

/** The most the call pays per gas: gasPrice, or maxFeePerGas (base fee + tip when left out). */
export function feeCapOf(request: CallRequest, block: Block): bigint {
  if (request.gasPrice !== undefined) return request.gasPrice;
  return request.maxFeePerGas ?? (block.header.baseFeePerGas ?? 0n) + (request.maxPriorityFeePerGas ?? 0n);
}

const zeroFeeBlocks = new WeakMap<Block, Block>();

/** The block a call executes against: the header as is, or with base fee 0 when it names no fee. */
export function callBlock(block: Block, request: CallRequest): Block {
  if (hasFeeFields(request) || block.header.baseFeePerGas === undefined) return block;
  let zeroFee = zeroFeeBlocks.get(block);
  if (zeroFee === undefined) {
    // What createBlock makes of the header with base fee 0 and nothing else: no txs, no uncles, the fork's
    // withdrawals (the constructor's default); its options shaped as those of the blocks the chain's txs
    // run in (execution/openBlock.ts executionBlockOf), so that the constructor's code stays optimized for one shape.
    const header = zeroBaseFeeHeader(block.header);
    zeroFee = new Block(header, [], [], undefined, { common: header.common, skipConsensusFormatValidation: true });
    zeroFeeBlocks.set(block, zeroFee);
  }
  return zeroFee;
}

/** Addresses remembered by `callAddress` before it starts over. */
const MAX_CALL_ADDRESSES = 4096;
const callAddresses = new Map<string, Address>();
const ZERO_ADDRESS = createZeroAddress();

/**
 * The Address of a call's `from` or `to` (the zero address for none), one object per address
 * string: the state's reads key an address by its bytes array (state/viewState.ts `keyOf`, a
 * WeakMap), so a fresh Address per call costs each read's key again, three per `eth_call`. An
 * Address is never written in place (@ethereumjs builds new ones), so calls can share it.
 */
export function callAddress(hex: Hex | null | undefined): Address {
  if (hex === undefined || hex === null) return ZERO_ADDRESS;
  let address = callAddresses.get(hex);
  if (address === undefined) {
    address = createAddressFromString(hex);
    if (callAddresses.size >= MAX_CALL_ADDRESSES) callAddresses.clear();
    callAddresses.set(hex, address);
  }
  return address;
}

/** The tx type a call's fields ask for, as go-ethereum's ToTransaction picks it. */
function callTxType(request: CallRequest): TransactionType {
  if (request.authorizationList !== undefined) return TransactionType.EOACodeEIP7702;
  // A blob tx's hashes are all a call needs (BLOBHASH, the blob fee).
  if (request.blobVersionedHashes !== undefined && request.to !== undefined && request.to !== null) return TransactionType.BlobEIP4844;
  if (request.maxFeePerGas !== undefined || request.maxPriorityFeePerGas !== undefined) return TransactionType.FeeMarketEIP1559;
  if (request.accessList !== undefined) return TransactionType.AccessListEIP2930;
  return TransactionType.Legacy;
}

/** Builds the unsigned tx a call describes, sent from `request.from` (the zero address if absent). */
export function callTransaction(vm: VM, request: CallRequest, block: Block, nonce: bigint, gasLimit: bigint): TypedTransaction {
  const to = request.to === undefined || request.to === null ? undefined : callAddress(request.to);
  const fields = { nonce, gasLimit, to, value: request.value ?? 0n, data: request.data ?? request.input ?? new Uint8Array(), gasPrice: request.gasPrice ?? 0n };
  const type = callTxType(request);
  // The shared tx Common (admission.ts): building a tx would otherwise copy Common per call.
  const common = txCommonOf(vm.common);
  // Most calls are built without the package's constructor (ethereumjs/callTx.ts); the rest, and any it leaves, by it.
  const lean = type === TransactionType.Legacy ? legacyCallTx(common, fields) : undefined;
  const tx = lean ?? constructedCallTx(request, block, type, common, fields);
  cacheLegacyDataGas(tx);
  // Impersonation: the sender is whoever the call names, a contract too; there is no signature to recover.
  return assertSender(tx, callAddress(request.from));
}

/** The call's tx built by @ethereumjs/tx's constructor, with `type`'s fee fields and lists. */
function constructedCallTx(request: CallRequest, block: Block, type: TransactionType, common: Common, fields: LegacyCallFields): TypedTransaction {
  const data: TypedTxData = {
    nonce: fields.nonce,
    gasLimit: fields.gasLimit,
    // The shared Address's bytes: the package copies bytes, where a hex string goes through a regex check and a parse.
    to: fields.to?.bytes,
    value: fields.value,
    data: fields.data,
  };
  if (type === TransactionType.BlobEIP4844) {
    Object.assign(data, { blobVersionedHashes: request.blobVersionedHashes, maxFeePerBlobGas: request.maxFeePerBlobGas ?? 0n });
  }
  if (type === TransactionType.Legacy || type === TransactionType.AccessListEIP2930) {
    Object.assign(data, { gasPrice: fields.gasPrice });
  } else {
    Object.assign(data, { maxPriorityFeePerGas: request.maxPriorityFeePerGas ?? 0n, maxFeePerGas: feeCapOf(request, block) });
  }
  if (request.accessList !== undefined) Object.assign(data, { accessList: request.accessList });
  if (request.authorizationList !== undefined) {
    Object.assign(data, {
      authorizationList: request.authorizationList.map((auth) => ({
        chainId: `0x${auth.chainId.toString(16)}`,
        address: auth.address,
        nonce: `0x${auth.nonce.toString(16)}`,
        yParity: `0x${(auth.yParity ?? auth.v ?? 0n).toString(16)}`,
        r: `0x${auth.r.toString(16)}`,
        s: `0x${auth.s.toString(16)}`,
      })),
    });
  }
  let tx: TypedTransaction;
  try {
    tx = createTx({ ...data, type }, { common, freeze: false });
  } catch (error) {
    // Params no tx can hold (fee × gas above 2^256, a bad authorization) or a nonce at its maximum.
    throw txConstructionFailure(error);
  }
  // The tx's own Address (of a copy of the bytes) swapped for the shared one (callAddress).
  if (tx.to !== undefined) Object.assign(tx, { to: fields.to });
  return tx;
}

/**
 * `ignoreBalance`: no balance check at all, for value or fees, as Hardhat runs eth_call and
 * eth_estimateGas (EDR disables revm's balance check in both; docs/behaviour.md#hardhats-semantics).
 */
export interface DryRunOptions {
  ignoreBalance?: boolean | undefined;
  /**
   * Run through runTx even where the lean execution applies (ethereumjs/leanDryRun.ts); the
   * equivalence tests compare both.
   */
  viaRunTx?: boolean | undefined;
}

/** A call ready to run at any gas limit, each run on `vm`'s current state and reverted. */
export interface PreparedCall {
  run(gasLimit: bigint): Promise<DryRun>;
  /** The least limit the tx is valid with: its intrinsic gas, or EIP-7623's calldata floor when higher. */
  readonly minimumGasLimit: bigint;
  /** The sender when each run buys its gas at a non-zero price (its balance then depends on the limit), else undefined. */
  readonly payer: bigint | undefined;
}

/**
 * Checks the sender and builds the call's tx once. Building a tx copies Common and rebuilds its
 * params cache, which costs more than executing a small call: an estimate runs one tx at each
 * of its gas limits instead of building one per run.
 */
export async function prepareCall(vm: VM, request: CallRequest, block: Block, options: DryRunOptions = {}): Promise<PreparedCall> {
  const from = callAddress(request.from);
  const account = await vm.stateManager.getAccount(from);
  const balance = account?.balance ?? 0n;
  // Without balance checks the run tops the sender up to what it needs (runTx's skipBalance).
  const withFees = hasFeeFields(request) && options.ignoreBalance !== true;
  if (!withFees && options.ignoreBalance !== true && (request.value ?? 0n) > balance) throw new InsufficientFundsForTransferError();
  const tx = callTransaction(vm, request, block, request.nonce ?? account?.nonce ?? 0n, callGasCap(block));
  // A ViewStateManager remembers every read by root, outside its journal: nothing to warm (and no turn to wait).
  if (!(vm.stateManager instanceof ViewStateManager)) await warmCaches(vm, tx, block);
  // The sender buys its gas whenever the call names a fee, balance checks or not (runTx's
  // skipBalance tops the balance up to the tx's cost, then deducts it), so its balance during the
  // run depends on the gas limit.
  const payer = hasFeeFields(request) && feeCapOf(request, block) > 0n ? bytesToBigInt(from.bytes) : undefined;
  return new Call(vm, tx, block, withFees, balance, options.viaRunTx === true, payer);
}

/**
 * A prepared call: a class rather than an object with a `run` closure, because the package's build
 * keeps function names (esbuild's keepNames: a `defineProperty` on every named closure created),
 * which cost ~2 % of a dry run when it made one per call.
 */
class Call implements PreparedCall {
  readonly minimumGasLimit: bigint;
  readonly #vm: VM;
  readonly #tx: TypedTransaction;
  readonly #block: Block;
  readonly #withFees: boolean;
  readonly #balance: bigint;
  readonly #viaRunTx: boolean;

  constructor(
    vm: VM,
    tx: TypedTransaction,
    block: Block,
    withFees: boolean,
    balance: bigint,
    viaRunTx: boolean,
    readonly payer: bigint | undefined,
  ) {
    // tx.getMinimumGasLimit(): the intrinsic gas, or the calldata floor (no sender given) when higher.
    const intrinsic = tx.getIntrinsicGas();
    const floor = calldataFloorGas(tx);
    this.minimumGasLimit = floor > intrinsic ? floor : intrinsic;
    this.#vm = vm;
    this.#tx = tx;
    this.#block = block;
    this.#withFees = withFees;
    this.#balance = balance;
    this.#viaRunTx = viaRunTx;
  }

  run(gasLimit: bigint): Promise<DryRun> {
    // Built with freeze: false, and gasLimit is a plain field that nothing caches.
    Object.assign(this.#tx, { gasLimit });
    return execute(this.#vm, this.#tx, this.#block, this.#withFees, this.#balance, this.#viaRunTx);
  }
}

/**
 * Reads what every run touches (callee, its code, the fee recipient) before the checkpoint, on the
 * package's state managers (a fork's, fork/forkState.ts, and state/plainState.ts): a read inside
 * the checkpoint is cached there only until the revert, so without this each run walks the trie
 * for them again; read here, they stay cached (the sender already is). Not for a ViewStateManager,
 * which remembers every read by root, outside its journal (state/viewState.ts).
 */
async function warmCaches(vm: VM, tx: TypedTransaction, block: Block): Promise<void> {
  const state = vm.stateManager;
  if (tx.to !== undefined && (await state.getAccount(tx.to))?.isContract() === true) await state.getCode(tx.to);
  await state.getAccount(block.header.coinbase);
}

/** Runs the call once on `vm`'s current state and reverts every change (eth_call). */
export async function dryRun(vm: VM, request: CallRequest, block: Block, gasLimit: bigint, options?: DryRunOptions): Promise<DryRun> {
  return (await prepareCall(vm, request, block, options)).run(gasLimit);
}

async function execute(vm: VM, tx: TypedTransaction, block: Block, withFees: boolean, balance: bigint, viaRunTx: boolean): Promise<DryRun> {
  await vm.evm.journal.checkpoint();
  try {
    // The answer is the execution result: only what the execution can observe (ethereumjs/leanDryRun.ts),
    // else runTx without its bloom or receipt (ethereumjs/dryRunLogs.ts).
    const lean = viaRunTx ? undefined : await leanDryRun(vm, tx, block, !withFees);
    const result =
      lean ??
      (await runTxWithoutBloom(vm, () =>
        runTxAllowingAssertedSender(vm, {
          tx,
          block,
          skipNonce: true,
          skipBalance: !withFees,
          skipBlockGasLimitValidation: true,
          skipHardForkValidation: true,
        }),
      ));
    return { result, gasLimit: tx.gasLimit, peakGasUsed: peakGasUsed(tx, result) };
  } catch (error) {
    throw dryRunError(error, balance, tx);
  } finally {
    await vm.evm.journal.revert();
  }
}

/**
 * runTx's totalGasSpent is after the refund and raised to the calldata floor; intrinsic plus
 * execution gas is before the refund. The larger of the two is what the limit must cover.
 */
export function peakGasUsed(tx: TypedTransaction, result: RunTxResult): bigint {
  const beforeRefund = tx.getIntrinsicGas() + result.execResult.executionGasUsed;
  return beforeRefund > result.totalGasSpent ? beforeRefund : result.totalGasSpent;
}

/** A gas limit below the intrinsic gas (or the EIP-7623 floor): go-ethereum's ErrIntrinsicGas. */
export const isIntrinsicGasError = (error: unknown): boolean => error instanceof TxRejectedError && error.message === AdmissionMessage.intrinsicGas;

/** The engine error of a dry run that failed (not one that ran and reverted). */
function dryRunError(error: unknown, balance: bigint, tx: TypedTransaction): Error {
  // runTx appends "(vm -> block -> tx)" context to its messages; the reason alone is enough.
  const message = (error instanceof Error ? error.message : String(error)).replace(/ \([^()]*->.*$/s, "");
  if (/INTRINSIC_GAS_TOO_LOW|lower than the minimum gas limit/.test(message)) {
    return new TxRejectedError(AdmissionMessage.intrinsicGas, { reason: message });
  }
  if (/enough funds|upfront cost|balance/i.test(message)) {
    return new InsufficientFundsError(balance, tx.getUpfrontCost());
  }
  if (/maxFeePerGas|base fee/i.test(message)) {
    return new TxRejectedError("max fee per gas less than block base fee", { reason: message });
  }
  return new ExecutionFailedError(message);
}

/** eth_call's answer: the return data, or the revert / execution error (vmErrors.ts). */
export function callOutcome(run: DryRun): string {
  const { execResult } = run.result;
  if (execResult.exceptionError === undefined) return bytesToHex(execResult.returnValue);
  throw executionFailure(execResult, "call");
}
