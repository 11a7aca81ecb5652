/** Log queries (eth_getLogs, eth_getFilterLogs, log filters' polls): a filter's criteria over a range of blocks. */
import { z } from "zod";

import { ErrorCode, RpcError } from "../errors.ts";
import { formatLog } from "../format.ts";
import { address, blockNumber, hash, NAMED_TAGS } from "../schema.ts";

import type { Chain } from "../../node/chain/chain.ts";

/** go-ethereum's limits on log criteria (eth/filters/api.go `maxTopics`; eth/ethconfig `LogQueryLimit`). */
export const MAX_TOPICS = 4;
export const LOG_QUERY_LIMIT = 1000;

export const logFilter = z
  .object({
    fromBlock: z.union([z.enum(NAMED_TAGS), blockNumber]).optional(),
    toBlock: z.union([z.enum(NAMED_TAGS), blockNumber]).optional(),
    blockHash: hash.optional(),
    address: z.union([address, z.array(address)]).optional(),
    // More than MAX_TOPICS is go-ethereum's -32000 (checkLogCriteria), not a malformed param.
    topics: z.array(z.union([hash, z.array(hash), z.null()])).optional(),
  })
  .refine((filter) => filter.blockHash === undefined || (filter.fromBlock === undefined && filter.toBlock === undefined), {
    // go-ethereum's FilterCriteria.UnmarshalJSON text.
    message: "cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other",
  });

export type LogFilter = z.output<typeof logFilter>;

/**
 * go-ethereum's checks of log criteria (eth_getLogs, eth_newFilter: eth/filters/api.go), both
 * -32000: at most MAX_TOPICS topic positions, at most LOG_QUERY_LIMIT addresses or alternatives
 * in one topic position.
 */
export function checkLogCriteria(filter: LogFilter): void {
  const topics = filter.topics ?? [];
  if (topics.length > MAX_TOPICS) throw new RpcError(ErrorCode.server, "exceed max topics");
  const addresses = Array.isArray(filter.address) ? filter.address.length : 0;
  if (addresses > LOG_QUERY_LIMIT || topics.some((topic) => Array.isArray(topic) && topic.length > LOG_QUERY_LIMIT)) {
    throw new RpcError(ErrorCode.server, "exceed max addresses or topics per search position");
  }
}

/** Block numbers a filter bound names; `pending` is the open block. */
function boundOf(chain: Chain, bound: LogFilter["fromBlock"], fallback: bigint): bigint {
  if (bound === undefined) return fallback;
  if (typeof bound === "bigint") return bound;
  if (bound === "earliest") return 0n;
  if (bound === "pending") return chain.open.number;
  return chain.latest.block.header.number;
}

/**
 * The blocks a log query reads, with go-ethereum's errors (eth/filters/filter.go, rangeLogs and
 * updateChainView; read at v1.17.5): a block hash the chain does not have is -32000 "unknown
 * block"; a range whose start is after its end, -32602 "invalid block range params"; one that
 * ends past the head, -32602 "block range extends beyond current head block". The head here is
 * the open block (`pending`), whose pre-confirmed logs a range may include (docs/behaviour.md).
 */
export function logRange(chain: Chain, filter: LogFilter): { from: bigint; to: bigint } {
  if (filter.blockHash !== undefined) {
    const sealed = chain.sealedByHash(filter.blockHash);
    if (sealed === undefined) throw new RpcError(ErrorCode.server, "unknown block");
    const number = sealed.block.header.number;
    return { from: number, to: number };
  }
  const latest = chain.latest.block.header.number;
  const from = boundOf(chain, filter.fromBlock, latest);
  const to = boundOf(chain, filter.toBlock, latest);
  if (from > to) throw new RpcError(ErrorCode.invalidParams, "invalid block range params");
  if (to > chain.open.number) throw new RpcError(ErrorCode.invalidParams, "block range extends beyond current head block");
  // A range over blocks the chain dropped (the blockHistory option) answers as go-ethereum's
  // filters over pruned history do (eth/filters/filter.go: a range starting below the history
  // cutoff is code 4444 "pruned history unavailable"), rather than an incomplete list.
  const dropped = chain.dropped;
  if (dropped !== undefined && from <= dropped.to && to >= dropped.from) throw new RpcError(ErrorCode.prunedHistory, "pruned history unavailable");
  return { from, to };
}

export function queryLogs(chain: Chain, filter: LogFilter): Record<string, unknown>[] {
  checkLogCriteria(filter);
  const { from, to } = logRange(chain, filter);
  const addresses = filter.address === undefined ? undefined : new Set(Array.isArray(filter.address) ? filter.address : [filter.address]);
  const topics = filter.topics ?? [];
  const out: Record<string, unknown>[] = [];
  for (const { log, record } of chain.logs(from, to, to >= chain.open.number)) {
    if (addresses !== undefined && !addresses.has(log.address)) continue;
    const matches = topics.every((wanted, i) => {
      if (wanted === null) return true;
      const topic = log.topics[i];
      if (topic === undefined) return false;
      return Array.isArray(wanted) ? wanted.length === 0 || wanted.includes(topic) : wanted === topic;
    });
    if (matches) out.push(formatLog(log, record));
  }
  return out;
}
