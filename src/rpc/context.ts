/** What a method handler may use: the services of one provider. */
import type { Chain } from "../node/chain.ts";
import type { Sequencer } from "../node/sequencer.ts";
import type { DevAccount } from "../node/accounts.ts";
import type { ResolvedOptions } from "../options.ts";

export interface MethodContext {
  chain: Chain;
  sequencer: Sequencer;
  /** The dev accounts whose keys the node holds (eth_accounts, eth_sendTransaction). */
  accounts: readonly DevAccount[];
  options: ResolvedOptions;
}
