/**
 * The error every layer above the engine answers with, and its codes: the method table
 * (src/rpc), the wallet (src/wallet) and the transports share this one class, so an error the
 * wallet raises crosses every transport unchanged. A leaf module: it imports nothing of the
 * project. The factories of each layer's own errors live with that layer (src/rpc/errors.ts,
 * src/wallet/errors.ts).
 */

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
  /** go-ethereum: a block range the node no longer holds (EIP-4444 history expiry). */
  prunedHistory: 4444,
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

/** `field` is a path such as `params[0].maxFeePerGas` or `options.symbol`. */
export const invalidParams = (field: string, reason: string) => new RpcError(ErrorCode.invalidParams, "Invalid params", { field, reason });

/** EIP-1474's -32005: `reason` names the budget, `limit` its size. */
export const limitExceeded = (reason: string, limit: number) => new RpcError(ErrorCode.limitExceeded, "limit exceeded", { reason, limit });

export const methodNotFound = (method: string) => new RpcError(ErrorCode.methodNotFound, "Method not found", { method });

export const internalError = (cause: unknown) =>
  new RpcError(ErrorCode.internalError, "Internal error", {
    reason: cause instanceof Error ? cause.message : String(cause),
  });
