/**
 * The one wallet behind every transport (docs/wallet.md, "One wallet, per-origin state"): what
 * belongs to the wallet itself — its accounts, the chains it knows, the assets it watches, the
 * batches it sent, the approval policy and the request log — and the origins that connect to it
 * (origins.ts). Every client (the in-process provider, a WebSocket, an HTTP request) is a view of
 * this state through its origin (wallet.ts). What a client can add is bounded (docs/limits.md).
 */
import { bigIntToHex } from "@ethereumjs/util";

import { limitExceeded } from "../protocol/errors.ts";
import { CallsStore } from "./calls.ts";
import { OriginRegistry, OriginState } from "./origins.ts";
import { WalletPolicy } from "./policy.ts";
import { loggedParams, MAX_LOGGED_REQUESTS } from "./requestLog.ts";

import type { DevAccount } from "../node/common/accounts.ts";
import type { Hex } from "../node/common/types.ts";
import type { WalletPersonality } from "../options.ts";
import type { Grant } from "./origins.ts";
import type { WalletRequestRecord } from "./requestLog.ts";
import type { KnownChain, ListedAsset, SimulatedChainOptions, WalletNode, WalletOptions, WatchedAsset } from "./types.ts";
import type { ChainData } from "./validate.ts";

const ETHER = { name: "Ether", symbol: "ETH", decimals: 18 };

/** Chains the wallet knows at once, its own included: one more is -32005 (docs/limits.md). */
export const MAX_KNOWN_CHAINS = 128;
/** Tokens the wallet watches, all accounts and chains together: one more is -32005. */
export const MAX_WATCHED_ASSETS = 1024;

export class WalletState<N extends WalletNode> {
  readonly options: WalletOptions<N>;
  readonly policy: WalletPolicy;
  readonly personality: WalletPersonality;
  readonly keys: readonly DevAccount[];
  readonly ownNode: N;
  readonly ownChainId: Hex;
  /** Approved wallet_addEthereumChain requests switch the origin to the chain (MetaMask). */
  switchOnAdd: boolean;
  readonly requests: WalletRequestRecord[] = [];
  nextRequestId = 1;
  readonly origins: OriginRegistry;
  readonly calls = new CallsStore();
  readonly #chains = new Map<Hex, KnownChain>();
  /** Chains with a node to answer their node methods (the own one first), including ones not listed yet. */
  readonly #simulators = new Map<Hex, N>();
  readonly #assets = new Map<string, WatchedAsset[]>();
  #assetCount = 0;

  constructor(options: WalletOptions<N>) {
    this.options = options;
    this.policy = new WalletPolicy(options.clock, options.initialDecision);
    this.personality = options.personality;
    this.keys = options.accounts;
    this.switchOnAdd = options.switchOnAdd;
    this.ownNode = options.node;
    this.ownChainId = bigIntToHex(options.node.chain.chainId);
    this.origins = new OriginRegistry((key) => new OriginState(key, this.ownChainId, !options.walletConnected));
    this.#simulators.set(this.ownChainId, options.node);
    this.#chains.set(this.ownChainId, {
      chainId: this.ownChainId,
      chainName: "hardhat-preconf",
      nativeCurrency: { ...ETHER },
      rpcUrls: [],
      blockExplorerUrls: [],
      iconUrls: [],
      simulated: true,
    });
    options.node.chain.addSnapshotPart({ capture: () => this.#capture() });
  }

  get accounts(): Hex[] {
    return this.keys.map((account) => account.address);
  }

  // ── Chains ────────────────────────────────────────────────────────────────────────────────────

  chains(): KnownChain[] {
    return [...this.#chains.values()].map((chain) => structuredClone(chain));
  }

  knownChain(chainId: Hex): KnownChain | undefined {
    const chain = this.#chains.get(chainId);
    return chain === undefined ? undefined : structuredClone(chain);
  }

  hasChain(chainId: Hex): boolean {
    return this.#chains.has(chainId);
  }

  /** The node that answers a chain's node methods, if it is simulated. */
  nodeOf(chainId: Hex): N | undefined {
    return this.#simulators.get(chainId);
  }

  /** Refuses (-32005) a new chain when the wallet knows as many as it keeps. */
  assertRoomForChain(chainId: Hex): void {
    if (!this.#chains.has(chainId) && this.#chains.size >= MAX_KNOWN_CHAINS) throw limitExceeded("too many known chains", MAX_KNOWN_CHAINS);
  }

  /** Adds a chain, or merges the URLs of a known one (a chain is listed once). */
  rememberChain(data: ChainData): void {
    const known = this.#chains.get(data.chainId);
    if (known === undefined) {
      this.assertRoomForChain(data.chainId);
      this.#chains.set(data.chainId, {
        chainId: data.chainId,
        chainName: data.chainName,
        nativeCurrency: { ...data.nativeCurrency },
        rpcUrls: [...new Set(data.rpcUrls)],
        blockExplorerUrls: [...new Set(data.blockExplorerUrls ?? [])],
        iconUrls: [...new Set(data.iconUrls ?? [])],
        simulated: this.#simulators.has(data.chainId),
      });
      return;
    }
    // A list stays within its bound when merged, as when it was added (validate.ts WALLET_LIMITS).
    const merged = (old: string[], added: string[] | undefined) => [...new Set([...old, ...(added ?? [])])].slice(0, 32);
    known.rpcUrls = merged(known.rpcUrls, data.rpcUrls);
    known.blockExplorerUrls = merged(known.blockExplorerUrls, data.blockExplorerUrls);
    known.iconUrls = merged(known.iconUrls, data.iconUrls);
  }

  /**
   * Gives the wallet another simulated chain (another provider): an in-process client whose
   * selected chain it is gets its node methods answered there, signed with this wallet's keys.
   */
  addSimulatedChain(provider: object, options: SimulatedChainOptions = {}): Hex {
    const node = this.options.nodeOf(provider);
    if (node === undefined) throw new TypeError("addSimulatedChain expects a PreconfProvider");
    const chainId = bigIntToHex(node.chain.chainId);
    if (this.#simulators.has(chainId)) throw new TypeError(`chain ${chainId} is already simulated`);
    this.#simulators.set(chainId, node);
    const known = this.#chains.get(chainId);
    if (known !== undefined) known.simulated = true;
    else if (options.known === true) {
      this.#chains.set(chainId, {
        chainId,
        chainName: options.chainName ?? `Chain ${node.chain.chainId}`,
        nativeCurrency: { ...(options.nativeCurrency ?? ETHER) },
        rpcUrls: [],
        blockExplorerUrls: [],
        iconUrls: [],
        simulated: true,
      });
    }
    return chainId;
  }

  // ── Assets ────────────────────────────────────────────────────────────────────────────────────

  assets(account: string, chainId: string): WatchedAsset[] {
    return structuredClone(this.#assets.get(assetKey(account, chainId)) ?? []);
  }

  /** Every watched token with its account and chain (`preconf_walletState`). */
  listedAssets(): ListedAsset[] {
    return [...this.#assets].flatMap(([key, list]) => {
      const [account, chainId] = key.split("@") as [Hex, Hex];
      return list.map((asset) => ({ account, chainId, ...structuredClone(asset) }));
    });
  }

  /** Refuses (-32005) a new token when the wallet watches as many as it keeps. */
  assertRoomForAsset(account: string, chainId: string, address: string): void {
    const listed = this.#assets.get(assetKey(account, chainId))?.some((asset) => asset.address.toLowerCase() === address.toLowerCase());
    if (listed !== true && this.#assetCount >= MAX_WATCHED_ASSETS) throw limitExceeded("too many watched assets", MAX_WATCHED_ASSETS);
  }

  /** Lists a token once per (account, chain), by address case-insensitively. */
  watch(account: string, chainId: string, token: WatchedAsset): void {
    this.assertRoomForAsset(account, chainId, token.address);
    const key = assetKey(account, chainId);
    const list = this.#assets.get(key) ?? [];
    const index = list.findIndex((listed) => listed.address.toLowerCase() === token.address.toLowerCase());
    if (index === -1) {
      list.push(token);
      this.#assetCount++;
    } else list[index] = token;
    this.#assets.set(key, list);
  }

  // ── The request log ───────────────────────────────────────────────────────────────────────────

  record(method: string, params: unknown, chainId: Hex): WalletRequestRecord {
    const record: WalletRequestRecord = {
      id: this.nextRequestId++,
      method,
      params: loggedParams(params),
      chainId,
      time: this.options.clock.now(),
      outcome: "pending",
    };
    this.requests.push(record);
    if (this.requests.length > MAX_LOGGED_REQUESTS) this.requests.shift();
    return record;
  }

  // ── evm_snapshot / evm_revert ─────────────────────────────────────────────────────────────────

  /**
   * evm_snapshot / evm_revert cover what the users of the wallet see: known chains, watched
   * assets, each origin's selected chain and grant, the batches and the request log (cut back to
   * the snapshot). Not the policy (the test's script), simulated chains (wiring) or prompts still
   * waiting. Origins that move back hear chainChanged / accountsChanged, as a dapp would.
   */
  #capture(): () => void {
    // Copies without structuredClone (~25 µs of an evm_snapshot + evm_revert pair, which a test
    // file makes per test): a known chain's nested values (currency, URL lists) are replaced,
    // never changed in place (rememberChain, addSimulatedChain), so a copy of its top level keeps
    // them as they are now; asset lists grow in place but their tokens are replaced, never
    // changed; a grant's chains grow in place (switchTo), so its lists are copied.
    const chains = [...this.#chains.values()].map((chain) => ({ ...chain }));
    const assets = [...this.#assets].map(([key, list]) => [key, [...list]] as const);
    const assetCount = this.#assetCount;
    const origins = new Map(
      this.origins
        .values()
        .map((origin) => [origin.key, { selected: origin.selectedChainId, grant: copyGrant(origin.grant), required: origin.requireConnection }]),
    );
    const restoreCalls = this.calls.capture();
    const nextId = this.nextRequestId;
    return () => {
      this.#chains.clear();
      // A chain simulated since the snapshot stays simulated.
      for (const chain of chains) this.#chains.set(chain.chainId, { ...chain, simulated: this.#simulators.has(chain.chainId) });
      this.#assets.clear();
      for (const [key, list] of assets) this.#assets.set(key, [...list]);
      this.#assetCount = assetCount;
      restoreCalls();
      // By id: the oldest records may have left the bounded log since.
      while ((this.requests.at(-1)?.id ?? -1) >= nextId) this.requests.pop();
      for (const origin of this.origins.values()) {
        const saved = origins.get(origin.key);
        const wasConnected = origin.connected;
        const wasSelected = origin.selectedChainId;
        // An origin new since the snapshot starts over; a chain no longer known is left for the wallet's own.
        origin.selectedChainId = saved?.selected ?? this.ownChainId;
        if (!this.#chains.has(origin.selectedChainId)) origin.selectedChainId = this.ownChainId;
        origin.grant = copyGrant(saved?.grant);
        origin.requireConnection = saved?.required ?? !this.options.walletConnected;
        if (origin.selectedChainId !== wasSelected) origin.emit("chainChanged", origin.selectedChainId);
        if (origin.connected !== wasConnected) origin.emit("accountsChanged", origin.connected ? (origin.grant?.accounts ?? []) : []);
      }
    };
  }
}

/** A grant as a snapshot keeps it: its fields are strings and a number, its lists of strings are copied. */
function copyGrant(grant: Grant | undefined): Grant | undefined {
  return grant === undefined ? undefined : { ...grant, accounts: [...grant.accounts], chains: [...grant.chains] };
}

function assetKey(account: string, chainId: string): string {
  return `${account.toLowerCase()}@${chainId.toLowerCase()}`;
}
