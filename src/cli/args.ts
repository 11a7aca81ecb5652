/** `preconf node`'s arguments: the usage text and their parsing into provider and server options. */
import { parseArgs } from "node:util";

import { mnemonicProblem } from "../node/bip39.ts";
import { PROFILE_NAMES } from "../node/profiles.ts";
import { TRACE_FORMATS } from "../node/structLogger.ts";
import { ETHER } from "../node/defaults.ts";
import { parseOrigins } from "../server/origins.ts";

import type { ProfileName } from "../node/profiles.ts";
import type { TraceFormat } from "../node/structLogger.ts";
import type { PreconfProviderOptions } from "../options.ts";

export const USAGE = `Usage: preconf node [options]
       preconf run-fixture FILE|DIR...   run scenario fixtures, print pass/fail per step (exit 1 on any failure)
       preconf --version                 print the version

  --host <address>              interface to bind (127.0.0.1)
  --port <number>               port, 0 for any free one (8545)
  --profile <name>              dev, base, base-sepolia, base-denim, optimism or unichain: the chain simulated (dev)
  --chain-id <number>           chain id (the profile's; dev: 31337)
  --fragment-interval <ms>      time between pre-confirmation fragments (the profile's; dev: 200)
  --fragments-per-block <n>     fragments before a block seals (the profile's; dev: 10)
  --mining <interval|manual>    produce fragments on a timer, or only when asked (interval)
  --accounts <n>                dev accounts to derive (20)
  --balance <eth>               balance of each account, in ETH (10000)
  --mnemonic <words>            BIP-39 mnemonic of the dev accounts (the Hardhat/anvil one)
  --wallet-policy <decision>    approve, reject or unsupported: the wallet's default answer (approve)
  --genesis <file>              start from a geth genesis.json (its chain id, forks and alloc)
  --import <file>               import concatenated RLP blocks (geth export) on top of the genesis
  --load-state <file>           start from a state dump (preconf_dumpState, --dump-state; gzip accepted)
  --dump-state <file>           write a state dump to this file on shutdown (Ctrl-C)
  --fork-url <url>              fork this chain's JSON-RPC endpoint: state is read from it lazily
  --fork-block-number <n>       the block to fork at (the upstream's latest)
  --fork-cache-dir <dir>        keep the upstream's answers on disk: a second run needs no upstream
  --cors <origins>              browser origins allowed (CORS, WebSocket): comma-separated or * (none)
  --max-body <bytes>            largest request body / WebSocket message (5242880)
  --max-batch <n>               most requests in one batch, 0 for no limit (1000)
  --max-response <bytes>        largest response / batch of responses, 0 for no limit (25000000)
  --batch-timeout <ms>          wall time of one batch, 0 for none (30000)
  --allowed-hosts <names>       Host names served besides IPs and localhost: comma-separated or * (none)
  --ws-max-subscriptions <n>    subscriptions per WebSocket connection, 0 for no limit (1024)
  --rpc.gascap <gas>            most gas of an eth_call / eth_estimateGas, 0 for no cap (50000000)
  --rpc.evmtimeout <ms>         wall time of an eth_call / eth_estimateGas, 0 for none (5000)
  --max-filters <n>             installed filters, 0 for no limit (1024)
  --txpool.slots <n>            pool capacity in 32 KiB slots, 0 for no limit (1536)
  --txpool.accountqueue <n>     txs per sender behind a nonce gap, 0 for no limit (64)
  --txpool.lifetime <ms>        how long a tx that cannot execute stays pooled, 0 for ever (10800000)
  --trace-format <geth|hardhat> struct logs of debug_trace*: go-ethereum's, or Hardhat 2's node's (geth)
  --verbose                     log every fragment and empty blocks too
  --help                        this text
`;

export class UsageError extends Error {}

function integer(name: string, value: string | undefined, min = 0): number | undefined {
  if (value === undefined) return undefined;
  // Digits only: Number("") and Number(" ") are 0, which would silently turn a limit off.
  const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < min) throw new UsageError(`--${name} must be an integer ≥ ${min}, got "${value}"`);
  return number;
}

/** ETH with up to 18 decimals, as wei. */
function ether(value: string | undefined): bigint | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+)(?:\.(\d{1,18}))?$/.exec(value);
  if (match === null) throw new UsageError(`--balance must be an amount of ETH, got "${value}"`);
  return BigInt(match[1]!) * ETHER + BigInt((match[2] ?? "").padEnd(18, "0"));
}

export interface NodeCommand {
  host: string;
  port: number;
  verbose: boolean;
  provider: PreconfProviderOptions;
  /** `--genesis`, `--import`, `--load-state` (read at start) and `--dump-state` (written at shutdown). */
  files: { genesis?: string; import?: string; loadState?: string; dumpState?: string };
  /** Server limits (`--cors`, `--max-body`, `--max-batch`); absent ones take startServer's defaults. */
  server: {
    allowedOrigins?: "*" | string[];
    maxBodyBytes?: number;
    maxBatch?: number;
    maxResponseBytes?: number;
    batchTimeoutMs?: number;
    allowedHosts?: "*" | string[];
    wsMaxSubscriptions?: number;
  };
}

export function parseNodeArgs(args: string[]): NodeCommand | "help" {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      host: { type: "string", default: "127.0.0.1" },
      port: { type: "string", default: "8545" },
      "chain-id": { type: "string" },
      profile: { type: "string" },
      "fragment-interval": { type: "string" },
      "fragments-per-block": { type: "string" },
      mining: { type: "string" },
      accounts: { type: "string" },
      balance: { type: "string" },
      mnemonic: { type: "string" },
      "wallet-policy": { type: "string" },
      genesis: { type: "string" },
      import: { type: "string" },
      "load-state": { type: "string" },
      "dump-state": { type: "string" },
      "fork-url": { type: "string" },
      "fork-block-number": { type: "string" },
      "fork-cache-dir": { type: "string" },
      cors: { type: "string" },
      "max-body": { type: "string" },
      "max-batch": { type: "string" },
      "max-response": { type: "string" },
      "batch-timeout": { type: "string" },
      "allowed-hosts": { type: "string" },
      "ws-max-subscriptions": { type: "string" },
      "rpc.gascap": { type: "string" },
      "rpc.evmtimeout": { type: "string" },
      "max-filters": { type: "string" },
      "txpool.slots": { type: "string" },
      "txpool.accountqueue": { type: "string" },
      "txpool.lifetime": { type: "string" },
      "trace-format": { type: "string" },
      verbose: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return "help";
  const mining = values.mining;
  const walletPolicy = values["wallet-policy"];
  if (walletPolicy !== undefined && walletPolicy !== "approve" && walletPolicy !== "reject" && walletPolicy !== "unsupported") {
    throw new UsageError(`--wallet-policy must be approve, reject or unsupported, got "${walletPolicy}"`);
  }
  if (mining !== undefined && mining !== "interval" && mining !== "manual") throw new UsageError(`--mining must be interval or manual, got "${mining}"`);
  const traceFormat = values["trace-format"];
  if (traceFormat !== undefined && !(TRACE_FORMATS as readonly string[]).includes(traceFormat)) {
    throw new UsageError(`--trace-format must be ${TRACE_FORMATS.join(" or ")}, got "${traceFormat}"`);
  }
  const profile = values.profile;
  if (profile !== undefined && !(PROFILE_NAMES as readonly string[]).includes(profile)) {
    throw new UsageError(`--profile must be one of ${PROFILE_NAMES.join(", ")}, got "${profile}"`);
  }
  if (profile !== undefined && profile !== "dev" && values["dump-state"] !== undefined) {
    throw new UsageError(`--dump-state is not supported with --profile ${profile}: OP-stack blocks hold deposit txs that a dump cannot load back`);
  }
  const port = integer("port", values.port)!;
  if (port > 65535) throw new UsageError(`--port must be at most 65535, got "${values.port}"`);
  const count = integer("accounts", values.accounts);
  const balance = ether(values.balance);
  let allowedOrigins: "*" | string[] | undefined;
  try {
    allowedOrigins = values.cors === undefined ? undefined : parseOrigins(values.cors);
  } catch (error) {
    throw new UsageError(`--cors: ${error instanceof Error ? error.message : String(error)}`);
  }
  const problem = values.mnemonic === undefined ? undefined : mnemonicProblem(values.mnemonic);
  if (problem !== undefined) throw new UsageError(`--mnemonic is not a valid BIP-39 mnemonic: ${problem}`);
  const maxBodyBytes = integer("max-body", values["max-body"], 1);
  const maxBatch = integer("max-batch", values["max-batch"]);
  const forkUrl = values["fork-url"];
  const forkBlock = values["fork-block-number"];
  if (forkUrl === undefined && (forkBlock !== undefined || values["fork-cache-dir"] !== undefined)) {
    throw new UsageError(`--fork-block-number and --fork-cache-dir need --fork-url`);
  }
  if (forkBlock !== undefined && !/^\d+$/.test(forkBlock)) throw new UsageError(`--fork-block-number must be a block number, got "${forkBlock}"`);
  return {
    host: values.host,
    port,
    verbose: values.verbose,
    files: defined({ genesis: values.genesis, import: values.import, loadState: values["load-state"], dumpState: values["dump-state"] }),
    server: {
      ...(allowedOrigins !== undefined && { allowedOrigins }),
      ...(maxBodyBytes !== undefined && { maxBodyBytes }),
      ...(maxBatch !== undefined && { maxBatch }),
      ...defined({
        maxResponseBytes: integer("max-response", values["max-response"]),
        batchTimeoutMs: integer("batch-timeout", values["batch-timeout"]),
        wsMaxSubscriptions: integer("ws-max-subscriptions", values["ws-max-subscriptions"]),
        allowedHosts: hostList(values["allowed-hosts"]),
      }),
    },
    provider: {
      profile: profile as ProfileName | undefined,
      chainId: integer("chain-id", values["chain-id"], 1),
      fragmentIntervalMs: integer("fragment-interval", values["fragment-interval"], 1),
      fragmentsPerBlock: integer("fragments-per-block", values["fragments-per-block"], 1),
      rpcGasCap: integer("rpc.gascap", values["rpc.gascap"]),
      rpcEvmTimeoutMs: integer("rpc.evmtimeout", values["rpc.evmtimeout"]),
      maxFilters: integer("max-filters", values["max-filters"]),
      poolSlots: integer("txpool.slots", values["txpool.slots"]),
      poolAccountQueue: integer("txpool.accountqueue", values["txpool.accountqueue"]),
      poolLifetimeMs: integer("txpool.lifetime", values["txpool.lifetime"]),
      mining,
      walletPolicy,
      traceFormat: traceFormat as TraceFormat | undefined,
      ...(forkUrl !== undefined && {
        fork: defined({ url: forkUrl, blockNumber: forkBlock === undefined ? undefined : BigInt(forkBlock), cacheDir: values["fork-cache-dir"] }),
      }),
      accounts: {
        ...(count !== undefined && { count }),
        ...(balance !== undefined && { balance }),
        ...(values.mnemonic !== undefined && { mnemonic: values.mnemonic }),
      },
    },
  };
}

/** `--allowed-hosts`: "*" or comma-separated host names. */
function hostList(value: string | undefined): "*" | string[] | undefined {
  if (value === undefined) return undefined;
  const names = value
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  return names.includes("*") ? "*" : names;
}

/** Leaves out undefined options, so the provider's defaults apply. */
export function defined<T extends object>(options: T): T {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as T;
}
