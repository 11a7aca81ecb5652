/** The wallet's data shapes: known chains, watched assets, permissions, and how a wallet is made. */
import type { Clock } from "../clock.ts";
import type { WalletPersonality } from "../options.ts";
import type { NodeContext } from "../rpc/services/context.ts";
import type { Hex } from "../rpc/schema.ts";
import type { Decision, WalletPolicy } from "./policy.ts";
import type { WalletRequestRecord } from "./requestLog.ts";

export interface KnownChain {
  chainId: Hex;
  chainName: string;
  nativeCurrency: { name: string; symbol: string; decimals: number };
  rpcUrls: string[];
  blockExplorerUrls: string[];
  iconUrls: string[];
  /** True when a simulated chain answers its node methods; URL-only chains answer 4901. */
  simulated: boolean;
}

export interface WatchedAsset {
  type: "ERC20";
  address: Hex;
  symbol: string;
  decimals: number;
  image?: string;
}

/** EIP-2255 permission object. */
export interface Permission {
  id: string;
  parentCapability: "eth_accounts";
  invoker: string;
  caveats: { type: "restrictReturnedAccounts"; value: Hex[] }[];
  date: number;
}

export interface PromptFlow<V, R> {
  /** Validation, before the policy: throws -32602 (or 4902), never consumes a decision. */
  validate(): V | Promise<V>;
  /** Given: a valid request is answered with this at once, and the user's decision follows (EIP-747's letter). */
  answerBeforeDecision?: R;
  /** An answer that needs no prompt (already connected, already on that chain). */
  withoutPrompt?(value: V): R | undefined;
  /** What approval does. */
  perform(value: V): R | Promise<R>;
}

export interface WalletOptions {
  node: NodeContext;
  clock: Clock;
  emit: (event: string, payload: unknown) => void;
  initialDecision: Decision;
  switchOnAdd: boolean;
  /** The node context of another provider, for `addSimulatedChain`. */
  nodeOf: (provider: object) => NodeContext | undefined;
  /** False: `eth_accounts` is `[]` and signing is refused (4100) until a dapp connects, as MetaMask. */
  walletConnected: boolean;
  personality: WalletPersonality;
  /** A connection's wallet shares the test's policy, settings and request log with the provider's wallet. */
  shared?: SharedWalletParts;
}

/** What every connection's wallet shares: the test's script of the user, and one log of all requests. */
export interface SharedWalletParts {
  policy: WalletPolicy;
  settings: { switchOnAdd: boolean };
  requests: WalletRequestRecord[];
  ids: { next: number };
}

export interface SimulatedChainOptions {
  /** Already in the wallet's list (switchable without wallet_addEthereumChain first); default false. */
  known?: boolean;
  chainName?: string;
  nativeCurrency?: KnownChain["nativeCurrency"];
}
