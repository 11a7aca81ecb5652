/**
 * The simulated wallet of one provider: accounts, known chains (the provider's own first), the
 * active chain, watched tokens per (account, chain), permissions, simulated chains to route node
 * methods to, the approval policy and the log of every wallet request.
 */
import { bigIntToHex } from "@ethereumjs/util";

import { internalError, isRpcError, unauthorized, unrecognizedChain } from "../rpc/errors.ts";
import { unknownChainError } from "./personality.ts";
import { decisionError, WalletPolicy } from "./policy.ts";

import type { Clock } from "../clock.ts";
import type { WalletPersonality } from "../options.ts";
import type { MethodContext } from "../rpc/context.ts";
import type { Hex } from "../rpc/schema.ts";
import type { DevAccount } from "../node/accounts.ts";
import type { Decision, PromptingMethod, PromptRequest } from "./policy.ts";
import type { ChainData, WatchedAssetParams } from "./validate.ts";

/** The services of one chain, without a wallet (what a provider's method context holds). */
export type NodeContext = Omit<MethodContext, "wallet">;

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

export type RequestOutcome = "pending" | { result: unknown } | { error: { code: number; message: string; data?: unknown } };

/** One entry of `wallet.requests`. */
export interface WalletRequestRecord {
  id: number;
  method: string;
  /** Deep clone of the params as sent. */
  params: unknown;
  /** Active chain when the request arrived. */
  chainId: Hex;
  time: number;
  /** The policy's decision; absent when the request never reached the policy (invalid, or no prompt needed). */
  decision?: Decision;
  outcome: RequestOutcome;
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
interface SharedWalletParts {
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

const ETHER = { name: "Ether", symbol: "ETH", decimals: 18 };

/** Deeper params are logged as a note: cloning them (and the log, on every read) would overflow the stack. */
const MAX_LOGGED_DEPTH = 64;
/** The request log keeps the newest this many requests: a client must not grow it for ever. */
export const MAX_LOGGED_REQUESTS = 1000;
/** Params larger than this (as JSON) are logged as a note of their size. */
export const MAX_LOGGED_PARAMS_BYTES = 16 * 1024;

/** What the log keeps of a request's params: a copy, or a note when they are too large. */
function loggedParams(params: unknown): unknown {
  const copy = deepClone(params);
  let size = 0;
  try {
    size = JSON.stringify(copy, (_, item: unknown) => (typeof item === "bigint" ? item.toString() : item))?.length ?? 0;
  } catch {
    // A copy JSON cannot write (a cycle) is kept as is: its size is not the budget's concern.
  }
  return size > MAX_LOGGED_PARAMS_BYTES ? `[params of ${size} bytes, not logged]` : copy;
}

/** Whether `value` nests objects deeper than `limit` (iterative: the value may be deeper than the stack). */
function deeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  const seen = new Set<unknown>();
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== "object" || item === null || seen.has(item)) continue;
    if (depth >= limit) return true;
    seen.add(item);
    try {
      for (const child of Object.values(item)) stack.push([child, depth + 1]);
    } catch {
      // A throwing getter or proxy: what can be read is all that gets cloned.
    }
  }
  return false;
}

function deepClone(value: unknown): unknown {
  if (deeperThan(value, MAX_LOGGED_DEPTH)) return `[nested deeper than ${MAX_LOGGED_DEPTH} levels]`;
  try {
    return structuredClone(value);
  } catch {
    // Functions and other uncloneable values: keep what JSON keeps (nothing, for a symbol or a function).
    try {
      const text = JSON.stringify(value, (_, item: unknown) => (typeof item === "bigint" ? item.toString() : item));
      return text === undefined ? undefined : (JSON.parse(text) as unknown);
    } catch {
      // Cycles through functions, throwing getters: the log still records that a request came.
      return Object.prototype.toString.call(value);
    }
  }
}

function errorOutcome(error: unknown): RequestOutcome {
  const json = (isRpcError(error) ? error : internalError(error)).toJSON();
  return { error: { ...json, ...(json.data !== undefined && { data: deepClone(json.data) }) } };
}

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
  readonly #simulators = new Map<Hex, MethodContext>();
  readonly #assets = new Map<string, WatchedAsset[]>();
  readonly #keys: readonly DevAccount[];
  readonly #options: WalletOptions;
  readonly ownContext: MethodContext;
  #activeChainId: Hex;
  #permissions: Permission[] = [];

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
  activeNode(): MethodContext | undefined {
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
      const decision = await this.policy.decide(request);
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
