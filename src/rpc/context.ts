/** What a method handler may use: the services of one provider. */
import type { Chain } from "../node/chain.ts";
import type { Sequencer } from "../node/sequencer.ts";
import type { DevAccount } from "../node/accounts.ts";
import type { ResolvedOptions } from "../options.ts";
import type { Wallet } from "../wallet/wallet.ts";
import type { FilterManager } from "./filters.ts";
import type { SubscriptionManager } from "./subscriptions.ts";

export interface MethodContext {
  chain: Chain;
  sequencer: Sequencer;
  /** The dev accounts whose keys the node holds (eth_accounts, eth_sendTransaction). */
  accounts: readonly DevAccount[];
  options: ResolvedOptions;
  /** eth_subscribe: notifications become the provider's EIP-1193 `message` events. */
  subscriptions: SubscriptionManager;
  /** eth_newFilter and friends (polling over HTTP). */
  filters: FilterManager;
  /** The simulated wallet (wallet_ methods, prompts, the approval policy). */
  wallet: Wallet;
}
