/**
 * The only place JSON-RPC and EIP-1193 error codes and messages live. Messages of the interface
 * are used exactly; machine-readable details go in `data` (docs/behaviour.md). The engine's own
 * errors (src/node/errors.ts) get their code, message and data here, in one table (ENGINE_ERRORS).
 */
import { bigIntToHex } from "@ethereumjs/util";

import {
  AlreadyKnownError,
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
  StateDumpUnsupportedError,
  TxRejectedError,
  txConstructionFailure,
} from "../node/errors.ts";

import type { Facts } from "../node/errors.ts";

// The engine's admission texts and revert decoding, for the method tables and tests.
export { AdmissionMessage, errorStringOf } from "../node/errors.ts";

export const ErrorCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** go-ethereum's generic server error, used for every admission and execution error. */
  server: -32000,
  /** go-ethereum: an eth_call that reverted (the revert bytes in `data`). */
  executionReverted: 3,
  /** go-ethereum: eth_subscribe over a transport that cannot push notifications. */
  notificationsUnsupported: -32001,
  /** go-ethereum: a batch past its time budget. */
  requestTimeout: -32002,
  /** go-ethereum: a response past the size budget. */
  responseTooLarge: -32003,
  /** EIP-1474's "Limit exceeded": a count budget (subscriptions, filters, pending prompts) is full. */
  limitExceeded: -32005,
  /** EIP-7966: eth_sendRawTransactionSync gave up waiting. */
  timeout: 4,
  userRejected: 4001,
  unsupportedMethod: 4100,
  disconnected: 4900,
  chainDisconnected: 4901,
  unrecognizedChain: 4902,
} as const;

/**
 * An error that crosses the JSON-RPC boundary as `{ code, message, data? }`. It keeps Error's own
 * `name` and has a `data` property only when data was given: `@metamask/rpc-errors`' serializeError
 * (which every json-rpc-engine stack, MetaMask's included, applies) keeps the code and message only
 * of errors shaped exactly so, and turns anything else into -32603.
 */
export class RpcError extends Error {
  readonly code: number;
  declare readonly data?: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    if (data !== undefined) Object.defineProperty(this, "data", { value: data, enumerable: true });
  }

  /**
   * The message under the name viem's RpcRequestError gives it: viem decodes a -32000 revert only
   * when `details` is "execution reverted", so in-process callers now decode it as HTTP ones do.
   */
  get details(): string {
    return this.message;
  }

  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }
}

export const isRpcError = (error: unknown): error is RpcError => error instanceof RpcError;

// ── JSON-RPC 2.0 ────────────────────────────────────────────────────────────────────────────────

export const parseError = (reason?: string) => new RpcError(ErrorCode.parseError, "Parse error", reason === undefined ? undefined : { reason });

export const invalidRequest = (reason: string) => new RpcError(ErrorCode.invalidRequest, "Invalid Request", { reason });

/** go-ethereum's "batch too large" (-32600), with our limit in `data`. */
export const batchTooLarge = (limit: number) => new RpcError(ErrorCode.invalidRequest, "Invalid Request", { reason: "batch too large", limit });

/** go-ethereum's -32002 (rpc/errors.go): a batch's calls not run before its deadline. */
export const requestTimedOut = () => new RpcError(ErrorCode.requestTimeout, "request timed out");

/** go-ethereum's -32003 (rpc/errors.go): a response, or a batch's responses, above the size budget. */
export const responseTooLarge = () => new RpcError(ErrorCode.responseTooLarge, "response too large");

/** EIP-1474's -32005: `reason` names the budget, `limit` its size. */
export const limitExceeded = (reason: string, limit: number) => new RpcError(ErrorCode.limitExceeded, "limit exceeded", { reason, limit });

export const methodNotFound = (method: string) => new RpcError(ErrorCode.methodNotFound, "Method not found", { method });

/** `field` is a path such as `params[0].maxFeePerGas` or `options.symbol`. */
export const invalidParams = (field: string, reason: string) => new RpcError(ErrorCode.invalidParams, "Invalid params", { field, reason });

/**
 * A dev method (hardhat_, evm_, anvil_) refusing a value it parsed: Hardhat's human text in the
 * message (tests match on it, e.g. "Timestamp X is lower than the previous block's timestamp Y")
 * under EDR's code (-32000), the facts in `data`.
 */
export const devMethodError = (message: string, data?: Record<string, unknown>) => new RpcError(ErrorCode.server, message, data);

export const internalError = (cause: unknown) =>
  new RpcError(ErrorCode.internalError, "Internal error", {
    reason: cause instanceof Error ? cause.message : String(cause),
  });

// ── Engine errors (docs/behaviour.md#engine-errors) ─────────────────────────────────────────────

const quantity = (value: bigint) => bigIntToHex(value);

/** An engine refusal's facts as `data`: quantities as hex, the rest as they are. */
const factsData = (facts: Facts | undefined) =>
  facts === undefined ? undefined : Object.fromEntries(Object.entries(facts).map(([key, value]) => [key, typeof value === "bigint" ? quantity(value) : value]));

export const executionReverted = (returnData: string) => new RpcError(ErrorCode.server, "execution reverted", returnData);

/**
 * An eth_call that reverts, as go-ethereum answers it (internal/ethapi/errors.go, revertError):
 * code 3, `execution reverted: <reason>` when the data decodes (`Error(string)`, or a
 * `Panic(uint256)` in geth's words: node/errors.ts revertReasonOf), the revert bytes as data.
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

type EngineErrorClass<E extends NodeError> = abstract new (...args: never[]) => E;
type Mapping<E extends NodeError> = readonly [EngineErrorClass<E>, (error: E) => RpcError];
const mapping = <E extends NodeError>(type: EngineErrorClass<E>, toRpc: (error: E) => RpcError): Mapping<NodeError> =>
  [type, toRpc as (error: NodeError) => RpcError] as const;

/**
 * Every engine error (src/node/errors.ts) as JSON-RPC answers it: the one place codes are attached,
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
  // go-ethereum's other admission errors: its text, the facts as data (docs/behaviour.md#node-errors).
  mapping(TxRejectedError, (e) => new RpcError(ErrorCode.server, e.message, factsData(e.facts))),
  mapping(InvalidTransactionError, (e) => invalidParams(e.field, e.reason)),
  mapping(ExecutionRevertedError, (e) => (e.operation === "call" ? callReverted(e.returnData) : executionReverted(e.returnData))),
  mapping(ExecutionFailedError, (e) => new RpcError(ErrorCode.server, e.message, e.returnData)),
  mapping(InsufficientFundsForTransferError, (e) => new RpcError(ErrorCode.server, e.message)),
  mapping(GasRequiredExceedsAllowanceError, (e) => new RpcError(ErrorCode.server, e.message)),
  mapping(ExecutionTimeoutError, (e) => new RpcError(ErrorCode.server, e.message)),
  mapping(HistoricalStateUnavailableError, (e) => new RpcError(ErrorCode.server, e.message, { block: quantity(e.block), loadedAt: quantity(e.loadedAt) })),
  mapping(StateDumpUnsupportedError, (e) => new RpcError(ErrorCode.server, e.message, { profiles: [...e.profiles] })),
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

/** ethereumjs' refusal to build a tx from call or send params, as JSON-RPC answers it (src/node/errors.ts). */
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

// ── Wallet errors (EIP-1193; docs/behaviour.md) ─────────────────────────────────────────────────

export const userRejected = () => new RpcError(ErrorCode.userRejected, "User rejected the request");
export const unsupportedMethod = () => new RpcError(ErrorCode.unsupportedMethod, "Requested method not supported");
/**
 * A page that was not granted an account asks to sign or send with it: MetaMask's answer
 * (`providerErrors.unauthorized()` in @metamask/eth-json-rpc-middleware's validateAndNormalizeKeyholder).
 */
export const unauthorized = () => new RpcError(ErrorCode.unsupportedMethod, "The requested account and/or method has not been authorized by the user.");
/** MetaMask's refusal of typed data whose domain names another chain (its text; -32603, see rpc/wallet.ts). */
export const typedDataChainMismatch = (provided: bigint, active: bigint) =>
  new RpcError(ErrorCode.internalError, `Provided chainId "${provided}" must match the active chainId "${active}"`);
export const unrecognizedChain = (chainId?: string) =>
  new RpcError(ErrorCode.unrecognizedChain, "Unrecognized chain ID", chainId === undefined ? undefined : { chainId });
export const chainDisconnected = (chainId: string) =>
  new RpcError(ErrorCode.chainDisconnected, "The provider is disconnected from the specified chain", { chainId });
export const disconnected = () => new RpcError(ErrorCode.disconnected, "The provider is disconnected from all chains");
