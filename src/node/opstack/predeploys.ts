/**
 * The OP-stack predeploys (specs/protocol/predeploys.md, isthmus/predeploys.md) at their
 * addresses, with our own Solidity's code (contracts/predeploys/, compiled by
 * scripts/compile-predeploys.mjs). OP-stack profiles put them in the genesis.
 */
import { PREDEPLOY_CODE } from "./predeployCode.ts";

import type { Hex } from "../common/types.ts";
import type { GenesisAccount } from "../state/genesis.ts";

const predeploy = (suffix: string) => `0x42000000000000000000000000000000000000${suffix}` as Hex;

export const L1_BLOCK = predeploy("15");
export const GAS_PRICE_ORACLE = predeploy("0f");
export const SEQUENCER_FEE_VAULT = predeploy("11");
export const BASE_FEE_VAULT = predeploy("19");
export const L1_FEE_VAULT = predeploy("1a");
export const OPERATOR_FEE_VAULT = predeploy("1b");
export const WETH9 = predeploy("06");
export const L2_TO_L1_MESSAGE_PASSER = predeploy("16");
/** Base's BaseTime (Denim): the millisecond part of the block's timestamp (opstack/baseTime.ts). */
export const BASE_TIME = predeploy("30");
/** The L1 attributes depositor account (specs/protocol/deposits.md). */
export const DEPOSITOR_ACCOUNT = "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001" as Hex;
/** Gas of the L1-attributes deposit that opens every block, since Regolith (specs/protocol/deposits.md). */
export const L1_INFO_GAS = 1_000_000n;

/** Address → contract of every predeploy installed. */
export const PREDEPLOYS: Readonly<Record<Hex, keyof typeof PREDEPLOY_CODE>> = {
  [predeploy("00")]: "LegacyMessagePasser",
  [predeploy("02")]: "DeployerWhitelist",
  [WETH9]: "WETH9",
  [predeploy("07")]: "L2CrossDomainMessenger",
  [GAS_PRICE_ORACLE]: "GasPriceOracle",
  [predeploy("10")]: "L2StandardBridge",
  [SEQUENCER_FEE_VAULT]: "SequencerFeeVault",
  [predeploy("12")]: "OptimismMintableERC20Factory",
  [predeploy("13")]: "L1BlockNumber",
  [predeploy("14")]: "L2ERC721Bridge",
  [L1_BLOCK]: "L1Block",
  [L2_TO_L1_MESSAGE_PASSER]: "L2ToL1MessagePasser",
  [predeploy("17")]: "OptimismMintableERC721Factory",
  [predeploy("18")]: "ProxyAdmin",
  [BASE_FEE_VAULT]: "BaseFeeVault",
  [L1_FEE_VAULT]: "L1FeeVault",
  [OPERATOR_FEE_VAULT]: "OperatorFeeVault",
  [predeploy("20")]: "SchemaRegistry",
  [predeploy("21")]: "EAS",
};

/** Predeploys only some chains have: Base's BaseTime exists from its Denim upgrade on. */
export const DENIM_PREDEPLOYS: Readonly<Record<Hex, keyof typeof PREDEPLOY_CODE>> = {
  [BASE_TIME]: "BaseTime",
};

/**
 * The predeploys as genesis accounts (no balance; nonce 1, as deployed contracts have since
 * EIP-161), with Denim's when the chain starts at Denim, and L1Block holding `l1BlockStorage` (the
 * L1 attributes as of the genesis: execution.ts `l1BlockStorage`).
 */
export function predeployAlloc(options: { denim: boolean; l1BlockStorage?: Record<Hex, Hex> | undefined }): Map<Hex, GenesisAccount> {
  const alloc = new Map<Hex, GenesisAccount>();
  const installed = options.denim ? { ...PREDEPLOYS, ...DENIM_PREDEPLOYS } : PREDEPLOYS;
  for (const [address, name] of Object.entries(installed)) alloc.set(address as Hex, { balance: 0n, nonce: 1n, code: PREDEPLOY_CODE[name] });
  if (options.l1BlockStorage !== undefined) alloc.set(L1_BLOCK, { ...alloc.get(L1_BLOCK)!, storage: options.l1BlockStorage });
  return alloc;
}
