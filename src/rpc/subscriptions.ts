/** eth_subscribe / eth_unsubscribe and Base's `base_` names; the subscriptions themselves are services/subscriptions.ts's. */
import { z } from "zod";

import { SUBSCRIPTION_KINDS } from "./services/subscriptions.ts";
import { method, positional } from "./table.ts";

import type { MethodTable } from "./table.ts";

export { emitGuarded, SUBSCRIPTION_KINDS, SubscriptionManager } from "./services/subscriptions.ts";
export type { SubscriptionKind, SubscriptionMessage } from "./services/subscriptions.ts";

const subscribe = method(positional(z.enum(SUBSCRIPTION_KINDS), z.unknown().optional()), ([kind, option], ctx) => ctx.subscriptions.subscribe(kind, option));

export const subscriptionMethods: MethodTable = {
  eth_subscribe: subscribe,
  // One Base release served `newFlashblocks` under the `base_` namespace; both names answer every kind.
  base_subscribe: subscribe,
  base_unsubscribe: method(positional(z.string()), ([id], ctx) => ctx.subscriptions.unsubscribe(id)),
  eth_unsubscribe: method(positional(z.string()), ([id], ctx) => ctx.subscriptions.unsubscribe(id)),
};
