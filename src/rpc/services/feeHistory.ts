/**
 * eth_feeHistory as go-ethereum answers it (eth/gasprice/feehistory.go and internal/ethapi/api.go,
 * FeeHistory and feeHistoryResult, read 2026-08 at v1.17.5): base fees and blob base fees (one more
 * than blocks: the next block's), gas and blob gas used ratios, and the tips paid at the requested
 * percentiles, weighted by gas. A block count of 0 is an empty answer, more than 1024 is 1024, a
 * range before the first block is cut at it; percentiles must be ascending and within 0..100;
 * `pending` is the open block once it has pre-confirmed something (docs/behaviour.md).
 */
import { createBlockHeader } from "@ethereumjs/block";
import { bigIntToHex } from "@ethereumjs/util";
import { z } from "zod";

import { ErrorCode, RpcError } from "../errors.ts";
import { quantity } from "../schema.ts";
import { resolveOrThrow } from "./calls.ts";

import type { BlockHeader } from "@ethereumjs/block";
import type { TxRecord } from "../../node/chain/records.ts";
import type { BlockSelector, Hex } from "../schema.ts";
import type { NodeContext } from "./context.ts";

/** go-ethereum's maxHeaderHistory and maxBlockHistory (eth/ethconfig, 1024): a longer request is cut to it. */
export const MAX_FEE_HISTORY = 1024;
/** go-ethereum's maxQueryLimit: the most reward percentiles one request may ask for. */
export const MAX_REWARD_PERCENTILES = 100;

const UINT64_MAX = 0xffffffffffffffffn;

/**
 * The block count: go-ethereum's math.HexOrDecimal64, a hex quantity, a decimal string or a JSON
 * number, up to 2^64 - 1; more than MAX_FEE_HISTORY is MAX_FEE_HISTORY.
 */
export const blockCount = z
  .union([
    quantity,
    z
      .string()
      .regex(/^\d+$/, "expected a hex quantity, a decimal string or a number")
      .transform((value) => BigInt(value)),
    z.number().int().nonnegative().safe().transform(BigInt),
  ])
  .refine((count) => count <= UINT64_MAX, "block count exceeds 64 bits")
  .transform((count) => Number(count > BigInt(MAX_FEE_HISTORY) ? BigInt(MAX_FEE_HISTORY) : count));

/** Reward percentiles: any JSON numbers here; their range and order are checked as go-ethereum does (-32000). */
export const rewardPercentiles = z.array(z.number()).optional();

export interface FeeHistory {
  oldestBlock: Hex;
  reward?: Hex[][];
  baseFeePerGas?: Hex[];
  /** null in the empty answer, as go-ethereum's nil slice without omitempty. */
  gasUsedRatio: number[] | null;
  baseFeePerBlobGas?: Hex[];
  blobGasUsedRatio?: number[];
}

/** go-ethereum's answer to a block count of 0, whatever else was asked. */
const EMPTY: FeeHistory = { oldestBlock: "0x0", gasUsedRatio: null };

const feeHistoryError = (message: string) => new RpcError(ErrorCode.server, message);

/** Go's `%f`: six decimals. */
const goFloat = (value: number) => value.toFixed(6);

/**
 * go-ethereum's checks of a request, in its order: the empty answer for a count of 0 (before any
 * other check), then the number of percentiles, then each percentile's range and order. Returns
 * the empty answer, or undefined to go on.
 */
export function checkFeeHistory(count: number, percentiles: readonly number[] | undefined): FeeHistory | undefined {
  if (count < 1) return EMPTY;
  const wanted = percentiles ?? [];
  if (wanted.length > MAX_REWARD_PERCENTILES) throw feeHistoryError(`invalid reward percentile: over the query limit ${MAX_REWARD_PERCENTILES}`);
  wanted.forEach((percentile, i) => {
    if (percentile < 0 || percentile > 100) throw feeHistoryError(`invalid reward percentile: ${goFloat(percentile)}`);
    const previous = wanted[i - 1];
    if (previous !== undefined && percentile <= previous) {
      throw feeHistoryError(`invalid reward percentile: #${i - 1}:${goFloat(previous)} >= #${i}:${goFloat(percentile)}`);
    }
  });
  return undefined;
}

/**
 * The newest block of the history: a number past the latest sealed block is go-ethereum's
 * "request beyond head block" (the open block is reached by `pending`, not by its number); a tag
 * or a hash is the block it names (`pending`: the open block once it has a fragment).
 */
export function newestOfFeeHistory(ctx: NodeContext, selector: BlockSelector): bigint {
  const head = ctx.chain.latest.block.header.number;
  if (selector.kind === "number" && selector.number > head) {
    throw feeHistoryError(`request beyond head block: requested ${selector.number}, head ${head}`);
  }
  const resolved = resolveOrThrow(ctx, selector);
  return resolved.kind === "open" ? resolved.open.number : resolved.sealed.block.header.number;
}

/** One block of the history: its header as of now (the open block's gas so far), its txs, and the next block's fees. */
interface FeeBlock {
  header: BlockHeader;
  records: readonly TxRecord[];
  nextBaseFee: bigint;
  nextBlobBaseFee: bigint;
}

const blobBaseFeeOf = (header: BlockHeader) => (header.excessBlobGas === undefined ? 0n : header.getBlobGasPrice());

function feeBlock(ctx: NodeContext, number: bigint): FeeBlock {
  const { chain } = ctx;
  const open = chain.open;
  if (number === open.number) {
    // The open block's header with the gas its pre-confirmed txs used so far; the next block's fees follow from it.
    const template = open.executionBlock.header;
    const header = createBlockHeader(
      { ...template.toJSON(), gasUsed: open.gasUsed, ...(template.blobGasUsed !== undefined && { blobGasUsed: open.blobGasUsed }) },
      { common: template.common, skipConsensusFormatValidation: true },
    );
    const nextBlobBaseFee = header.excessBlobGas === undefined ? 0n : header.calcNextBlobGasPrice(header.common);
    return { header, records: open.transactions, nextBaseFee: chain.baseFeeAfter(header), nextBlobBaseFee };
  }
  const sealed = chain.sealedByNumber(number)!;
  // The next block's own fees: the sealed one after it, or the open block after the latest.
  const next = chain.sealedByNumber(number + 1n)?.block.header;
  return {
    header: sealed.block.header,
    records: sealed.transactions,
    nextBaseFee: next === undefined ? open.header.baseFeePerGas : (next.baseFeePerGas ?? 0n),
    nextBlobBaseFee: blobBaseFeeOf(next ?? open.executionBlock.header),
  };
}

/**
 * The tips paid at each percentile of the block's gas (go-ethereum's processBlock): txs sorted by
 * effective tip, the tip of the first tx at which the gas used so far reaches the percentile's
 * share of the block's gas. OP-stack deposits pay no gas price: they are no sample of the tips.
 */
function rewardsOf(header: BlockHeader, records: readonly TxRecord[], percentiles: readonly number[]): Hex[] {
  const baseFee = header.baseFeePerGas ?? 0n;
  const samples = records
    .filter((record) => record.depositNonce === undefined)
    .map((record) => ({ tip: record.effectiveGasPrice - baseFee, gas: record.gasUsed }))
    .sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0));
  if (samples.length === 0) return percentiles.map(() => "0x0");
  let index = 0;
  let gasSoFar = samples[0]!.gas;
  return percentiles.map((percentile) => {
    // float64(gasUsed) * p / 100, truncated to an integer, as go-ethereum computes it.
    const threshold = BigInt(Math.trunc((Number(header.gasUsed) * percentile) / 100));
    while (gasSoFar < threshold && index < samples.length - 1) gasSoFar += samples[++index]!.gas;
    return bigIntToHex(samples[index]!.tip);
  });
}

function blobGasUsedRatioOf(header: BlockHeader): number {
  if (header.blobGasUsed === undefined) return 0;
  const max = header.common.getBlobGasSchedule().maxBlobGasPerBlock;
  return max === 0n ? 0 : Number(header.blobGasUsed) / Number(max);
}

/** eth_feeHistory over the chain's own blocks. */
export function feeHistory(ctx: NodeContext, count: number, selector: BlockSelector, percentiles: readonly number[] | undefined): FeeHistory {
  const empty = checkFeeHistory(count, percentiles);
  if (empty !== undefined) return empty;
  const newest = newestOfFeeHistory(ctx, selector);
  // Not before the first block the chain holds (a fork's first block is the fork block: rpc/fork.ts asks the upstream for older ones).
  const first = ctx.chain.resolve({ kind: "tag", tag: "earliest" })!;
  const firstNumber = first.kind === "sealed" ? first.sealed.block.header.number : 0n;
  // Nor before the oldest block kept after it when older ones were dropped (the blockHistory option): the history is contiguous.
  const dropped = ctx.chain.dropped;
  const floor = dropped !== undefined && newest > dropped.to ? dropped.to + 1n : firstNumber;
  const blocks = BigInt(count) < newest - floor + 1n ? BigInt(count) : newest - floor + 1n;
  const oldest = newest - blocks + 1n;
  const withRewards = percentiles !== undefined && percentiles.length > 0;
  const reward: Hex[][] = [];
  const baseFeePerGas: Hex[] = [];
  const gasUsedRatio: number[] = [];
  const baseFeePerBlobGas: Hex[] = [];
  const blobGasUsedRatio: number[] = [];
  let last: FeeBlock | undefined;
  for (let number = oldest; number <= newest; number++) {
    const block = feeBlock(ctx, number);
    const { header } = block;
    if (withRewards) reward.push(rewardsOf(header, block.records, percentiles));
    baseFeePerGas.push(bigIntToHex(header.baseFeePerGas ?? 0n));
    gasUsedRatio.push(Number(header.gasUsed) / Number(header.gasLimit));
    baseFeePerBlobGas.push(bigIntToHex(blobBaseFeeOf(header)));
    blobGasUsedRatio.push(blobGasUsedRatioOf(header));
    last = block;
  }
  baseFeePerGas.push(bigIntToHex(last!.nextBaseFee));
  baseFeePerBlobGas.push(bigIntToHex(last!.nextBlobBaseFee));
  return { oldestBlock: bigIntToHex(oldest), ...(withRewards && { reward }), baseFeePerGas, gasUsedRatio, baseFeePerBlobGas, blobGasUsedRatio };
}
