/**
 * The fee-market parameters an OP-stack block header carries and the next base fee they give.
 * Since Holocene the EIP-1559 denominator and elasticity are in the header's `extraData`, and since
 * Jovian the minimum base fee too: version 1, u32 denominator, u32 elasticity, u64 minimum base fee,
 * 17 bytes big-endian (specs/protocol/jovian/exec-engine.md, "Minimum Base Fee in Block Header").
 * A block's base fee follows from its parent's header alone: the parent's parameters, and since
 * Jovian max(gasUsed, blobGasUsed) of the parent, `blobGasUsed` holding its DA footprint
 * ("DA Footprint Block Limit"; op-geth consensus/misc/eip1559 CalcBaseFee).
 */
import { bigIntToBytes, bytesToBigInt, bytesToHex, concatBytes, setLengthLeft } from "@ethereumjs/util";

import { nextBaseFee } from "../profiles/profiles.ts";

import type { BlockHeader } from "@ethereumjs/block";
import type { Hex } from "../common/types.ts";

/** What a block's header says about the base fee of its child. */
export interface FeeParams {
  denominator: bigint;
  elasticity: bigint;
  minBaseFee: bigint;
}

const JOVIAN_EXTRA_DATA_VERSION = 1;

/** Jovian's 17-byte `extraData`. */
export function encodeFeeParams(params: FeeParams): Hex {
  const be = (value: bigint, bytes: number) => setLengthLeft(bigIntToBytes(value), bytes);
  return bytesToHex(concatBytes(Uint8Array.of(JOVIAN_EXTRA_DATA_VERSION), be(params.denominator, 4), be(params.elasticity, 4), be(params.minBaseFee, 8)));
}

/**
 * The parameters in `extraData`: Jovian's 17 bytes, or Holocene's 9 (version 0, no minimum base fee;
 * an upstream block forked from before Jovian); undefined for anything else (op-geth
 * DecodeMinBaseFeeExtraData).
 */
export function decodeFeeParams(extraData: Uint8Array): FeeParams | undefined {
  const u = (from: number, to: number) => bytesToBigInt(extraData.subarray(from, to));
  if (extraData.length === 17 && extraData[0] === JOVIAN_EXTRA_DATA_VERSION) return { denominator: u(1, 5), elasticity: u(5, 9), minBaseFee: u(9, 17) };
  if (extraData.length === 9 && extraData[0] === 0) return { denominator: u(1, 5), elasticity: u(5, 9), minBaseFee: 0n };
  return undefined;
}

/**
 * The base fee of the block after `parent` on an OP-stack chain: the parent's parameters (or
 * `fallback` when its `extraData` has none: a genesis without them), the gas it metered being
 * max(gasUsed, DA footprint) when its header carries Jovian's parameters.
 */
export function opNextBaseFee(parent: BlockHeader, fallback: FeeParams): bigint {
  const params = decodeFeeParams(parent.extraData) ?? fallback;
  const jovian = parent.extraData.length === 17;
  const daFootprint = parent.blobGasUsed ?? 0n;
  const gasUsed = jovian && daFootprint > parent.gasUsed ? daFootprint : parent.gasUsed;
  if (params.denominator === 0n || params.elasticity === 0n) return parent.baseFeePerGas ?? 0n;
  return nextBaseFee({ gasLimit: parent.gasLimit, gasUsed, baseFee: parent.baseFeePerGas ?? 0n }, params, params.minBaseFee);
}
