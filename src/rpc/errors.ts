/**
 * The only place JSON-RPC and EIP-1193 error codes and messages live. Messages of the interface
 * are used exactly; machine-readable details go in `data` (docs/behaviour.md).
 */
import { bigIntToHex } from "@ethereumjs/util";

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

// ── Node errors (docs/behaviour.md#node-errors) ─────────────────────────────────────────────────────

const quantity = (value: bigint) => bigIntToHex(value);

export const executionReverted = (returnData: string) => new RpcError(ErrorCode.server, "execution reverted", returnData);

/**
 * An eth_call that reverts, as go-ethereum answers it (internal/ethapi/errors.go, revertError):
 * code 3, `execution reverted: <reason>` when the data is `Error(string)`, the revert bytes as data.
 * viem decodes code 3 into ContractFunctionRevertedError, whatever provider carries it.
 */
export const callReverted = (returnData: string) => {
  const reason = errorStringOf(returnData);
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

/** The `Error(string)` selector, keccak256("Error(string)")[0..4]. */
const ERROR_STRING_SELECTOR = "0x08c379a0";

/** The reason of `Error(string)` revert data (ABI: offset, length, bytes); undefined for anything else. */
export function errorStringOf(returnData: string): string | undefined {
  if (!returnData.toLowerCase().startsWith(ERROR_STRING_SELECTOR) || returnData.length < 10 + 128) return undefined;
  const body = Buffer.from(returnData.slice(10), "hex");
  const word = (at: number) => (at + 32 <= body.length ? BigInt(`0x${body.subarray(at, at + 32).toString("hex")}`) : undefined);
  const offset = word(0);
  if (offset === undefined || offset > BigInt(body.length)) return undefined;
  const length = word(Number(offset));
  const start = Number(offset) + 32;
  if (length === undefined || BigInt(start) + length > BigInt(body.length)) return undefined;
  return new TextDecoder().decode(body.subarray(start, start + Number(length)));
}

export const nonceTooLow = (nextNonce: bigint, txNonce: bigint) =>
  new RpcError(ErrorCode.server, "nonce too low", { nextNonce: quantity(nextNonce), txNonce: quantity(txNonce) });

export const insufficientFunds = (balance: bigint, cost: bigint) =>
  new RpcError(ErrorCode.server, "insufficient funds for gas * price + value", {
    balance: quantity(balance),
    cost: quantity(cost),
  });

export const alreadyKnown = () => new RpcError(ErrorCode.server, "already known");

export const replacementUnderpriced = (minMaxFeePerGas: bigint, minMaxPriorityFeePerGas: bigint) =>
  new RpcError(ErrorCode.server, "replacement transaction underpriced", {
    minMaxFeePerGas: quantity(minMaxFeePerGas),
    minMaxPriorityFeePerGas: quantity(minMaxPriorityFeePerGas),
  });

/** go-ethereum's other admission errors, in the order it checks them (docs/behaviour.md#node-errors). */
export const AdmissionMessage = {
  unprotected: "only replay-protected (EIP-155) transactions allowed over RPC",
  typeNotSupported: "transaction type not supported",
  oversizedData: "oversized data",
  maxInitCodeSize: "max initcode size exceeded",
  gasLimit: "exceeds block gas limit",
  tipAboveFeeCap: "max priority fee per gas higher than max fee per gas",
  invalidSender: "invalid sender",
  intrinsicGas: "intrinsic gas too low",
  floorDataGas: "insufficient gas for floor data gas cost",
  underpriced: "transaction underpriced",
  /** legacypool: a sender's queue (txs behind a nonce gap) is full. */
  accountLimit: "account limit exceeded",
} as const;

export const admissionError = (message: string, data?: unknown) => new RpcError(ErrorCode.server, message, data);

/** EIP-7825's per-tx gas cap (go-ethereum core.ErrGasLimitTooHigh, as its txpool and state transition word it). */
export const gasLimitTooHigh = (cap: bigint, gas: bigint) =>
  new RpcError(ErrorCode.server, `transaction gas limit too high (cap: ${cap}, tx: ${gas})`, { cap: quantity(cap), gas: quantity(gas) });

const EIP7825_REFUSAL = /Transaction gas limit (\d+) exceeds the maximum allowed by EIP-7825 \((\d+)\)/;

/** ethereumjs refuses to build a tx above EIP-7825's cap: go-ethereum's error, or undefined for another reason. */
export function gasCapError(reason: string): RpcError | undefined {
  const match = EIP7825_REFUSAL.exec(reason);
  return match === null ? undefined : gasLimitTooHigh(BigInt(match[2]!), BigInt(match[1]!));
}

export const gasRequiredExceedsAllowance = (cap: bigint) => new RpcError(ErrorCode.server, `gas required exceeds allowance (${cap})`);

export const insufficientFundsForTransfer = () => new RpcError(ErrorCode.server, "insufficient funds for transfer");

/**
 * What ethereumjs' refusal to build a tx from call or send params means for the caller: a value
 * no tx can hold is `-32602`; a nonce at 2^64 - 1 (reachable with hardhat_setNonce) and oversized
 * initcode are go-ethereum's -32000 errors. Anything else is a bug (-32603).
 */
export function txConstructionError(error: unknown, field = "params[0]"): RpcError {
  if (isRpcError(error)) return error;
  const reason = (error instanceof Error ? error.message : String(error)).replace(/ \(tx type=.*$/s, "");
  const capped = gasCapError(reason);
  if (capped !== undefined) return capped;
  if (/nonce cannot equal or exceed MAX_UINT64/.test(reason)) return new RpcError(ErrorCode.server, "nonce has max value", { reason });
  if (/initcode size/i.test(reason)) return new RpcError(ErrorCode.server, AdmissionMessage.maxInitCodeSize, { reason });
  if (/maxFeePerGas cannot be less than maxPriorityFeePerGas/.test(reason)) return new RpcError(ErrorCode.server, AdmissionMessage.tipAboveFeeCap);
  if (/cannot exceed MAX_INTEGER|cannot exceed MAX_UINT64|Invalid EIP-7702 transaction/.test(reason)) return invalidParams(field, reason);
  return internalError(error);
}

export const transactionTimeout = (hash: string, timeoutMs: number) =>
  new RpcError(ErrorCode.timeout, `The transaction was added to the mempool but wasn't processed within ${timeoutMs}ms.`, hash);

export const unknownBlock = (tag: string) => new RpcError(ErrorCode.server, "header not found", { block: tag });

/** OP-stack profiles: their blocks hold deposit txs, which a dump could not load back. */
export const stateDumpUnsupported = () =>
  new RpcError(ErrorCode.server, "state dumps are not supported on OP-stack profiles", {
    profiles: ["base", "base-sepolia", "base-denim", "optimism", "unichain"],
  });

/** A block older than the state dump the chain was loaded from: its state was not dumped (geth's wording). */
export const historicalStateUnavailable = (block: bigint, loadedAt: bigint) =>
  new RpcError(ErrorCode.server, "historical state not available", { block: bigIntToHex(block), loadedAt: bigIntToHex(loadedAt) });

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
