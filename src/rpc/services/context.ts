/**
 * What the services, and every method handler, get of one chain: the chain and its sequencer,
 * the dev accounts, the options, the subscription and filter registries, and the chain's RPC-side
 * state (`scope`). A method handler's context (../context.ts) is this plus the wallet.
 */
import type { DevAccount } from "../../node/common/accounts.ts";
import type { Chain } from "../../node/chain/chain.ts";
import type { Sequencer } from "../../node/chain/sequencer.ts";
import type { ResolvedOptions } from "../../options.ts";
import type { ChainScope } from "./chainScope.ts";
import type { FilterManager } from "./filters.ts";
import type { SubscriptionManager } from "./subscriptions.ts";

export interface NodeContext {
  chain: Chain;
  sequencer: Sequencer;
  /** The dev accounts whose keys the node holds (eth_accounts, eth_sendTransaction). */
  accounts: readonly DevAccount[];
  options: ResolvedOptions;
  /** eth_subscribe: notifications become the provider's EIP-1193 `message` events. */
  subscriptions: SubscriptionManager;
  /** eth_newFilter and friends (polling over HTTP). */
  filters: FilterManager;
  /** The chain's RPC-side state (instance id, block sizes, per-sender send queues); shared by every context of the chain. */
  scope: ChainScope;
}
