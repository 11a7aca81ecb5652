/**
 * Every setting of `preconf node`, once: its flag and the other names it answers to (anvil's and
 * `npx hardhat node`'s), how its value is read, what it sets, and its help. The CLI's parser and
 * usage text (args.ts), the Hardhat `preconf node` task's arguments (src/hardhat/index.ts), the
 * effective configuration (`--print-config`) and docs/cli.md (`npm run docs:cli`) all come from
 * this table: a new setting is one entry. Provider options are validated where they always are
 * (options.ts): a flag only turns its text into the option's type, and a refusal of the option
 * is reported under the flag's name.
 *
 * Light on purpose: the Hardhat plugin's entry point loads it to declare the task.
 */
import { isIP } from "node:net";

import { mnemonicProblem } from "../node/common/bip39.ts";
import { ETHER } from "../node/common/defaults.ts";
import { parseOrigins } from "../server/origins.ts";

import type { ExplicitAccount, MnemonicAccounts, PreconfProviderOptions } from "../options.ts";

/** A bad command line: one line saying what and how to fix it; `preconf` exits 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

export type ColorMode = "auto" | "always" | "never";

/** Server settings handed to startServer (absent: its defaults). */
export interface ServerSettings {
  allowedOrigins?: "*" | string[];
  maxBodyBytes?: number;
  maxBatch?: number;
  maxResponseBytes?: number;
  batchTimeoutMs?: number;
  allowedHosts?: "*" | string[];
  wsMaxSubscriptions?: number;
}

export interface LogSettings {
  /** -1 with --quiet; 0 by default; each -v adds one. */
  level: number;
  /** JSON lines on stdout instead of text. */
  json: boolean;
  color: ColorMode;
  /** Print the output of Hardhat's console.sol (on unless --disable-console-log). */
  consoleLogs: boolean;
  /** Print a call trace of each executed tx (--print-traces). */
  traces: boolean;
}

/** A flag as it was given: its entry, how it was written (`-p`, `--allow-origin`), its raw value. */
export interface GivenFlag {
  spec: FlagSpec;
  flag: string;
  raw: string | undefined;
}

/** What `preconf node`'s command line asks for. */
export interface NodeCommand {
  /** The flags given, in order (for messages that name them). */
  given: GivenFlag[];
  host: string;
  port: number;
  provider: PreconfProviderOptions & { accounts: MnemonicAccounts | ExplicitAccount[]; fork?: NonNullable<PreconfProviderOptions["fork"]> };
  server: ServerSettings;
  /** Files read at start (`genesis`, `import`, `loadState`, `state`) and written (`dumpState`, `state`, `configOut`). */
  files: { genesis?: string; import?: string; loadState?: string; dumpState?: string; state?: string; configOut?: string };
  /** `--state-interval`, in ms: the state file is also written this often. */
  stateIntervalMs?: number;
  log: LogSettings;
  /** Print the effective configuration and exit (`--print-config`). */
  printConfig: boolean;
  /** `--block-time`, in ms: the block cadence, divided into the block's fragments once the profile is known. */
  blockTimeMs?: number;
}

export type FlagGroup = "Server" | "Chain" | "Mining" | "Hardhat semantics" | "Accounts and wallet" | "State" | "Fork" | "Limits" | "Output";

export interface FlagSpec<T = unknown> {
  /** The long name, without `--`. */
  name: string;
  /** Other long names for the same setting (anvil's, Hardhat's, earlier spellings). */
  aliases?: readonly string[];
  /** One letter: `-p`. */
  short?: string;
  /** The value's placeholder in the help (`<n>`); absent for switches. */
  value?: string;
  /** `--prune-history [n]`: the value may be left out (then `parse(undefined)`). */
  optionalValue?: boolean;
  /** Given more than once: each occurrence applies (`--fork-header`, `-v`). */
  repeatable?: boolean;
  group: FlagGroup;
  description: string;
  /** The default as the help shows it. */
  defaultText?: string;
  /** The provider option it sets (`accounts.count`): a refusal of that option is reported under this flag. */
  option?: string;
  /** anvil 1.7's flag for the same setting, or why it has none; and `npx hardhat node`'s (Hardhat 3) or its config field. */
  anvil?: string;
  hardhat?: string;
  /** Not an argument of the Hardhat `preconf node` task (Hardhat has a global option of that name, or the network config sets it). */
  notInTask?: string;
  /** The value as typed (undefined for a switch, or an optional value left out), as this setting's type; throws UsageError. */
  parse: (raw: string | undefined, flag: string) => T;
  apply: (command: NodeCommand, value: T) => void;
}

/** Keeps each entry's `parse` and `apply` agreeing on the value's type. */
const define = <T>(spec: FlagSpec<T>): FlagSpec => spec as FlagSpec;

// ── Value readers ─────────────────────────────────────────────────────────────────────────────────

const given = (raw: string | undefined, flag: string): string => {
  if (raw === undefined) throw new UsageError(`${flag} needs a value`);
  return raw;
};

const on = (): true => true;

/** A non-negative integer in `[min, max]`, digits only (Number("") is 0 and would silently turn a limit off). */
const integer =
  (min = 0, max = Number.MAX_SAFE_INTEGER) =>
  (raw: string | undefined, flag: string): number => {
    const text = given(raw, flag);
    const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`;
      throw new UsageError(`${flag} must be an integer ${range}, got "${text}"`);
    }
    return value;
  };

/** A non-negative integer as decimal or 0x hex, for wei and gas amounts. */
const quantity = (raw: string | undefined, flag: string): bigint => {
  const text = given(raw, flag).replaceAll("_", "");
  if (!/^(\d+|0x[0-9a-fA-F]+)$/.test(text)) throw new UsageError(`${flag} must be a non-negative integer (decimal or 0x hex), got "${raw}"`);
  return BigInt(text);
};

/** Seconds, decimals allowed (`--block-time 0.5`), as whole milliseconds. */
const seconds =
  (min: number) =>
  (raw: string | undefined, flag: string): number => {
    const text = given(raw, flag);
    const match = /^(\d+)(?:\.(\d{1,3}))?$/.exec(text);
    const ms = match === null ? Number.NaN : Number(match[1]) * 1000 + Number((match[2] ?? "").padEnd(3, "0"));
    if (!Number.isSafeInteger(ms) || ms < min) throw new UsageError(`${flag} must be a number of seconds ≥ ${min / 1000} (up to 3 decimals), got "${text}"`);
    return ms;
  };

/** ETH with up to 18 decimals, as wei. */
const ether = (raw: string | undefined, flag: string): bigint => {
  const text = given(raw, flag);
  const match = /^(\d+)(?:\.(\d{1,18}))?$/.exec(text);
  if (match === null) throw new UsageError(`${flag} must be an amount of ETH ≥ 0 (up to 18 decimals), got "${text}"`);
  return BigInt(match[1]!) * ETHER + BigInt((match[2] ?? "").padEnd(18, "0"));
};

const text = (raw: string | undefined, flag: string): string => {
  const value = given(raw, flag);
  if (value.trim() === "") throw new UsageError(`${flag} needs a value, got an empty string`);
  return value;
};

const oneOf =
  <C extends string>(choices: readonly C[]) =>
  (raw: string | undefined, flag: string): C => {
    const value = given(raw, flag);
    if (!(choices as readonly string[]).includes(value)) throw new UsageError(`${flag} must be ${orList(choices)}, got "${value}"${hint(value, choices)}`);
    return value as C;
  };

const bool = oneOf(["true", "false"] as const);
// Read outside the entries: inside one, the generic reader would be inferred from the entry's type.
const miningMode = oneOf(["interval", "auto", "manual"] as const);
const txOrder = oneOf(["fees", "fifo"] as const);
const walletDecision = oneOf(["approve", "reject", "unsupported"] as const);
const colorMode = oneOf(["auto", "always", "never"] as const);
const networkFamily = oneOf(["ethereum", "optimism"] as const);
const callsStatus = oneOf(["100", "200", "201"] as const);

/** An IP address or a host name (a name is resolved when the server binds). */
const host = (raw: string | undefined, flag: string): string => {
  const value = given(raw, flag);
  // A dotted quad that is not an IPv4 address (999.1.1.1) would be looked up as a name: refuse it here.
  const looksNumeric = /^[\d.]+$/.test(value);
  const name = /^(?=.{1,253}$)[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/.test(value);
  const bracketed = /^\[(.*)\]$/.exec(value)?.[1];
  if (bracketed !== undefined && isIP(bracketed) === 6) return bracketed;
  if (isIP(value) === 0 && (looksNumeric || !name)) throw new UsageError(`${flag} must be an IP address or a host name, got "${value}"`);
  return value;
};

const origins = (raw: string | undefined, flag: string): "*" | string[] => {
  try {
    return parseOrigins(given(raw, flag));
  } catch (error) {
    throw new UsageError(`${flag}: ${error instanceof Error ? error.message : String(error)}`);
  }
};

/** `*` or comma-separated names. */
const names = (raw: string | undefined, flag: string): "*" | string[] => {
  const list = given(raw, flag)
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  return list.includes("*") ? "*" : list;
};

const mnemonic = (raw: string | undefined, flag: string): string => {
  const value = given(raw, flag);
  const problem = mnemonicProblem(value);
  if (problem !== undefined) throw new UsageError(`${flag} is not a valid BIP-39 mnemonic: ${problem}`);
  return value;
};

/** An http(s) URL; anvil's `url@block` names the fork block too. */
const forkUrl = (raw: string | undefined, flag: string): { url: string; blockNumber?: bigint } => {
  const value = given(raw, flag);
  const at = /^(.*)@(\d+)$/.exec(value);
  const url = at?.[1] ?? value;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
    throw new UsageError(`${flag} must be an http:// or https:// URL (optionally url@block), got "${value}"`);
  }
  return at === null ? { url } : { url, blockNumber: BigInt(at[2]!) };
};

/** `Name: value`, as curl's -H. */
const header = (raw: string | undefined, flag: string): [string, string] => {
  const value = given(raw, flag);
  const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(.*)$/.exec(value);
  if (match === null) throw new UsageError(`${flag} must be "Name: value", got "${value}"`);
  return [match[1]!, match[2]!];
};

/** anvil prints its derivation path with a trailing slash (the parent of the accounts): accept it. */
const derivationPath = (raw: string | undefined, flag: string): string => text(raw, flag).replace(/\/$/, "");

export const orList = (choices: readonly string[]): string =>
  choices.length <= 1 ? (choices[0] ?? "") : `${choices.slice(0, -1).join(", ")} or ${choices.at(-1)}`;

/** Levenshtein distance, for "did you mean". */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/** The candidate nearest to `value` when it is near enough to be a typo of it. */
export function nearest(value: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = distance(value.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(best.length / 3)) ? best : undefined;
}

const hint = (value: string, choices: readonly string[]): string => {
  // A number is not a typo of another number (300 is no misspelt 100).
  const near = /^\d+$/.test(value) ? undefined : nearest(value, choices);
  return near === undefined ? "" : ` (did you mean ${near}?)`;
};

const fork = (command: NodeCommand) => (command.provider.fork ??= { url: "" });
const accounts = (command: NodeCommand): MnemonicAccounts => {
  if (Array.isArray(command.provider.accounts)) throw new UsageError("explicit accounts cannot be combined with mnemonic flags");
  return command.provider.accounts;
};

// ── The settings ──────────────────────────────────────────────────────────────────────────────────

export const FLAGS: readonly FlagSpec[] = [
  // Server
  define({
    name: "host",
    aliases: ["hostname"],
    value: "<address>",
    group: "Server",
    description: "interface to bind; anything but loopback prints a warning (the dev keys are public)",
    defaultText: "127.0.0.1",
    anvil: "--host",
    hardhat: "--hostname",
    parse: host,
    apply: (c, v) => (c.host = v),
  }),
  define({
    name: "port",
    short: "p",
    value: "<n>",
    group: "Server",
    description: "port, 0 for any free one",
    defaultText: "8545",
    anvil: "-p, --port",
    hardhat: "--port",
    parse: integer(0, 65535),
    apply: (c, v) => (c.port = v),
  }),
  define({
    name: "cors",
    aliases: ["allow-origin"],
    value: "<origins>",
    group: "Server",
    description: "browser origins allowed (CORS and WebSocket): comma-separated, or *",
    defaultText: "none",
    anvil: "--allow-origin (anvil allows * by default)",
    hardhat: "— (Hardhat allows any origin)",
    parse: origins,
    apply: (c, v) => (c.server.allowedOrigins = v),
  }),
  define({
    name: "no-cors",
    group: "Server",
    description: "no browser origin is allowed (the default here)",
    anvil: "--no-cors",
    hardhat: "—",
    parse: on,
    apply: (c) => delete c.server.allowedOrigins,
  }),
  define({
    name: "allowed-hosts",
    value: "<names>",
    group: "Server",
    description: "Host names served besides IPs and localhost: comma-separated, or *",
    defaultText: "none",
    anvil: "—",
    hardhat: "—",
    parse: names,
    apply: (c, v) => (c.server.allowedHosts = v),
  }),
  define({
    name: "max-body",
    value: "<bytes>",
    group: "Server",
    description: "largest request body / WebSocket message",
    defaultText: "5242880",
    anvil: "— (2 MB; --no-request-size-limit)",
    hardhat: "—",
    parse: integer(1),
    apply: (c, v) => (c.server.maxBodyBytes = v),
  }),
  define({
    name: "max-batch",
    value: "<n>",
    group: "Server",
    description: "most requests in one batch, 0 for no limit",
    defaultText: "1000",
    anvil: "—",
    hardhat: "—",
    parse: integer(0),
    apply: (c, v) => (c.server.maxBatch = v),
  }),
  define({
    name: "max-response",
    value: "<bytes>",
    group: "Server",
    description: "largest response / batch of responses, 0 for no limit",
    defaultText: "25000000",
    anvil: "—",
    hardhat: "—",
    parse: integer(0),
    apply: (c, v) => (c.server.maxResponseBytes = v),
  }),
  define({
    name: "batch-timeout",
    value: "<ms>",
    group: "Server",
    description: "wall time of one batch, 0 for none",
    defaultText: "30000",
    anvil: "—",
    hardhat: "—",
    parse: integer(0),
    apply: (c, v) => (c.server.batchTimeoutMs = v),
  }),
  define({
    name: "ws-max-subscriptions",
    value: "<n>",
    group: "Server",
    description: "subscriptions per WebSocket connection, 0 for no limit",
    defaultText: "1024",
    anvil: "—",
    hardhat: "—",
    parse: integer(0),
    apply: (c, v) => (c.server.wsMaxSubscriptions = v),
  }),

  // Chain
  define({
    name: "profile",
    value: "<name>",
    group: "Chain",
    description: "the chain simulated: dev, base, base-sepolia, base-denim, optimism or unichain (docs/profiles.md)",
    defaultText: "dev",
    option: "profile",
    anvil: "-n, --network optimism (OP-stack execution)",
    hardhat: "--chain-type op (network chainType)",
    parse: text,
    apply: (c, v) => (c.provider.profile = v as PreconfProviderOptions["profile"]),
  }),
  define({
    name: "optimism",
    group: "Chain",
    description: "the same as --profile optimism",
    option: "profile",
    anvil: "--optimism (anvil ≤ 1.2; now -n optimism)",
    hardhat: "--chain-type op",
    parse: on,
    apply: (c) => (c.provider.profile = "optimism"),
  }),
  define({
    name: "network",
    short: "n",
    value: "<family>",
    group: "Chain",
    description: "anvil's network family: ethereum (--profile dev) or optimism (--profile optimism)",
    option: "profile",
    anvil: "-n, --network",
    hardhat: "--chain-type",
    notInTask: "Hardhat's --network names the network to serve",
    parse: networkFamily,
    apply: (c, v) => (c.provider.profile = v === "ethereum" ? "dev" : "optimism"),
  }),
  define({
    name: "chain-id",
    value: "<n>",
    group: "Chain",
    description: "chain id",
    defaultText: "the profile's; dev: 31337",
    option: "chainId",
    anvil: "--chain-id",
    hardhat: "--chain-id",
    parse: quantity,
    apply: (c, v) => (c.provider.chainId = v),
  }),
  define({
    name: "hardfork",
    value: "<name>",
    group: "Chain",
    description:
      "the fork of the profile's ladder to run (docs/profiles.md): its own fork names (dev: paris…osaka; OP profiles: their upgrades, e.g. jovian, and the Ethereum names)",
    defaultText: "the profile's",
    option: "hardfork",
    anvil: "--hardfork",
    hardhat: "hardfork (network config)",
    parse: (raw, flag) => text(raw, flag).toLowerCase(),
    apply: (c, v) => (c.provider.hardfork = v as PreconfProviderOptions["hardfork"]),
  }),
  define({
    name: "gas-limit",
    value: "<gas>",
    group: "Chain",
    description: "block gas limit",
    defaultText: "the profile's (dev: 60000000)",
    option: "blockGasLimit",
    anvil: "--gas-limit",
    hardhat: "blockGasLimit (network config)",
    parse: quantity,
    apply: (c, v) => (c.provider.blockGasLimit = v),
  }),
  define({
    name: "block-base-fee-per-gas",
    aliases: ["base-fee"],
    value: "<wei>",
    group: "Chain",
    description: "base fee of the first block, in wei (EIP-1559 moves it from there)",
    defaultText: "1000000000",
    option: "initialBaseFeePerGas",
    anvil: "--block-base-fee-per-gas, --base-fee",
    hardhat: "initialBaseFeePerGas (network config)",
    parse: quantity,
    apply: (c, v) => (c.provider.initialBaseFeePerGas = v),
  }),
  define({
    name: "timestamp",
    value: "<seconds>",
    group: "Chain",
    description: "the genesis block's timestamp; later blocks go on from it as time passes",
    defaultText: "now",
    option: "genesisTimestamp",
    anvil: "--timestamp",
    hardhat: "initialDate (network config)",
    parse: quantity,
    apply: (c, v) => (c.provider.genesisTimestamp = v),
  }),
  define({
    name: "coinbase",
    value: "<address>",
    group: "Chain",
    description: "fee recipient of every block",
    defaultText: "the zero address; OP profiles: the SequencerFeeVault",
    option: "coinbase",
    anvil: "— (anvil_setCoinbase)",
    hardhat: "coinbase (network config)",
    parse: text,
    apply: (c, v) => (c.provider.coinbase = v as `0x${string}`),
  }),
  define({
    name: "genesis",
    aliases: ["init"],
    value: "<file>",
    group: "Chain",
    description: "start from a geth genesis.json (its chain id, forks and alloc)",
    option: "genesis",
    anvil: "--init",
    hardhat: "—",
    notInTask: "Hardhat's --init is a global option",
    parse: text,
    apply: (c, v) => (c.files.genesis = v),
  }),
  define({
    name: "import",
    value: "<file>",
    group: "Chain",
    description: "import concatenated RLP blocks (geth export) on top of the genesis",
    option: "chain",
    anvil: "—",
    hardhat: "—",
    parse: text,
    apply: (c, v) => (c.files.import = v),
  }),
  define({
    name: "allow-unprotected-txs",
    group: "Chain",
    description: "accept legacy txs without an EIP-155 chain id",
    option: "allowUnprotectedTxs",
    anvil: "— (accepted)",
    hardhat: "— (accepted)",
    parse: on,
    apply: (c) => (c.provider.allowUnprotectedTxs = true),
  }),
  define({
    name: "code-size-limit",
    value: "<bytes>",
    group: "Chain",
    description: "largest deployed code; initcode may be twice that (EIP-3860)",
    defaultText: "24576, EIP-170",
    option: "codeSizeLimit",
    anvil: "--code-size-limit",
    hardhat: "— (allowUnlimitedContractSize only)",
    parse: integer(1),
    apply: (c, v) => (c.provider.codeSizeLimit = v),
  }),
  define({
    name: "disable-code-size-limit",
    aliases: ["allow-unlimited-contract-size"],
    group: "Chain",
    description: "no code size limit (EIP-170) nor initcode limit (EIP-3860)",
    option: "allowUnlimitedContractSize",
    anvil: "--disable-code-size-limit",
    hardhat: "allowUnlimitedContractSize (network config)",
    parse: on,
    apply: (c) => (c.provider.allowUnlimitedContractSize = true),
  }),

  // Mining
  define({
    name: "mining",
    value: "<mode>",
    group: "Mining",
    description: "interval (fragments on a timer), auto (a block per tx, at once: Hardhat's automine) or manual (only when asked)",
    defaultText: "interval",
    option: "mining",
    anvil: "— (automine by default; -b for interval, --no-mining for manual)",
    hardhat: "mining.auto / mining.interval (network config)",
    parse: miningMode,
    apply: (c, v) => (c.provider.mining = v),
  }),
  define({
    name: "no-mining",
    aliases: ["no-mine"],
    group: "Mining",
    description: "the same as --mining manual: fragments and blocks only when asked (preconf_fragment, evm_mine)",
    option: "mining",
    anvil: "--no-mining, --no-mine",
    hardhat: "mining.auto: false (network config)",
    parse: on,
    apply: (c) => (c.provider.mining = "manual"),
  }),
  define({
    name: "block-time",
    short: "b",
    aliases: ["blockTime"],
    value: "<seconds>",
    group: "Mining",
    description: "time between blocks; the block's fragments share it (--fragments-per-block)",
    defaultText: "the profile's; dev: 2",
    option: "fragmentIntervalMs",
    anvil: "-b, --block-time",
    hardhat: "mining.interval (network config)",
    parse: seconds(1),
    apply: (c, v) => (c.blockTimeMs = v),
  }),
  define({
    name: "fragment-interval",
    value: "<ms>",
    group: "Mining",
    description: "time between pre-confirmation fragments",
    defaultText: "the profile's; dev: 200",
    option: "fragmentIntervalMs",
    anvil: "—",
    hardhat: "—",
    parse: integer(1),
    apply: (c, v) => (c.provider.fragmentIntervalMs = v),
  }),
  define({
    name: "fragments-per-block",
    value: "<n>",
    group: "Mining",
    description: "fragments before a block seals",
    defaultText: "the profile's; dev: 10",
    option: "fragmentsPerBlock",
    anvil: "—",
    hardhat: "—",
    parse: integer(1),
    apply: (c, v) => (c.provider.fragmentsPerBlock = v),
  }),
  define({
    name: "order",
    value: "<order>",
    group: "Mining",
    description: "order of a fragment's txs: fees (highest tip first) or fifo (arrival)",
    defaultText: "fees",
    option: "txOrder",
    anvil: "--order",
    hardhat: "mining.mempool.order (network config: priority, fifo)",
    parse: txOrder,
    apply: (c, v) => (c.provider.txOrder = v),
  }),
  define({
    name: "allow-blocks-with-same-timestamp",
    group: "Mining",
    description: "a block may have its parent's timestamp (evm_mine twice in one second, evm_setNextBlockTimestamp)",
    option: "allowBlocksWithSameTimestamp",
    anvil: "— (allowed)",
    hardhat: "allowBlocksWithSameTimestamp (network config)",
    parse: on,
    apply: (c) => (c.provider.allowBlocksWithSameTimestamp = true),
  }),

  // Hardhat semantics (docs/dev-methods.md)
  define({
    name: "throw-on-transaction-failures",
    value: "<true|false>",
    group: "Hardhat semantics",
    description: "under --mining auto, a send whose tx fails answers Hardhat's error (its block still mined) instead of the hash",
    defaultText: "true",
    option: "throwOnTransactionFailures",
    anvil: "— (answers the hash)",
    hardhat: "throwOnTransactionFailures (network config)",
    parse: bool,
    apply: (c, v) => (c.provider.throwOnTransactionFailures = v === "true"),
  }),
  define({
    name: "throw-on-call-failures",
    value: "<true|false>",
    group: "Hardhat semantics",
    description: "under --mining auto, a failing eth_call answers Hardhat's error instead of geth's",
    defaultText: "true",
    option: "throwOnCallFailures",
    anvil: "— (geth's error)",
    hardhat: "throwOnCallFailures (network config)",
    parse: bool,
    apply: (c, v) => (c.provider.throwOnCallFailures = v === "true"),
  }),
  define({
    name: "trace-format",
    value: "<format>",
    group: "Hardhat semantics",
    description: "struct logs of debug_traceTransaction / debug_traceCall: geth (go-ethereum's, as Hardhat 3) or hardhat (Hardhat 2's node)",
    defaultText: "geth",
    option: "traceFormat",
    anvil: "— (geth's)",
    hardhat: "— (Hardhat 3: geth's; Hardhat 2: hardhat)",
    parse: text,
    apply: (c, v) => (c.provider.traceFormat = v as PreconfProviderOptions["traceFormat"]),
  }),

  // Accounts and wallet
  define({
    name: "accounts",
    short: "a",
    value: "<n>",
    group: "Accounts and wallet",
    description: "dev accounts to derive",
    defaultText: "20",
    option: "accounts.count",
    anvil: "-a, --accounts (10)",
    hardhat: "accounts.count (network config)",
    parse: integer(0),
    apply: (c, v) => (accounts(c).count = v),
  }),
  define({
    name: "balance",
    value: "<eth>",
    group: "Accounts and wallet",
    description: "balance of each dev account, in ETH",
    defaultText: "10000",
    option: "accounts.balance",
    anvil: "--balance",
    hardhat: "accounts.accountsBalance (network config)",
    parse: ether,
    apply: (c, v) => (accounts(c).balance = v),
  }),
  define({
    name: "mnemonic",
    short: "m",
    value: "<words>",
    group: "Accounts and wallet",
    description: "BIP-39 mnemonic of the dev accounts",
    defaultText: "test test … junk",
    option: "accounts.mnemonic",
    anvil: "-m, --mnemonic",
    hardhat: "accounts.mnemonic (network config)",
    parse: mnemonic,
    apply: (c, v) => (accounts(c).mnemonic = v),
  }),
  define({
    name: "derivation-path",
    value: "<path>",
    group: "Accounts and wallet",
    description: "BIP-32 path of the dev accounts' parent key",
    defaultText: "m/44'/60'/0'/0",
    option: "accounts.path",
    anvil: "--derivation-path",
    hardhat: "accounts.path (network config)",
    parse: derivationPath,
    apply: (c, v) => (accounts(c).path = v),
  }),
  define({
    name: "auto-impersonate",
    aliases: ["auto-unlock"],
    group: "Accounts and wallet",
    description: "eth_sendTransaction from any address is sent without its key (anvil_autoImpersonateAccount)",
    option: "autoImpersonate",
    anvil: "--auto-impersonate, --auto-unlock",
    hardhat: "— (hardhat_impersonateAccount per address)",
    parse: on,
    apply: (c) => (c.provider.autoImpersonate = true),
  }),
  define({
    name: "wallet-policy",
    value: "<decision>",
    group: "Accounts and wallet",
    description: "the simulated wallet's answer to every prompt: approve, reject or unsupported",
    defaultText: "approve",
    option: "walletPolicy",
    anvil: "—",
    hardhat: "—",
    parse: walletDecision,
    apply: (c, v) => (c.provider.walletPolicy = v),
  }),
  define({
    name: "wallet-personality",
    value: "<wallet>",
    group: "Accounts and wallet",
    description:
      "which real wallet's answers the simulated wallet gives: metamask, metamask-mobile, coinbase, base-account or eip (docs/wallet-personalities.md)",
    defaultText: "metamask",
    option: "walletPersonality",
    anvil: "—",
    hardhat: "—",
    parse: text,
    apply: (c, v) => (c.provider.walletPersonality = v as PreconfProviderOptions["walletPersonality"]),
  }),
  define({
    name: "wallet-connected",
    value: "<true|false>",
    group: "Accounts and wallet",
    description: "whether dapps see the dev accounts before eth_requestAccounts",
    defaultText: "true",
    option: "walletConnected",
    anvil: "—",
    hardhat: "—",
    parse: bool,
    apply: (c, v) => (c.provider.walletConnected = v === "true"),
  }),
  define({
    name: "wallet-switch-on-add",
    value: "<true|false>",
    group: "Accounts and wallet",
    description: "an approved wallet_addEthereumChain also switches to the chain, as MetaMask does",
    defaultText: "true",
    option: "switchOnAdd",
    anvil: "—",
    hardhat: "—",
    parse: bool,
    apply: (c, v) => (c.provider.switchOnAdd = v === "true"),
  }),
  define({
    name: "wallet-preconfirmed-calls-status",
    value: "<status>",
    group: "Accounts and wallet",
    description: "what wallet_getCallsStatus says of a batch pre-confirmed in a fragment: 200 (confirmed), 201 (pre-confirmed) or 100 (pending until sealed)",
    defaultText: "200",
    option: "walletPreconfirmedCallsStatus",
    anvil: "—",
    hardhat: "—",
    parse: callsStatus,
    apply: (c, v) => (c.provider.walletPreconfirmedCallsStatus = Number(v) as 100 | 200 | 201),
  }),

  // State
  define({
    name: "state",
    value: "<file>",
    group: "State",
    description: "load the chain from this file if it exists, and write it there on exit (and every --state-interval)",
    anvil: "--state",
    hardhat: "—",
    parse: text,
    apply: (c, v) => (c.files.state = v),
  }),
  define({
    name: "state-interval",
    short: "s",
    value: "<seconds>",
    group: "State",
    description: "also write --state (or --dump-state) this often",
    defaultText: "only on exit",
    anvil: "-s, --state-interval",
    hardhat: "—",
    parse: seconds(1),
    apply: (c, v) => (c.stateIntervalMs = v),
  }),
  define({
    name: "load-state",
    value: "<file>",
    group: "State",
    description: "start from a state dump (preconf_dumpState, --dump-state; gzip accepted)",
    option: "state",
    anvil: "--load-state",
    hardhat: "—",
    parse: text,
    apply: (c, v) => (c.files.loadState = v),
  }),
  define({
    name: "dump-state",
    value: "<file>",
    group: "State",
    description: "write a state dump to this file on exit",
    anvil: "--dump-state",
    hardhat: "—",
    parse: text,
    apply: (c, v) => (c.files.dumpState = v),
  }),
  define({
    name: "state-history",
    value: "<n|all>",
    group: "State",
    description: "sealed blocks whose state stays readable",
    defaultText: "128",
    option: "stateHistory",
    anvil: "--prune-history <n>",
    hardhat: "—",
    parse: (raw, flag) => (given(raw, flag) === "all" ? ("all" as const) : integer(1)(raw, flag)),
    apply: (c, v) => (c.provider.stateHistory = v),
  }),
  define({
    name: "block-history",
    value: "<n|all>",
    group: "State",
    description: "sealed blocks kept (at least the state history); older blocks, txs and receipts answer null",
    defaultText: "all",
    option: "blockHistory",
    anvil: "—",
    hardhat: "—",
    parse: (raw, flag) => (given(raw, flag) === "all" ? ("all" as const) : integer(1)(raw, flag)),
    apply: (c, v) => (c.provider.blockHistory = v),
  }),
  define({
    name: "prune-history",
    value: "[n]",
    optionalValue: true,
    group: "State",
    description: "keep the state of the newest n sealed blocks only (1 without n)",
    option: "stateHistory",
    anvil: "--prune-history",
    hardhat: "—",
    parse: (raw, flag) => (raw === undefined ? 1 : integer(1)(raw, flag)),
    apply: (c, v) => (c.provider.stateHistory = v),
  }),

  // Fork
  define({
    name: "fork-url",
    short: "f",
    aliases: ["rpc-url", "fork"],
    value: "<url>",
    group: "Fork",
    description: "fork this JSON-RPC endpoint (url@block names the block): state is read from it lazily",
    option: "fork.url",
    anvil: "-f, --fork-url, --rpc-url",
    hardhat: "--fork",
    parse: forkUrl,
    apply: (c, v) => {
      fork(c).url = v.url;
      if (v.blockNumber !== undefined) fork(c).blockNumber = v.blockNumber;
    },
  }),
  define({
    name: "fork-block-number",
    value: "<n>",
    group: "Fork",
    description: "the block to fork at",
    defaultText: "the upstream's latest",
    option: "fork.blockNumber",
    anvil: "--fork-block-number",
    hardhat: "--fork-block-number",
    parse: quantity,
    apply: (c, v) => (fork(c).blockNumber = v),
  }),
  define({
    name: "fork-chain-id",
    value: "<n>",
    group: "Fork",
    description: "the upstream's chain id: not asked (with --fork-cache-dir and --fork-block-number, an offline start)",
    option: "fork.chainId",
    anvil: "--fork-chain-id",
    hardhat: "—",
    parse: quantity,
    apply: (c, v) => (fork(c).chainId = v),
  }),
  define({
    name: "fork-header",
    value: "<Name: value>",
    repeatable: true,
    group: "Fork",
    description: "an HTTP header sent to the upstream (an API key); repeatable",
    option: "fork.headers",
    anvil: "--fork-header",
    hardhat: "forking.httpHeaders (network config)",
    parse: header,
    apply: (c, [name, value]) => (fork(c).headers = { ...fork(c).headers, [name]: value }),
  }),
  define({
    name: "fork-cache-dir",
    aliases: ["cache-path"],
    value: "<dir>",
    group: "Fork",
    description: "keep the upstream's answers on disk: a second run needs no upstream",
    defaultText: "memory only",
    option: "fork.cacheDir",
    anvil: "--cache-path (anvil's RPC cache is ~/.foundry/cache/rpc)",
    hardhat: "—",
    parse: text,
    apply: (c, v) => (fork(c).cacheDir = v),
  }),
  define({
    name: "retries",
    value: "<n>",
    group: "Fork",
    description: "retries of a failed upstream request",
    defaultText: "3",
    option: "fork.retries",
    anvil: "--retries (5)",
    hardhat: "—",
    parse: integer(0, 100),
    apply: (c, v) => (fork(c).retries = v),
  }),
  define({
    name: "fork-retry-backoff",
    value: "<ms>",
    group: "Fork",
    description: "first wait before a retry, doubled each time",
    defaultText: "200",
    option: "fork.retryBackoffMs",
    anvil: "--fork-retry-backoff",
    hardhat: "—",
    parse: integer(0),
    apply: (c, v) => (fork(c).retryBackoffMs = v),
  }),
  define({
    name: "timeout",
    value: "<ms>",
    group: "Fork",
    description: "time limit of one upstream request",
    defaultText: "30000",
    option: "fork.timeoutMs",
    anvil: "--timeout (45000)",
    hardhat: "—",
    parse: integer(1),
    apply: (c, v) => (fork(c).timeoutMs = v),
  }),

  // Limits
  define({
    name: "rpc.gascap",
    value: "<gas>",
    group: "Limits",
    description: "most gas of an eth_call / eth_estimateGas, 0 for no cap",
    defaultText: "50000000",
    option: "rpcGasCap",
    anvil: "—",
    hardhat: "—",
    parse: quantity,
    apply: (c, v) => (c.provider.rpcGasCap = v),
  }),
  define({
    name: "rpc.evmtimeout",
    value: "<ms>",
    group: "Limits",
    description: "wall time of an eth_call / eth_estimateGas, 0 for none",
    defaultText: "5000",
    option: "rpcEvmTimeoutMs",
    anvil: "—",
    hardhat: "—",
    parse: integer(0),
    apply: (c, v) => (c.provider.rpcEvmTimeoutMs = v),
  }),
  define({
    name: "max-filters",
    value: "<n>",
    group: "Limits",
    description: "installed filters, 0 for no limit",
    defaultText: "1024",
    option: "maxFilters",
    anvil: "—",
    hardhat: "—",
    parse: integer(0),
    apply: (c, v) => (c.provider.maxFilters = v),
  }),
  define({
    name: "max-subscriptions",
    value: "<n>",
    group: "Limits",
    description: "live eth_subscribe subscriptions, all connections together, 0 for no limit",
    defaultText: "10000",
    option: "maxSubscriptions",
    anvil: "—",
    hardhat: "—",
    parse: integer(0),
    apply: (c, v) => (c.provider.maxSubscriptions = v),
  }),
  define({
    name: "txpool.slots",
    value: "<n>",
    group: "Limits",
    description: "pool capacity in 32 KiB slots, 0 for no limit",
    defaultText: "1536",
    option: "poolSlots",
    anvil: "—",
    hardhat: "—",
    parse: integer(0),
    apply: (c, v) => (c.provider.poolSlots = v),
  }),
  define({
    name: "txpool.accountqueue",
    value: "<n>",
    group: "Limits",
    description: "txs per sender behind a nonce gap, 0 for no limit",
    defaultText: "64",
    option: "poolAccountQueue",
    anvil: "—",
    hardhat: "—",
    parse: integer(0),
    apply: (c, v) => (c.provider.poolAccountQueue = v),
  }),
  define({
    name: "txpool.lifetime",
    value: "<ms>",
    group: "Limits",
    description: "how long a tx that cannot execute stays pooled, 0 for ever",
    defaultText: "10800000",
    option: "poolLifetimeMs",
    anvil: "—",
    hardhat: "—",
    parse: integer(0),
    apply: (c, v) => (c.provider.poolLifetimeMs = v),
  }),
  define({
    name: "txpool.pricelimit",
    value: "<wei>",
    group: "Limits",
    description: "the pool's minimum priority fee",
    defaultText: "0",
    option: "minPriorityFeePerGas",
    anvil: "— (--disable-min-priority-fee)",
    hardhat: "minGasPrice (hardhat_setMinGasPrice)",
    parse: quantity,
    apply: (c, v) => (c.provider.minPriorityFeePerGas = v),
  }),

  // Output
  define({
    name: "quiet",
    short: "q",
    aliases: ["silent"],
    group: "Output",
    description: "print nothing but errors and the line that says where it listens",
    anvil: "-q, --quiet",
    hardhat: "—",
    parse: on,
    apply: (c) => (c.log.level = -1),
  }),
  define({
    name: "verbose",
    short: "v",
    aliases: ["verbosity"],
    repeatable: true,
    group: "Output",
    description: "more output: -v every block and fragment, -vv each request's params and each error's data",
    anvil: "-v, --verbosity (repeatable)",
    hardhat: "— (Hardhat's global --verbosity)",
    notInTask: "Hardhat's global -v/--verbosity sets it",
    parse: on,
    apply: (c) => (c.log.level = Math.max(c.log.level, 0) + 1),
  }),
  define({
    name: "json",
    group: "Output",
    description: "JSON lines on stdout (the start, each request, tx, block and prompt), for machines",
    anvil: "--json",
    hardhat: "—",
    parse: on,
    apply: (c) => (c.log.json = true),
  }),
  define({
    name: "color",
    value: "<when>",
    group: "Output",
    description: "colours: auto (on a terminal only), always or never (NO_COLOR is honoured)",
    defaultText: "auto",
    anvil: "--color",
    hardhat: "—",
    parse: colorMode,
    apply: (c, v) => (c.log.color = v),
  }),
  define({
    name: "disable-console-log",
    aliases: ["no-console-log"],
    group: "Output",
    description: "do not print the output of Hardhat's console.sol",
    anvil: "--disable-console-log, --no-console-log",
    hardhat: "—",
    parse: on,
    apply: (c) => (c.log.consoleLogs = false),
  }),
  define({
    name: "print-traces",
    aliases: ["enable-trace-printing"],
    group: "Output",
    description: "print the call trace of each pre-confirmed tx",
    anvil: "--print-traces (txs and eth_call)",
    hardhat: "— (hardhat node -vvv...)",
    parse: on,
    apply: (c) => (c.log.traces = true),
  }),
  define({
    name: "print-config",
    group: "Output",
    description: "print the effective configuration as JSON and exit",
    anvil: "— (--config-out)",
    hardhat: "—",
    parse: on,
    apply: (c) => (c.printConfig = true),
  }),
  define({
    name: "config-out",
    value: "<file>",
    group: "Output",
    description: "also write the effective configuration (with the accounts and keys) to this file",
    anvil: "--config-out",
    hardhat: "—",
    parse: text,
    apply: (c, v) => (c.files.configOut = v),
  }),
];

/** The command before any flag: every default. */
export function defaultCommand(): NodeCommand {
  return {
    given: [],
    host: "127.0.0.1",
    port: 8545,
    provider: { accounts: {} },
    server: {},
    files: {},
    log: { level: 0, json: false, color: "auto", consoleLogs: true, traces: false },
    printConfig: false,
  };
}

/** The settings the Hardhat `preconf node` task takes, each under its camelCase name (`--gas-limit` → `gasLimit`). */
export const TASK_FLAGS: readonly FlagSpec[] = FLAGS.filter((spec) => spec.notInTask === undefined);

/** `block-base-fee-per-gas` → `blockBaseFeePerGas`, `rpc.gascap` → `rpcGascap`: Hardhat's option names. */
export const taskOptionName = (spec: FlagSpec): string => spec.name.replace(/[-.]([a-z])/g, (_, letter: string) => letter.toUpperCase());

/** The task's arguments as `preconf node` arguments, so that both are read by the same parser. */
export function taskArgumentsToArgv(values: Record<string, unknown>): string[] {
  const argv: string[] = [];
  for (const spec of TASK_FLAGS) {
    const value = values[taskOptionName(spec)];
    if (value === undefined || value === false) continue;
    argv.push(`--${spec.name}`);
    if (spec.value !== undefined && value !== true) argv.push(String(value));
  }
  return argv;
}
