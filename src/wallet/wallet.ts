/**
 * The simulated wallet of one provider: accounts, known chains (the provider's own first), the
 * active chain, watched tokens per (account, chain), permissions, simulated chains to route node
 * methods to, the approval policy and the log of every wallet request.
 */
import { bigIntToHex } from "@ethereumjs/util";

import { unauthorized, unrecognizedChain } from "../rpc/errors.ts";
import { unknownChainError } from "./personality.ts";
import { decisionError, WalletPolicy } from "./policy.ts";
import { deepClone, errorOutcome, loggedParams, MAX_LOGGED_REQUESTS } from "./requestLog.ts";

import type { Hex } from "../rpc/schema.ts";
import type { NodeContext } from "../rpc/services/context.ts";
import type { DevAccount } from "../node/accounts.ts";
import type { WalletPersonality } from "../options.ts";
import type { PromptingMethod, PromptRequest } from "./policy.ts";
import type { WalletRequestRecord } from "./requestLog.ts";
import type { KnownChain, Permission, PromptFlow, SimulatedChainOptions, WalletOptions, WatchedAsset } from "./types.ts";
import type { ChainData, WatchedAssetParams } from "./validate.ts";

export { MAX_LOGGED_PARAMS_BYTES, MAX_LOGGED_REQUESTS } from "./requestLog.ts";
export type { RequestOutcome, WalletRequestRecord } from "./requestLog.ts";
export type { KnownChain, Permission, PromptFlow, SimulatedChainOptions, WalletOptions, WatchedAsset } from "./types.ts";

/** A context to run methods in with this wallet: one chain's services and the wallet (rpc/context.ts's MethodContext). */
export type WalletContext = NodeContext & { wallet: Wallet };

const ETHER = { name: "Ether", symbol: "ETH", decimals: 18 };

export class Wallet {
  readonly policy: WalletPolicy;
  /** Which wallet's answers are given where wallets differ (docs/wallet-personalities.md). */
  readonly personality: WalletPersonality;
  readonly #settings: { switchOnAdd: boolean };
  readonly #requests: WalletRequestRecord[];
  readonly #ids: { next: number };
  /** Whether accounts are shown and usable only once a dapp has connected (walletConnected: false). */
  #requireConnection: boolean;
  readonly #chains = new Map<Hex, KnownChain>();
  /** Simulated chains by id, including ones the wallet does not list yet. */
  readonly #simulators = new Map<Hex, WalletContext>();
  readonly #assets = new Map<string, WatchedAsset[]>();
  readonly #keys: readonly DevAccount[];
  readonly #options: WalletOptions;
  readonly ownContext: WalletContext;
  #activeChainId: Hex;
  #permissions: Permission[] = [];
  /** Set when a connection's wallet's client has gone: its prompts are rejected, now and later. */
  #ended = false;

  constructor(options: WalletOptions) {
    this.#options = options;
    this.#keys = options.node.accounts;
    this.personality = options.personality;
    this.#requireConnection = !options.walletConnected;
    const shared = options.shared;
    this.policy = shared?.policy ?? new WalletPolicy(options.clock, options.initialDecision);
    this.#settings = shared?.settings ?? { switchOnAdd: options.switchOnAdd };
    this.#requests = shared?.requests ?? [];
    this.#ids = shared?.ids ?? { next: 1 };
    this.ownContext = { ...options.node, wallet: this };
    const own = bigIntToHex(options.node.chain.chainId);
    this.#activeChainId = own;
    this.#simulators.set(own, this.ownContext);
    this.#chains.set(own, {
      chainId: own,
      chainName: "hardhat-preconf",
      nativeCurrency: { ...ETHER },
      rpcUrls: [],
      blockExplorerUrls: [],
      iconUrls: [],
      simulated: true,
    });
    // A connection's wallet lives as long as its connection: snapshots cover the provider's own.
    if (shared === undefined) options.node.chain.addSnapshotPart({ capture: () => this.#capture() });
  }

  /**
   * A wallet for one client of the server: its own active chain, known chains, permissions and
   * watched assets, its own events; the policy, settings and request log are this wallet's.
   * Node methods of a connection always run on this provider's chain.
   */
  session(emit: (event: string, payload: unknown) => void, walletConnected = this.#options.walletConnected): Wallet {
    return new Wallet({
      ...this.#options,
      emit,
      walletConnected,
      shared: { policy: this.policy, settings: this.#settings, requests: this.#requests, ids: this.#ids },
    });
  }

  /**
   * The client of this connection's wallet has gone (its WebSocket closed, its HTTP request was
   * aborted): prompts it left waiting are rejected with 4001 and leave `pending()`, as MetaMask
   * rejects a closed page's confirmations, and any it would still ask are rejected at once.
   */
  end(): void {
    this.#ended = true;
    this.policy.dropPromptsOf(this);
  }

  /** Approved wallet_addEthereumChain requests switch to the chain and emit chainChanged. */
  get switchOnAdd(): boolean {
    return this.#settings.switchOnAdd;
  }

  set switchOnAdd(value: boolean) {
    this.#settings.switchOnAdd = value;
  }

  /**
   * evm_snapshot / evm_revert cover what the user of the wallet sees: known chains, the active
   * chain, watched assets, permissions, and the request log (cut back to the snapshot). Not the
   * policy (the test's script), simulated chains (wiring) or prompts still waiting.
   */
  #capture(): () => void {
    const chains = structuredClone([...this.#chains.values()]);
    const assets = structuredClone([...this.#assets]);
    const permissions = structuredClone(this.#permissions);
    const activeChainId = this.#activeChainId;
    const nextId = this.#ids.next;
    return () => {
      const wasConnected = this.connected;
      const wasActive = this.#activeChainId;
      this.#chains.clear();
      // A chain simulated since the snapshot stays simulated.
      for (const chain of chains) this.#chains.set(chain.chainId, { ...chain, simulated: this.#simulators.has(chain.chainId) });
      this.#assets.clear();
      for (const [key, list] of assets) this.#assets.set(key, list);
      this.#permissions = permissions;
      this.#activeChainId = activeChainId;
      // By id: the oldest records may have left the bounded log since.
      while ((this.#requests.at(-1)?.id ?? -1) >= nextId) this.#requests.pop();
      // A dapp listening for these events follows the wallet back.
      if (activeChainId !== wasActive) this.#options.emit("chainChanged", activeChainId);
      if (this.connected !== wasConnected) this.#options.emit("accountsChanged", this.connected ? this.accounts : []);
    };
  }

  // ── State ─────────────────────────────────────────────────────────────────────────────────────

  /** Addresses of the dev accounts the wallet holds keys for. */
  get accounts(): Hex[] {
    return this.#keys.map((account) => account.address);
  }

  /**
   * What `eth_accounts` answers: every dev account, or (walletConnected: false) only those a
   * connected dapp was granted, `[]` before it connects and after it disconnects.
   */
  get visibleAccounts(): Hex[] {
    if (!this.#requireConnection) return this.accounts;
    return this.#permissions.flatMap((permission) => permission.caveats.flatMap((caveat) => caveat.value));
  }

  /** Whether accounts are hidden until a dapp connects (the provider option walletConnected: false). */
  get requiresConnection(): boolean {
    return this.#requireConnection;
  }

  /**
   * Signing and sending need a granted account when connecting is required: MetaMask answers 4100
   * for any account the page was not granted (eth-json-rpc-middleware's validateAndNormalizeKeyholder).
   */
  assertAuthorized(address: Hex): void {
    if (!this.#requireConnection) return;
    if (!this.visibleAccounts.some((account) => account.toLowerCase() === address.toLowerCase())) throw unauthorized();
  }

  /**
   * Makes this wallet start as a fresh MetaMask would (`connected: false`) or as one the page
   * connected before (`connected: true`): connecting is required from then on.
   */
  requireConnection(connected: boolean): void {
    this.#requireConnection = true;
    if (connected) this.connect();
    else this.disconnectAccounts();
  }

  /** The account tokens are watched for (MetaMask's selected account). */
  get selectedAccount(): Hex {
    return this.accounts[0]!;
  }

  get connected(): boolean {
    return this.#permissions.length > 0;
  }

  get activeChainId(): Hex {
    return this.#activeChainId;
  }

  /** Known chains, the provider's own first (copies). */
  chains(): KnownChain[] {
    return [...this.#chains.values()].map((chain) => structuredClone(chain));
  }

  knownChain(chainId: Hex): KnownChain | undefined {
    const chain = this.#chains.get(chainId);
    return chain === undefined ? undefined : structuredClone(chain);
  }

  permissions(): Permission[] {
    return structuredClone(this.#permissions);
  }

  /** Watched tokens of an account on a chain (the selected account on the active chain by default). */
  assets(account: string = this.selectedAccount, chainId: string = this.#activeChainId): WatchedAsset[] {
    return structuredClone(this.#assets.get(assetKey(account, chainId)) ?? []);
  }

  /** Every wallet request so far, oldest first (copies). */
  get requests(): WalletRequestRecord[] {
    return structuredClone(this.#requests);
  }

  /** How many wallet requests the log holds, without copying it. */
  get requestCount(): number {
    return this.#requests.length;
  }

  /** The newest wallet request (a copy), without copying the whole log. */
  get lastRequest(): WalletRequestRecord | undefined {
    const last = this.#requests.at(-1);
    return last === undefined ? undefined : structuredClone(last);
  }

  privateKeyOf(address: Hex): Hex | undefined {
    return this.#keys.find((account) => account.address === address)?.privateKey;
  }

  // ── Chains ────────────────────────────────────────────────────────────────────────────────────

  /**
   * Gives the wallet another simulated chain (another provider): once it is the active chain,
   * every node method is answered there. The wallet signs with its own keys on every chain.
   */
  addSimulatedChain(provider: object, options: SimulatedChainOptions = {}): Hex {
    const node = this.#options.nodeOf(provider);
    if (node === undefined) throw new TypeError("addSimulatedChain expects a PreconfProvider");
    const chainId = bigIntToHex(node.chain.chainId);
    if (this.#simulators.has(chainId)) throw new TypeError(`chain ${chainId} is already simulated`);
    this.#simulators.set(chainId, { ...node, accounts: this.#keys, wallet: this });
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

  /** The context node methods run in: the active chain's, or undefined for a URL-only chain. */
  activeNode(): WalletContext | undefined {
    // A connection's wallet: node methods always run on the served node, whatever the active chain.
    if (this.#options.shared !== undefined) return this.ownContext;
    return this.#simulators.get(this.#activeChainId);
  }

  /** Adds a chain, or merges the URLs of a known one (a chain is listed once). */
  rememberChain(data: ChainData): void {
    const known = this.#chains.get(data.chainId);
    if (known === undefined) {
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
    known.rpcUrls = [...new Set([...known.rpcUrls, ...data.rpcUrls])];
    known.blockExplorerUrls = [...new Set([...known.blockExplorerUrls, ...(data.blockExplorerUrls ?? [])])];
    known.iconUrls = [...new Set([...known.iconUrls, ...(data.iconUrls ?? [])])];
  }

  /** Makes a known chain active; emits chainChanged (and connect when a node answers again). */
  switchTo(chainId: Hex): void {
    if (!this.#chains.has(chainId)) throw unrecognizedChain(chainId);
    if (chainId === this.#activeChainId) return;
    const wasDisconnected = this.activeNode() === undefined;
    this.#activeChainId = chainId;
    this.#options.emit("chainChanged", chainId);
    if (wasDisconnected && this.activeNode() !== undefined) this.#options.emit("connect", { chainId });
  }

  // ── Accounts, permissions, assets ─────────────────────────────────────────────────────────────

  /** Grants eth_accounts for every dev account (EIP-2255) and emits accountsChanged when new. */
  connect(): Permission[] {
    if (!this.connected) {
      this.#permissions = [
        {
          id: `eth_accounts-${this.#ids.next}`,
          parentCapability: "eth_accounts",
          invoker: "hardhat-preconf",
          caveats: [{ type: "restrictReturnedAccounts", value: this.accounts }],
          date: this.#options.clock.now(),
        },
      ];
      this.#options.emit("accountsChanged", this.accounts);
    }
    return this.permissions();
  }

  /** Drops every permission (wallet_revokePermissions) and emits accountsChanged with []. */
  disconnectAccounts(): void {
    if (!this.connected) return;
    this.#permissions = [];
    this.#options.emit("accountsChanged", []);
  }

  /** Lists a token once per (account, chain), by address case-insensitively. */
  watch(asset: WatchedAssetParams): void {
    const key = assetKey(this.selectedAccount, this.#activeChainId);
    const list = this.#assets.get(key) ?? [];
    const token: WatchedAsset = { type: asset.type, ...asset.options };
    const index = list.findIndex((listed) => listed.address.toLowerCase() === token.address.toLowerCase());
    if (index === -1) list.push(token);
    else list[index] = token;
    this.#assets.set(key, list);
  }

  // ── The prompt flow ───────────────────────────────────────────────────────────────────────────

  /**
   * Runs one wallet request: log it, validate, ask the policy (unless no prompt is needed), then
   * perform on approval. Every outcome lands in the log.
   */
  async prompt<V, R>(method: PromptingMethod, params: unknown, flow: PromptFlow<V, R>): Promise<R> {
    const record = this.#record(method, params);
    let value: V;
    try {
      value = await flow.validate();
      const immediate = flow.withoutPrompt?.(value);
      if (immediate !== undefined) return this.#succeed(record, immediate);
    } catch (error) {
      record.outcome = errorOutcome(error);
      throw error;
    }
    const decided = this.#decide(record, method, params, value, flow);
    if (flow.answerBeforeDecision === undefined) return decided;
    // The caller has its answer; the decision (and its outcome in the log) comes later.
    decided.catch(() => undefined);
    return flow.answerBeforeDecision;
  }

  async #decide<V, R>(record: WalletRequestRecord, method: PromptingMethod, params: unknown, value: V, flow: PromptFlow<V, R>): Promise<R> {
    try {
      // The policy sees the params whole, even when the log keeps only a note of them.
      const request: PromptRequest = { id: record.id, method, params: deepClone(params), chainId: record.chainId, time: record.time };
      // A connection's prompts are counted (and dropped when it goes) as its own.
      const client = this.#options.shared === undefined ? undefined : this;
      const decision = this.#ended ? "reject" : await this.policy.decide(request, client);
      record.decision = decision;
      if (decision === "unrecognizedChain") throw unknownChainError(this.personality, this.#activeChainId);
      if (decision !== "approve") throw decisionError(decision, this.#activeChainId);
      return this.#succeed(record, await flow.perform(value));
    } catch (error) {
      record.outcome = errorOutcome(error);
      throw error;
    }
  }

  /** Logs a wallet request that never prompts (wallet_getPermissions and the like). */
  answer<R>(method: string, params: unknown, answer: () => R): R {
    const record = this.#record(method, params);
    try {
      return this.#succeed(record, answer());
    } catch (error) {
      record.outcome = errorOutcome(error);
      throw error;
    }
  }

  #record(method: string, params: unknown): WalletRequestRecord {
    const record: WalletRequestRecord = {
      id: this.#ids.next++,
      method,
      params: loggedParams(params),
      chainId: this.#activeChainId,
      time: this.#options.clock.now(),
      outcome: "pending",
    };
    this.#requests.push(record);
    if (this.#requests.length > MAX_LOGGED_REQUESTS) this.#requests.shift();
    return record;
  }

  #succeed<R>(record: WalletRequestRecord, result: R): R {
    record.outcome = { result: deepClone(result) };
    return result;
  }
}

function assetKey(account: string, chainId: string): string {
  return `${account.toLowerCase()}@${chainId.toLowerCase()}`;
}
