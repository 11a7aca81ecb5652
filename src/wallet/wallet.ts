/**
 * One client's view of the wallet (docs/wallet.md, "One wallet, per-origin state"): the in-process
 * provider's `wallet`, a WebSocket connection's, an HTTP request's. The wallet's own state —
 * accounts, known chains, watched assets, batches, the policy and the request log — is shared by
 * every client (state.ts); the connection state — permissions, the selected chain, whether it
 * must connect first — is its origin's (origins.ts). A client's prompts are its own: capped per
 * client and rejected when it goes.
 */
import { decisionError } from "./policy.ts";
import { errorOutcome, deepClone } from "./requestLog.ts";
import { unauthorized, unrecognizedChain } from "./errors.ts";
import { IN_PROCESS_ORIGIN } from "./origins.ts";
import { followsMetaMask, unknownChainError } from "./personality.ts";
import { WalletState } from "./state.ts";

import type { DevAccount } from "../node/common/accounts.ts";
import type { Hex } from "../node/common/types.ts";
import type { WalletPersonality } from "../options.ts";
import type { CallsStore } from "./calls.ts";
import type { OriginState } from "./origins.ts";
import type { PromptingMethod, PromptRequest, WalletPolicy } from "./policy.ts";
import type { WalletRequestRecord } from "./requestLog.ts";
import type {
  ClientOptions,
  KnownChain,
  ListedAsset,
  Permission,
  PromptFlow,
  SimulatedChainOptions,
  WalletNode,
  WalletOptions,
  WatchedAsset,
} from "./types.ts";
import type { ChainData, WatchedAssetParams } from "./validate.ts";

export { MAX_LOGGED_PARAMS_BYTES, MAX_LOGGED_REQUESTS } from "./requestLog.ts";
export type { RequestOutcome, WalletRequestRecord } from "./requestLog.ts";
export type { ClientOptions, KnownChain, ListedAsset, Permission, PromptFlow, SimulatedChainOptions, WalletOptions, WatchedAsset } from "./types.ts";
export { IN_PROCESS_ORIGIN, MAX_ORIGINS, NO_ORIGIN } from "./origins.ts";
export { MAX_KNOWN_CHAINS, MAX_WATCHED_ASSETS } from "./state.ts";

/** What `preconf_walletState` answers: the wallet's chains and assets, and each origin's connection. */
export interface WalletStateSummary {
  accounts: Hex[];
  chains: KnownChain[];
  assets: ListedAsset[];
  origins: { origin: string; chainId: Hex; connected: boolean; requiresConnection: boolean; clients: number }[];
}

export class Wallet<N extends WalletNode = WalletNode> {
  readonly #state: WalletState<N>;
  readonly #client: ClientOptions;
  /** In process, node methods run on the selected chain's node; a server's clients always get the served node. */
  readonly #followsSelectedChain: boolean;
  /** The provider's own wallet: its prompts are the test's, not a client's (no per-client cap). */
  readonly #own: boolean;
  #origin: OriginState | undefined;
  /** Set when the client has gone: its prompts are rejected, now and later. */
  #ended = false;

  /** The provider's wallet: the one wallet, seen from the in-process provider (its own origin). */
  static create<N extends WalletNode>(options: WalletOptions<N>): Wallet<N> {
    const client: ClientOptions = { origin: IN_PROCESS_ORIGIN, emit: options.emit, trusted: true, signsAnyDomain: false };
    return new Wallet(new WalletState(options), client, true, true);
  }

  private constructor(state: WalletState<N>, client: ClientOptions, followsSelectedChain: boolean, own: boolean) {
    this.#state = state;
    this.#client = client;
    this.#followsSelectedChain = followsSelectedChain;
    this.#own = own;
    // The provider's own origin exists from the start: its events are the provider's.
    if (own) this.#originState();
  }

  /**
   * Another client of the same wallet: its origin's connection state, its own events and prompts.
   * A server's clients answer node methods for the served chain, whatever chain they select;
   * `followsSelectedChain` (in process) routes them to the selected chain's node instead.
   */
  client(options: ClientOptions, followsSelectedChain = false): Wallet<N> {
    return new Wallet(this.#state, options, followsSelectedChain, false);
  }

  /** The origin's state, looked up (and the client counted) on first use: a request that needs no wallet builds none. */
  #originState(): OriginState {
    if (this.#origin !== undefined) return this.#origin;
    const origin = this.#state.origins.get(this.#client.origin ?? IN_PROCESS_ORIGIN);
    origin.clients++;
    origin.listeners.add(this.#client.emit);
    this.#origin = origin;
    return origin;
  }

  /**
   * The client has gone (its WebSocket closed, its HTTP request was answered or aborted): prompts it
   * left waiting are rejected with 4001 and leave `pending()`, as MetaMask rejects a closed page's
   * confirmations, and any it would still ask are rejected at once.
   */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.policy.dropPromptsOf(this);
    const origin = this.#origin;
    if (origin !== undefined) {
      origin.clients--;
      origin.listeners.delete(this.#client.emit);
    }
  }

  // ── Who this client is ────────────────────────────────────────────────────────────────────────

  /** The client's origin: a page's `Origin`, `"no-origin"` for clients that send none, `"hardhat-preconf"` in process. */
  get origin(): string {
    return this.#client.origin ?? IN_PROCESS_ORIGIN;
  }

  /** The test (no Origin, or in process), which may read the log and script the policy; a page may not. */
  get trusted(): boolean {
    return this.#client.trusted;
  }

  /** Signs typed data for any domain (scripts, Hardhat), or follows the personality's rules (dapps). */
  get signsAnyDomain(): boolean {
    return this.#client.signsAnyDomain;
  }

  // ── The wallet's own state (shared by every client) ───────────────────────────────────────────

  get policy(): WalletPolicy {
    return this.#state.policy;
  }

  /** Which wallet's answers are given where wallets differ (docs/wallet-personalities.md). */
  get personality(): WalletPersonality {
    return this.#state.personality;
  }

  /** Approved wallet_addEthereumChain requests switch to the chain and emit chainChanged. */
  get switchOnAdd(): boolean {
    return this.#state.switchOnAdd;
  }

  set switchOnAdd(value: boolean) {
    this.#state.switchOnAdd = value;
  }

  /** Addresses of the dev accounts the wallet holds keys for. */
  get accounts(): Hex[] {
    return this.#state.accounts;
  }

  /** The dev accounts the wallet signs with, on every chain it simulates. */
  get keys(): readonly DevAccount[] {
    return this.#state.keys;
  }

  privateKeyOf(address: Hex): Hex | undefined {
    return this.#state.keys.find((account) => account.address === address)?.privateKey;
  }

  /** Known chains, the provider's own first (copies). */
  chains(): KnownChain[] {
    return this.#state.chains();
  }

  knownChain(chainId: Hex): KnownChain | undefined {
    return this.#state.knownChain(chainId);
  }

  /** Watched tokens of an account on a chain (the selected account on this origin's chain by default). */
  assets(account: string = this.selectedAccount, chainId: string = this.activeChainId): WatchedAsset[] {
    return this.#state.assets(account, chainId);
  }

  /** The wallet's chains and assets and every origin's connection (`preconf_walletState`). */
  summary(): WalletStateSummary {
    return {
      accounts: this.accounts,
      chains: this.chains(),
      assets: this.#state.listedAssets(),
      origins: this.#state.origins.values().map((origin) => ({
        origin: origin.key,
        chainId: origin.selectedChainId,
        connected: origin.connected,
        requiresConnection: origin.requireConnection,
        clients: origin.clients,
      })),
    };
  }

  /** The batches wallet_sendCalls sent (wallet_getCallsStatus reads them). */
  get calls(): CallsStore {
    return this.#state.calls;
  }

  /** What wallet_getCallsStatus reports for a pre-confirmed batch (docs/wallet.md). */
  get preconfirmedCallsStatus(): WalletOptions<N>["preconfirmedCallsStatus"] {
    return this.#state.options.preconfirmedCallsStatus;
  }

  /** Every wallet request so far, oldest first (copies). */
  get requests(): WalletRequestRecord[] {
    return structuredClone(this.#state.requests);
  }

  /** How many wallet requests the log holds, without copying it. */
  get requestCount(): number {
    return this.#state.requests.length;
  }

  /** The newest wallet request (a copy), without copying the whole log. */
  get lastRequest(): WalletRequestRecord | undefined {
    const last = this.#state.requests.at(-1);
    return last === undefined ? undefined : structuredClone(last);
  }

  // ── Chains and nodes ──────────────────────────────────────────────────────────────────────────

  /** The served chain's node (its services): what a server's clients' node methods always run on. */
  get ownContext(): N {
    return this.#state.ownNode;
  }

  /**
   * Gives the wallet another simulated chain (another provider): once an in-process client selects
   * it, every node method is answered there. The wallet signs with its own keys on every chain.
   */
  addSimulatedChain(provider: object, options: SimulatedChainOptions = {}): Hex {
    return this.#state.addSimulatedChain(provider, options);
  }

  /** The node this client's node methods run on; undefined when its chain is known only by URL (4901). */
  activeNode(): N | undefined {
    if (!this.#followsSelectedChain) return this.#state.ownNode;
    return this.#state.nodeOf(this.activeChainId);
  }

  /** The node of a chain the wallet simulates (batches are read where they were sent). */
  nodeOf(chainId: Hex): N | undefined {
    return this.#followsSelectedChain || chainId === this.#state.ownChainId ? this.#state.nodeOf(chainId) : undefined;
  }

  /** Adds a chain, or merges the URLs of a known one (a chain is listed once). */
  rememberChain(data: ChainData): void {
    this.#state.rememberChain(data);
  }

  /** -32005 when a new chain would not fit (checked before the prompt). */
  assertRoomForChain(chainId: Hex): void {
    this.#state.assertRoomForChain(chainId);
  }

  // ── The origin's connection state ─────────────────────────────────────────────────────────────

  /** The origin's selected chain (what eth_chainId answers). */
  get activeChainId(): Hex {
    return this.#originState().selectedChainId;
  }

  /** Makes a known chain the origin's; emits chainChanged to its clients (and connect when a node answers again). */
  switchTo(chainId: Hex): void {
    const origin = this.#originState();
    if (!this.#state.hasChain(chainId)) throw unrecognizedChain(chainId);
    if (origin.grant !== undefined && !origin.grant.chains.includes(chainId)) origin.grant.chains.push(chainId);
    if (chainId === origin.selectedChainId) return;
    const wasDisconnected = this.activeNode() === undefined;
    origin.selectedChainId = chainId;
    origin.emit("chainChanged", chainId);
    if (wasDisconnected && this.activeNode() !== undefined) origin.emit("connect", { chainId });
  }

  get connected(): boolean {
    return this.#originState().connected;
  }

  /** Whether accounts are hidden until the origin connects (walletConnected: false, or preconf_walletConnection). */
  get requiresConnection(): boolean {
    return this.#originState().requireConnection;
  }

  /**
   * What `eth_accounts` answers: every dev account, or (walletConnected: false) only those the
   * origin was granted, `[]` before it connects and after it disconnects.
   */
  get visibleAccounts(): Hex[] {
    const origin = this.#originState();
    if (!origin.requireConnection) return this.accounts;
    return [...(origin.grant?.accounts ?? [])];
  }

  /** The account tokens are watched for and calls are sent from by default (MetaMask's selected account). */
  get selectedAccount(): Hex {
    return this.accounts[0]!;
  }

  /**
   * Signing and sending need a granted account when connecting is required: MetaMask answers 4100
   * for any account the page was not granted (eth-json-rpc-middleware's validateAndNormalizeKeyholder).
   */
  assertAuthorized(address: Hex): void {
    if (!this.requiresConnection) return;
    if (!this.visibleAccounts.some((account) => account.toLowerCase() === address.toLowerCase())) throw unauthorized();
  }

  /**
   * Makes this origin start as a fresh MetaMask would (`connected: false`) or as one the page
   * connected before (`connected: true`): connecting is required from then on.
   */
  requireConnection(connected: boolean): void {
    this.#originState().requireConnection = true;
    if (connected) this.connect();
    else this.disconnectAccounts();
  }

  /**
   * EIP-2255 permissions of the origin, as MetaMask lists them: `eth_accounts` and (MetaMask)
   * `endowment:permitted-chains`, both from the one grant (eip1193-permission-middleware).
   */
  permissions(): Permission[] {
    const origin = this.#originState();
    const grant = origin.grant;
    if (grant === undefined) return [];
    const common = { id: grant.id, invoker: origin.key, date: grant.date };
    const permissions: Permission[] = [
      { ...common, parentCapability: "eth_accounts", caveats: [{ type: "restrictReturnedAccounts", value: [...grant.accounts] }] },
    ];
    if (followsMetaMask(this.personality)) {
      permissions.push({
        ...common,
        parentCapability: "endowment:permitted-chains",
        caveats: [{ type: "restrictNetworkSwitching", value: [...grant.chains] }],
      });
    }
    return permissions;
  }

  /** Grants the origin every dev account and its selected chain (EIP-2255); accountsChanged when new. */
  connect(): Permission[] {
    const origin = this.#originState();
    if (origin.grant === undefined) {
      origin.grant = {
        id: `permission-${this.#state.nextRequestId}`,
        date: this.#state.options.clock.now(),
        accounts: this.accounts,
        chains: [origin.selectedChainId],
      };
      origin.emit("accountsChanged", this.accounts);
    }
    return this.permissions();
  }

  /** Drops the origin's grant (wallet_revokePermissions, wallet_disconnect); accountsChanged with []. */
  disconnectAccounts(): void {
    const origin = this.#originState();
    if (origin.grant === undefined) return;
    origin.grant = undefined;
    origin.emit("accountsChanged", []);
  }

  /** Lists a token once per (selected account, selected chain), by address case-insensitively; -32005 beyond the bound. */
  watch(asset: WatchedAssetParams): void {
    this.#state.watch(this.selectedAccount, this.activeChainId, { type: asset.type, ...asset.options });
  }

  /** -32005 when a new token would not fit (checked before the prompt). */
  assertRoomForAsset(address: string): void {
    this.#state.assertRoomForAsset(this.selectedAccount, this.activeChainId, address);
  }

  // ── The prompt flow ───────────────────────────────────────────────────────────────────────────

  /**
   * Runs one wallet request: log it, validate, ask the policy (unless no prompt is needed), then
   * perform on approval. Every outcome lands in the log.
   */
  async prompt<V, R>(method: PromptingMethod, params: unknown, flow: PromptFlow<V, R>): Promise<R> {
    const record = this.#state.record(method, params, this.activeChainId);
    let value: V;
    let early: R | undefined;
    try {
      value = await flow.validate();
      const immediate = flow.withoutPrompt?.(value);
      if (immediate !== undefined) return this.#succeed(record, immediate);
      // A screen the user sees first (MetaMask's account upgrade): its refusal is this request's.
      await flow.before?.(value);
      early = flow.answerBeforeDecision?.(value);
    } catch (error) {
      record.outcome = errorOutcome(error, this.#state.options.toRpcError);
      throw error;
    }
    const decided = this.#decide(record, method, params, value, flow);
    if (early === undefined) return decided;
    // The caller has its answer; the decision (and its outcome in the log) comes later.
    decided.catch(() => undefined);
    return early;
  }

  /**
   * A prompt that is part of another request (MetaMask's EIP-7702 upgrade before a batch): logged
   * on its own, decided by the policy like any prompt; a refusal throws `refusal()` when given, else
   * the decision's error.
   */
  async confirm(method: PromptingMethod, params: unknown, refusal?: () => Error): Promise<void> {
    const record = this.#state.record(method, params, this.activeChainId);
    await this.#decide(record, method, params, undefined, { validate: () => undefined, perform: () => null }, refusal);
  }

  async #decide<V, R>(
    record: WalletRequestRecord,
    method: PromptingMethod,
    params: unknown,
    value: V,
    flow: PromptFlow<V, R>,
    refusal?: () => Error,
  ): Promise<R> {
    try {
      // The policy sees the params whole, even when the log keeps only a note of them; they are
      // copied only for a policy that looks at requests (decideUnseen).
      const request = (): PromptRequest => ({ id: record.id, method, params: deepClone(params), chainId: record.chainId, time: record.time });
      // A client's prompts are counted (and dropped when it goes) as its own.
      const decision = this.#ended ? "reject" : await (this.policy.decideUnseen(method) ?? this.policy.decide(request(), this.#own ? undefined : this));
      record.decision = decision;
      if (decision !== "approve") {
        if (decision === "reject" && refusal !== undefined) throw refusal();
        if (decision === "unrecognizedChain") throw unknownChainError(this.personality, this.activeChainId);
        throw decisionError(decision, this.activeChainId);
      }
      return this.#succeed(record, await flow.perform(value));
    } catch (error) {
      // Refused, or never decided (the prompt limit): what approval would have done will not happen.
      if (record.decision !== "approve") flow.onRefused?.(value);
      record.outcome = errorOutcome(error, this.#state.options.toRpcError);
      throw error;
    }
  }

  /** Logs a wallet request that never prompts (wallet_getPermissions and the like). */
  async answer<R>(method: string, params: unknown, answer: () => R | Promise<R>): Promise<R> {
    const record = this.#state.record(method, params, this.activeChainId);
    try {
      return this.#succeed(record, await answer());
    } catch (error) {
      record.outcome = errorOutcome(error, this.#state.options.toRpcError);
      throw error;
    }
  }

  #succeed<R>(record: WalletRequestRecord, result: R): R {
    record.outcome = { result: deepClone(result) };
    return result;
  }
}
