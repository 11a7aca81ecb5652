/** hardhat-preconf: a pre-confirming (flashblocks) dev chain on @ethereumjs/vm. */
import { commonJsRequire, ownEntryFile } from "./node/common/moduleSystem.ts";

import type { ScenarioFixture } from "./scenario/schema.ts";
import type { ScenarioResult } from "./scenario/run.ts";
import type { RunningServer, ServedProvider, ServerOptions } from "./server/http.ts";

export { createPreconfProvider, PreconfProvider } from "./provider.ts";
export type { PreconfControls, RequestArguments } from "./provider.ts";
export { InvalidOptionsError } from "./options.ts";
export type { PreconfProviderOptions, MnemonicAccounts, ExplicitAccount } from "./options.ts";
export { RpcError, ErrorCode } from "./rpc/errors.ts";
export type { FakeClock } from "./clock.ts";
export type { Fragment, SealedBlock, TxRecord, LogRecord } from "./node/chain/records.ts";
export type { MiningMode } from "./node/chain/sequencer.ts";
export { STATE_DUMP_FORMAT, STATE_DUMP_VERSION } from "./node/state/stateDump.ts";
export type { DumpAccount, DumpBlock, DumpReceipt, StateDump } from "./node/state/stateDump.ts";
export { DEFAULT_MNEMONIC } from "./node/common/accounts.ts";
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
export { WALLET_DELEGATE_ADDRESS } from "./node/state/walletDelegate.ts";
export { WalletPolicy, PROMPTING_METHODS } from "./wallet/policy.ts";
export type { CustomDecision, Decision, DecisionFunction, PendingPrompt, PromptingMethod, PromptRequest } from "./wallet/policy.ts";
export type { ScenarioResult, ScenarioStepResult } from "./scenario/run.ts";
export { parseScenario, ScenarioFixtureError } from "./scenario/schema.ts";
export type { ScenarioFixture } from "./scenario/schema.ts";
export { walletScript } from "./browser/walletScript.ts";
export type { WalletScriptInfo, WalletScriptOptions } from "./browser/walletScript.ts";
export type { WalletSession, WalletSessionOptions } from "./provider.ts";
export type { WalletPersonality } from "./options.ts";
export type { TraceFormat } from "./node/execution/structLogger.ts";
export { preconfActions, preconfChain, preconfChainOf, preconfChains } from "./chains.ts";
export type { PreconfChain, PreconfChainParameters } from "./chains.ts";

// Lazily loaded entry points, in the module system this file runs in (src/node/common/moduleSystem.ts).

async function scenarioRunner(): Promise<typeof import("./scenario/run.ts")> {
  const commonJs = commonJsRequire(import.meta.url);
  return commonJs !== undefined
    ? (commonJs(ownEntryFile(import.meta.url, "scenario/run.ts")) as typeof import("./scenario/run.ts"))
    : await import("./scenario/run.ts");
}

/**
 * Starts an HTTP + WebSocket JSON-RPC server for a provider. The provider stays the caller's:
 * `close()` stops the server only. The server's modules load on the first call: importing
 * `node:http` loads Node's bundled undici too, which a script that only uses the provider never needs.
 *
 * @example
 * ```ts
 * const provider = await createPreconfProvider();
 * const server = await startServer(provider, { port: 8545, allowedOrigins: ["http://localhost:3000"] });
 * console.log(server.url); // http://127.0.0.1:8545
 * await server.close();
 * ```
 */
export async function startServer(provider: ServedProvider, options?: ServerOptions): Promise<RunningServer> {
  const commonJs = commonJsRequire(import.meta.url);
  const server =
    commonJs !== undefined
      ? (commonJs(ownEntryFile(import.meta.url, "server/http.ts")) as typeof import("./server/http.ts"))
      : await import("./server/http.ts");
  return server.startServer(provider, options);
}

/**
 * Runs a scenario fixture (a path to a JSON file, or the parsed object) on a fresh provider with a
 * fake clock; see src/scenario/run.ts. The scenario runner's modules load on the first call.
 *
 * @example
 * ```ts
 * import { runScenario } from "hardhat-preconf";
 *
 * const { passed, steps } = await runScenario("fixtures/scenarios/preconfirm-then-seal.json");
 * for (const step of steps) if (!step.passed) console.log(step.description, step.diff);
 * ```
 */
export async function runScenario(fixtureOrPath: string | object): Promise<ScenarioResult> {
  const scenario = await scenarioRunner();
  return scenario.runScenario(fixtureOrPath);
}

/** Reads and validates a scenario fixture file; JSON and schema errors name the file and the path. */
export async function loadScenario(path: string): Promise<ScenarioFixture> {
  const scenario = await scenarioRunner();
  return scenario.loadScenario(path);
}
