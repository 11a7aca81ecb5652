/** hardhat-preconf: a pre-confirming (flashblocks) dev chain on @ethereumjs/vm. */
export { createPreconfProvider, PreconfProvider } from "./provider.ts";
export type { PreconfControls, RequestArguments } from "./provider.ts";
export { InvalidOptionsError } from "./options.ts";
export type { PreconfProviderOptions, MnemonicAccounts, ExplicitAccount } from "./options.ts";
export { RpcError, ErrorCode } from "./rpc/errors.ts";
export type { FakeClock } from "./clock.ts";
export type { Fragment, SealedBlock, TxRecord, LogRecord } from "./node/records.ts";
export type { MiningMode } from "./node/sequencer.ts";
export { STATE_DUMP_FORMAT, STATE_DUMP_VERSION } from "./node/stateDump.ts";
export type { DumpAccount, DumpBlock, DumpReceipt, StateDump } from "./node/stateDump.ts";
export { DEFAULT_MNEMONIC } from "./node/accounts.ts";
export { startServer } from "./server/http.ts";
export type { RunningServer, ServerOptions } from "./server/http.ts";
export type { SubscriptionMessage, SubscriptionKind } from "./rpc/subscriptions.ts";
export type { TransactionStatus } from "./rpc/status.ts";
export type { Fault, FaultResult } from "./rpc/faults.ts";
export { Wallet } from "./wallet/wallet.ts";
export type {
  KnownChain,
  ListedAsset,
  Permission,
  SimulatedChainOptions,
  WalletRequestRecord,
  WalletStateSummary,
  WatchedAsset,
  RequestOutcome,
} from "./wallet/wallet.ts";
export { IN_PROCESS_ORIGIN, NO_ORIGIN } from "./wallet/wallet.ts";
export { WALLET_DELEGATE_ADDRESS } from "./node/walletDelegate.ts";
export { WalletPolicy, PROMPTING_METHODS } from "./wallet/policy.ts";
export type { CustomDecision, Decision, DecisionFunction, PendingPrompt, PromptingMethod, PromptRequest } from "./wallet/policy.ts";
export { runScenario, loadScenario } from "./scenario/run.ts";
export type { ScenarioResult, ScenarioStepResult } from "./scenario/run.ts";
export { parseScenario, ScenarioFixtureError } from "./scenario/schema.ts";
export type { ScenarioFixture } from "./scenario/schema.ts";
export { walletScript } from "./browser/walletScript.ts";
export type { WalletScriptInfo, WalletScriptOptions } from "./browser/walletScript.ts";
export type { WalletSession, WalletSessionOptions } from "./provider.ts";
export type { WalletPersonality } from "./options.ts";
export type { TraceFormat } from "./node/structLogger.ts";
export { preconfChain, preconfChainOf, preconfChains } from "./chains.ts";
export type { PreconfChain, PreconfChainParameters } from "./chains.ts";
