/**
 * `preconf_injectFault` (and `provider.preconf.injectFault`): production failures of Base's
 * pre-confirmation, on demand and on the provider's clock (docs/flashblocks.md "Fault injection").
 */
import { z } from "zod";

import { method, positional } from "./table.ts";

import type { Chain } from "../node/chain/chain.ts";
import type { Hex } from "./schema.ts";
import type { MethodTable } from "./table.ts";

/** A fault lasts at most an hour of the provider's clock. */
const MAX_FAULT_MS = 3_600_000;
const durationMs = z.number().int().positive().max(MAX_FAULT_MS);

export const faultSchema = z.discriminatedUnion("kind", [
  /** Fragments keep executing; the pending view and flashblock notifications freeze, then catch up. */
  z.object({ kind: z.literal("stall"), durationMs }).strict(),
  /** The open block's pre-confirmations are discarded; its txs go back to the pool (default) or are dropped. */
  z.object({ kind: z.literal("reorg"), txs: z.enum(["requeue", "drop"]).optional() }).strict(),
  /** Every WebSocket client of the server is disconnected. */
  z.object({ kind: z.literal("dropConnections") }).strict(),
  /** `pending` answers from `latest` (with `block: "null"`, eth_getBlockByNumber("pending") is null). */
  z.object({ kind: z.literal("pendingUnavailable"), durationMs, block: z.enum(["latest", "null"]).optional() }).strict(),
]);

export type Fault = z.input<typeof faultSchema>;

/** What an injection answers: for a reorg, the hashes of the txs it discarded. */
export type FaultResult = { kind: Fault["kind"]; discarded?: Hex[] };

export async function injectFault(chain: Chain, fault: z.output<typeof faultSchema>): Promise<FaultResult> {
  switch (fault.kind) {
    case "stall":
      await chain.feed.stall(fault.durationMs);
      return { kind: fault.kind };
    case "reorg": {
      const discarded = await chain.reorgOpenBlock((fault.txs ?? "requeue") === "requeue");
      return { kind: fault.kind, discarded: discarded.map((record) => record.hash) };
    }
    case "dropConnections":
      chain.feed.dropConnections();
      return { kind: fault.kind };
    case "pendingUnavailable":
      chain.feed.pendingUnavailable(fault.durationMs, fault.block === "null");
      return { kind: fault.kind };
  }
}

export const faultMethods: MethodTable = {
  preconf_injectFault: method(positional(faultSchema), ([fault], ctx) => injectFault(ctx.chain, fault)),
};
