/**
 * Chain profiles: what a provider simulates. `dev` is the L1-style dev chain; the others are
 * OP-stack chains (predeploys, the L1-attributes deposit, the L1 data fee, deposit txs) with their
 * chain id, fragment cadence, EIP-1559 parameters and per-tx gas cap. This module is the one place
 * these numbers live; docs/profiles.md lists them with the same sources.
 */
import { DEV_CHAIN_ID, EIP7825_MAX_TX_GAS, FRAGMENT_INTERVAL_MS, FRAGMENTS_PER_BLOCK, GWEI } from "./defaults.ts";
import { DEFAULT_HARDFORK } from "./genesis.ts";

import type { SupportedHardfork } from "./genesis.ts";

export const PROFILE_NAMES = ["dev", "base", "base-sepolia", "base-denim", "optimism", "unichain"] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

/** EIP-1559 base-fee parameters: the fee moves by at most 1/denominator per block around gasLimit/elasticity. */
export interface Eip1559Params {
  denominator: bigint;
  elasticity: bigint;
}

/** The simulated L1 the L1-attributes deposit reports (changed with `preconf_setL1Fees`). */
export interface L1FeeParams {
  baseFee: bigint;
  blobBaseFee: bigint;
  baseFeeScalar: number;
  blobBaseFeeScalar: number;
  /** Isthmus' operator fee: gas × scalar / 1e6 + constant (uint32 and uint64). */
  operatorFeeScalar: number;
  operatorFeeConstant: bigint;
}

export interface OpStackParams {
  /** The L1 fee parameters the chain starts with. */
  l1: L1FeeParams;
}

export interface Profile {
  name: ProfileName;
  chainId: bigint;
  fragmentIntervalMs: number;
  fragmentsPerBlock: number;
  /** Undefined: ethereumjs' (mainnet's) 8 and 2. */
  eip1559: Eip1559Params | undefined;
  /** The base fee never goes below this (OP Jovian's configurable minimum); 0n: none. */
  minBaseFee: bigint;
  /** EIP-7825's per-tx gas cap where the chain enforces it; undefined: none beyond the block gas limit. */
  maxTxGas: bigint | undefined;
  /** The EVM's fork (ethereumjs' name). */
  hardfork: SupportedHardfork;
  /** The OP-stack fork the predeploys and the L1 fee follow, for display; undefined on `dev`. */
  opHardfork: string | undefined;
  /** OP-stack execution; undefined on `dev`. */
  op: OpStackParams | undefined;
  /**
   * `pending` on standard methods: geth's rules, or Base's node's (the pending nonce without the
   * pool, pending calls at the latest sealed header; docs/flashblocks.md).
   */
  pendingRules: "geth" | "base";
  /** Whether fragment j may fill the block only up to j/(n-1) of its gas limit (Base's builder; docs/flashblocks.md). */
  fragmentGasSchedule: boolean;
  /**
   * Base's Denim upgrade: one block per 200 ms fragment, blocks sharing whole-second timestamps,
   * the BaseTime predeploy and its deposit (opstack/baseTime.ts), and the flashblock RPCs retired
   * (docs/flashblocks.md "base-denim").
   */
  denim: boolean;
}

/**
 * The simulated L1 starts at 1 gwei base fee and the EIP-4844 minimum blob base fee (1 wei).
 * Our choice: a quiet L1, so that fees are small but non-zero; `preconf_setL1Fees` changes them.
 */
const QUIET_L1 = { baseFee: GWEI, blobBaseFee: 1n, operatorFeeScalar: 0, operatorFeeConstant: 0n };

/** Base mainnet, as it runs with flashblocks; `base-denim` is this profile after Denim. */
const BASE: Profile = {
  name: "base",
  // superchain-registry superchain/configs/mainnet/base.toml (chain_id = 8453, block_time = 2).
  chainId: 8453n,
  // Base's flashblocks: 200 ms, ~10 per 2 s block (docs.base.org "Flashblocks").
  fragmentIntervalMs: FRAGMENT_INTERVAL_MS,
  fragmentsPerBlock: FRAGMENTS_PER_BLOCK,
  // Base's current EIP-1559 parameters (set through its SystemConfig since Holocene): denominator
  // 100, elasticity 5 from block 43,841,215 (Hardhat EDR crates/edr_op/src/hardfork/base.rs).
  eip1559: { denominator: 100n, elasticity: 5n },
  minBaseFee: 0n,
  // EIP-7825's 2^24 per-tx gas cap is enforced on Base.
  maxTxGas: EIP7825_MAX_TX_GAS,
  hardfork: "prague",
  opHardfork: "isthmus",
  // Scalars: our choice, of the order Base has used since Ecotone (blob-priced data).
  op: { l1: { ...QUIET_L1, baseFeeScalar: 2269, blobBaseFeeScalar: 1_055_778 } },
  pendingRules: "base",
  fragmentGasSchedule: true,
  denim: false,
};

export const PROFILES: Readonly<Record<ProfileName, Profile>> = {
  dev: {
    name: "dev",
    chainId: DEV_CHAIN_ID,
    fragmentIntervalMs: FRAGMENT_INTERVAL_MS,
    fragmentsPerBlock: FRAGMENTS_PER_BLOCK,
    eip1559: undefined,
    minBaseFee: 0n,
    maxTxGas: undefined,
    hardfork: DEFAULT_HARDFORK,
    opHardfork: undefined,
    op: undefined,
    pendingRules: "geth",
    fragmentGasSchedule: false,
    denim: false,
  },
  base: BASE,
  "base-sepolia": {
    name: "base-sepolia",
    // superchain-registry superchain/configs/sepolia/base.toml (chain_id = 84532, block_time = 2).
    chainId: 84532n,
    fragmentIntervalMs: FRAGMENT_INTERVAL_MS,
    fragmentsPerBlock: FRAGMENTS_PER_BLOCK,
    // Denominator 50, elasticity 4 from block 26,299,084 (EDR crates/edr_op/src/hardfork/base.rs).
    eip1559: { denominator: 50n, elasticity: 4n },
    minBaseFee: 0n,
    maxTxGas: EIP7825_MAX_TX_GAS,
    hardfork: "prague",
    opHardfork: "isthmus",
    op: { l1: { ...QUIET_L1, baseFeeScalar: 2269, blobBaseFeeScalar: 1_055_778 } },
    pendingRules: "base",
    fragmentGasSchedule: true,
    denim: false,
  },
  // Base mainnet after its Denim upgrade (docs.base.org "Denim" overview: activated on Base mainnet on
  // November 5, 2026): the same chain, 8453, and Base's SystemConfig values (our choice: the Denim
  // pages name no change), with five canonical blocks per second (docs.base.org
  // upgrades/denim/200ms-blocks): each 200 ms fragment is a whole block, sealed at once.
  "base-denim": {
    ...BASE,
    name: "base-denim",
    fragmentIntervalMs: 200,
    fragmentsPerBlock: 1,
    // One fragment per block: it may fill the block.
    fragmentGasSchedule: false,
    denim: true,
  },
  optimism: {
    name: "optimism",
    // superchain-registry superchain/configs/mainnet/op.toml (chain_id = 10, block_time = 2).
    chainId: 10n,
    // OP Mainnet's flashblocks: 250 ms, 8 per 2 s block.
    fragmentIntervalMs: 250,
    fragmentsPerBlock: 8,
    // op.toml [optimism]: eip1559_denominator_canyon = 250, eip1559_elasticity = 6.
    eip1559: { denominator: 250n, elasticity: 6n },
    minBaseFee: 0n,
    maxTxGas: undefined,
    hardfork: "prague",
    opHardfork: "isthmus",
    // Scalars: our choice, the same order as Base's.
    op: { l1: { ...QUIET_L1, baseFeeScalar: 5227, blobBaseFeeScalar: 1_014_213 } },
    pendingRules: "geth",
    fragmentGasSchedule: true,
    denim: false,
  },
  unichain: {
    name: "unichain",
    // superchain-registry superchain/configs/mainnet/unichain.toml (chain_id = 130, block_time = 1).
    chainId: 130n,
    // Unichain's flashblocks: 200 ms, 5 per 1 s block.
    fragmentIntervalMs: 200,
    fragmentsPerBlock: 5,
    // unichain.toml [optimism]: eip1559_denominator_canyon = 250, eip1559_elasticity = 6.
    eip1559: { denominator: 250n, elasticity: 6n },
    minBaseFee: 0n,
    maxTxGas: undefined,
    hardfork: "prague",
    opHardfork: "isthmus",
    // unichain.toml [genesis.system_config] scalar 0x01…000dbba0_000007d0: version 1 (Ecotone),
    // blobBaseFeeScalar 900000, baseFeeScalar 2000.
    op: { l1: { ...QUIET_L1, baseFeeScalar: 2000, blobBaseFeeScalar: 900_000 } },
    pendingRules: "geth",
    fragmentGasSchedule: true,
    denim: false,
  },
};

/** The OP-stack profiles (their blocks hold deposit txs). */
export const OP_PROFILE_NAMES: readonly ProfileName[] = PROFILE_NAMES.filter((name) => PROFILES[name].op !== undefined);

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
  return PROFILE_NAMES.find((name) => PROFILES[name].op !== undefined && PROFILES[name].chainId === chainId);
}
