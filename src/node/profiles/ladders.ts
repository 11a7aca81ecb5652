/**
 * The fork ladders and chain parameters of the chains simulated, each value with where it was read
 * (read 2026-11-25 unless a comment says otherwise). docs/profiles.md lists the same tables.
 *
 * Every OP ladder starts at Jovian, the fork the three chains share (live on all of them since
 * 2025-12); the Ethereum ladder of `dev` at Paris.
 */
import { DEFAULT_BLOCK_GAS_LIMIT, FRAGMENTS_PER_BLOCK } from "../common/defaults.ts";

import type { ChainParams, ForkRules, ForkRung } from "./ladder.ts";

/** Jovian's bn256Pairing bound: 81,984 bytes, 427 pairs (specs/protocol/jovian/exec-engine.md, "Precompile Input Size Restrictions"). */
export const JOVIAN_BN254_PAIRING_MAX_INPUT = 81_984;
/** Karst's: 57,600 bytes, 300 pairs (specs/protocol/karst/exec-engine.md). */
export const KARST_BN254_PAIRING_MAX_INPUT = 57_600;

/**
 * Jovian on an OP chain: the Prague EVM with RIP-7212's P256VERIFY (OP chains since Fjord:
 * specs/protocol/precompiles.md), Jovian's precompile input bounds, the Jovian fee market and L1
 * attributes (specs/protocol/jovian/), flashblocks at `fragmentsPerBlock` per block.
 */
const jovianOn = (fragmentsPerBlock: number, eips: readonly number[] = [], ethConfig = true): ForkRules => ({
  evm: "prague",
  eips,
  opStack: true,
  p256Verify: "rip7212",
  bn254PairingMaxInput: JOVIAN_BN254_PAIRING_MAX_INPUT,
  blsInputLimits: true,
  fragmentsPerBlock,
  denim: false,
  flashblocks: true,
  flashblockReceipts: true,
  fragmentGasSchedule: true,
  ethConfig,
});

/** Osaka on L2 (Base's Azul, the superchain's Karst): CLZ, EIP-7823/7883 MODEXP, EIP-7951 P256VERIFY (6,900 gas), EIP-7825's per-tx cap. */
const OSAKA: Partial<ForkRules> = { evm: "osaka", eips: [], p256Verify: "eip7951" };

/**
 * Base: base/base `crates/common/chains/src/config.rs` (Jovian, Azul and Beryl timestamps, read
 * 2026-11-25); Cobalt and Denim as docs.base.org's upgrade pages and base/base PRs #5056, #5196
 * date them (Cobalt 2026-09-30 / Sepolia 2026-09-23, Denim 2026-11-05 18:00 UTC / Sepolia
 * 2026-10-21 18:00 UTC; not re-read here).
 */
function baseLadder(network: "mainnet" | "sepolia"): ForkRung[] {
  const at = (mainnet: number, sepolia: number) => (network === "mainnet" ? mainnet : sepolia);
  return [
    // Base capped every tx at 2^24 gas before Azul made it protocol (docs.base.org "Block Building":
    // "Flashblocks + Per-Transaction Gas Max" since 2025-09-10, mainnet); its node answers
    // eth_config from Azul on (docs.base.org specs/upgrades/azul/exec-engine, "RPC Changes").
    { name: "jovian", activation: at(1_764_691_201, 1_763_568_001), changes: jovianOn(FRAGMENTS_PER_BLOCK, [7825], false) },
    // Base's first own fork: Osaka's EVM and precompile pricing on top of Jovian's input bounds
    // (docs.base.org specs/upgrades/azul/exec-engine: EIP-7825 with deposits exempt, EIP-7823/7883,
    // CLZ, P256VERIFY 3,450 → 6,900 gas, eth_config, a slimmer flashblock payload; base/base
    // base-revm precompiles/provider.rs: `azul()` = Jovian + Osaka MODEXP and P256VERIFY).
    { name: "azul", activation: at(1_779_991_200, 1_776_708_000), changes: { ...OSAKA, ethConfig: true, flashblockReceipts: false } },
    // B20 token precompiles: not simulated (docs/profiles.md, "Not simulated").
    { name: "beryl", activation: at(1_782_410_400, 1_781_805_600), changes: {} },
    { name: "cobalt", activation: at(1_790_791_200, 1_790_186_400), changes: {} },
    // Native 200 ms blocks: one fragment per block, sealed at once; the flashblock RPCs retired
    // (base/base crates/execution/flashblocks/src/rpc/cutover.rs); at its first block the gas limit
    // ÷ 10 and the EIP-1559 denominator × 10 (base/base PR #4565,
    // crates/consensus/derive/src/attributes/stateful.rs, DENIM_GAS_PARAMETER_SCALING_FACTOR).
    {
      name: "denim",
      activation: at(1_793_901_600, 1_792_605_600),
      changes: { fragmentsPerBlock: 1, denim: true, flashblocks: false, fragmentGasSchedule: false },
      scaling: { gasLimitDivisor: 10n, denominatorMultiplier: 10n },
    },
  ];
}

export const BASE_MAINNET_LADDER = baseLadder("mainnet");
export const BASE_SEPOLIA_LADDER = baseLadder("sepolia");

/**
 * Base's SystemConfig values before Denim's ÷ 10 / × 10, from base/contract-deployments (snapshot of
 * 2026-08-21, read 2026-11-25): gas limit 400,000,000, elasticity 5, denominator 100, DA footprint
 * scalar 148 (archive/legacy/mainnet/2026-03-25-increase-gas-and-elasticity-limit), minimum base fee
 * 5,000,000 wei (…/2026-02-17-update-min-base-fee). After Denim: 40,000,000 gas, 1000 / 5.
 */
export const BASE_MAINNET_PARAMS: ChainParams = {
  gasLimit: 400_000_000n,
  eip1559: { denominator: 100n, elasticity: 5n },
  minBaseFee: 5_000_000n,
  daFootprintGasScalar: 148,
};

/**
 * Base Sepolia's, same source: gas limit 1,200,000,000, elasticity 15, denominator 100, DA footprint
 * scalar 446 (archive/legacy/sepolia/2026-05-06-increase-gas-and-elasticity-limit), minimum base fee
 * 5,000,000 wei (…/2026-02-17-update-min-base-fee). After Denim: 120,000,000 gas, 1000 / 15.
 */
export const BASE_SEPOLIA_PARAMS: ChainParams = {
  gasLimit: 1_200_000_000n,
  eip1559: { denominator: 100n, elasticity: 15n },
  minBaseFee: 5_000_000n,
  daFootprintGasScalar: 446,
};

/** Karst (OP's Upgrade 19): Osaka on L2 and bn256Pairing down to 300 pairs (specs/protocol/karst/). */
const KARST: Partial<ForkRules> = { ...OSAKA, bn254PairingMaxInput: KARST_BN254_PAIRING_MAX_INPUT };

/**
 * OP Mainnet: superchain-registry superchain/configs/mainnet/op.toml (jovian_time, karst_time;
 * snapshot of 2026-08-04). 2 s blocks with eight 250 ms flashblocks (docs.optimism.io, "Flashblocks
 * and Gas Usage": "the block is built in N flashblocks (currently 8)").
 */
export const OPTIMISM_LADDER: ForkRung[] = [
  { name: "jovian", activation: 1_764_691_201, changes: jovianOn(8) },
  { name: "karst", activation: 1_783_526_401, changes: KARST },
];

/**
 * OP Mainnet's parameters: gas limit 40,000,000 (docs.optimism.io, "Flashblocks and Gas Usage": "the
 * theoretical block gas limit is currently 40M gas"), elasticity 2 (docs.optimism.io, "Transaction
 * fees 101": "OP Mainnet values … eip1559Elasticity = 2"), denominator 250 (op.toml
 * eip1559_denominator_canyon); no minimum base fee or DA footprint scalar set (the Jovian defaults:
 * 0, and 400 at the L1 attributes).
 */
export const OPTIMISM_PARAMS: ChainParams = {
  gasLimit: 40_000_000n,
  eip1559: { denominator: 250n, elasticity: 2n },
  minBaseFee: 0n,
  daFootprintGasScalar: 0,
};

/** Unichain: superchain-registry superchain/configs/mainnet/unichain.toml (block_time = 1, jovian_time, karst_time); five 200 ms flashblocks per block. */
export const UNICHAIN_LADDER: ForkRung[] = [
  { name: "jovian", activation: 1_764_691_201, changes: jovianOn(5) },
  { name: "karst", activation: 1_783_526_401, changes: KARST },
];

/**
 * Unichain's parameters: unichain.toml's genesis gas limit (30,000,000) and [optimism] EIP-1559
 * values (250 / 6); its SystemConfig values since could not be read from a public source.
 */
export const UNICHAIN_PARAMS: ChainParams = {
  gasLimit: 30_000_000n,
  eip1559: { denominator: 250n, elasticity: 6n },
  minBaseFee: 0n,
  daFootprintGasScalar: 0,
};

const ethereum = (evm: ForkRules["evm"]): Partial<ForkRules> => ({ evm });

/**
 * The dev chain: Ethereum's forks since the merge, with their mainnet activation times (Paris by
 * block, 15,537,394; the others by time: Shanghai 1681338455, Cancun 1710338135, Prague 1746612311,
 * Osaka 1764798551), each as ethereumjs implements it.
 */
export const DEV_LADDER: ForkRung[] = [
  {
    name: "paris",
    activation: undefined,
    changes: {
      evm: "paris",
      eips: [],
      opStack: false,
      p256Verify: undefined,
      bn254PairingMaxInput: undefined,
      blsInputLimits: false,
      fragmentsPerBlock: FRAGMENTS_PER_BLOCK,
      denim: false,
      flashblocks: true,
      flashblockReceipts: true,
      fragmentGasSchedule: false,
      // geth answers eth_config whatever fork a chain runs (internal/ethapi/api.go).
      ethConfig: true,
    },
  },
  { name: "shanghai", activation: 1_681_338_455, changes: ethereum("shanghai") },
  { name: "cancun", activation: 1_710_338_135, changes: ethereum("cancun") },
  { name: "prague", activation: 1_746_612_311, changes: ethereum("prague") },
  { name: "osaka", activation: 1_764_798_551, changes: { ...ethereum("osaka"), p256Verify: "eip7951" } },
];

/** The dev chain's parameters: Hardhat 3's 60,000,000 gas, ethereumjs' EIP-1559 constants. */
export const DEV_PARAMS: ChainParams = { gasLimit: DEFAULT_BLOCK_GAS_LIMIT, eip1559: undefined, minBaseFee: 0n, daFootprintGasScalar: 0 };
