/**
 * The status companion and EIP-7966 (docs/behaviour.md): `base_transactionStatus` (Base: was the tx
 * received?), the richer `preconf_transactionStatus`, and `eth_sendRawTransactionSync`, which
 * answers the receipt as soon as the tx is pre-confirmed.
 */
import { bigIntToHex, createAddressFromString, intToHex } from "@ethereumjs/util";
import { z } from "zod";

import { admissionError, transactionTimeout } from "./errors.ts";
import { formatReceipt } from "./format.ts";
import { bytes, hash, smallQuantity } from "./schema.ts";
import { method, positional } from "./table.ts";

import type { Clock } from "../clock.ts";
import type { Chain } from "../node/chain/chain.ts";
import type { PooledTx } from "../node/pool/mempool.ts";
import type { Fragment, TxRecord } from "../node/chain/records.ts";
import type { MethodContext } from "./context.ts";
import type { Hex } from "./schema.ts";
import type { MethodTable } from "./table.ts";

export const DEFAULT_SYNC_TIMEOUT_MS = 2000;
export const MAX_SYNC_TIMEOUT_MS = 6000;

export type TransactionStatus = { status: "queued" | "pending" | "unknown" } | { status: "preconfirmed" | "sealed"; blockNumber: Hex; fragmentIndex: Hex };

/**
 * Where a tx is: executed (open or sealed block), pooled (executable or behind a nonce gap), or
 * nowhere. The sequencer's own view, like base_transactionStatus: an injected stall or feed reset
 * (docs/flashblocks.md "Fault injection") freezes clients' pending view, not this.
 */
export async function transactionStatus(chain: Chain, txHash: Hex): Promise<TransactionStatus> {
  const record = chain.transaction(txHash);
  if (record !== undefined) return executedStatus(record);
  // On the writer queue, so the pool and the nonces it is compared with are one snapshot.
  return chain.exclusive(async (vm) => {
    const executed = chain.transaction(txHash);
    if (executed !== undefined) return executedStatus(executed);
    const pooled = chain.pool.get(txHash);
    if (pooled === undefined) return { status: "unknown" };
    const nonce = (await vm.stateManager.getAccount(createAddressFromString(pooled.sender)))?.nonce ?? 0n;
    const executableUpTo = nonce + BigInt(chain.pool.contiguousCount(pooled.sender, nonce));
    return { status: pooled.nonce < executableUpTo ? "pending" : "queued" };
  });
}

const executedStatus = (record: TxRecord): TransactionStatus => ({
  status: record.blockHash === undefined ? "preconfirmed" : "sealed",
  blockNumber: bigIntToHex(record.blockNumber),
  fragmentIndex: intToHex(record.fragmentIndex),
});

/**
 * Resolves with the tx's record once a fragment pre-confirms it; rejects when it leaves the pool
 * unexecuted, or with error 4 after `timeoutMs` of the provider's clock (so fake clocks work).
 */
export function waitForPreconfirmation(chain: Chain, clock: Clock, txHash: Hex, timeoutMs: number): Promise<TxRecord> {
  const known = chain.transaction(txHash);
  if (known !== undefined) return Promise.resolve(known);
  return new Promise((resolve, reject) => {
    const onFragment = (fragment: Fragment) => {
      const record = fragment.transactions.find((candidate) => candidate.hash === txHash);
      if (record !== undefined) settle(() => resolve(record));
    };
    const onDropped = (entry: PooledTx, reason: string) => {
      if (entry.hash === txHash) settle(() => reject(admissionError(reason, { hash: txHash })));
    };
    const timer = clock.after(timeoutMs, () => settle(() => reject(transactionTimeout(txHash, timeoutMs))));
    function settle(outcome: () => void) {
      timer.cancel();
      chain.off("fragment", onFragment);
      chain.off("dropped", onDropped);
      outcome();
    }
    chain.on("fragment", onFragment);
    chain.on("dropped", onDropped);
  });
}

/** EIP-7966's timeout: milliseconds as a number (or a hex quantity), at most 6000. */
const syncTimeout = z
  .union([z.number().int().nonnegative(), smallQuantity])
  .refine((ms) => ms <= MAX_SYNC_TIMEOUT_MS, `timeout must be at most ${MAX_SYNC_TIMEOUT_MS} ms`)
  .optional();

async function sendRawTransactionSync(ctx: MethodContext, raw: Uint8Array, timeoutMs: number): Promise<Record<string, unknown>> {
  const txHash = await ctx.chain.sendRawTransaction(raw);
  const record = await waitForPreconfirmation(ctx.chain, ctx.options.clock, txHash, timeoutMs);
  // With flashblocks retired (Base since Denim) a fragment is a whole block, sealed in the same step: the
  // receipt is then the block's, with its hash, as EIP-7966 answers on a chain without pre-confirmations.
  if (ctx.chain.feed.flashblocksRetired && record.blockHash === undefined) await ctx.chain.idle();
  return formatReceipt(record);
}

export const statusMethods: MethodTable = {
  // Base's answer is whether its txpool holds the tx (pooled or queued): Unknown again once
  // pre-confirmed or included (base/base crates/execution/txpool-rpc/src/rpc.rs). Base's RPC nodes
  // forward it to the sequencer (the same file, `sequencer_url`), whose pool a stalled feed does
  // not touch: it answers live under a stall.
  base_transactionStatus: method(positional(hash), ([txHash], ctx) => ({
    status: ctx.chain.pool.get(txHash) !== undefined ? "Known" : "Unknown",
  })),
  preconf_transactionStatus: method(positional(hash), ([txHash], ctx) => transactionStatus(ctx.chain, txHash)),
  eth_sendRawTransactionSync: method(positional(bytes, syncTimeout), ([raw, timeoutMs], ctx) =>
    sendRawTransactionSync(ctx, raw, timeoutMs ?? DEFAULT_SYNC_TIMEOUT_MS),
  ),
};
