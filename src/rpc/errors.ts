/**
 * The method table's errors. Messages of the interface are used exactly; machine-readable details
 * go in `data` (docs/behaviour.md). The engine's own errors (src/node/common/errors.ts) get their code,
 * message and data here, in one table (ENGINE_ERRORS). The error class and the codes are
 * src/protocol/errors.ts; the wallet's errors (EIP-1193, EIP-5792) are src/wallet/errors.ts.
 */
import { bigIntToHex } from "@ethereumjs/util";

import {
  AlreadyKnownError,
  AutomineFeeTooLowError,
  AutomineNonceTooHighError,
  ExecutionFailedError,
  ExecutionRevertedError,
  ExecutionTimeoutError,
  ForkUpstreamError,
  GasCapError,
  GasRequiredExceedsAllowanceError,
  HistoricalStateUnavailableError,
  InsufficientFundsError,
  InsufficientFundsForTransferError,
  InvalidTransactionError,
  NodeError,
  NonceTooLowError,
  ReplacementUnderpricedError,
  revertReasonOf,
  SimulationError,
  StateOverrideError,
  StateDumpUnsupportedError,
  BlocksDroppedError,
  TxRejectedError,
  txConstructionFailure,
} from "../node/common/errors.ts";

import { ErrorCode, internalError, invalidParams, isRpcError, RpcError } from "../protocol/errors.ts";

import type { Facts, SimulationFailure } from "../node/common/errors.ts";

// The error class and the JSON-RPC errors every layer shares (src/protocol/errors.ts).
export { ErrorCode, internalError, invalidParams, isRpcError, limitExceeded, methodNotFound, RpcError } from "../protocol/errors.ts";

// The engine's admission texts and revert decoding, for the method tables and tests.
export { AdmissionMessage, errorStringOf } from "../node/common/errors.ts";

// ── JSON-RPC 2.0 ────────────────────────────────────────────────────────────────────────────────

export const parseError = (reason?: string) => new RpcError(ErrorCode.parseError, "Parse error", reason === undefined ? undefined : { reason });

export const invalidRequest = (reason: string) => new RpcError(ErrorCode.invalidRequest, "Invalid Request", { reason });

/** go-ethereum's "batch too large" (-32600), with our limit in `data`. */
export const batchTooLarge = (limit: number) => new RpcError(ErrorCode.invalidRequest, "Invalid Request", { reason: "batch too large", limit });

/** go-ethereum's -32002 (rpc/errors.go): a batch's calls not run before its deadline. */
export const requestTimedOut = () => new RpcError(ErrorCode.requestTimeout, "request timed out");

/** go-ethereum's -32003 (rpc/errors.go): a response, or a batch's responses, above the size budget. */
export const responseTooLarge = () => new RpcError(ErrorCode.responseTooLarge, "response too large");

/**
 * A dev method (hardhat_, evm_, anvil_) refusing a value it parsed: Hardhat's human text in the
 * message (tests match on it, e.g. "Timestamp X is lower than the previous block's timestamp Y")
 * under EDR's code (-32000), the facts in `data`.
 */
export const devMethodError = (message: string, data?: Record<string, unknown>) => new RpcError(ErrorCode.server, message, data);

// ── Engine errors (docs/behaviour.md#engine-errors) ─────────────────────────────────────────────

const quantity = (value: bigint) => bigIntToHex(value);

/** An engine refusal's facts as `data`: quantities as hex, the rest as they are. */
const factsData = (facts: Facts | undefined) =>
  facts === undefined ? undefined : Object.fromEntries(Object.entries(facts).map(([key, value]) => [key, typeof value === "bigint" ? quantity(value) : value]));

export const executionReverted = (returnData: string) => new RpcError(ErrorCode.server, "execution reverted", returnData);

/**
 * An eth_call that reverts, as go-ethereum answers it (internal/ethapi/errors.go, revertError):
 * code 3, `execution reverted: <reason>` when the data decodes (`Error(string)`, or a
 * `Panic(uint256)` in geth's words: node/common/errors.ts revertReasonOf), the revert bytes as data.
 * viem decodes code 3 into ContractFunctionRevertedError, whatever provider carries it.
 */
export const callReverted = (returnData: string) => {
  const reason = revertReasonOf(returnData);
  return new RpcError(ErrorCode.executionReverted, reason === undefined ? "execution reverted" : `execution reverted: ${reason}`, returnData);
};

/**
 * The revert error of an estimate (-32000 `execution reverted`, the interface's) in go-ethereum's
 * revert shape (code 3, as geth's eth_estimateGas answers it too), for transports whose clients
 * only decode code 3: viem through Hardhat's provider. Any other error is returned as is.
 */
export function asRevertError(error: unknown): unknown {
  if (!isRpcError(error) || error.code !== ErrorCode.server || error.message !== "execution reverted" || typeof error.data !== "string") return error;
  return callReverted(error.data);
}

/** eth_simulateV1's codes (execution-apis; go-ethereum's internal/ethapi/errors.go). */
const SIMULATION_ERROR_CODES: Readonly<Record<SimulationFailure, number>> = {
  nonceTooLow: -38010,
  nonceTooHigh: -38011,
  baseFeeTooLow: -38012,
  intrinsicGas: -38013,
  insufficientFunds: -38014,
  blockGasLimitReached: -38015,
  blockNumberInvalid: -38020,
  blockTimestampInvalid: -38021,
  senderNotEoa: -38024,
  maxInitCodeSize: -38025,
  clientLimitExceeded: -38026,
  invalidParams: ErrorCode.invalidParams,
  internal: ErrorCode.internalError,
};

type EngineErrorClass<E extends NodeError> = abstract new (...args: never[]) => E;
type Mapping<E extends NodeError> = readonly [EngineErrorClass<E>, (error: E) => RpcError];
const mapping = <E extends NodeError>(type: EngineErrorClass<E>, toRpc: (error: E) => RpcError): Mapping<NodeError> =>
  [type, toRpc as (error: NodeError) => RpcError] as const;

/**
 * Every engine error (src/node/common/errors.ts) as JSON-RPC answers it: the one place codes are attached,
 * as go-ethereum's internal/ethapi/errors.go. Subclasses come before their base class.
 */
const ENGINE_ERRORS: readonly Mapping<NodeError>[] = [
  mapping(NonceTooLowError, (e) => new RpcError(ErrorCode.server, e.message, { nextNonce: quantity(e.nextNonce), txNonce: quantity(e.txNonce) })),
  mapping(InsufficientFundsError, (e) => new RpcError(ErrorCode.server, e.message, { balance: quantity(e.balance), cost: quantity(e.cost) })),
  mapping(AlreadyKnownError, (e) => new RpcError(ErrorCode.server, e.message)),
  mapping(
    ReplacementUnderpricedError,
    (e) =>
      new RpcError(ErrorCode.server, e.message, { minMaxFeePerGas: quantity(e.minMaxFeePerGas), minMaxPriorityFeePerGas: quantity(e.minMaxPriorityFeePerGas) }),
  ),
  mapping(GasCapError, (e) => new RpcError(ErrorCode.server, e.message, { cap: quantity(e.cap), gas: quantity(e.gas) })),
  mapping(AutomineNonceTooHighError, (e) => new RpcError(ErrorCode.server, e.message, { expectedNonce: quantity(e.expected), txNonce: quantity(e.actual) })),
  mapping(AutomineFeeTooLowError, (e) => new RpcError(ErrorCode.server, e.message, { [e.field]: quantity(e.actual), baseFeePerGas: quantity(e.baseFee) })),
  // go-ethereum's other admission errors: its text, the facts as data (docs/behaviour.md#node-errors).
  mapping(TxRejectedError, (e) => new RpcError(ErrorCode.server, e.message, factsData(e.facts))),
  mapping(InvalidTransactionError, (e) => invalidParams(e.field, e.reason)),
  mapping(ExecutionRevertedError, (e) => (e.operation === "call" ? callReverted(e.returnData) : executionReverted(e.returnData))),
  mapping(ExecutionFailedError, (e) => new RpcError(ErrorCode.server, e.message, e.returnData)),
  mapping(InsufficientFundsForTransferError, (e) => new RpcError(ErrorCode.server, e.message)),
  mapping(GasRequiredExceedsAllowanceError, (e) => new RpcError(ErrorCode.server, e.message)),
  mapping(ExecutionTimeoutError, (e) => new RpcError(ErrorCode.server, e.message)),
  mapping(StateOverrideError, (e) => new RpcError(ErrorCode.server, e.message)),
  mapping(SimulationError, (e) => new RpcError(SIMULATION_ERROR_CODES[e.failure], e.message)),
  mapping(HistoricalStateUnavailableError, (e) => new RpcError(ErrorCode.server, e.message, { block: quantity(e.block), loadedAt: quantity(e.loadedAt) })),
  mapping(StateDumpUnsupportedError, (e) => new RpcError(ErrorCode.server, e.message, { profiles: [...e.profiles] })),
  mapping(BlocksDroppedError, (e) => new RpcError(ErrorCode.server, e.message, { dropped: quantity(e.dropped) })),
  // The fork's upstream failing is not the caller's mistake: -32603, with what went wrong.
  mapping(ForkUpstreamError, (e) => new RpcError(ErrorCode.internalError, e.message, e.data)),
];

/** The JSON-RPC error of an engine error; an engine error without a row is a bug (-32603). */
function fromEngine(error: NodeError): RpcError {
  for (const [type, toRpc] of ENGINE_ERRORS) if (error instanceof type) return toRpc(error);
  return internalError(error);
}

/** Any failure as JSON-RPC answers it: RpcErrors as they are, engine errors by the table, anything else -32603. */
export function toRpcError(error: unknown): RpcError {
  if (isRpcError(error)) return error;
  if (error instanceof NodeError) return fromEngine(error);
  return internalError(error);
}

/** An engine error as its RpcError; anything else unchanged (for callers that pass other errors on). */
export const engineErrorAsRpc = (error: unknown): unknown => (error instanceof NodeError ? fromEngine(error) : error);

/** ethereumjs' refusal to build a tx from call or send params, as JSON-RPC answers it (src/node/common/errors.ts). */
export const txConstructionError = (error: unknown, field = "params[0]"): RpcError => toRpcError(txConstructionFailure(error, field));

/** go-ethereum's admission refusal `message` (an AdmissionMessage or its own text), with `data`. */
export const admissionError = (message: string, data?: unknown) => new RpcError(ErrorCode.server, message, data);

export const transactionTimeout = (hash: string, timeoutMs: number) =>
  new RpcError(ErrorCode.timeout, `The transaction was added to the mempool but wasn't processed within ${timeoutMs}ms.`, hash);

export const unknownBlock = (tag: string) => new RpcError(ErrorCode.server, "header not found", { block: tag });

// ── Filters and subscriptions (go-ethereum's texts) ─────────────────────────────────────────────

export const filterNotFound = () => new RpcError(ErrorCode.server, "filter not found");

/** eth_subscribe over a transport that cannot push (HTTP): go-ethereum's -32001. */
export const notificationsNotSupported = () => new RpcError(ErrorCode.notificationsUnsupported, "notifications not supported");

// ── Wallet errors (EIP-1193; docs/behaviour.md): the wallet's own, in src/wallet/errors.ts ─────────

export {
  chainDisconnected,
  disconnected,
  typedDataChainMismatch,
  unauthorized,
  unrecognizedChain,
  unsupportedMethod,
  userRejected,
} from "../wallet/errors.ts";
