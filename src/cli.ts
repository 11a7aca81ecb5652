/**
 * The `preconf` command. `preconf node` starts a pre-confirming dev chain and serves it over HTTP
 * and WebSocket: it prints the URL, the chain id and the dev accounts with their (publicly known)
 * keys, then one line per sealed block. SIGINT / SIGTERM stop it cleanly.
 */
import { readFileSync } from "node:fs";
import { access, constants, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";
import { gunzipSync } from "node:zlib";
import { parseArgs } from "node:util";

import { createPreconfProvider, InvalidOptionsError } from "./index.ts";
import { mnemonicProblem } from "./node/bip39.ts";
import { ETHER } from "./node/defaults.ts";
import { ForkUpstreamError } from "./node/fork/upstream.ts";
import { runFixtureCommand } from "./scenario/cli.ts";
import { startServer } from "./server/http.ts";
import { parseOrigins } from "./server/origins.ts";

import { PROFILE_NAMES, PROFILES } from "./node/profiles.ts";

import type { ProfileName } from "./node/profiles.ts";
import type { Fragment, SealedBlock } from "./node/records.ts";
import type { PreconfProviderOptions } from "./options.ts";

const USAGE = `Usage: preconf node [options]
       preconf run-fixture FILE|DIR...   run scenario fixtures, print pass/fail per step (exit 1 on any failure)
       preconf --version                 print the version

  --host <address>              interface to bind (127.0.0.1)
  --port <number>               port, 0 for any free one (8545)
  --profile <name>              dev, base, base-sepolia, optimism or unichain: the chain simulated (dev)
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
  --txpool.slots <n>            pool capacity in 32 KiB slots, 0 for no limit (6144)
  --txpool.accountqueue <n>     txs per sender behind a nonce gap, 0 for no limit (64)
  --txpool.lifetime <ms>        how long a tx that cannot execute stays pooled, 0 for ever (10800000)
  --verbose                     log every fragment and empty blocks too
  --help                        this text
`;

class UsageError extends Error {}

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
function defined<T extends object>(options: T): T {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as T;
}

const gasOf = (value: bigint) => value.toLocaleString("en-US");

function blockLine(sealed: SealedBlock): string {
  const header = sealed.block.header;
  return `block ${header.number}  txs ${sealed.transactions.length}  gas ${gasOf(header.gasUsed)}  fragments ${sealed.fragmentCount}  ${sealed.hash}`;
}

const fragmentLine = (fragment: Fragment) =>
  `  fragment ${fragment.blockNumber}.${fragment.index}  txs ${fragment.transactions.length}  gas ${gasOf(fragment.cumulativeGasUsed)}`;

/** Fails at start, not after a whole session, when the dump could not be written. */
async function checkWritable(path: string): Promise<void> {
  try {
    await access(dirname(path), constants.W_OK);
  } catch (error) {
    throw new InvalidOptionsError("--dump-state", `cannot write ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Written beside the target and renamed: an interrupted write never leaves a half dump (nor a half `--load-state` input). */
async function writeDump(path: string, dump: unknown): Promise<void> {
  const partial = `${path}.${process.pid}.partial`;
  try {
    await writeFile(partial, `${JSON.stringify(dump, null, 2)}\n`);
    await rename(partial, path);
  } finally {
    await rm(partial, { force: true });
  }
}

/**
 * Under `npx preconf node` (and any npm script that runs us without `exec`), npm starts a shell that
 * starts us, and forwards a signal sent to npm's PID to that shell only: the shell dies and we are
 * re-parented. Under npm, losing the parent therefore means "stop", as the signal would have.
 */
function whenOrphaned(stop: () => void): void {
  if (process.env.npm_lifecycle_event === undefined) return;
  const parent = process.ppid;
  // process.ppid asks the OS each time; unref'd: the check never keeps the process alive.
  setInterval(() => {
    if (process.ppid !== parent) stop();
  }, 200).unref();
}

async function runNode(command: NodeCommand): Promise<number> {
  // Installed first: a signal before the handlers exist kills the process without cleanup.
  // Kept for the whole shutdown: a second Ctrl-C (or one from the shim and the terminal) must not kill it midway.
  const stopped = new Promise<void>((resolve) => {
    process.on("SIGINT", () => resolve());
    process.on("SIGTERM", () => resolve());
    whenOrphaned(resolve);
  });
  if (command.files.dumpState !== undefined) await checkWritable(command.files.dumpState);
  const provider = await createPreconfProvider(defined({ ...command.provider, ...(await optionsFromFiles(command.files)) }));
  // A non-loopback host gets a warning on stderr (startServer's default `warn`).
  const server = await startServer(provider, { host: command.host, port: command.port, ...command.server });
  const out = (line: string) => process.stdout.write(`${line}\n`);

  out(`hardhat-preconf listening on ${server.url} (WebSocket ${server.wsUrl})`);
  const fork = provider.chain.fork;
  if (fork !== undefined) out(`Forking ${fork.client.origin} at block ${fork.blockNumber} (${fork.block.hash})`);
  out(
    `Chain id ${provider.chain.chainId}, a fragment every ${provider.preconf.fragmentIntervalMs} ms, ${provider.preconf.fragmentsPerBlock} per block, mining ${provider.preconf.mining}`,
  );
  if (provider.chain.op !== undefined) {
    out(
      `Profile ${provider.options.profile}: OP-stack execution as of ${PROFILES[provider.options.profile].opHardfork} (predeploys, L1 data fee, deposit txs)`,
    );
  }
  out("");
  out("Accounts (DEV KEYS ONLY: these private keys are publicly known; never send real funds to them)");
  provider.options.accounts.forEach((account, i) => {
    out(`  (${i}) ${account.address}  ${account.balance / ETHER} ETH`);
    out(`      private key ${account.privateKey}`);
  });
  out("");

  // Logging must never break the chain that emits these events.
  const safely = (write: () => void) => {
    try {
      write();
    } catch {
      // stdout closed: nothing to report to
    }
  };
  provider.chain.on("sealed", (sealed) => {
    if (command.verbose || sealed.transactions.length > 0) safely(() => out(blockLine(sealed)));
  });
  if (command.verbose) provider.chain.on("fragment", (fragment) => safely(() => out(fragmentLine(fragment))));

  await stopped;
  out("Stopping");
  await server.close();
  await provider.close();
  if (command.files.dumpState !== undefined) {
    try {
      // The chain still answers a dump after close: its queue has drained.
      await writeDump(command.files.dumpState, await provider.preconf.dumpState());
    } catch (error) {
      process.stderr.write(`Could not write the state dump to ${command.files.dumpState}: ${error instanceof Error ? error.message : String(error)}\n`);
      return 1;
    }
    out(`State dumped to ${command.files.dumpState}`);
  }
  return 0;
}

/** The provider options that `--genesis`, `--import` and `--load-state` name files for. */
async function optionsFromFiles(files: NodeCommand["files"]): Promise<PreconfProviderOptions> {
  const read = async (flag: string, path: string): Promise<Buffer> => {
    try {
      return await readFile(path);
    } catch (error) {
      throw new InvalidOptionsError(flag, `cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  const json = (flag: string, path: string, bytes: Buffer): unknown => {
    try {
      // gzip's magic bytes: anvil writes its state files gzipped.
      return JSON.parse((bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes).toString("utf8"));
    } catch (error) {
      throw new InvalidOptionsError(flag, `${path} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  const options: PreconfProviderOptions = {};
  if (files.genesis !== undefined)
    options.genesis = json("--genesis", files.genesis, await read("--genesis", files.genesis)) as PreconfProviderOptions["genesis"];
  if (files.import !== undefined) options.chain = new Uint8Array(await read("--import", files.import));
  if (files.loadState !== undefined)
    options.state = json("--load-state", files.loadState, await read("--load-state", files.loadState)) as PreconfProviderOptions["state"];
  return options;
}

/** This package's version: package.json sits one level above both src/ and dist/. */
function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "help" || command === "--help" || command === "-h") {
    process.stdout.write(USAGE);
    return command === undefined ? 1 : 0;
  }
  if (command === "--version" || command === "-v" || command === "version") {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  if (command === "run-fixture") return runFixtureCommand(rest);
  if (command !== "node") {
    process.stderr.write(`Unknown command "${command}".\n\n${USAGE}`);
    return 1;
  }
  let parsed: NodeCommand | "help";
  try {
    parsed = parseNodeArgs(rest);
  } catch (error) {
    if (error instanceof UsageError || (error instanceof Error && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS"))) {
      process.stderr.write(`${error.message}\n\n${USAGE}`);
      return 1;
    }
    throw error;
  }
  if (parsed === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  try {
    return await runNode(parsed);
  } catch (error) {
    // A fork upstream that is down or refuses the fork block: its message says which and why.
    if (error instanceof InvalidOptionsError || error instanceof ForkUpstreamError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    if (error instanceof Error && "code" in error && error.code === "EADDRINUSE") {
      process.stderr.write(`Port ${parsed.port} on ${parsed.host} is already in use.\n`);
      return 1;
    }
    throw error;
  }
}

// Run when executed directly (`node dist/cli.js node`, `npm start`); bin/preconf.js imports `main` instead.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
