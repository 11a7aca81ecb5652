/**
 * Provider options, validated once and resolved with the defaults of docs/behaviour.md#defaults
 * (chainId 31337, Osaka, 60M gas, 1 gwei initial base fee, the Hardhat/anvil mnemonic) or the
 * profile's (docs/profiles.md).
 */
import { z } from "zod";

import { clockFromFake, realClock } from "./clock.ts";
import { accountFromPrivateKey, accountsFromMnemonic, DEFAULT_HD_PATH, DEFAULT_MNEMONIC } from "./node/common/accounts.ts";
import { ETHER, GWEI } from "./node/common/defaults.ts";
import { forkIndexOf, hardforkNames, paramsAtFork, PROFILE_NAMES, PROFILES, profileOfChainId, rulesAtFork } from "./node/profiles/profiles.ts";
import { systemDepositGas, systemDepositsName } from "./node/opstack/baseTime.ts";
import { SEQUENCER_FEE_VAULT } from "./node/opstack/predeploys.ts";
import { DEFAULT_POOL_LIMITS } from "./node/pool/mempool.ts";
import { TX_ORDERS } from "./node/execution/fragmentRunner.ts";
import { MAX_TIMESTAMP } from "./node/common/time.ts";
import { stateDumpSchema } from "./node/state/stateDump.ts";
import { TRACE_FORMATS } from "./node/execution/structLogger.ts";
import { ADDRESS_PATTERN, BYTES32_PATTERN } from "./node/common/hex.ts";

import type { GethGenesis } from "@ethereumjs/common";
import type { Clock, FakeClock } from "./clock.ts";
import type { DevAccount } from "./node/common/accounts.ts";
import type { SupportedHardfork } from "./node/state/genesis.ts";
import type { ForkActivation } from "./node/profiles/forkSchedule.ts";
import type { ProfileName } from "./node/profiles/profiles.ts";
import type { MiningMode } from "./node/chain/sequencer.ts";
import type { TxOrder } from "./node/execution/fragmentRunner.ts";
import type { ParsedStateDump, StateDump } from "./node/state/stateDump.ts";
import type { TraceFormat } from "./node/execution/structLogger.ts";
import type { ForkOptions } from "./node/fork/source.ts";
import type { Hex } from "./rpc/schema.ts";

export interface MnemonicAccounts {
  mnemonic?: string;
  /** How many accounts to derive (20). */
  count?: number;
  /** Balance of each, in wei (10,000 ETH). */
  balance?: bigint | number | string;
  /** BIP-32 path of the first account's parent (m/44'/60'/0'/0). */
  path?: string;
}

export interface ExplicitAccount {
  privateKey: Hex;
  balance: bigint | number | string;
}

export interface PreconfProviderOptions {
  /**
   * What the chain simulates (docs/profiles.md): `dev` (default), or an OP-stack chain as it runs
   * today — `base` (`base-denim` is an alias), `base-sepolia`, `optimism`, `unichain` — with its
   * chain id, fork ladder, cadence, fee parameters, predeploys, L1 data fee and deposit txs. Options
   * given explicitly override the profile's.
   */
  profile?: ProfileName;
  chainId?: number | bigint;
  /**
   * The fork the chain starts at: a fork of the profile's ladder (`hardforkNames(profile)`: on `dev`
   * Ethereum's `paris` … `osaka`; on `base` `jovian`, `azul`, `beryl`, `cobalt`, `denim`; on
   * `optimism` and `unichain` `jovian`, `karst`), or on an OP profile an Ethereum fork (its newest
   * rung with that EVM). Default: the newest (the chain as it runs today).
   */
  hardfork?: string;
  /**
   * Later forks of the ladder to activate on the local chain, each at a block number or at the
   * first block with a timestamp at or after a time: `{ denim: { block: 10 } }`. Activating a fork
   * activates the forks between with it; the chain then starts at the fork before the first one
   * scheduled, unless `hardfork` says otherwise (docs/profiles.md, "Scheduling a fork").
   */
  forkSchedule?: Record<string, { block: number | bigint } | { timestamp: number | bigint }>;
  blockGasLimit?: number | bigint;
  initialBaseFeePerGas?: number | bigint;
  accounts?: MnemonicAccounts | ExplicitAccount[];
  /** A `@sinonjs/fake-timers` clock; real timers when absent. */
  clock?: FakeClock;
  fragmentIntervalMs?: number;
  fragmentsPerBlock?: number;
  /**
   * How blocks are made: `interval` (a fragment every `fragmentIntervalMs`, a block every
   * `fragmentsPerBlock` fragments), `manual` (only when asked), `auto` (Hardhat's automine: each tx
   * gets a fragment and a block of its own, at once; `evm_setAutomine`).
   */
  mining?: MiningMode | "auto";
  /** The order of a fragment's txs: `fees` (highest effective tip first, ties by arrival; default) or `fifo` (arrival), each sender's nonces in order (anvil's `--order`). */
  txOrder?: TxOrder;
  /**
   * The genesis block's timestamp, in seconds; later blocks go on from it as the clock moves (an
   * offset, as anvil's `--timestamp`). The clock's time when absent.
   */
  genesisTimestamp?: number | bigint;
  /** Every sender is impersonated: `eth_sendTransaction` from any address is sent without its key (anvil's `--auto-impersonate`, `anvil_autoImpersonateAccount`). */
  autoImpersonate?: boolean;
  /**
   * Whether the genesis holds the OP Stack's preinstalls (Multicall3, CreateX, Permit2, Safe,
   * EntryPoint…; docs/profiles.md "Genesis code"): the profile's when absent (true on OP-stack
   * profiles, false on `dev`, as on Hardhat's and anvil's chains).
   */
  preinstalls?: boolean;
  /** Fee recipient of every block (the zero address). */
  coinbase?: Hex;
  /** The pool's minimum priority fee (go-ethereum's txpool.pricelimit); 0 accepts any tip. */
  minPriorityFeePerGas?: number | bigint;
  /** Accept legacy txs without EIP-155 chain id (go-ethereum's --rpc.allow-unprotected-txs). */
  allowUnprotectedTxs?: boolean;
  /** A block may have its parent's timestamp (Hardhat's allowBlocksWithSameTimestamp; false). */
  allowBlocksWithSameTimestamp?: boolean;
  /** Sealed blocks whose state stays readable (128, as geth's in-memory tries); `"all"` never prunes. */
  stateHistory?: number | "all";
  /**
   * Sealed blocks kept ("all", the default); a number keeps the newest ones (at least
   * `stateHistory`) and the first, and drops older blocks, their txs and receipts, as a node
   * without ancient history (docs/options.md).
   */
  blockHistory?: number | "all";
  /**
   * A geth-format genesis (genesis.json) used instead of the dev genesis: its fork schedule, alloc
   * and chain id. `accounts` still names the dev keys, but their balances come from its alloc.
   */
  genesis?: GethGenesis;
  /** Concatenated RLP blocks (geth's `export` format) imported on top of the genesis at creation. */
  chain?: Uint8Array;
  /**
   * A state dump (`preconf_dumpState`, `preconf node --dump-state`) to start from: its genesis,
   * blocks, state, open block and pool. Not with `genesis` or `chain`.
   */
  state?: StateDump;
  /**
   * Fork a live chain (docs/forking.md): its state at `blockNumber` (its latest block when absent)
   * is read lazily from `url`, and the chain id is the upstream's. Not with `genesis`, `chain` or
   * `chainId`; with `state`, a dump of a fork of the same block continues where it stopped.
   */
  fork?: {
    url: string;
    blockNumber?: number | bigint | string;
    /** Extra HTTP headers for the upstream (an API key). */
    headers?: Record<string, string>;
    /** Keep the upstream's answers on disk here: a second run asks the upstream nothing. */
    cacheDir?: string;
    /** The upstream's chain id: not asked when given (anvil's `--fork-chain-id`; with `cacheDir`, an offline start). */
    chainId?: number | bigint;
    /** Retries of a failed upstream request (3). */
    retries?: number;
    /** First wait before a retry, in ms, doubled each time (200). */
    retryBackoffMs?: number;
    /** Time limit of one upstream request, in ms (30,000). */
    timeoutMs?: number;
  };
  /** What the simulated wallet answers every prompt with until a test scripts it ("approve"). */
  walletPolicy?: "approve" | "reject" | "unsupported";
  /** An approved wallet_addEthereumChain switches to the chain, as MetaMask does (true). */
  switchOnAdd?: boolean;
  /**
   * Whether dapps see the dev accounts without connecting (true). With false the wallet starts as
   * a fresh MetaMask: `eth_accounts` is `[]` until `eth_requestAccounts` or
   * `wallet_requestPermissions` is approved, and again after `wallet_revokePermissions`.
   */
  walletConnected?: boolean;
  /** Which real wallet's answers the simulated wallet gives where wallets differ (docs/wallet-personalities.md). */
  walletPersonality?: WalletPersonality;
  /**
   * What `wallet_getCallsStatus` reports for a batch pre-confirmed in a fragment (docs/wallet.md):
   * 200 (default: confirmed, as a wallet reading Base's pre-confirmed receipts does, and viem's
   * waitForCallsStatus returns), 201 (pre-confirmed: viem keeps waiting until the block seals) or
   * 100 (pending until sealed).
   */
  walletPreconfirmedCallsStatus?: 100 | 200 | 201;
  /** Most gas an eth_call / eth_estimateGas may run with (50,000,000, geth's `--rpc.gascap`); 0 for no cap. */
  rpcGasCap?: number | bigint;
  /** Wall time one eth_call / eth_estimateGas may run, in ms (5000, geth's `--rpc.evmtimeout`); 0 for none. */
  rpcEvmTimeoutMs?: number;
  /** Most live eth_subscribe subscriptions of the provider, all connections together (10,000); 0 for no limit. */
  maxSubscriptions?: number;
  /** Most installed eth_newFilter / eth_newBlockFilter / eth_newPendingTransactionFilter filters (1024); 0 for no limit. */
  maxFilters?: number;
  /** Pool capacity in 32 KiB slots (1536: a quarter of geth's GlobalSlots + GlobalQueue, ~54 MiB when full); when full the cheapest tx is evicted. 0 for no limit. */
  poolSlots?: number;
  /** Txs one sender may have waiting behind a nonce gap (64, geth's AccountQueue); 0 for no limit. */
  poolAccountQueue?: number;
  /** How long a tx that cannot execute stays pooled, in ms of the clock (3 h, geth's Lifetime); 0 for ever. */
  poolLifetimeMs?: number;
  /**
   * Under automine, a send whose tx fails throws Hardhat's error (its block still mined), as
   * Hardhat's option of that name (true). Interval and manual mining answer the hash whatever it says.
   */
  throwOnTransactionFailures?: boolean;
  /** Under automine, an eth_call that fails throws Hardhat's error instead of geth's (true, Hardhat's default). */
  throwOnCallFailures?: boolean;
  /** No EIP-170 code size limit nor EIP-3860 initcode limit (Hardhat's option of that name; false). */
  allowUnlimitedContractSize?: boolean;
  /**
   * The largest deployed code, in bytes (anvil's `--code-size-limit`; 24,576, EIP-170); initcode may
   * be twice that (EIP-3860).
   */
  codeSizeLimit?: number;
  /**
   * The shape of debug_traceTransaction / debug_traceCall struct logs (docs/dev-methods.md):
   * `geth` (default; go-ethereum's, which Hardhat 3 answers too) or `hardhat` (Hardhat 2's node:
   * 64-digit stack words, storage on every step).
   */
  traceFormat?: TraceFormat;
}

export const WALLET_PERSONALITIES = ["metamask", "metamask-mobile", "coinbase", "base-account", "eip"] as const;
export type WalletPersonality = (typeof WALLET_PERSONALITIES)[number];

export interface ResolvedOptions {
  /** The profile (`base-denim` resolves to `base`). */
  profile: ProfileName;
  chainId: bigint;
  /** The fork of the profile's ladder block 0 runs. */
  hardfork: string;
  /** Its index on the ladder. */
  forkIndex: number;
  /** The Ethereum fork block 0 runs. */
  evmHardfork: SupportedHardfork;
  /** Ladder index → activation of the forks scheduled after block 0. */
  forkSchedule: Map<number, ForkActivation>;
  blockGasLimit: bigint;
  initialBaseFeePerGas: bigint;
  accounts: (DevAccount & { balance: bigint })[];
  clock: Clock;
  fragmentIntervalMs: number;
  /** Fragments per block at block 0 (the fork's cadence or the option). */
  fragmentsPerBlock: number;
  /** The `fragmentsPerBlock` option, when given: it holds whatever the fork. */
  fixedFragmentsPerBlock: number | undefined;
  mining: MiningMode | "auto";
  txOrder: TxOrder;
  genesisTimestamp: bigint | undefined;
  autoImpersonate: boolean;
  coinbase: Hex;
  preinstalls: boolean;
  minPriorityFeePerGas: bigint;
  allowUnprotectedTxs: boolean;
  allowBlocksWithSameTimestamp: boolean;
  stateHistory: number | "all";
  blockHistory: number | "all";
  genesis: GethGenesis | undefined;
  chain: Uint8Array | undefined;
  state: ParsedStateDump | undefined;
  fork: ForkOptions | undefined;
  walletPolicy: "approve" | "reject" | "unsupported";
  switchOnAdd: boolean;
  walletConnected: boolean;
  walletPersonality: WalletPersonality;
  walletPreconfirmedCallsStatus: 100 | 200 | 201;
  rpcGasCap: bigint;
  rpcEvmTimeoutMs: number;
  maxSubscriptions: number;
  maxFilters: number;
  poolSlots: number;
  poolAccountQueue: number;
  poolLifetimeMs: number;
  throwOnTransactionFailures: boolean;
  throwOnCallFailures: boolean;
  allowUnlimitedContractSize: boolean;
  codeSizeLimit: number | undefined;
  traceFormat: TraceFormat;
}

/** go-ethereum's defaults for `--rpc.gascap` and `--rpc.evmtimeout` (eth/ethconfig/config.go). */
export const DEFAULT_RPC_GAS_CAP = 50_000_000n;
export const DEFAULT_RPC_EVM_TIMEOUT_MS = 5_000;
/** Our choices (geth has no such caps): far above what a test suite or a few dapps hold. */
export const DEFAULT_MAX_SUBSCRIPTIONS = 10_000;
export const DEFAULT_MAX_FILTERS = 1024;

const wei = z.union([z.bigint(), z.number().int().safe(), z.string().regex(/^(0x[0-9a-fA-F]+|\d+)$/)]).transform(BigInt);
const positiveInt = z.number().int().positive();

const optionsSchema = z
  .object({
    profile: z.enum(PROFILE_NAMES).default("dev"),
    // chainId, fragmentIntervalMs, fragmentsPerBlock, coinbase: the profile's when left out.
    chainId: z
      .union([z.bigint(), z.number().int()])
      .transform(BigInt)
      .refine((id) => id > 0n && id <= 0xfffffffffffecn, "must be between 1 and 0xfffffffffffec")
      .optional(),
    // The profile's newest fork when left out; checked against the profile's ladder below.
    hardfork: z.string().optional(),
    forkSchedule: z
      .record(
        z.union([
          z.object({ block: z.union([z.bigint(), z.number().int().safe()]).transform(BigInt) }).strict(),
          z.object({ timestamp: z.union([z.bigint(), z.number().int().safe()]).transform(BigInt) }).strict(),
        ]),
      )
      .optional(),
    // The profile's at the fork the chain starts at when left out (dev: Hardhat 3's 60M).
    blockGasLimit: wei.refine((gas) => gas >= 21000n, "must be at least 21000").optional(),
    initialBaseFeePerGas: wei.default(GWEI),
    accounts: z
      .union([
        z
          .object({
            mnemonic: z.string().min(1).default(DEFAULT_MNEMONIC),
            count: z.number().int().min(0).max(10_000).default(20),
            balance: wei.default(10_000n * ETHER),
            path: z
              .string()
              .regex(/^m(\/\d{1,10}'?)*$/, "expected a BIP-32 path such as m/44'/60'/0'/0")
              .default(DEFAULT_HD_PATH),
          })
          .strict(),
        z.array(z.object({ privateKey: z.string().regex(BYTES32_PATTERN, "must be a 32-byte 0x hex key"), balance: wei }).strict()),
      ])
      .default({}),
    clock: z
      .custom<FakeClock>(
        (value) => typeof value === "object" && value !== null && "tickAsync" in value && "setInterval" in value,
        "must be a @sinonjs/fake-timers clock",
      )
      .optional(),
    fragmentIntervalMs: positiveInt.optional(),
    fragmentsPerBlock: positiveInt.optional(),
    mining: z.enum(["interval", "manual", "auto"]).default("interval"),
    txOrder: z.enum(TX_ORDERS).default("fees"),
    genesisTimestamp: z
      .union([z.bigint(), z.number().int().safe()])
      .transform(BigInt)
      .refine((time) => time >= 0n && time <= MAX_TIMESTAMP, `must be a time in seconds from 0 to ${MAX_TIMESTAMP}`)
      .optional(),
    autoImpersonate: z.boolean().default(false),
    coinbase: z
      .string()
      .regex(ADDRESS_PATTERN, "must be an address")
      .transform((a) => a.toLowerCase() as Hex)
      .optional(),
    preinstalls: z.boolean().optional(),
    minPriorityFeePerGas: wei.default(0n),
    allowUnprotectedTxs: z.boolean().default(false),
    allowBlocksWithSameTimestamp: z.boolean().default(false),
    stateHistory: z.union([positiveInt, z.literal("all")]).default(128),
    blockHistory: z.union([positiveInt, z.literal("all")]).default("all"),
    genesis: z.custom<GethGenesis>(isGethGenesis, "must be a geth genesis object with config.chainId and alloc").optional(),
    chain: z.instanceof(Uint8Array, { message: "must be a Uint8Array of RLP blocks" }).optional(),
    state: stateDumpSchema.optional(),
    fork: z
      .object({
        url: z.string().regex(/^https?:\/\/\S+$/, "must be an http:// or https:// URL"),
        blockNumber: wei.optional(),
        headers: z.record(z.string()).optional(),
        cacheDir: z.string().min(1).optional(),
        chainId: z
          .union([z.bigint(), z.number().int()])
          .transform(BigInt)
          .refine((id) => id > 0n && id <= 0xfffffffffffecn, "must be between 1 and 0xfffffffffffec")
          .optional(),
        retries: z.number().int().nonnegative().max(100).optional(),
        retryBackoffMs: z.number().int().nonnegative().safe().optional(),
        timeoutMs: z.number().int().positive().safe().optional(),
      })
      .strict()
      .optional(),
    walletPolicy: z.enum(["approve", "reject", "unsupported"]).default("approve"),
    switchOnAdd: z.boolean().default(true),
    walletConnected: z.boolean().default(true),
    walletPersonality: z.enum(WALLET_PERSONALITIES).default("metamask"),
    walletPreconfirmedCallsStatus: z.union([z.literal(100), z.literal(200), z.literal(201)]).default(200),
    rpcGasCap: wei.default(DEFAULT_RPC_GAS_CAP),
    rpcEvmTimeoutMs: z.number().int().nonnegative().safe().default(DEFAULT_RPC_EVM_TIMEOUT_MS),
    maxSubscriptions: z.number().int().nonnegative().safe().default(DEFAULT_MAX_SUBSCRIPTIONS),
    maxFilters: z.number().int().nonnegative().safe().default(DEFAULT_MAX_FILTERS),
    poolSlots: z.number().int().nonnegative().safe().default(DEFAULT_POOL_LIMITS.slots),
    poolAccountQueue: z.number().int().nonnegative().safe().default(DEFAULT_POOL_LIMITS.accountQueue),
    poolLifetimeMs: z.number().int().nonnegative().safe().default(DEFAULT_POOL_LIMITS.lifetimeMs),
    throwOnTransactionFailures: z.boolean().default(true),
    throwOnCallFailures: z.boolean().default(true),
    allowUnlimitedContractSize: z.boolean().default(false),
    codeSizeLimit: positiveInt.optional(),
    traceFormat: z.enum(TRACE_FORMATS).default("geth"),
  })
  .strict();

export class InvalidOptionsError extends Error {
  constructor(
    /** The option's path (`accounts.count`), or the CLI flag that named a file. */
    readonly field: string,
    readonly reason: string,
    /** The values the option takes, when it takes one of a few (the CLI suggests the nearest). */
    readonly choices?: readonly string[],
  ) {
    super(`Invalid hardhat-preconf option ${field}: ${reason}`);
    this.name = "InvalidOptionsError";
  }
}

/**
 * `upstreamChainId`: a fork's upstream chain id, once known. The fork then runs with the profile
 * of that chain id when it is a known one (docs/forking.md), unless `profile` says otherwise.
 */
export function resolveOptions(options: PreconfProviderOptions = {}, upstreamChainId?: bigint): ResolvedOptions {
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InvalidOptionsError(issue.path.join(".") || "(root)", issue.message, issue.code === "invalid_enum_value" ? issue.options.map(String) : undefined);
  }
  const value = parsed.data;
  if (value.fork !== undefined && upstreamChainId !== undefined) value.profile = forkProfile(options.profile, upstreamChainId);
  if (value.state !== undefined && (value.genesis !== undefined || value.chain !== undefined)) {
    throw new InvalidOptionsError("state", "a dump brings its own genesis and blocks: leave out genesis and chain");
  }
  const profile = PROFILES[value.profile];
  if (profile.op !== undefined && value.fork !== undefined && value.state !== undefined) {
    throw new InvalidOptionsError(
      "state",
      `state dumps are not supported on the ${value.profile} profile (OP-stack blocks hold deposit txs that a dump cannot load back)`,
    );
  }
  if (profile.op !== undefined && value.fork === undefined && (value.state !== undefined || value.genesis !== undefined || value.chain !== undefined)) {
    throw new InvalidOptionsError(
      "profile",
      `the ${value.profile} profile builds its own genesis (with the OP-stack predeploys): leave out genesis, chain and state`,
    );
  }
  if (value.genesisTimestamp !== undefined) {
    const other = (["state", "genesis", "chain", "fork"] as const).find((name) => value[name] !== undefined);
    if (other !== undefined) throw new InvalidOptionsError("genesisTimestamp", `the ${other} brings its own genesis block: leave out genesisTimestamp`);
  }
  if (value.fork !== undefined) {
    const other = (["genesis", "chain"] as const).find((name) => value[name] !== undefined) ?? (options.chainId !== undefined ? "chainId" : undefined);
    if (other !== undefined) throw new InvalidOptionsError("fork", `a fork takes its chain id and blocks from the upstream: leave out ${other}`);
  }
  const { forkIndex, forkSchedule } = resolveForks(
    value.profile,
    value.hardfork,
    value.forkSchedule,
    value.genesis !== undefined || value.state !== undefined || value.chain !== undefined,
  );
  const rules = rulesAtFork(profile, forkIndex);
  const blockGasLimit = value.blockGasLimit ?? paramsAtFork(profile, forkIndex).gasLimit;
  // Every OP-stack block opens with the L1-attributes deposit (and BaseTime's from Denim on): a block must have room for them.
  const baseTime = rules.denim || [...forkSchedule.keys()].some((index) => rulesAtFork(profile, index).denim);
  if (profile.op !== undefined && blockGasLimit < systemDepositGas(baseTime)) {
    throw new InvalidOptionsError(
      "blockGasLimit",
      `must be at least ${systemDepositGas(baseTime)} on the ${profile.name} profile (${systemDepositsName(baseTime)})`,
    );
  }
  const accounts = Array.isArray(value.accounts)
    ? value.accounts.map(({ privateKey, balance }) => ({ ...accountFromPrivateKey(privateKey as Hex), balance }))
    : accountsFromMnemonic(value.accounts.mnemonic, value.accounts.count, value.accounts.path).map((account) => ({
        ...account,
        balance: (value.accounts as { balance: bigint }).balance,
      }));
  return {
    ...value,
    profile: profile.name,
    accounts,
    clock: value.clock === undefined ? realClock : clockFromFake(value.clock),
    // A given genesis (or a dump's) names the chain.
    chainId: BigInt((value.state?.genesis ?? value.genesis)?.config.chainId ?? value.chainId ?? profile.chainId),
    hardfork: profile.ladder[forkIndex]!.name,
    forkIndex,
    evmHardfork: rules.evm,
    forkSchedule,
    blockGasLimit,
    fragmentIntervalMs: value.fragmentIntervalMs ?? profile.fragmentIntervalMs,
    fragmentsPerBlock: value.fragmentsPerBlock ?? rules.fragmentsPerBlock,
    fixedFragmentsPerBlock: value.fragmentsPerBlock,
    // On OP-stack chains the block's fee recipient is the SequencerFeeVault (op-geth).
    coinbase: value.coinbase ?? (profile.op === undefined ? (`0x${"00".repeat(20)}` as Hex) : SEQUENCER_FEE_VAULT),
    genesisTimestamp: value.genesisTimestamp,
    preinstalls: value.preinstalls ?? profile.op !== undefined,
    genesis: value.genesis,
    chain: value.chain,
    state: value.state,
    fork: value.fork,
    codeSizeLimit: value.codeSizeLimit,
  };
}

/**
 * The fork block 0 runs and the forks scheduled after it, checked against the profile's ladder:
 * `hardfork` when given, else the fork before the first scheduled one, else the newest.
 */
function resolveForks(
  profileName: ProfileName,
  hardfork: string | undefined,
  schedule: Record<string, { block: bigint } | { timestamp: bigint }> | undefined,
  ownGenesis: boolean,
): { forkIndex: number; forkSchedule: Map<number, ForkActivation> } {
  const profile = PROFILES[profileName];
  const names = hardforkNames(profileName);
  if (hardfork !== undefined && forkIndexOf(profile, hardfork) === -1) {
    throw new InvalidOptionsError("hardfork", `the ${profile.name} profile has no fork "${hardfork}" (one of ${names.join(", ")})`, names);
  }
  const forkSchedule = new Map<number, ForkActivation>();
  for (const [name, activation] of Object.entries(schedule ?? {})) {
    const index = profile.ladder.findIndex((rung) => rung.name === name);
    if (index === -1) {
      const ladder = profile.ladder.map((rung) => rung.name).join(", ");
      throw new InvalidOptionsError(`forkSchedule.${name}`, `the ${profile.name} profile has no fork "${name}" (its ladder: ${ladder})`);
    }
    forkSchedule.set(index, activation);
  }
  if (forkSchedule.size > 0 && ownGenesis) {
    throw new InvalidOptionsError("forkSchedule", "a given genesis, chain or state brings its own fork schedule: leave out forkSchedule");
  }
  const first = Math.min(...forkSchedule.keys());
  const forkIndex = hardfork !== undefined ? forkIndexOf(profile, hardfork) : forkSchedule.size > 0 ? first - 1 : profile.ladder.length - 1;
  if (forkIndex < 0) {
    // The ladder's first fork scheduled without `hardfork`: there is no fork before it to start at.
    const name = profile.ladder[first]!.name;
    throw new InvalidOptionsError(`forkSchedule.${name}`, `${name} is the first fork of the ${profile.name} profile: the chain starts at it (leave it out)`);
  }
  let previous: ForkActivation | undefined;
  for (const [index, activation] of [...forkSchedule].sort(([a], [b]) => a - b)) {
    const name = profile.ladder[index]!.name;
    if (index <= forkIndex) {
      throw new InvalidOptionsError(`forkSchedule.${name}`, `${name} is not after ${profile.ladder[forkIndex]!.name}, the fork the chain starts at`);
    }
    const at = activation.block ?? activation.timestamp;
    if (at < 0n) throw new InvalidOptionsError(`forkSchedule.${name}`, "must not be negative");
    if (activation.block === 0n)
      throw new InvalidOptionsError(`forkSchedule.${name}`, `block 0 is the genesis: start the chain at ${name} with hardfork instead`);
    const before = previous?.block ?? previous?.timestamp;
    if (previous !== undefined && (previous.block === undefined) === (activation.block === undefined) && before! > at) {
      throw new InvalidOptionsError(`forkSchedule.${name}`, "activates before a fork that comes before it on the ladder");
    }
    previous = activation;
  }
  return { forkIndex, forkSchedule };
}

/**
 * A fork's profile: the one its upstream's chain id names (Base's 8453: `base`), `dev` for any
 * other chain. `dev` may be asked for on any fork (the dev chain's rules over the upstream's state);
 * an OP-stack profile only on a fork of that profile's chain (its predeploys and its L1 fees).
 */
function forkProfile(asked: ProfileName | undefined, upstreamChainId: bigint): ProfileName {
  const known = profileOfChainId(upstreamChainId) ?? "dev";
  if (asked === undefined || asked === "dev" || asked === known) return asked ?? known;
  throw new InvalidOptionsError(
    "profile",
    `the ${asked} profile is chain ${PROFILES[asked].chainId}, but the fork upstream is chain ${upstreamChainId}: leave out profile to run with ${known === "dev" ? "the dev profile" : `the ${known} profile`}`,
  );
}

function isGethGenesis(value: unknown): value is GethGenesis {
  if (typeof value !== "object" || value === null || !("config" in value) || !("alloc" in value)) return false;
  const { config, alloc } = value;
  return typeof config === "object" && config !== null && "chainId" in config && typeof alloc === "object" && alloc !== null;
}
