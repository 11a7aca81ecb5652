/**
 * Chain profiles: what a provider simulates. `dev` is the L1-style dev chain; the others are
 * OP-stack chains (predeploys, the L1-attributes deposit, the L1 data fee, deposit txs). Each is a
 * dated fork ladder (profiles/ladders.ts) and the chain parameters governance sets; a profile means
 * the chain as it runs today, and `hardfork` pins an earlier point of its ladder. This module is the
 * one place these choices live; docs/profiles.md lists them with the same sources.
 */
import { DEV_CHAIN_ID, FRAGMENT_INTERVAL_MS, GWEI } from "../common/defaults.ts";
import { paramsAt, rulesOf } from "./ladder.ts";
import {
  BASE_MAINNET_LADDER,
  BASE_MAINNET_PARAMS,
  BASE_SEPOLIA_LADDER,
  BASE_SEPOLIA_PARAMS,
  DEV_LADDER,
  DEV_PARAMS,
  OPTIMISM_LADDER,
  OPTIMISM_PARAMS,
  UNICHAIN_LADDER,
  UNICHAIN_PARAMS,
} from "./ladders.ts";

import type { ChainParams, Eip1559Params, ForkRules, ForkRung, PendingRules } from "./ladder.ts";

export type { ActivationScaling, ChainParams, Eip1559Params, ForkRules, ForkRung, PendingRules } from "./ladder.ts";

/** `base-denim` is an alias of `base` (Base has run Denim since 2026-11-05). */
export const PROFILE_NAMES = ["dev", "base", "base-sepolia", "base-denim", "optimism", "unichain"] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

/** The simulated L1 and the fee parameters the L1-attributes deposit reports (changed with `preconf_setL1Fees`). */
export interface L1FeeParams {
  baseFee: bigint;
  blobBaseFee: bigint;
  baseFeeScalar: number;
  blobBaseFeeScalar: number;
  /** The operator fee: gas × scalar × 100 + constant since Jovian (uint32 and uint64). */
  operatorFeeScalar: number;
  operatorFeeConstant: bigint;
  /** Jovian's DA footprint gas scalar (uint16); 0: the default of 400. */
  daFootprintGasScalar: number;
}

export interface OpStackParams {
  /** The L1 fee parameters the chain starts with. */
  l1: L1FeeParams;
}

export interface Profile {
  name: Exclude<ProfileName, "base-denim">;
  /** The chain's name (viem chain definitions, docs). */
  title: string;
  chainId: bigint;
  /** Milliseconds between fragments (flashblocks); with one fragment per block, between blocks. */
  fragmentIntervalMs: number;
  /** The forks, oldest first; the last is the chain as it runs today. */
  ladder: readonly ForkRung[];
  /** What governance set on-chain, before the ladder's scaling forks (profiles/ladders.ts). */
  params: ChainParams;
  /** OP-stack execution; undefined on `dev`. */
  op: OpStackParams | undefined;
  /** `pending` on standard methods: geth's rules, or Base's node's (docs/flashblocks.md). */
  pendingRules: PendingRules;
  /** Fragments per block as the chain runs today (its newest fork's cadence). */
  fragmentsPerBlock: number;
  /** The newest OP-stack fork of the ladder, for display; undefined on `dev`. */
  opHardfork: string | undefined;
  /** Whether the chain runs Base's Denim today. */
  denim: boolean;
}

/** A profile with what follows from its ladder's newest fork. */
function profile(fields: Omit<Profile, "fragmentsPerBlock" | "opHardfork" | "denim">): Profile {
  const today = rulesOf(fields.ladder, fields.ladder.length - 1);
  return {
    ...fields,
    fragmentsPerBlock: today.fragmentsPerBlock,
    opHardfork: fields.op === undefined ? undefined : fields.ladder.at(-1)!.name,
    denim: today.denim,
  };
}

/**
 * The simulated L1 starts at 1 gwei base fee and the EIP-4844 minimum blob base fee (1 wei).
 * Our choice: a quiet L1, so that fees are small but non-zero; `preconf_setL1Fees` changes them.
 */
const QUIET_L1 = { baseFee: GWEI, blobBaseFee: 1n, operatorFeeScalar: 0, operatorFeeConstant: 0n };

/** Base's L1 scalars: our choice, of the order Base has used since Ecotone (blob-priced data). */
const BASE_SCALARS = { baseFeeScalar: 2269, blobBaseFeeScalar: 1_055_778 };

const BASE: Profile = profile({
  name: "base",
  title: "Base",
  // superchain-registry superchain/configs/mainnet/base.toml (chain_id = 8453); base/base config.rs.
  chainId: 8453n,
  // Base's flashblocks (and, from Denim, its blocks): 200 ms (docs.base.org "Flashblocks").
  fragmentIntervalMs: FRAGMENT_INTERVAL_MS,
  ladder: BASE_MAINNET_LADDER,
  params: BASE_MAINNET_PARAMS,
  op: { l1: { ...QUIET_L1, ...BASE_SCALARS, daFootprintGasScalar: BASE_MAINNET_PARAMS.daFootprintGasScalar } },
  pendingRules: "base",
});

export const PROFILES: Readonly<Record<ProfileName, Profile>> = {
  dev: profile({
    name: "dev",
    title: "hardhat-preconf",
    chainId: DEV_CHAIN_ID,
    fragmentIntervalMs: FRAGMENT_INTERVAL_MS,
    ladder: DEV_LADDER,
    params: DEV_PARAMS,
    op: undefined,
    pendingRules: "geth",
  }),
  base: BASE,
  "base-sepolia": profile({
    name: "base-sepolia",
    title: "Base Sepolia",
    // base/base config.rs (chain_id: 84532).
    chainId: 84532n,
    fragmentIntervalMs: FRAGMENT_INTERVAL_MS,
    ladder: BASE_SEPOLIA_LADDER,
    params: BASE_SEPOLIA_PARAMS,
    op: { l1: { ...QUIET_L1, ...BASE_SCALARS, daFootprintGasScalar: BASE_SEPOLIA_PARAMS.daFootprintGasScalar } },
    pendingRules: "base",
  }),
  "base-denim": BASE,
  optimism: profile({
    name: "optimism",
    title: "OP Mainnet",
    // superchain-registry superchain/configs/mainnet/op.toml (chain_id = 10, block_time = 2).
    chainId: 10n,
    // OP Mainnet's flashblocks: 250 ms, 8 per 2 s block.
    fragmentIntervalMs: 250,
    ladder: OPTIMISM_LADDER,
    params: OPTIMISM_PARAMS,
    // Scalars: our choice, the same order as Base's.
    op: { l1: { ...QUIET_L1, baseFeeScalar: 5227, blobBaseFeeScalar: 1_014_213, daFootprintGasScalar: OPTIMISM_PARAMS.daFootprintGasScalar } },
    pendingRules: "geth",
  }),
  unichain: profile({
    name: "unichain",
    title: "Unichain",
    // superchain-registry superchain/configs/mainnet/unichain.toml (chain_id = 130, block_time = 1).
    chainId: 130n,
    // Unichain's flashblocks: 200 ms, 5 per 1 s block.
    fragmentIntervalMs: 200,
    ladder: UNICHAIN_LADDER,
    params: UNICHAIN_PARAMS,
    // unichain.toml [genesis.system_config] scalar 0x01…000dbba0_000007d0: version 1 (Ecotone),
    // blobBaseFeeScalar 900000, baseFeeScalar 2000.
    op: { l1: { ...QUIET_L1, baseFeeScalar: 2000, blobBaseFeeScalar: 900_000, daFootprintGasScalar: UNICHAIN_PARAMS.daFootprintGasScalar } },
    pendingRules: "geth",
  }),
};

/** The OP-stack profiles (their blocks hold deposit txs). */
export const OP_PROFILE_NAMES: readonly ProfileName[] = PROFILE_NAMES.filter((name) => PROFILES[name].op !== undefined);

/**
 * The names `hardfork` takes on a profile: its ladder's forks, oldest first, then (on OP profiles)
 * the Ethereum forks its ladder runs, each meaning the newest rung with that EVM (`prague` on Base
 * is `jovian`, `osaka` is today's `denim`).
 */
export function hardforkNames(profile: ProfileName): string[] {
  const { ladder } = PROFILES[profile];
  const names = ladder.map((rung) => rung.name);
  for (const evm of new Set(ladder.map((_, i) => rulesOf(ladder, i).evm))) if (!names.includes(evm)) names.push(evm);
  return names;
}

/** Every name `hardfork` takes on some profile (for schemas; resolveOptions checks it against the profile). */
export const HARDFORK_NAMES: readonly string[] = [...new Set(PROFILE_NAMES.flatMap(hardforkNames))];

/** The index in `profile`'s ladder that `hardfork` names (the last rung when undefined); -1 when the profile has no such fork. */
export function forkIndexOf(profile: Profile, hardfork: string | undefined): number {
  const { ladder } = profile;
  if (hardfork === undefined) return ladder.length - 1;
  const index = ladder.findIndex((rung) => rung.name === hardfork);
  if (index !== -1) return index;
  for (let i = ladder.length - 1; i >= 0; i--) if (rulesOf(ladder, i).evm === hardfork) return i;
  return -1;
}

/** The rules of a profile at one fork of its ladder. */
export const rulesAtFork = (profile: Profile, index: number): ForkRules => rulesOf(profile.ladder, index);

/** The chain parameters a chain starting at `ladder[index]` has (scaled by the forks up to it). */
export const paramsAtFork = (profile: Profile, index: number): ChainParams => paramsAt(profile.ladder, index, profile.params);

/**
 * The next block's base fee under `params` (EIP-1559's rule, with the chain's denominator and
 * elasticity; op-geth misc/eip1559 CalcBaseFee), never below `minBaseFee`.
 */
export function nextBaseFee(parent: { gasLimit: bigint; gasUsed: bigint; baseFee: bigint }, params: Eip1559Params, minBaseFee: bigint): bigint {
  const target = parent.gasLimit / params.elasticity;
  let next: bigint;
  if (parent.gasUsed === target) {
    next = parent.baseFee;
  } else if (parent.gasUsed > target) {
    const delta = (parent.baseFee * (parent.gasUsed - target)) / target / params.denominator;
    next = parent.baseFee + (delta > 1n ? delta : 1n);
  } else {
    const delta = (parent.baseFee * (target - parent.gasUsed)) / target / params.denominator;
    next = parent.baseFee - delta;
  }
  return next < minBaseFee ? minBaseFee : next;
}

/**
 * The OP-stack profile whose chain id `chainId` is (a fork of Base mainnet runs as `base`), or
 * undefined for any other chain (`dev`'s 31337 included: it names no live chain).
 */
export function profileOfChainId(chainId: bigint): ProfileName | undefined {
  return PROFILE_NAMES.find((name) => name !== "base-denim" && PROFILES[name].op !== undefined && PROFILES[name].chainId === chainId);
}
