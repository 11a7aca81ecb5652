/**
 * Polling filters (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter,
 * eth_getFilterChanges, eth_getFilterLogs, eth_uninstallFilter): what viem and ethers use to watch
 * a chain over HTTP. Log and block filters keep a cursor into the sealed chain and read it on each
 * poll; pending-transaction filters buffer hashes. Filters not polled for 5 minutes are dropped
 * (go-ethereum's default), so a forgotten filter does not grow forever.
 */
import { randomBytes } from "node:crypto";

import { filterNotFound, limitExceeded } from "../errors.ts";
import { queryLogs } from "./logs.ts";

import type { Clock } from "../../clock.ts";
import type { Chain } from "../../node/chain/chain.ts";
import type { PooledTx } from "../../node/pool/mempool.ts";
import type { SealedBlock } from "../../node/chain/records.ts";
import type { Hex } from "../schema.ts";
import type { LogFilter } from "./logs.ts";

const FILTER_TIMEOUT_MS = 5 * 60 * 1000;

type Filter = { lastPoll: number } & (
  | { kind: "logs"; filter: LogFilter; cursor: bigint }
  | { kind: "blocks"; cursor: bigint }
  | { kind: "pendingTransactions"; hashes: Hex[] }
);

export class FilterManager {
  readonly #chain: Chain;
  readonly #clock: Clock;
  readonly #filters = new Map<Hex, Filter>();
  readonly #detach: () => void;

  readonly #max: number;

  /** `max`: most installed filters (0: no limit); one more is -32005. */
  constructor(chain: Chain, clock: Clock, max = 0) {
    this.#chain = chain;
    this.#clock = clock;
    this.#max = max;
    const onPending = (entry: PooledTx) => {
      this.#expire();
      for (const filter of this.#filters.values()) {
        if (filter.kind === "pendingTransactions") filter.hashes.push(entry.hash);
      }
    };
    // Blocks sealed again after a revert reuse numbers the cursors have passed: move them back.
    const onRewound = (head: SealedBlock) => {
      for (const filter of this.#filters.values()) {
        if (filter.kind !== "pendingTransactions" && filter.cursor > head.block.header.number) filter.cursor = head.block.header.number;
      }
    };
    chain.on("pendingTransaction", onPending);
    chain.on("rewound", onRewound);
    this.#detach = () => {
      chain.off("pendingTransaction", onPending);
      chain.off("rewound", onRewound);
    };
  }

  get size(): number {
    return this.#filters.size;
  }

  newLogFilter(filter: LogFilter): Hex {
    return this.#install({ kind: "logs", filter, cursor: this.#head(), lastPoll: this.#clock.now() });
  }

  newBlockFilter(): Hex {
    return this.#install({ kind: "blocks", cursor: this.#head(), lastPoll: this.#clock.now() });
  }

  newPendingTransactionFilter(): Hex {
    return this.#install({ kind: "pendingTransactions", hashes: [], lastPoll: this.#clock.now() });
  }

  /** What happened since the last poll: logs, block hashes or tx hashes. */
  changes(id: string): unknown[] {
    const filter = this.#get(id);
    filter.lastPoll = this.#clock.now();
    const head = this.#head();
    switch (filter.kind) {
      case "pendingTransactions":
        return filter.hashes.splice(0);
      case "blocks": {
        const hashes: Hex[] = [];
        for (let number = filter.cursor + 1n; number <= head; number++) {
          // hardhat_mine's reserved empty blocks are not announced (as EDR's filters).
          const runEnd = this.#chain.unbuiltRunEnd(number);
          if (runEnd !== undefined) number = runEnd;
          else {
            // A block dropped since the last poll (the blockHistory option) is not announced.
            const sealed = this.#chain.sealedByNumber(number);
            if (sealed !== undefined) hashes.push(sealed.hash);
          }
        }
        filter.cursor = head;
        return hashes;
      }
      case "logs": {
        const from = filter.cursor + 1n;
        filter.cursor = head;
        if (filter.filter.blockHash !== undefined || from > head) return [];
        const { fromBlock, toBlock } = filter.filter;
        // Only the new sealed blocks, within the filter's own numeric bounds.
        const lower = typeof fromBlock === "bigint" && fromBlock > from ? fromBlock : from;
        const upper = typeof toBlock === "bigint" && toBlock < head ? toBlock : head;
        if (lower > upper) return [];
        return queryLogs(this.#chain, { ...filter.filter, fromBlock: lower, toBlock: upper });
      }
    }
  }

  /** Every log a log filter matches (eth_getLogs with its criteria). */
  logs(id: string): unknown[] {
    return queryLogs(this.#chain, this.logFilter(id));
  }

  /** A log filter's criteria, as polled (a fork answers its logs with the upstream's too: rpc/fork.ts). */
  logFilter(id: string): LogFilter {
    const filter = this.#get(id);
    if (filter.kind !== "logs") throw filterNotFound();
    filter.lastPoll = this.#clock.now();
    return filter.filter;
  }

  uninstall(id: string): boolean {
    return this.#filters.delete(id.toLowerCase() as Hex);
  }

  close(): void {
    this.#filters.clear();
    this.#detach();
  }

  #head(): bigint {
    return this.#chain.latest.block.header.number;
  }

  #install(filter: Filter): Hex {
    this.#expire();
    if (this.#max > 0 && this.#filters.size >= this.#max) throw limitExceeded("too many filters", this.#max);
    const id = `0x${randomBytes(16).toString("hex")}` as Hex;
    this.#filters.set(id, filter);
    return id;
  }

  #get(id: string): Filter {
    this.#expire();
    const filter = this.#filters.get(id.toLowerCase() as Hex);
    if (filter === undefined) throw filterNotFound();
    return filter;
  }

  #expire(): void {
    const deadline = this.#clock.now() - FILTER_TIMEOUT_MS;
    for (const [id, filter] of this.#filters) {
      if (filter.lastPoll < deadline) this.#filters.delete(id);
    }
  }
}
