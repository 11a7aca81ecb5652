/** hardhat-preconf: a pre-confirming (flashblocks) dev chain on @ethereumjs/vm. */
export { createPreconfProvider, PreconfProvider } from "./provider.ts";
export type { PreconfControls, RequestArguments } from "./provider.ts";
export { InvalidOptionsError } from "./options.ts";
export type { PreconfProviderOptions, MnemonicAccounts, ExplicitAccount } from "./options.ts";
export { RpcError, ErrorCode } from "./rpc/errors.ts";
export type { FakeClock } from "./clock.ts";
export type { Fragment, SealedBlock, TxRecord, LogRecord } from "./node/records.ts";
export type { MiningMode } from "./node/sequencer.ts";
export { DEFAULT_MNEMONIC } from "./node/accounts.ts";
export { startServer } from "./server/http.ts";
export type { RunningServer, ServerOptions } from "./server/http.ts";
export type { SubscriptionMessage, SubscriptionKind } from "./rpc/subscriptions.ts";
export type { TransactionStatus } from "./rpc/status.ts";
export { Wallet } from "./wallet/wallet.ts";
export type { KnownChain, Permission, SimulatedChainOptions, WalletRequestRecord, WatchedAsset, RequestOutcome } from "./wallet/wallet.ts";
export { WalletPolicy, PROMPTING_METHODS } from "./wallet/policy.ts";
export type { CustomDecision, Decision, DecisionFunction, PendingPrompt, PromptingMethod, PromptRequest } from "./wallet/policy.ts";
