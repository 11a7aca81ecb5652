/** Log queries (eth_getLogs, eth_getFilterLogs, log filters' polls): a filter's criteria over a range of blocks. */
import { z } from "zod";

import { unknownBlock } from "../errors.ts";
import { formatLog } from "../format.ts";
import { address, blockNumber, hash, NAMED_TAGS } from "../schema.ts";

import type { Chain } from "../../node/chain.ts";

export const logFilter = z
  .object({
    fromBlock: z.union([z.enum(NAMED_TAGS), blockNumber]).optional(),
    toBlock: z.union([z.enum(NAMED_TAGS), blockNumber]).optional(),
    blockHash: hash.optional(),
    address: z.union([address, z.array(address)]).optional(),
    topics: z
      .array(z.union([hash, z.array(hash), z.null()]))
      .max(4)
      .optional(),
  })
  .refine((filter) => filter.blockHash === undefined || (filter.fromBlock === undefined && filter.toBlock === undefined), {
    message: "blockHash cannot be combined with fromBlock or toBlock",
  });

export type LogFilter = z.output<typeof logFilter>;

/** Block numbers a filter bound names; `pending` is the open block. */
function boundOf(chain: Chain, bound: LogFilter["fromBlock"], fallback: bigint): bigint {
  if (bound === undefined) return fallback;
  if (typeof bound === "bigint") return bound;
  if (bound === "earliest") return 0n;
  if (bound === "pending") return chain.open.number;
  return chain.latest.block.header.number;
}

export function queryLogs(chain: Chain, filter: LogFilter): Record<string, unknown>[] {
  let from: bigint;
  let to: bigint;
  if (filter.blockHash !== undefined) {
    const sealed = chain.sealedByHash(filter.blockHash);
    if (sealed === undefined) throw unknownBlock(filter.blockHash);
    from = to = sealed.block.header.number;
  } else {
    const latest = chain.latest.block.header.number;
    from = boundOf(chain, filter.fromBlock, latest);
    to = boundOf(chain, filter.toBlock, latest);
  }
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
