/** What a method handler may use: the services of one chain (services/context.ts) and the wallet. */
import type { Wallet } from "../wallet/wallet.ts";
import type { NodeContext } from "./services/context.ts";

export interface MethodContext extends NodeContext {
  /** The calling client's view of the simulated wallet (wallet_ methods, prompts, the approval policy). */
  wallet: Wallet<NodeContext>;
}
