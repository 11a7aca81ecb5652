/**
 * eth_subscribe / eth_unsubscribe (docs/behaviour.md): Base's flashblocks subscriptions (`newFlashblocks`,
 * `newFlashblockTransactions`, `pendingLogs`) and the standard `newHeads`, `logs`,
 * `newPendingTransactions`. Notifications leave through one `deliver` callback: the provider turns
 * them into EIP-1193 `message` events, the WebSocket server into `eth_subscription` frames.
 * Everything here runs inside the chain's event emission, so nothing may throw back into it.
 */
import { randomBytes } from "node:crypto";

import { z } from "zod";

import { invalidParams, limitExceeded } from "../errors.ts";
import { formatBlock, formatExecuted, formatLog, formatReceipt, formatTransaction } from "../format.ts";
import { fieldOf } from "../params.ts";
import { address, hash } from "../schema.ts";

import type { EventEmitter } from "node:events";
import type { Chain } from "../../node/chain/chain.ts";
import type { PooledTx } from "../../node/pool/mempool.ts";
import type { Flashblock } from "../../node/pool/pendingFeed.ts";
import type { LogRecord, SealedBlock, TxRecord } from "../../node/chain/records.ts";
import type { BlockSizes } from "../format.ts";
import type { Hex } from "../schema.ts";

export interface SubscriptionMessage {
  type: "eth_subscription";
  data: { subscription: Hex; result: unknown };
}

/** `{ address, topics }` of `logs` and `pendingLogs` (eth_getLogs' matching rules). */
export const logSubscriptionFilter = z
  .object({
    address: z.union([address, z.array(address)]).optional(),
    topics: z
      .array(z.union([hash, z.array(hash), z.null()]))
      .max(4)
      .optional(),
  })
  .optional();

export type LogSubscriptionFilter = z.output<typeof logSubscriptionFilter>;

export const SUBSCRIPTION_KINDS = ["newHeads", "logs", "newPendingTransactions", "newFlashblocks", "newFlashblockTransactions", "pendingLogs"] as const;

export type SubscriptionKind = (typeof SUBSCRIPTION_KINDS)[number];

type Subscription =
  | { kind: "newHeads" | "newFlashblocks" }
  | { kind: "logs" | "pendingLogs"; filter: LogSubscriptionFilter }
  | { kind: "newPendingTransactions"; full: boolean }
  /** Base's three modes: hashes, full txs (`true`), or full txs with a log matching a filter object. */
  | { kind: "newFlashblockTransactions"; full: boolean; filter: LogSubscriptionFilter | undefined };

export function matchesLog(filter: LogSubscriptionFilter, log: LogRecord): boolean {
  if (filter === undefined) return true;
  if (filter.address !== undefined) {
    const addresses = Array.isArray(filter.address) ? filter.address : [filter.address];
    if (addresses.length > 0 && !addresses.includes(log.address)) return false;
  }
  return (filter.topics ?? []).every((wanted, i) => {
    if (wanted === null) return true;
    const topic = log.topics[i];
    if (topic === undefined) return false;
    return Array.isArray(wanted) ? wanted.length === 0 || wanted.includes(topic) : wanted === topic;
  });
}

/**
 * Emits to every listener separately: one that throws neither stops the others nor reaches the
 * emitter's caller (here, the chain mid-fragment). Its error is reported as a process warning.
 */
export function emitGuarded(emitter: EventEmitter, event: string, payload: unknown): void {
  for (const listener of emitter.rawListeners(event)) {
    try {
      (listener as (value: unknown) => void).call(emitter, payload);
    } catch (error) {
      process.emitWarning(`a "${event}" listener threw: ${error instanceof Error ? error.message : String(error)}`, "PreconfListenerWarning");
    }
  }
}

/**
 * Base's `newFlashblockTransactions` full form (`TransactionWithLogs`, base/base
 * crates/execution/flashblocks/src/rpc/types.rs): the transaction object flattened with its logs and
 * the receipt fields flashblock execution knows. `gasUsed` is a JSON number there, the rest quantities.
 */
export function formatTransactionWithLogs(record: TxRecord): Record<string, unknown> {
  const receipt = formatReceipt(record);
  return {
    ...formatExecuted(record),
    logs: receipt.logs,
    gasUsed: Number(record.gasUsed),
    ...("status" in receipt && { status: receipt.status }),
    cumulativeGasUsed: receipt.cumulativeGasUsed,
    contractAddress: receipt.contractAddress,
    logsBloom: receipt.logsBloom,
  };
}

function formatHead(sealed: SealedBlock, sizes: BlockSizes): Record<string, unknown> {
  const { transactions: _transactions, uncles: _uncles, ...header } = formatBlock({ kind: "sealed", sealed }, false, sizes);
  return header;
}

export class SubscriptionManager {
  readonly #sizes: BlockSizes;
  readonly #deliver: (message: SubscriptionMessage) => void;
  readonly #subscriptions = new Map<Hex, Subscription>();
  readonly #detach: () => void;

  readonly #max: number;

  /** `max`: most live subscriptions (0: no limit); one more is -32005. */
  /** `sizes`: the chain's block sizes (its ChainScope), for the heads' `size`. */
  constructor(chain: Chain, sizes: BlockSizes, deliver: (message: SubscriptionMessage) => void, max = 0) {
    this.#sizes = sizes;
    this.#deliver = deliver;
    const onFlashblock = (flashblock: Flashblock) => this.#guard(() => this.#onFlashblock(flashblock));
    this.#max = max;
    const onSealed = (sealed: SealedBlock) => this.#guard(() => this.#onSealed(sealed));
    const onPending = (entry: PooledTx) => this.#guard(() => this.#onPending(entry));
    chain.feed.on("flashblock", onFlashblock);
    chain.on("sealed", onSealed);
    chain.on("pendingTransaction", onPending);
    this.#detach = () => {
      chain.feed.off("flashblock", onFlashblock);
      chain.off("sealed", onSealed);
      chain.off("pendingTransaction", onPending);
    };
  }

  get size(): number {
    return this.#subscriptions.size;
  }

  subscribe(kind: SubscriptionKind, option: unknown): Hex {
    const subscription = parseSubscription(kind, option);
    if (this.#max > 0 && this.#subscriptions.size >= this.#max) throw limitExceeded("too many subscriptions", this.#max);
    const id = `0x${randomBytes(16).toString("hex")}` as Hex;
    this.#subscriptions.set(id, subscription);
    return id;
  }

  unsubscribe(id: string): boolean {
    return this.#subscriptions.delete(id.toLowerCase() as Hex);
  }

  /** Drops every subscription and stops listening to the chain. */
  close(): void {
    this.#subscriptions.clear();
    this.#detach();
  }

  #send(id: Hex, result: unknown): void {
    this.#deliver({ type: "eth_subscription", data: { subscription: id, result } });
  }

  /**
   * Base's flashblock subscriptions (base/base crates/execution/flashblocks/src/rpc/pubsub.rs):
   * `newFlashblocks` sends the whole pending block so far (hydrated, hash zero) per flashblock;
   * the others only the newest flashblock's items, one per message.
   */
  #onFlashblock({ fragment, block }: Flashblock): void {
    let pendingBlock: Record<string, unknown> | undefined;
    for (const [id, subscription] of this.#subscriptions) {
      switch (subscription.kind) {
        case "newFlashblocks":
          pendingBlock ??= formatBlock({ kind: "open", open: block }, true, this.#sizes);
          this.#send(id, pendingBlock);
          break;
        case "newFlashblockTransactions":
          for (const record of fragment.transactions) {
            const { filter } = subscription;
            if (filter !== undefined && !record.logs.some((log) => matchesLog(filter, log))) continue;
            this.#send(id, subscription.full ? formatTransactionWithLogs(record) : record.hash);
          }
          break;
        case "pendingLogs":
          this.#sendLogs(id, subscription.filter, fragment.transactions);
          break;
      }
    }
  }

  #onSealed(sealed: SealedBlock): void {
    let head: Record<string, unknown> | undefined;
    for (const [id, subscription] of this.#subscriptions) {
      if (subscription.kind === "newHeads") this.#send(id, (head ??= formatHead(sealed, this.#sizes)));
      else if (subscription.kind === "logs") this.#sendLogs(id, subscription.filter, sealed.transactions);
    }
  }

  #onPending(entry: PooledTx): void {
    for (const [id, subscription] of this.#subscriptions) {
      if (subscription.kind !== "newPendingTransactions") continue;
      this.#send(id, subscription.full ? formatTransaction(entry.tx, entry.sender, undefined) : entry.hash);
    }
  }

  #sendLogs(id: Hex, filter: LogSubscriptionFilter, records: readonly TxRecord[]): void {
    for (const record of records) {
      for (const log of record.logs) {
        if (matchesLog(filter, log)) this.#send(id, formatLog(log, record));
      }
    }
  }

  /** A formatting bug must not break the fragment that triggered it. */
  #guard(notify: () => void): void {
    try {
      notify();
    } catch (error) {
      process.emitWarning(`subscription notification failed: ${error instanceof Error ? error.message : String(error)}`, "PreconfSubscriptionWarning");
    }
  }
}

/** The second `eth_subscribe` parameter, by the schema of its kind. */
function parseOption<S extends z.ZodTypeAny>(schema: S, option: unknown): z.output<S> {
  let parsed: z.SafeParseReturnType<unknown, z.output<S>>;
  try {
    parsed = schema.safeParse(option);
  } catch (error) {
    // In process, an option can be anything: a getter or a proxy that throws is an unreadable option.
    throw invalidParams(fieldOf([1]), error instanceof Error ? error.message : String(error));
  }
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw invalidParams(fieldOf([1, ...issue.path]), issue.message);
  }
  return parsed.data;
}

function parseSubscription(kind: SubscriptionKind, option: unknown): Subscription {
  switch (kind) {
    case "newHeads":
    case "newFlashblocks":
      parseOption(z.undefined({ invalid_type_error: `${kind} takes no options` }), option);
      return { kind };
    case "logs":
    case "pendingLogs":
      return { kind, filter: parseOption(logSubscriptionFilter, option) };
    case "newPendingTransactions":
      return { kind, full: parseOption(z.boolean().optional(), option) ?? false };
    case "newFlashblockTransactions": {
      // `false` or nothing: hashes; `true`: full txs; a filter object: full txs with a matching log.
      const parsed = parseOption(z.union([z.boolean(), logSubscriptionFilter.unwrap().strict()]).optional(), option);
      return typeof parsed === "object" ? { kind, full: true, filter: parsed } : { kind, full: parsed ?? false, filter: undefined };
    }
  }
}
