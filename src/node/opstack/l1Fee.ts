/**
 * The L1 data fee of a transaction on an OP-stack chain (Fjord: a FastLZ-based size estimate,
 * priced with Ecotone's blob and calldata scalars), from the L1Block predeploy's storage, as
 * op-geth's core/types/rollup_cost.go computes it (specs/protocol/fjord/exec-engine.md); the same
 * size estimate gives Jovian's DA footprint (specs/protocol/jovian/exec-engine.md).
 */
import { bytesToBigInt, createAddressFromString, setLengthLeft } from "@ethereumjs/util";

import { L1_BLOCK } from "./predeploys.ts";

import type { StateManagerInterface } from "@ethereumjs/common";

/** What the L1Block predeploy holds about the L1 fee (its storage layout: op-geth rollup_cost.go). */
export interface L1BlockFees {
  l1BaseFee: bigint;
  l1BlobBaseFee: bigint;
  baseFeeScalar: bigint;
  blobBaseFeeScalar: bigint;
  operatorFeeScalar: bigint;
  operatorFeeConstant: bigint;
  /** Jovian's DA footprint gas scalar (uint16). */
  daFootprintGasScalar: bigint;
}

export interface L1Cost {
  fee: bigint;
  /** The estimated L1 gas (estimatedSize × 16), as receipts report it. */
  gasUsed: bigint;
  /** Jovian's DA footprint: the estimated size in bytes × daFootprintGasScalar (receipts' `blobGasUsed`). */
  daFootprint: bigint;
  fees: L1BlockFees;
}

const L1_BLOCK_ADDRESS = createAddressFromString(L1_BLOCK);
const slot = (n: number) => setLengthLeft(Uint8Array.of(n), 32);
const BASE_FEE_SLOT = slot(1);
const SCALARS_SLOT = slot(3);
const BLOB_BASE_FEE_SLOT = slot(7);
const OPERATOR_FEE_SLOT = slot(8);

/** Fjord's constants (rollup_cost.go: L1CostIntercept, L1CostFastlzCoef, MinTransactionSize). */
const COST_INTERCEPT = -42_585_600n;
const COST_FASTLZ_COEF = 836_500n;
const MIN_TRANSACTION_SIZE_SCALED = 100n * 1_000_000n;
const FJORD_DIVISOR = 1_000_000_000_000n;

/** Reads the L1 fee parameters the block's L1-attributes deposit wrote. */
export async function readL1BlockFees(state: StateManagerInterface): Promise<L1BlockFees> {
  const word = async (key: Uint8Array) => setLengthLeft(await state.getStorage(L1_BLOCK_ADDRESS, key), 32);
  const scalars = await word(SCALARS_SLOT);
  const operator = await word(OPERATOR_FEE_SLOT);
  return {
    l1BaseFee: bytesToBigInt(await word(BASE_FEE_SLOT)),
    l1BlobBaseFee: bytesToBigInt(await word(BLOB_BASE_FEE_SLOT)),
    // Slot 3: baseFeeScalar in bytes [16:20), blobBaseFeeScalar in [20:24).
    baseFeeScalar: bytesToBigInt(scalars.subarray(16, 20)),
    blobBaseFeeScalar: bytesToBigInt(scalars.subarray(20, 24)),
    // Slot 8: operatorFeeScalar at offset 0 (bytes [28:32)), operatorFeeConstant at offset 4 ([20:28)),
    // daFootprintGasScalar at offset 12 ([18:20)) (specs/protocol/jovian/exec-engine.md, "Scalar loading").
    operatorFeeScalar: bytesToBigInt(operator.subarray(28, 32)),
    operatorFeeConstant: bytesToBigInt(operator.subarray(20, 28)),
    daFootprintGasScalar: bytesToBigInt(operator.subarray(18, 20)),
  };
}

/**
 * Jovian's operator fee for `gas` gas: gas × operatorFeeScalar × 100 + operatorFeeConstant
 * (specs/protocol/jovian/exec-engine.md, "Fee Formula Update").
 */
export function operatorFeeOf(gas: bigint, fees: L1BlockFees): bigint {
  if (fees.operatorFeeScalar === 0n && fees.operatorFeeConstant === 0n) return 0n;
  return gas * fees.operatorFeeScalar * 100n + fees.operatorFeeConstant;
}

/**
 * Fjord: estimatedSize = max(100e6, -42,585,600 + 836,500 × fastLzSize); fee = estimatedSize ×
 * (16 × l1BaseFee × baseFeeScalar + l1BlobBaseFee × blobBaseFeeScalar) / 1e12; L1 gas =
 * estimatedSize × 16 / 1e6. `signedTx` is the tx's full (signed) encoding.
 */
export function l1CostOf(signedTx: Uint8Array, fees: L1BlockFees): L1Cost {
  return l1CostOfSize(BigInt(flzCompressLen(signedTx)), fees);
}

export function l1CostOfSize(fastLzSize: bigint, fees: L1BlockFees): L1Cost {
  let estimatedSize = COST_INTERCEPT + COST_FASTLZ_COEF * fastLzSize;
  if (estimatedSize < MIN_TRANSACTION_SIZE_SCALED) estimatedSize = MIN_TRANSACTION_SIZE_SCALED;
  const feeScaled = 16n * fees.l1BaseFee * fees.baseFeeScalar + fees.l1BlobBaseFee * fees.blobBaseFeeScalar;
  // Jovian's daUsageEstimate = max(minTransactionSize, (intercept + fastlzCoef × fastlzSize) // 1e6), in bytes.
  const daFootprint = (estimatedSize / 1_000_000n) * fees.daFootprintGasScalar;
  return { fee: (estimatedSize * feeScaled) / FJORD_DIVISOR, gasUsed: (estimatedSize * 16n) / 1_000_000n, daFootprint, fees };
}

/**
 * The length of `data` compressed with FastLZ level 1, without compressing it: literal runs cost
 * their length plus one byte per 32, matches 2 bytes (3 above 8 bytes, and 3 more per 262). The
 * count op-geth's FlzCompressLen makes (after Solady's LibZip.flzCompress); the GasPriceOracle
 * predeploy makes the same count in Solidity.
 */
export function flzCompressLen(data: Uint8Array): number {
  const length = data.length;
  const table = new Uint32Array(8192);
  const u24 = (i: number) => data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16);
  // Fibonacci hashing into 13 bits, in 32-bit arithmetic.
  const hash = (v: number) => (Math.imul(2654435769, v) >>> 19) & 0x1fff;
  let n = 0;
  const literals = (run: number) => {
    n += 0x21 * Math.floor(run / 0x20);
    const rest = run % 0x20;
    if (rest !== 0) n += rest + 1;
  };
  const match = (matched: number) => {
    const l = matched - 1;
    n += 3 * Math.floor(l / 262) + (l % 262 >= 6 ? 3 : 2);
  };
  const limit = length < 13 ? 0 : length - 13;
  let anchor = 0;
  let ip = 2;
  while (ip < limit) {
    let ref = 0;
    let found = false;
    for (;;) {
      const seq = u24(ip);
      const h = hash(seq);
      ref = table[h]!;
      table[h] = ip;
      if (ip >= limit) break;
      const distance = ip - ref;
      ip++;
      if (distance <= 0x1fff && seq === u24(ref)) {
        found = true;
        break;
      }
    }
    if (!found || ip >= limit) break;
    ip--;
    if (ip > anchor) literals(ip - anchor);
    // Bytes from ref + 3 equal to those from ip + 3, up to limit + 9; a mismatch counts one more.
    const end = limit + 9 - (ip + 3);
    let matched = 0;
    while (matched < end) {
      if (data[ref + 3 + matched] !== data[ip + 3 + matched]) {
        matched++;
        break;
      }
      matched++;
    }
    match(matched);
    ip += matched;
    table[hash(u24(ip))] = ip;
    ip++;
    table[hash(u24(ip))] = ip;
    ip++;
    anchor = ip;
  }
  literals(length - anchor);
  return n;
}
