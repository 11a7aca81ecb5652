/**
 * A chain profile's fork ladder: its forks in activation order, each with the date it went live on
 * the real chain and what it changes. The rules at a point of the ladder are every change up to
 * that fork (`rulesOf`); the chain parameters governance sets on-chain (gas limit, EIP-1559
 * parameters, minimum base fee, DA footprint scalar) are separate values, scaled where a fork says
 * so (Base's Denim: gas limit ÷ 10, denominator × 10). docs/profiles.md lists every ladder.
 */
import type { SupportedHardfork } from "../state/genesis.ts";

/** What `pending` on standard methods follows: geth's rules or Base's node's (docs/flashblocks.md). */
export type PendingRules = "geth" | "base";

/** Everything that holds from a fork on (each fork sets only what it changes; the rest is inherited). */
export interface ForkRules {
  /** The EVM's fork (ethereumjs' name). */
  evm: SupportedHardfork;
  /** EIPs on top of `evm` (Base enforced EIP-7825's per-tx cap before Osaka reached it). */
  eips: readonly number[];
  /** OP-stack execution (predeploys, L1-attributes deposit, L1 data fee, deposits) with Jovian's rules. */
  opStack: boolean;
  /**
   * P256VERIFY at 0x100: `rip7212` (OP chains since Fjord: 3,450 gas), `eip7951` (Osaka: 6,900 gas),
   * or none (Ethereum before Osaka).
   */
  p256Verify: "rip7212" | "eip7951" | undefined;
  /** The most input bytes bn256Pairing (0x08) takes; undefined: no bound (Ethereum). */
  bn254PairingMaxInput: number | undefined;
  /** Jovian's bounds on the BLS12-381 MSM and pairing precompiles' input (specs/protocol/jovian/exec-engine.md). */
  blsInputLimits: boolean;
  /** Fragments per block: ten 200 ms flashblocks per 2 s block on Base before Denim, one after. */
  fragmentsPerBlock: number;
  /**
   * Base's Denim: blocks 200 ms apart sharing whole-second timestamps, the BaseTime predeploy and its
   * deposit (tx[1]), the millisecond RPC fields.
   */
  denim: boolean;
  /** Whether the flashblock RPCs deliver anything (Base latches them off at Denim). */
  flashblocks: boolean;
  /**
   * Whether the raw flashblocks feed's `metadata` carries `receipts` and `new_account_balances`
   * (Base removed them at Azul: docs.base.org specs/upgrades/azul/exec-engine, "Remove Account
   * Balances & Receipts"; `access_list` stays, null).
   */
  flashblockReceipts: boolean;
  /** Whether fragment j may fill its block only up to j/n of the gas limit (flashblock builders). */
  fragmentGasSchedule: boolean;
  /** Whether the node answers `eth_config` (EIP-7910). */
  ethConfig: boolean;
}

/** What the first block of a fork does to the chain parameters (Base's Denim: base/base PR #4565). */
export interface ActivationScaling {
  gasLimitDivisor: bigint;
  denominatorMultiplier: bigint;
}

export interface ForkRung {
  name: string;
  /** When it went live (Unix seconds), on the profile's network; undefined: not scheduled there. */
  activation: number | undefined;
  /** What it changes. */
  changes: Partial<ForkRules>;
  /** What its first block does to the chain parameters. */
  scaling?: ActivationScaling | undefined;
}

/** EIP-1559 base-fee parameters: the fee moves by at most 1/denominator per block around gasLimit/elasticity. */
export interface Eip1559Params {
  denominator: bigint;
  elasticity: bigint;
}

/** Values governance sets on-chain (the SystemConfig on L1 for OP chains), as they stood before any scaling fork of the ladder. */
export interface ChainParams {
  gasLimit: bigint;
  /** Undefined: ethereumjs' (mainnet's) 8 and 2. */
  eip1559: Eip1559Params | undefined;
  /** The base fee never goes below this (Jovian's `minBaseFee`); 0n: none. */
  minBaseFee: bigint;
  /** Jovian's DA footprint gas scalar; 0 means the default of 400 (specs/protocol/jovian/l1-attributes.md). */
  daFootprintGasScalar: number;
}

/** The rules at `ladder[index]`: every change from the first rung up to it. */
export function rulesOf(ladder: readonly ForkRung[], index: number): ForkRules {
  let rules = { ...(ladder[0]!.changes as ForkRules) };
  for (let i = 1; i <= index; i++) rules = { ...rules, ...ladder[i]!.changes };
  return rules;
}

/** The parameters a chain starting at `ladder[index]` has: `params` scaled by every scaling fork up to it. */
export function paramsAt(ladder: readonly ForkRung[], index: number, params: ChainParams): ChainParams {
  let scaled = params;
  for (let i = 0; i <= index; i++) scaled = scaleParams(scaled, ladder[i]!.scaling);
  return scaled;
}

/** The parameters after a scaling fork's first block (Base's Denim: base/base crates/consensus/derive/src/attributes/stateful.rs). */
export function scaleParams<T extends { gasLimit: bigint; eip1559: Eip1559Params | undefined }>(params: T, scaling: ActivationScaling | undefined): T {
  if (scaling === undefined) return params;
  const eip1559 = params.eip1559 === undefined ? undefined : { ...params.eip1559, denominator: params.eip1559.denominator * scaling.denominatorMultiplier };
  return { ...params, gasLimit: params.gasLimit / scaling.gasLimitDivisor, eip1559 };
}
