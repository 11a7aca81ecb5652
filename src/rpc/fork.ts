/**
 * Lookups a forked chain answers from its upstream: blocks at or below the fork block (the fork
 * block included: the user sees the upstream's block, not the chain's local copy of it), their
 * txs, receipts and logs, and account reads at blocks before the fork block. Everything after the
 * fork block is the chain's own, and an upstream tx or block after the fork block does not exist
 * here (null), as in Hardhat and anvil. On a chain that is not a fork, each method is unchanged.
 */
import { bigIntToHex, hexToBytes, setLengthLeft, bytesToHex } from "@ethereumjs/util";
import { z } from "zod";

import { ForkSource } from "../node/fork/source.ts";
import { ErrorCode, invalidParams, RpcError } from "./errors.ts";
import { checkFeeHistory, newestOfFeeHistory } from "./services/feeHistory.ts";
import { checkLogCriteria, logRange, queryLogs } from "./services/logs.ts";
import { echoKey } from "./services/proof.ts";
import { withFastPath } from "./params.ts";
import { quantity } from "./schema.ts";

import type { MethodContext } from "./context.ts";
import type { FeeHistory } from "./services/feeHistory.ts";
import type { LogFilter } from "./services/logs.ts";
import type { StorageKey } from "./services/proof.ts";
import type { BlockSelector, Hex } from "./schema.ts";
import type { MethodSpec, MethodTable } from "./table.ts";

const q = (value: bigint) => bigIntToHex(value);

/** An upstream's eth_getProof answer: only its storage keys are rewritten. */
interface AccountProof {
  storageProof: { key: Hex }[];
}

type Handler = MethodSpec["handler"];
type Forked = (params: never, ctx: MethodContext, fork: ForkSource, local: Handler) => unknown;

/** The upstream block a selector names, when it names one at or below the fork block (`before`: strictly below). */
function upstreamNumber(ctx: MethodContext, fork: ForkSource, selector: BlockSelector | undefined, before: boolean): bigint | undefined {
  if (selector === undefined) return undefined;
  const limit = before ? fork.blockNumber - 1n : fork.blockNumber;
  if (selector.kind === "tag") return selector.tag === "earliest" ? 0n : undefined;
  if (selector.kind === "number") return selector.number <= limit ? selector.number : undefined;
  const local = ctx.chain.sealedByHash(selector.hash);
  if (local !== undefined && local.block.header.number > fork.blockNumber) return undefined;
  return local?.block.header.number ?? undefined;
}

/** An upstream answer about something in a block; null when that block is after the fork block. */
function withinFork<T extends { blockNumber?: unknown; number?: unknown } | null>(fork: ForkSource, answer: T): T | null {
  if (answer === null || typeof answer !== "object") return null;
  const number = answer.blockNumber ?? answer.number;
  if (typeof number !== "string" || BigInt(number) > fork.blockNumber) return null;
  return answer;
}

/** A block sealed here, after the fork block (the fork block itself is the upstream's). */
function isLocalBlock(ctx: MethodContext, fork: ForkSource, blockHash: Hex): boolean {
  const sealed = ctx.chain.sealedByHash(blockHash);
  return sealed !== undefined && sealed.block.header.number > fork.blockNumber;
}

/** Reads a block the upstream knows by hash (the fork block or older); null otherwise. */
async function upstreamBlockByHash(fork: ForkSource, blockHash: Hex, full: boolean) {
  return withinFork(fork, await fork.cached<{ number?: string } | null>("eth_getBlockByHash", [blockHash, full]));
}

const accountRead = (method: string) =>
  ((params: [Hex, BlockSelector | undefined], ctx: MethodContext, fork: ForkSource, local: Handler) => {
    const [who, selector] = params;
    const number = upstreamNumber(ctx, fork, selector, true);
    return number === undefined ? local(params, ctx) : fork.cached(method, [who, q(number)]);
  }) as Forked;

const forked: Record<string, Forked> = {
  eth_getBlockByNumber: ((params: [BlockSelector, boolean | undefined], ctx, fork, local) => {
    const number = upstreamNumber(ctx, fork, params[0], false);
    return number === undefined ? local(params, ctx) : fork.cached("eth_getBlockByNumber", [q(number), params[1] ?? false]);
  }) as Forked,
  eth_getBlockByHash: ((params: [Hex, boolean | undefined], ctx, fork, local) =>
    isLocalBlock(ctx, fork, params[0]) ? local(params, ctx) : upstreamBlockByHash(fork, params[0], params[1] ?? false)) as Forked,
  eth_getBlockTransactionCountByNumber: ((params: [BlockSelector], ctx, fork, local) => {
    const number = upstreamNumber(ctx, fork, params[0], false);
    return number === undefined ? local(params, ctx) : fork.cached("eth_getBlockTransactionCountByNumber", [q(number)]);
  }) as Forked,
  eth_getTransactionByBlockNumberAndIndex: ((params: [BlockSelector, number], ctx, fork, local) => {
    const number = upstreamNumber(ctx, fork, params[0], false);
    return number === undefined ? local(params, ctx) : fork.cached("eth_getTransactionByBlockNumberAndIndex", [q(number), q(BigInt(params[1]))]);
  }) as Forked,
  eth_getBlockTransactionCountByHash: ((params: [Hex], ctx, fork, local) => {
    if (isLocalBlock(ctx, fork, params[0])) return local(params, ctx);
    return upstreamBlockByHash(fork, params[0], false).then((block) => (block === null ? null : fork.cached("eth_getBlockTransactionCountByHash", params)));
  }) as Forked,
  eth_getTransactionByBlockHashAndIndex: ((params: [Hex, number], ctx, fork, local) => {
    if (isLocalBlock(ctx, fork, params[0])) return local(params, ctx);
    return upstreamBlockByHash(fork, params[0], false).then((block) =>
      block === null ? null : fork.cached("eth_getTransactionByBlockHashAndIndex", [params[0], q(BigInt(params[1]))]),
    );
  }) as Forked,
  eth_getTransactionByHash: ((params: [Hex], ctx, fork, local) => {
    const answer = local(params, ctx);
    if (answer !== null) return answer;
    return fork.cached<{ blockNumber?: string } | null>("eth_getTransactionByHash", params).then((tx) => withinFork(fork, tx));
  }) as Forked,
  eth_getTransactionReceipt: ((params: [Hex], ctx, fork, local) => {
    const answer = local(params, ctx);
    if (answer !== null) return answer;
    return fork.cached<{ blockNumber?: string } | null>("eth_getTransactionReceipt", params).then((receipt) => withinFork(fork, receipt));
  }) as Forked,
  eth_getLogs: ((params: [LogFilter], ctx, fork) => forkedLogs(params[0], ctx, fork)) as Forked,
  // A log filter's logs are eth_getLogs' with its criteria (its changes are new blocks: the chain's own).
  eth_getFilterLogs: ((params: [string], ctx, fork) => forkedLogs(ctx.filters.logFilter(params[0]), ctx, fork)) as Forked,
  eth_feeHistory: ((params: [number, BlockSelector, number[] | undefined], ctx, fork, local) => forkedFeeHistory(params, ctx, fork, local)) as Forked,
  // The fork's own state trie holds only what was read from the upstream or written since: a proof
  // is the upstream's at or before the fork block, and none after it.
  eth_getProof: ((params: [Hex, StorageKey[], BlockSelector | undefined], ctx, fork) => {
    const [who, keys, selector] = params;
    const number = upstreamNumber(ctx, fork, selector ?? { kind: "tag", tag: "latest" }, false);
    if (number === undefined) {
      throw new RpcError(ErrorCode.server, "eth_getProof is not supported after the fork block", { forkBlock: q(fork.blockNumber) });
    }
    return fork
      .cached<AccountProof>("eth_getProof", [who, keys.map((key) => bytesToHex(key.slot)), q(number)])
      .then((answer) => ({ ...answer, storageProof: answer.storageProof.map((item, i) => ({ ...item, key: echoKey(keys[i]!) })) }));
  }) as Forked,
  eth_getBalance: accountRead("eth_getBalance"),
  eth_getCode: accountRead("eth_getCode"),
  eth_getTransactionCount: accountRead("eth_getTransactionCount"),
  eth_getStorageAt: ((params: [Hex, bigint, BlockSelector | undefined], ctx, fork, local) => {
    const [who, slot, selector] = params;
    const number = upstreamNumber(ctx, fork, selector, true);
    if (number === undefined) return local(params, ctx);
    return fork.cached("eth_getStorageAt", [who, bytesToHex(setLengthLeft(hexToBytes(q(slot)), 32)), q(number)]);
  }) as Forked,
};

/**
 * Logs at or below the fork block come from the upstream (one eth_getLogs over that part of the
 * range), the later ones from the chain, which reads only its own blocks.
 */
async function forkedLogs(filter: LogFilter, ctx: MethodContext, fork: ForkSource): Promise<unknown[]> {
  checkLogCriteria(filter);
  const local = (range: LogFilter) => queryLogs(ctx.chain, range);
  const criteria = { ...(filter.address !== undefined && { address: filter.address }), ...(filter.topics !== undefined && { topics: filter.topics }) };
  if (filter.blockHash !== undefined) {
    const sealed = ctx.chain.sealedByHash(filter.blockHash);
    if (sealed !== undefined && sealed.block.header.number > fork.blockNumber) return local(filter);
    return fork.cached<unknown[]>("eth_getLogs", [{ blockHash: filter.blockHash, ...criteria }]);
  }
  const { from, to } = logRange(ctx.chain, filter);
  const upstream =
    from <= fork.blockNumber
      ? await fork.cached<unknown[]>("eth_getLogs", [{ fromBlock: q(from), toBlock: q(to < fork.blockNumber ? to : fork.blockNumber), ...criteria }])
      : [];
  if (to <= fork.blockNumber) return upstream;
  const after = fork.blockNumber + 1n;
  const own = local({ ...filter, fromBlock: from > after ? from : after, toBlock: filter.toBlock ?? "latest" });
  return [...upstream, ...own];
}

/**
 * eth_feeHistory over a range that reaches the fork block or below: that part is the upstream's
 * answer, the rest the chain's, merged into one history of the range asked (anvil's rule,
 * crates/anvil/tests/it/fork.rs `test_fork_fee_history_across_fork_boundary`). A range all at or
 * below the fork block is the upstream's answer as it is. The request is checked as the chain
 * checks its own (services/feeHistory.ts) before the upstream is asked; an upstream that answers
 * no blob fields gives its blocks go-ethereum's values for blocks without blob gas (0).
 */
async function forkedFeeHistory(params: [number, BlockSelector, number[] | undefined], ctx: MethodContext, fork: ForkSource, local: Handler): Promise<unknown> {
  const [count, selector, percentiles] = params;
  const empty = checkFeeHistory(count, percentiles);
  if (empty !== undefined) return empty;
  const newest = upstreamNumber(ctx, fork, selector, false) ?? newestOfFeeHistory(ctx, selector);
  const blocks = BigInt(count) < newest + 1n ? BigInt(count) : newest + 1n;
  const oldest = newest - blocks + 1n;
  if (oldest > fork.blockNumber) return local(params, ctx);
  const upstreamNewest = newest < fork.blockNumber ? newest : fork.blockNumber;
  const asked = [q(upstreamNewest - oldest + 1n), q(upstreamNewest), ...(percentiles === undefined ? [] : [percentiles])];
  const upstream = await fork.cached<FeeHistory>("eth_feeHistory", asked);
  if (newest <= fork.blockNumber) return upstream;
  // The upstream's last base fee is its next block's; here the next block is the chain's own.
  const own = (await local([Number(newest - fork.blockNumber), selector, percentiles], ctx)) as FeeHistory;
  const upstreamBlocks = upstream.gasUsedRatio?.length ?? 0;
  const zeros = <T>(value: T) => new Array<T>(upstreamBlocks).fill(value);
  return {
    oldestBlock: upstream.oldestBlock,
    ...(own.reward !== undefined && { reward: [...(upstream.reward ?? []), ...own.reward] }),
    baseFeePerGas: [...(upstream.baseFeePerGas ?? []).slice(0, upstreamBlocks), ...(own.baseFeePerGas ?? [])],
    gasUsedRatio: [...(upstream.gasUsedRatio ?? []), ...(own.gasUsedRatio ?? [])],
    baseFeePerBlobGas: [...(upstream.baseFeePerBlobGas?.slice(0, upstreamBlocks) ?? zeros<Hex>("0x0")), ...(own.baseFeePerBlobGas ?? [])],
    blobGasUsedRatio: [...(upstream.blobGasUsedRatio ?? zeros(0)), ...(own.blobGasUsedRatio ?? [])],
  };
}

/**
 * eth_call, eth_createAccessList and eth_estimateGas at a block before the fork block: the upstream runs them there, on
 * the request as the caller gave it (these take the raw params: a parsed request is not what the
 * upstream reads).
 */
const forkedRaw: Record<string, (raw: unknown[], parsed: [unknown, BlockSelector | undefined], ctx: MethodContext, fork: ForkSource) => unknown> = {
  eth_call: (raw, [, selector], ctx, fork) => {
    const number = upstreamNumber(ctx, fork, selector, true);
    return number === undefined ? undefined : fork.cached("eth_call", [raw[0], q(number), ...raw.slice(2)]);
  },
  eth_createAccessList: (raw, [, selector], ctx, fork) => {
    const number = upstreamNumber(ctx, fork, selector, true);
    return number === undefined ? undefined : fork.cached("eth_createAccessList", [raw[0], q(number), ...raw.slice(2)]);
  },
  eth_estimateGas: (raw, [, selector], ctx, fork) => {
    const number = upstreamNumber(ctx, fork, selector, true);
    return number === undefined ? undefined : fork.cached("eth_estimateGas", [raw[0], q(number)]);
  },
};

/** `table` with the methods above answering from the upstream on a forked chain. */
export function withForkLookups(table: MethodTable): MethodTable {
  const out: MethodTable = { ...table };
  for (const [name, forward] of Object.entries(forkedRaw)) {
    const spec = table[name];
    if (spec === undefined) continue;
    out[name] = {
      // The parsed params, and the raw ones beside them (issues keep their paths, as positional's).
      params: withFastPath(
        z.unknown().transform((raw, ctx) => {
          const parsed = spec.params.safeParse(raw);
          if (!parsed.success) {
            for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, code: z.ZodIssueCode.custom });
            return z.NEVER;
          }
          return { raw: raw as unknown[], parsed: parsed.data as [unknown, BlockSelector | undefined] };
        }),
        spec.params,
        (parsed, raw) => ({ raw: raw as unknown[], parsed: parsed as [unknown, BlockSelector | undefined] }),
      ),
      handler: ({ raw, parsed }: { raw: unknown[]; parsed: [unknown, BlockSelector | undefined] }, ctx) => {
        const fork = ctx.chain.fork;
        return (fork === undefined ? undefined : forward(raw, parsed, ctx, fork)) ?? spec.handler(parsed, ctx);
      },
    };
  }
  for (const [name, handler] of Object.entries(forked)) {
    const spec = table[name];
    if (spec === undefined) continue;
    out[name] = {
      params: spec.params,
      handler: (params, ctx) => {
        const fork = ctx.chain.fork;
        return fork === undefined ? spec.handler(params, ctx) : handler(params as never, ctx, fork, spec.handler);
      },
    };
  }
  return out;
}

/** hardhat_reset's and anvil_reset's `forking` (Hardhat's shape; `blockNumber` also as hex). */
export const forkingParams = z
  .object({
    jsonRpcUrl: z.string().regex(/^https?:\/\/\S+$/, "must be an http:// or https:// URL"),
    blockNumber: z.union([z.number().int().nonnegative().safe().transform(BigInt), quantity]).optional(),
    httpHeaders: z.record(z.string()).optional(),
  })
  .strict();

/**
 * The upstream a reset forks: the chain keeps its id (its wallet, Common and clients know it), so
 * an upstream of another chain is refused; the disk cache directory carries over.
 */
export async function forkForReset(ctx: MethodContext, forking: z.output<typeof forkingParams>): Promise<ForkSource> {
  const current = ctx.chain.fork?.options;
  const fork = await ForkSource.open({
    url: forking.jsonRpcUrl,
    blockNumber: forking.blockNumber,
    headers: forking.httpHeaders ?? (current?.url === forking.jsonRpcUrl ? current.headers : undefined),
    cacheDir: current?.cacheDir,
  });
  if (fork.chainId !== ctx.chain.chainId) {
    throw invalidParams(
      "params[0].forking.jsonRpcUrl",
      `the upstream's chain id ${fork.chainId} is not this chain's (${ctx.chain.chainId}): start a new provider with the fork option to fork another chain`,
    );
  }
  return fork;
}

/** hardhat_metadata's `forkedNetwork` (Hardhat's fields). */
export function forkedNetwork(ctx: MethodContext): { chainId: number; forkBlockNumber: number; forkBlockHash: Hex } | undefined {
  const fork = ctx.chain.fork;
  return fork === undefined ? undefined : { chainId: Number(fork.chainId), forkBlockNumber: Number(fork.blockNumber), forkBlockHash: fork.block.hash };
}
