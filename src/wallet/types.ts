/** The wallet's data shapes: known chains, watched assets, permissions, and how a wallet is made. */
import type { Clock } from "../clock.ts";
import type { DevAccount } from "../node/common/accounts.ts";
import type { Chain } from "../node/chain/chain.ts";
import type { Hex } from "../node/common/types.ts";
import type { WalletPersonality } from "../options.ts";
import type { RpcError } from "../protocol/errors.ts";
import type { Decision } from "./policy.ts";

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

/** A watched asset with the account and chain it is listed for (`preconf_walletState`). */
export interface ListedAsset extends WatchedAsset {
  account: Hex;
  chainId: Hex;
}

/**
 * EIP-2255 permission objects, as MetaMask answers them (@metamask/eip1193-permission-middleware):
 * `eth_accounts` with the accounts the origin may see, and (MetaMask) `endowment:permitted-chains`
 * with the chains it may switch to. Both come from one grant: they share `id`, `date` and `invoker`
 * (the origin).
 */
export type Permission =
  | {
      id: string;
      parentCapability: "eth_accounts";
      invoker: string;
      caveats: { type: "restrictReturnedAccounts"; value: Hex[] }[];
      date: number;
    }
  | {
      id: string;
      parentCapability: "endowment:permitted-chains";
      invoker: string;
      caveats: { type: "restrictNetworkSwitching"; value: Hex[] }[];
      date: number;
    };

export interface PromptFlow<V, R> {
  /** Validation, before the policy: throws -32602 (or 4902), never consumes a decision. */
  validate(): V | Promise<V>;
  /**
   * An answer given at once to a valid request, before the user decides (EIP-747's letter; MetaMask's
   * one-call wallet_sendCalls); the decision and what it does follow. Undefined: answer after.
   */
  answerBeforeDecision?(value: V): R | undefined;
  /** An answer that needs no prompt (already connected, already on that chain). */
  withoutPrompt?(value: V): R | undefined;
  /** A screen before the prompt (MetaMask's EIP-7702 upgrade): its refusal answers the request. */
  before?(value: V): Promise<void>;
  /** What approval does. */
  perform(value: V): R | Promise<R>;
  /** The user did not approve (the prompt's decision was not "approve"). */
  onRefused?(value: V): void;
}

/**
 * What the wallet needs of a node it routes to: its chain. The method layer's node context (the
 * chain's services) is one; the wallet keeps it without looking inside.
 */
export interface WalletNode {
  chain: Chain;
}

export interface WalletOptions<N extends WalletNode> {
  /** The node this wallet is built on (the provider's own chain and services). */
  node: N;
  /** The dev accounts whose keys the wallet holds. */
  accounts: readonly DevAccount[];
  clock: Clock;
  /** The in-process provider's events (chainChanged, accountsChanged, connect). */
  emit: (event: string, payload: unknown) => void;
  initialDecision: Decision;
  switchOnAdd: boolean;
  /** The node of another provider, for `addSimulatedChain`. */
  nodeOf: (provider: object) => N | undefined;
  /** False: `eth_accounts` is `[]` and signing is refused (4100) until a dapp connects, as MetaMask. */
  walletConnected: boolean;
  personality: WalletPersonality;
  /** What `wallet_getCallsStatus` reports for a batch pre-confirmed in a fragment (docs/wallet.md). */
  preconfirmedCallsStatus: PreconfirmedCallsStatus;
  /** Any failure as the JSON-RPC error it is answered with (the request log keeps outcomes so). */
  toRpcError: (error: unknown) => RpcError;
}

/** `wallet_getCallsStatus`'s `status` for a pre-confirmed batch: confirmed (200), pending (100), or 201. */
export type PreconfirmedCallsStatus = 100 | 200 | 201;
export const PRECONFIRMED_CALLS_STATUSES = [100, 200, 201] as const;

/** Who a client of the wallet is (docs/wallet.md, "Origins"). */
export interface ClientOptions {
  /**
   * The client's origin: a page's `Origin` header, or `undefined` for a client that sends none
   * (a script, curl, Hardhat over HTTP): all of those are one origin.
   */
  origin: string | undefined;
  /** The client's wallet events (chainChanged, accountsChanged): each client of an origin gets its origin's. */
  emit: (event: string, payload: unknown) => void;
  /**
   * Whether the client is the test (true) or a page (false): a page may not read the request log,
   * the wallet's state, nor change the approval policy (4100), which are the test's.
   */
  trusted: boolean;
  /**
   * Whether the client signs typed data for any domain, as Hardhat's node does for scripts (true),
   * or follows the personality's rules, as a wallet does for a dapp (false).
   */
  signsAnyDomain: boolean;
}

export interface SimulatedChainOptions {
  /** Already in the wallet's list (switchable without wallet_addEthereumChain first); default false. */
  known?: boolean;
  chainName?: string;
  nativeCurrency?: KnownChain["nativeCurrency"];
}
