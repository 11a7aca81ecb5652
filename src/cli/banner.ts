/**
 * What `preconf node` says when it starts, as anvil's banner (accounts, keys, wallet, chain
 * parameters) plus the chain's cadence and hardfork and, after a state file, which block was
 * loaded; and the same facts as one object: `--print-config`, `--config-out` and `--json`'s first
 * line. `effectiveConfig` is pure: it tells what a command line means without starting anything
 * (a fork's upstream is not asked; its chain id shows as the one given, or null).
 */
import { DEFAULT_MNEMONIC, DEFAULT_HD_PATH } from "../node/common/accounts.ts";
import { PROFILES } from "../node/profiles/profiles.ts";
import { DEFAULT_BATCH_TIMEOUT_MS, DEFAULT_MAX_BATCH, DEFAULT_MAX_RESPONSE_BYTES } from "../server/jsonrpc.ts";
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_WS_MAX_SUBSCRIPTIONS } from "../server/http.ts";
import { checksummed, formatEther, formatGwei } from "./format.ts";

import type { ResolvedOptions } from "../options.ts";
import type { NodeCommand } from "./flags.ts";

/** Where the state came from, for the banner's State line. */
export type StateOrigin = { kind: "loaded"; path: string; block: bigint; hash: string } | { kind: "new"; path: string } | undefined;

export interface Listening {
  url: string;
  wsUrl: string;
}

/** The effective configuration, as JSON-ready values (bigints as decimal strings). */
export function effectiveConfig(command: NodeCommand, resolved: ResolvedOptions, version: string, listening?: Listening): Record<string, unknown> {
  const accounts = Array.isArray(command.provider.accounts) ? undefined : command.provider.accounts;
  const server = command.server;
  const fork = resolved.fork;
  return {
    version,
    server: {
      host: command.host,
      port: command.port,
      ...(listening !== undefined && { url: listening.url, wsUrl: listening.wsUrl }),
      allowedOrigins: server.allowedOrigins ?? [],
      allowedHosts: server.allowedHosts ?? [],
      maxBodyBytes: server.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      maxBatch: server.maxBatch ?? DEFAULT_MAX_BATCH,
      maxResponseBytes: server.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      batchTimeoutMs: server.batchTimeoutMs ?? DEFAULT_BATCH_TIMEOUT_MS,
      wsMaxSubscriptions: server.wsMaxSubscriptions ?? DEFAULT_WS_MAX_SUBSCRIPTIONS,
    },
    chain: {
      profile: resolved.profile,
      chainId: fork !== undefined && command.provider.fork?.chainId === undefined ? null : String(fork?.chainId ?? resolved.chainId),
      hardfork: resolved.hardfork,
      blockGasLimit: String(resolved.blockGasLimit),
      initialBaseFeePerGas: String(resolved.initialBaseFeePerGas),
      genesisTimestamp: resolved.genesisTimestamp === undefined ? null : String(resolved.genesisTimestamp),
      coinbase: checksummed(resolved.coinbase),
      allowUnprotectedTxs: resolved.allowUnprotectedTxs,
      // EIP-170's 24,576 bytes unless set.
      codeSizeLimit: resolved.allowUnlimitedContractSize ? null : (resolved.codeSizeLimit ?? 24_576),
      allowUnlimitedContractSize: resolved.allowUnlimitedContractSize,
      genesisFile: command.files.genesis ?? null,
      importFile: command.files.import ?? null,
    },
    mining: {
      mode: resolved.mining,
      fragmentIntervalMs: resolved.fragmentIntervalMs,
      fragmentsPerBlock: resolved.fragmentsPerBlock,
      blockTimeMs: resolved.fragmentIntervalMs * resolved.fragmentsPerBlock,
      order: resolved.txOrder,
      allowBlocksWithSameTimestamp: resolved.allowBlocksWithSameTimestamp,
    },
    hardhat: {
      throwOnTransactionFailures: resolved.throwOnTransactionFailures,
      throwOnCallFailures: resolved.throwOnCallFailures,
      traceFormat: resolved.traceFormat,
    },
    accounts: {
      mnemonic: accounts === undefined ? null : shownMnemonic(accounts.mnemonic ?? DEFAULT_MNEMONIC),
      derivationPath: accounts === undefined ? null : `${accounts.path ?? DEFAULT_HD_PATH}/`,
      balance: resolved.accounts[0] === undefined ? null : String(resolved.accounts[0].balance),
      addresses: resolved.accounts.map((account) => checksummed(account.address)),
      privateKeys: resolved.accounts.map((account) => account.privateKey),
      autoImpersonate: resolved.autoImpersonate,
    },
    wallet: {
      policy: resolved.walletPolicy,
      personality: resolved.walletPersonality,
      connected: resolved.walletConnected,
      switchOnAdd: resolved.switchOnAdd,
      preconfirmedCallsStatus: resolved.walletPreconfirmedCallsStatus,
    },
    state: {
      file: command.files.state ?? null,
      loadState: command.files.loadState ?? null,
      dumpState: command.files.dumpState ?? null,
      intervalMs: command.stateIntervalMs ?? null,
      history: resolved.stateHistory,
    },
    fork:
      fork === undefined
        ? null
        : {
            url: fork.url,
            blockNumber: fork.blockNumber === undefined ? null : String(fork.blockNumber),
            cacheDir: fork.cacheDir ?? null,
            headers: Object.keys(fork.headers ?? {}),
          },
    limits: {
      rpcGasCap: String(resolved.rpcGasCap),
      rpcEvmTimeoutMs: resolved.rpcEvmTimeoutMs,
      maxFilters: resolved.maxFilters,
      maxSubscriptions: resolved.maxSubscriptions,
      poolSlots: resolved.poolSlots,
      poolAccountQueue: resolved.poolAccountQueue,
      poolLifetimeMs: resolved.poolLifetimeMs,
      minPriorityFeePerGas: String(resolved.minPriorityFeePerGas),
    },
    log: command.log,
  };
}

/** anvil's section heading; its Wallet section has no blank line under it. */
/**
 * The mnemonic as output shows it: the well-known default as anvil prints it, a custom one never
 * (it may hold real funds elsewhere; its dev keys are printed, the phrase that derives every key is not).
 */
export const shownMnemonic = (mnemonic: string): string =>
  mnemonic.trim().split(/\s+/).join(" ") === DEFAULT_MNEMONIC ? DEFAULT_MNEMONIC : "(given with --mnemonic: not printed)";

const heading = (title: string, blank = true) => ["", title, "=".repeat(18), ...(blank ? [""] : [])];
const row = (label: string, value: string) => `${`${label}:`.padEnd(19)}${value}`;

function cadence(options: ResolvedOptions): string {
  const blockMs = options.fragmentIntervalMs * options.fragmentsPerBlock;
  const block = blockMs % 1000 === 0 ? `${blockMs / 1000} s` : `${blockMs} ms`;
  const timing =
    options.fragmentsPerBlock === 1
      ? `a block every ${block}`
      : `a fragment every ${options.fragmentIntervalMs} ms, ${options.fragmentsPerBlock} per block (a block every ${block})`;
  const mining = options.mining === "auto" ? "auto: a block per tx, at once" : options.mining === "manual" ? "manual: only when asked" : "interval";
  return `${timing}; mining ${mining}`;
}

export interface BannerFacts {
  version: string;
  options: ResolvedOptions;
  /** The mnemonic and path the accounts come from (absent: explicit keys). */
  wallet: { mnemonic: string; path: string } | undefined;
  genesisTimestamp: bigint;
  state: StateOrigin;
  fork: { origin: string; blockNumber: bigint; hash: string } | undefined;
  listening: Listening;
}

/** The banner's lines, anvil's sections in anvil's order, then this chain's. */
export function bannerLines(facts: BannerFacts): string[] {
  const { options } = facts;
  const lines = [`hardhat-preconf ${facts.version}`];
  if (options.accounts.length > 0) {
    lines.push(...heading("Available Accounts"));
    lines.push(...options.accounts.map((account, i) => `(${i}) ${checksummed(account.address)} (${formatEther(account.balance)})`));
    lines.push(...heading("Private Keys"));
    lines.push(...options.accounts.map((account, i) => `(${i}) ${account.privateKey}`));
  }
  if (facts.wallet !== undefined) {
    lines.push(...heading("Wallet", false));
    lines.push(row("Mnemonic", shownMnemonic(facts.wallet.mnemonic)), row("Derivation path", `${facts.wallet.path}/`));
  }
  lines.push(...heading("Chain"));
  const profile = PROFILES[options.profile];
  lines.push(
    row("Chain ID", String(options.chainId)),
    row("Profile", profile.op === undefined ? options.profile : `${options.profile} (OP-stack execution as of ${profile.opHardfork})`),
    row("Hardfork", options.hardfork),
    row("Base fee", `${options.initialBaseFeePerGas} (${formatGwei(options.initialBaseFeePerGas)})`),
    row("Gas limit", String(options.blockGasLimit)),
    row("Cadence", cadence(options)),
    row("Genesis timestamp", `${facts.genesisTimestamp} (${new Date(Number(facts.genesisTimestamp) * 1000).toISOString().replace(".000Z", "Z")})`),
  );
  if (facts.fork !== undefined) lines.push(row("Fork", `${facts.fork.origin} at block ${facts.fork.blockNumber} (${facts.fork.hash})`));
  if (facts.state?.kind === "loaded") lines.push(row("State", `loaded from ${facts.state.path}: block ${facts.state.block} (${facts.state.hash})`));
  if (facts.state?.kind === "new") lines.push(row("State", `${facts.state.path} does not exist yet: a new chain, written there on exit`));
  lines.push(
    "",
    "DEV KEYS ONLY: these private keys are publicly known; never send real funds to them.",
    "",
    `hardhat-preconf listening on ${facts.listening.url} (WebSocket ${facts.listening.wsUrl})`,
  );
  return lines;
}
