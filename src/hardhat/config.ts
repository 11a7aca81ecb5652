/**
 * The `preconf` block of a Hardhat network: validated when the config loads (every problem named
 * by its path and reason) and resolved with the provider's defaults. Pure: no Hardhat imports.
 */
import { z } from "zod";

import { HARDFORK_NAMES, PROFILE_NAMES, PROFILES } from "../node/profiles/profiles.ts";
import { BYTES32_PATTERN } from "../node/common/hex.ts";

import type { ExplicitAccount, MnemonicAccounts, PreconfProviderOptions } from "../options.ts";
import type { ProfileName } from "../node/profiles/profiles.ts";

/**
 * How blocks are made: `interval` (a fragment every `fragmentIntervalMs`, a block every
 * `fragmentsPerBlock` fragments), `manual` (only when asked), `auto` (Hardhat's automine: each tx
 * gets a fragment and a block of its own, at once).
 */
export type PreconfMiningMode = "interval" | "manual" | "auto";

export interface PreconfNetworkUserConfig {
  /**
   * The chain simulated (docs/profiles.md): `dev`, or an OP-stack chain as it runs today (`base`,
   * `base-sepolia`, `optimism`, `unichain`; `base-denim` is `base`). Default: `optimism` on a network
   * with `chainType: "op"`, else `dev`.
   */
  profile?: ProfileName;
  /** Milliseconds between fragments (the profile's: 200 on dev). */
  fragmentIntervalMs?: number;
  /** Fragments per block, whatever the fork (the fork's: 10 on dev, 2 s blocks; 1 on Base since Denim). */
  fragmentsPerBlock?: number;
  mining?: PreconfMiningMode;
  /** Dev accounts: a mnemonic (Hardhat's by default) or explicit keys with balances. */
  accounts?: MnemonicAccounts | ExplicitAccount[];
  /** 31337, or the network's `chainId` when it has one. */
  chainId?: number;
  /** What the simulated wallet answers prompts with until a test scripts it ("approve"). */
  walletPolicy?: "approve" | "reject" | "unsupported";
  /** `fake`: time moves only when the test advances it (`connection.preconf.preconf.advance`); `real` (default). */
  clock?: "fake" | "real";
  /** The fork the chain starts at (docs/profiles.md: a fork of the profile's ladder; default its newest). */
  hardfork?: string;
  /** Later forks to activate at a local block or time: `{ denim: { block: 10 } }` (docs/profiles.md). */
  forkSchedule?: Record<string, { block: number | bigint } | { timestamp: number | bigint }>;
  blockGasLimit?: number | bigint;
  /** A block may have its parent's timestamp, as Hardhat's `allowBlocksWithSameTimestamp` (false). */
  allowBlocksWithSameTimestamp?: boolean;
  /** Fork a live chain (Hardhat's `forking` shape; docs/forking.md). The chain id is then the upstream's. */
  forking?: PreconfForkingUserConfig;
  /** Under automine, a send whose tx fails throws Hardhat's error (true, Hardhat's option of that name). */
  throwOnTransactionFailures?: boolean;
  /** Under automine, an eth_call that fails throws Hardhat's error (true, Hardhat's option of that name). */
  throwOnCallFailures?: boolean;
  /** No EIP-170 code size nor EIP-3860 initcode limit (false, Hardhat's option of that name). */
  allowUnlimitedContractSize?: boolean;
  /** The largest deployed code in bytes (24,576; anvil's `--code-size-limit`); initcode may be twice that. */
  codeSizeLimit?: number;
}

export interface PreconfForkingUserConfig {
  url: string;
  /** The block to fork at (the upstream's latest). */
  blockNumber?: number | bigint;
  /** false keeps the block without forking (true). */
  enabled?: boolean;
  httpHeaders?: Record<string, string>;
  /** Keep the upstream's answers on disk here (memory only when absent). */
  cacheDir?: string;
}

export interface PreconfNetworkConfig {
  /** Undefined: none given and the network's chainType is not "op" (the connection's chainType then decides). */
  profile: ProfileName | undefined;
  fragmentIntervalMs: number;
  /** Undefined: the fork's cadence. */
  fragmentsPerBlock: number | undefined;
  mining: PreconfMiningMode;
  accounts: MnemonicAccounts | ExplicitAccount[];
  chainId: number;
  walletPolicy: "approve" | "reject" | "unsupported";
  clock: "fake" | "real";
  hardfork: string | undefined;
  forkSchedule: PreconfNetworkUserConfig["forkSchedule"];
  blockGasLimit: bigint | undefined;
  forking: { url: string; blockNumber: bigint | undefined; httpHeaders: Record<string, string> | undefined; cacheDir: string | undefined } | undefined;
  allowBlocksWithSameTimestamp: boolean;
  /** Hardhat's semantics and code size limits, passed to the provider as given (its defaults otherwise). */
  hardhat: Pick<PreconfNetworkUserConfig, "throwOnTransactionFailures" | "throwOnCallFailures" | "allowUnlimitedContractSize" | "codeSizeLimit">;
}

const wei = z.union([
  z.bigint().nonnegative(),
  z.number().int().nonnegative().safe(),
  z.string().regex(/^(0x[0-9a-fA-F]+|\d+)$/, "expected a decimal or 0x-hex string"),
]);

export const preconfUserConfigSchema = z
  .object({
    profile: z.enum(PROFILE_NAMES).optional(),
    fragmentIntervalMs: z.number().int().positive().optional(),
    fragmentsPerBlock: z.number().int().positive().optional(),
    mining: z.enum(["interval", "manual", "auto"]).optional(),
    accounts: z
      .union(
        [
          z
            .object({
              mnemonic: z.string().min(1).optional(),
              count: z.number().int().min(0).max(10_000).optional(),
              balance: wei.optional(),
              path: z.string().optional(),
            })
            .strict(),
          z.array(z.object({ privateKey: z.string().regex(BYTES32_PATTERN, "expected a 32-byte 0x-hex private key"), balance: wei }).strict()),
        ],
        { errorMap: () => ({ message: "expected { mnemonic?, count?, balance?, path? } or an array of { privateKey, balance }" }) },
      )
      .optional(),
    chainId: z.number().int().positive().max(0xfffffffffffec).optional(),
    walletPolicy: z.enum(["approve", "reject", "unsupported"]).optional(),
    clock: z.enum(["fake", "real"]).optional(),
    hardfork: z.enum(HARDFORK_NAMES as [string, ...string[]]).optional(),
    forkSchedule: z
      .record(
        z.union([
          z.object({ block: z.union([z.bigint().nonnegative(), z.number().int().nonnegative().safe()]) }).strict(),
          z.object({ timestamp: z.union([z.bigint().nonnegative(), z.number().int().nonnegative().safe()]) }).strict(),
        ]),
      )
      .optional(),
    blockGasLimit: z
      .union([z.bigint(), z.number().int().safe()])
      .refine((gas) => BigInt(gas) >= 21000n, "must be at least 21000")
      .optional(),
    forking: z
      .object({
        url: z.string().regex(/^https?:\/\/\S+$/, "expected an http:// or https:// URL"),
        blockNumber: z.union([z.bigint().nonnegative(), z.number().int().nonnegative().safe()]).optional(),
        enabled: z.boolean().optional(),
        httpHeaders: z.record(z.string()).optional(),
        cacheDir: z.string().min(1).optional(),
      })
      .strict()
      .optional(),
    allowBlocksWithSameTimestamp: z.boolean().optional(),
    throwOnTransactionFailures: z.boolean().optional(),
    throwOnCallFailures: z.boolean().optional(),
    allowUnlimitedContractSize: z.boolean().optional(),
    codeSizeLimit: z.number().int().positive().optional(),
  })
  .strict();

export interface ConfigProblem {
  /** Path inside the `preconf` block. */
  path: (string | number)[];
  message: string;
}

/** Every problem of a `preconf` block; empty when it is valid. */
export function validatePreconfConfig(value: unknown): ConfigProblem[] {
  const parsed = preconfUserConfigSchema.safeParse(value);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => ({
    path: issue.path,
    message: issue.code === "unrecognized_keys" ? `unknown option(s) ${issue.keys.map((key) => `"${key}"`).join(", ")}` : issue.message,
  }));
}

export function resolvePreconfConfig(user: PreconfNetworkUserConfig, networkChainId: number | undefined, chainType?: string): PreconfNetworkConfig {
  // A network declared as an OP chain gets OP-stack execution (Hardhat's chainType "op").
  const profile = user.profile ?? (chainType === "op" ? "optimism" : undefined);
  const defaults = PROFILES[profile ?? "dev"];
  return {
    profile,
    fragmentIntervalMs: user.fragmentIntervalMs ?? defaults.fragmentIntervalMs,
    fragmentsPerBlock: user.fragmentsPerBlock,
    mining: user.mining ?? "interval",
    accounts: user.accounts ?? {},
    chainId: user.chainId ?? networkChainId ?? Number(defaults.chainId),
    walletPolicy: user.walletPolicy ?? "approve",
    clock: user.clock ?? "real",
    hardfork: user.hardfork,
    forkSchedule: user.forkSchedule,
    blockGasLimit: user.blockGasLimit === undefined ? undefined : BigInt(user.blockGasLimit),
    forking:
      user.forking === undefined || user.forking.enabled === false
        ? undefined
        : {
            url: user.forking.url,
            blockNumber: user.forking.blockNumber === undefined ? undefined : BigInt(user.forking.blockNumber),
            httpHeaders: user.forking.httpHeaders,
            cacheDir: user.forking.cacheDir,
          },
    allowBlocksWithSameTimestamp: user.allowBlocksWithSameTimestamp ?? false,
    hardhat: Object.fromEntries(
      (["throwOnTransactionFailures", "throwOnCallFailures", "allowUnlimitedContractSize", "codeSizeLimit"] as const)
        .filter((key) => user[key] !== undefined)
        .map((key) => [key, user[key]]),
    ),
  };
}

/** The provider options of a resolved block (the fake clock, if any, is made per connection). */
export function providerOptionsOf(config: PreconfNetworkConfig, connectionChainType?: string): Omit<PreconfProviderOptions, "clock"> {
  return {
    // network.connect({ chainType: "op" }) on a network that names no profile: OP-stack execution
    // too. A fork that names none runs with its upstream chain's (docs/forking.md).
    ...((config.profile !== undefined || connectionChainType === "op" || config.forking === undefined) && {
      profile: config.profile ?? (connectionChainType === "op" ? "optimism" : "dev"),
    }),
    // A fork's chain id is its upstream's.
    ...(config.forking === undefined
      ? { chainId: config.chainId }
      : {
          fork: {
            url: config.forking.url,
            ...(config.forking.blockNumber !== undefined && { blockNumber: config.forking.blockNumber }),
            ...(config.forking.httpHeaders !== undefined && { headers: config.forking.httpHeaders }),
            ...(config.forking.cacheDir !== undefined && { cacheDir: config.forking.cacheDir }),
          },
        }),
    fragmentIntervalMs: config.fragmentIntervalMs,
    ...(config.fragmentsPerBlock !== undefined && { fragmentsPerBlock: config.fragmentsPerBlock }),
    mining: config.mining,
    accounts: config.accounts,
    walletPolicy: config.walletPolicy,
    allowBlocksWithSameTimestamp: config.allowBlocksWithSameTimestamp,
    ...(config.hardfork !== undefined && { hardfork: config.hardfork }),
    ...(config.forkSchedule !== undefined && { forkSchedule: config.forkSchedule }),
    ...(config.blockGasLimit !== undefined && { blockGasLimit: config.blockGasLimit }),
    ...config.hardhat,
  };
}
