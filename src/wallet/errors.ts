/**
 * The errors the wallet answers with (EIP-1193, EIP-5792, MetaMask's texts): codes and messages
 * live here, with the wallet; the method table re-exports them (src/rpc/errors.ts). Each cites
 * where its code and text come from.
 */
import { ErrorCode, RpcError } from "../protocol/errors.ts";

// ── EIP-1193 (and the interface's texts: docs/behaviour.md) ────────────────────────────────────

export const userRejected = () => new RpcError(ErrorCode.userRejected, "User rejected the request");
export const unsupportedMethod = () => new RpcError(ErrorCode.unsupportedMethod, "Requested method not supported");
/**
 * A page that was not granted an account asks to sign or send with it: MetaMask's answer
 * (`providerErrors.unauthorized()` in @metamask/eth-json-rpc-middleware's validateAndNormalizeKeyholder).
 */
export const unauthorized = () => new RpcError(ErrorCode.unsupportedMethod, "The requested account and/or method has not been authorized by the user.");
/**
 * MetaMask's refusal of typed data whose domain names another chain: its text, and -32603 because
 * the signature controller throws a plain Error that serializeError turns into -32603
 * (MetaMask/core signature-controller utils/validation.ts, validateTypedSignatureRequestV3V4).
 */
export const typedDataChainMismatch = (provided: bigint, active: bigint) =>
  new RpcError(ErrorCode.internalError, `Provided chainId "${provided}" must match the active chainId "${active}"`);
export const unrecognizedChain = (chainId?: string) =>
  new RpcError(ErrorCode.unrecognizedChain, "Unrecognized chain ID", chainId === undefined ? undefined : { chainId });
export const chainDisconnected = (chainId: string) =>
  new RpcError(ErrorCode.chainDisconnected, "The provider is disconnected from the specified chain", { chainId });
export const disconnected = () => new RpcError(ErrorCode.disconnected, "The provider is disconnected from all chains");

// ── EIP-5792 (wallet_sendCalls and its siblings) ───────────────────────────────────────────────

/** EIP-5792's error codes (the EIP's "Error codes" table; MetaMask's EIP5792ErrorCode, eip-5792-middleware constants.ts). */
export const CallsErrorCode = {
  unsupportedNonOptionalCapability: 5700,
  unsupportedChainId: 5710,
  duplicateId: 5720,
  unknownBundleId: 5730,
  bundleTooLarge: 5740,
  rejectedUpgrade: 5750,
  atomicityNotSupported: 5760,
  /** ERC-7682 (auxiliaryFunds): MetaMask's EIP7682ErrorCode. */
  unsupportedAsset: 5771,
  unsupportedAuxiliaryFundsChain: 5772,
} as const;

/** MetaMask's text (eip-5792-middleware hooks/processSendCalls.ts, validateCapabilities). */
export const unsupportedCapabilities = (names: readonly string[]) =>
  new RpcError(CallsErrorCode.unsupportedNonOptionalCapability, `Unsupported non-optional capabilities: ${names.join(", ")}`);

/** MetaMask's text (processSendCalls.ts, validateSendCallsChainId): the chain has no EIP-7702 batch support. */
export const eip7702NotSupported = (chainId: string) => new RpcError(CallsErrorCode.unsupportedChainId, `EIP-7702 not supported on chain: ${chainId}`);

/** EIP-5792 5710, for wallets that take the EIP's letter: the wallet does not serve the calls' chain. */
export const unsupportedChainId = (chainId: string) => new RpcError(CallsErrorCode.unsupportedChainId, "Unsupported chain id", { chainId });

/** EIP-5792 5720: an `id` the wallet has already used. */
export const duplicateCallsId = (id: string) => new RpcError(CallsErrorCode.duplicateId, "Duplicate ID", { id });

/** MetaMask's text (eip-5792-middleware hooks/getCallsStatus.ts). */
export const unknownBundleId = () => new RpcError(CallsErrorCode.unknownBundleId, "No matching bundle found");

/** MetaMask's text (transaction-controller utils/validation.ts, validateBatchRequest; its limit is 10 calls). */
export const bundleTooLarge = (limit: number, got: number) => new RpcError(CallsErrorCode.bundleTooLarge, `Batch size cannot exceed ${limit}. got: ${got}`);

/**
 * The user declined the account upgrade MetaMask shows before the first atomic batch: its text
 * (metamask-extension ui/pages/confirmations/hooks/useSmartAccountActions.ts, handleRejectUpgrade).
 */
export const rejectedUpgrade = () => new RpcError(CallsErrorCode.rejectedUpgrade, "User rejected account upgrade");

/** EIP-5792 5760: `atomicRequired` and the wallet cannot execute the calls atomically. */
export const atomicityNotSupported = () => new RpcError(CallsErrorCode.atomicityNotSupported, "Atomicity not supported");

/** MetaMask's texts (processSendCalls.ts, validateAuxFundsSupportAndRequiredAssets). */
export const unsupportedAuxiliaryFundsChain = (chainId: string) =>
  new RpcError(CallsErrorCode.unsupportedAuxiliaryFundsChain, `The wallet no longer supports auxiliary funds on the requested chain: ${chainId}`);
export const unsupportedAuxiliaryAsset = (address: string, standard: string) =>
  new RpcError(
    CallsErrorCode.unsupportedAsset,
    `The requested asset ${address} is not available through the wallet’s auxiliary fund system: unsupported token standard ${standard}`,
  );

/** MetaMask's texts (processSendCalls.ts, validateSendCallsVersion and validateDappChainId): -32000 and -32602. */
export const callsVersionNotSupported = (got: string, expected: string) =>
  new RpcError(ErrorCode.server, `Version not supported: Got ${got}, expected ${expected}`);
export const callsChainMismatch = (got: string, expected: string) =>
  new RpcError(ErrorCode.invalidParams, `Chain ID must match the dApp selected network: Got ${got}, expected ${expected}`);

/** MetaMask's text (transaction-controller utils/validation.ts, validateBatchRequest). */
export const callsToOwnAccountWithData = () => new RpcError(ErrorCode.invalidParams, "External calls to internal accounts cannot include data");

/** MetaMask's text (transaction-controller utils/batch.ts): the account is delegated to a contract the wallet does not use. */
export const upgradedToUnsupportedContract = () => new RpcError(ErrorCode.internalError, "Account upgraded to unsupported contract");

// ── MetaMask's answers to eth_sendTransaction (transaction-controller utils/validation.ts) ──────

/** validateParamChainId: the tx names another chain than the dapp's. */
export const transactionChainMismatch = (got: string, expected: string) =>
  new RpcError(ErrorCode.invalidParams, `Invalid transaction params: chainId must match the network client, got: ${got}, expected: ${expected}`);

/** validateTransactionOrigin: a dapp may not send its own EIP-7702 authorizations. */
export const externalEip7702NotSupported = () => new RpcError(ErrorCode.invalidParams, "External EIP-7702 transactions are not supported");
