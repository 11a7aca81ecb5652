/**
 * The EIP-1193 provider: `request` routes to the method table, errors are `RpcError`s with integer
 * `code`, `message` and optional `data`; `preconf` drives the sequencer deterministically.
 */
import { EventEmitter } from "node:events";

import { Chain } from "./node/chain/chain.ts";
import { nativeCrypto } from "./node/common/crypto.ts";
import { devGethGenesis } from "./node/state/genesis.ts";
import { genesisCodeAlloc } from "./node/state/genesisContracts.ts";
import { l1BlockStorageAt, OpStack } from "./node/opstack/execution.ts";
import { encodeFeeParams, opNextBaseFee } from "./node/opstack/feeParams.ts";
import { opStackPrecompiles } from "./node/opstack/precompiles.ts";
import { predeployAlloc } from "./node/opstack/predeploys.ts";
import { walletDelegateAlloc } from "./node/state/walletDelegate.ts";
import { ForkSchedule } from "./node/profiles/forkSchedule.ts";
import { paramsAtFork, PROFILES } from "./node/profiles/profiles.ts";
import { MAX_TIMESTAMP } from "./node/common/time.ts";
import { ChainImportError } from "./node/chain/importChain.ts";
import { Sequencer } from "./node/chain/sequencer.ts";
import { nowSeconds } from "./node/chain/nextBlock.ts";
import { StateDumpError } from "./node/state/stateDump.ts";
import { ForkSource } from "./node/fork/source.ts";
import { InvalidOptionsError, resolveOptions } from "./options.ts";
import { disconnected, engineErrorAsRpc, invalidRequest, toRpcError } from "./rpc/errors.ts";
import { methods } from "./rpc/methods.ts";
import { dispatch } from "./rpc/table.ts";
import { contextFor, isWalletControlMethod, isWalletMethod, routeContext } from "./rpc/wallet.ts";
import { NO_ORIGIN, Wallet } from "./wallet/wallet.ts";
import { ChainScope } from "./rpc/services/chainScope.ts";
import { FilterManager } from "./rpc/services/filters.ts";
import { emitGuarded, SubscriptionManager } from "./rpc/services/subscriptions.ts";

import type { DevAccount } from "./node/common/accounts.ts";
import type { Fragment, SealedBlock } from "./node/chain/records.ts";
import type { MiningMode } from "./node/chain/sequencer.ts";
import type { StateDump } from "./node/state/stateDump.ts";
import type { PreconfProviderOptions, ResolvedOptions } from "./options.ts";
import type { MethodContext } from "./rpc/context.ts";
import type { Fault, FaultResult } from "./rpc/faults.ts";
import type { GenesisAccount, SupportedHardfork } from "./node/state/genesis.ts";
import type { FeeParams } from "./node/opstack/feeParams.ts";
import type { ForkRules } from "./node/profiles/profiles.ts";
import type { Hex } from "./rpc/schema.ts";
import type { NodeContext } from "./rpc/services/context.ts";

export interface RequestArguments {
  readonly method: string;
  readonly params?: readonly unknown[] | object;
}

/** One client of the provider's wallet (the server opens one per WebSocket connection and per HTTP request). */
export interface WalletSession {
  /** This client's view of the wallet: its origin's selected chain and permissions, the wallet's chains and assets. */
  readonly wallet: Wallet<NodeContext>;
  /** EIP-1193 `request` as this client: wallet methods on its wallet, node methods on this chain. */
  request(args: RequestArguments): Promise<unknown>;
  /** The client has gone: prompts it left waiting are rejected (4001) and leave the pending list. */
  end(): void;
}

export interface WalletSessionOptions {
  /** The client's origin (a page's `Origin` header); undefined: a client that sends none, one origin for all of them. */
  origin?: string | undefined;
  /** The client's wallet events (chainChanged, accountsChanged, connect): its origin's. */
  emit: (event: string, payload: unknown) => void;
  /**
   * Whether the client is the test (true) or a page (false): a page may not read the request
   * log nor the wallet's state, nor change the approval policy (4100), which are the test's.
   */
  trusted: boolean;
  /**
   * Sign typed data for any domain, as Hardhat's node does for scripts (default: when the client
   * has no origin), rather than by the personality's rules for a dapp (docs/wallet-personalities.md).
   */
  signsAnyDomain?: boolean;
}

/** Deterministic control of pre-confirmation, in process. */
export interface PreconfControls {
  /** Ticks the clock by `count` fragment intervals and resolves when those fragments are done. */
  advance(count?: number): Promise<void>;
  /** Produces one fragment now (the only way forward in `manual` mode, with `seal`). */
  fragment(): Promise<Fragment>;
  /** Seals the open block now. */
  seal(): Promise<SealedBlock>;
  /** Resolves when every queued admission, fragment and seal has finished. */
  idle(): Promise<void>;
  readonly mining: MiningMode;
  setMining(mode: MiningMode): void;
  readonly fragmentIntervalMs: number;
  readonly fragmentsPerBlock: number;
  /** The chain as a versioned JSON document (`preconf_dumpState`; README "State dump and load"). */
  dumpState(): Promise<StateDump>;
  /** Replaces the chain by a dump (`preconf_loadState`); a bad dump is -32602 and changes nothing. */
  loadState(dump: StateDump): Promise<void>;
  /** Injects a production failure (`preconf_injectFault`; docs/flashblocks.md "Fault injection"). */
  injectFault(fault: Fault): Promise<FaultResult>;
}

/** A request client's method context for a method: keyed by a symbol of this module, so a session's context stays out of reach. */
const CONTEXT_OF = Symbol("contextOf");

/** Who a request is answered for: the method context each method runs in. */
interface RequestClient {
  [CONTEXT_OF](method: string): MethodContext;
}

/** The provider's request path as one of its clients (set by PreconfProvider's static block: it is private there). */
let requestAs: (provider: PreconfProvider, args: RequestArguments, client: RequestClient) => Promise<unknown>;

export class PreconfProvider extends EventEmitter {
  readonly chain: Chain;
  readonly preconf: PreconfControls;
  readonly accounts: readonly DevAccount[];
  readonly options: ResolvedOptions;
  /** The simulated wallet, as this provider's own client sees it: chains, assets, permissions, the approval policy and its request log. */
  readonly wallet: Wallet<NodeContext>;
  /** What node methods of the server's clients run with: this chain's services (they never touch the wallet). */
  readonly #context: MethodContext;
  /** This chain's services: another provider's wallet routes to them (Wallet.addSimulatedChain). */
  readonly #node: NodeContext;
  readonly #sequencer: Sequencer;
  #closed = false;
  /** Set by the first close(): from then on every request is refused with 4900. */
  #closing: Promise<void> | undefined;
  /** Rejecters of requests under way; close() ends those still waiting (a Sync wait, a wallet prompt) with 4900. */
  readonly #pending = new Set<(error: unknown) => void>();
  /** The provider's own requests: every method as its wallet routes it. */
  readonly #ownClient: RequestClient = { [CONTEXT_OF]: (method) => routeContext(this.wallet, method) };

  constructor(chain: Chain, sequencer: Sequencer, options: ResolvedOptions) {
    super();
    this.chain = chain;
    this.options = options;
    this.accounts = options.accounts.map(({ address, privateKey }) => ({ address, privateKey }));
    this.#sequencer = sequencer;
    // Subscriptions arrive as EIP-1193 `message` events; a listener that throws never reaches the chain.
    // The chain's RPC-side state (instance id, block sizes, send queues): one per chain, reset with it.
    const scope = new ChainScope();
    const subscriptions = new SubscriptionManager(chain, scope, (message) => emitGuarded(this, "message", message), options.maxSubscriptions);
    const filters = new FilterManager(chain, options.clock, options.maxFilters);
    const node: NodeContext = { chain, sequencer, accounts: this.accounts, options, subscriptions, filters, scope };
    this.#node = node;
    // ── Simulated wallet (docs/wallet.md): it owns the method context and routes node methods to its active chain.
    this.wallet = Wallet.create<NodeContext>({
      node,
      accounts: this.accounts,
      clock: options.clock,
      emit: (event, payload) => emitGuarded(this, event, payload),
      initialDecision: options.walletPolicy,
      switchOnAdd: options.switchOnAdd,
      nodeOf: (provider) => (#node in provider ? provider.#node : undefined),
      walletConnected: options.walletConnected,
      personality: options.walletPersonality,
      preconfirmedCallsStatus: options.walletPreconfirmedCallsStatus,
      toRpcError,
    });
    this.#context = contextFor(this.wallet, node);
    // After close() nothing moves the chain any more; checked synchronously, so that work
    // started before close() is queued before close() waits for the queue.
    const whileOpen = <T>(run: () => Promise<T>): Promise<T> => (this.#closing === undefined ? run() : Promise.reject(disconnected()));
    this.preconf = {
      advance: (count = 1) => whileOpen(() => sequencer.advance(count)),
      fragment: () => whileOpen(() => chain.produceFragment()),
      seal: () => whileOpen(() => chain.seal()),
      idle: () => chain.idle(),
      get mining() {
        return sequencer.mode;
      },
      setMining: (mode) => sequencer.setMode(mode),
      fragmentIntervalMs: options.fragmentIntervalMs,
      get fragmentsPerBlock() {
        return chain.fragmentsPerBlock;
      },
      dumpState: () => chain.dumpState().catch((error: unknown) => Promise.reject(engineErrorAsRpc(error))),
      loadState: async (dump) => {
        await this.request({ method: "preconf_loadState", params: [dump] });
      },
      injectFault: (fault) => this.request({ method: "preconf_injectFault", params: [fault] }) as Promise<FaultResult>,
    };
  }

  get closed(): boolean {
    return this.#closed;
  }

  static {
    requestAs = (provider, args, client) => provider.#request(args, client);
  }

  /** EIP-1193 `request`. */
  request(args: RequestArguments): Promise<unknown> {
    return this.#request(args, this.#ownClient);
  }

  /**
   * A client of the wallet (docs/wallet.md, "Origins"): its origin's connection state (selected
   * chain, permissions), the wallet's chains, assets, policy and log, its own prompts and events.
   * Its node methods always answer for this provider's chain. Nothing of the wallet is looked up
   * until the client calls a wallet method: a plain read builds no wallet state.
   */
  openWalletSession(options: WalletSessionOptions): WalletSession {
    return new ClientSession(this, this.#context, options);
  }

  async #request(args: RequestArguments, client: RequestClient): Promise<unknown> {
    if (this.#closing !== undefined) throw disconnected();
    let method: unknown;
    let params: unknown;
    try {
      // Read once: a getter or proxy that throws (or answers differently each time) is not a request.
      ({ method, params } = typeof args === "object" && args !== null ? args : { method: undefined, params: undefined });
    } catch {
      method = undefined;
    }
    if (typeof method !== "string") {
      throw invalidRequest("expected { method: string, params?: array | object }");
    }
    const answer = dispatch(methods, client[CONTEXT_OF](method), method, params);
    return new Promise((resolve, reject) => {
      this.#pending.add(reject);
      // One reaction each way (a `finally` would add a promise and two turns to every request).
      answer.then(
        (value) => {
          this.#pending.delete(reject);
          resolve(value);
        },
        (error) => {
          this.#pending.delete(reject);
          reject(error);
        },
      );
    });
  }

  /**
   * Refuses further requests at once (4900), stops the sequencer, lets queued work finish (a
   * fragment under way completes), then rejects requests still waiting with 4900. Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    this.#sequencer.close();
    this.#context.subscriptions.close();
    this.#context.filters.close();
    this.chain.feed.clear();
    await this.chain.idle();
    this.#closed = true;
    for (const reject of this.#pending) reject(disconnected());
    this.#pending.clear();
    emitGuarded(this, "disconnect", disconnected());
  }
}

/**
 * A client of the wallet (PreconfProvider.openWalletSession): a class rather than closures, because
 * the HTTP server opens one per request and the package's build keeps function names (esbuild's
 * keepNames: a `defineProperty` on every named closure made). `request` and `end` are bound, so
 * that they work detached from the session, as its closures did.
 */
class ClientSession implements WalletSession, RequestClient {
  readonly #provider: PreconfProvider;
  readonly #node: MethodContext;
  readonly #options: WalletSessionOptions;
  #wallet: Wallet<NodeContext> | undefined;

  constructor(provider: PreconfProvider, node: MethodContext, options: WalletSessionOptions) {
    this.#provider = provider;
    this.#node = node;
    this.#options = options;
    this.request = this.request.bind(this);
    this.end = this.end.bind(this);
  }

  get wallet(): Wallet<NodeContext> {
    const options = this.#options;
    this.#wallet ??= this.#provider.wallet.client({
      origin: options.origin ?? NO_ORIGIN,
      emit: options.emit,
      trusted: options.trusted,
      signsAnyDomain: options.signsAnyDomain ?? options.origin === undefined,
    });
    return this.#wallet;
  }

  request(args: RequestArguments): Promise<unknown> {
    return requestAs(this.#provider, args, this);
  }

  /** Wallet methods on this client's wallet, node methods on the provider's chain. */
  [CONTEXT_OF](method: string): MethodContext {
    return isWalletMethod(method) || isWalletControlMethod(method) ? routeContext(this.wallet, method) : this.#node;
  }

  end(): void {
    this.#wallet?.end();
  }
}

/**
 * Creates an in-process pre-confirming dev chain.
 *
 * @example
 * ```ts
 * import FakeTimers from "@sinonjs/fake-timers";
 * import { createPreconfProvider } from "hardhat-preconf";
 *
 * const clock = FakeTimers.createClock();
 * const provider = await createPreconfProvider({ clock });
 * const hash = await provider.request({ method: "eth_sendRawTransaction", params: [signed] });
 * await provider.preconf.advance(); // one 200 ms fragment: the tx is pre-confirmed
 * await provider.close();
 * ```
 */
export async function createPreconfProvider(options: PreconfProviderOptions = {}): Promise<PreconfProvider> {
  try {
    return await createProvider(options);
  } catch (error) {
    // The engine's refusals (a fork upstream that is down) reach callers as JSON-RPC errors.
    throw engineErrorAsRpc(error);
  }
}

async function createProvider(options: PreconfProviderOptions): Promise<PreconfProvider> {
  let resolved = resolveOptions(options);
  // A fork is the upstream's chain: its id, its profile when the id is a known one, and its gas
  // limit and base fee at the fork block.
  const fork = resolved.fork === undefined ? undefined : await ForkSource.open(resolved.fork);
  if (fork !== undefined) {
    resolved = resolveOptions(options, fork.chainId);
    resolved.chainId = fork.chainId;
    resolved.blockGasLimit = BigInt(fork.block.gasLimit as string);
  }
  const profile = PROFILES[resolved.profile];
  const schedule = new ForkSchedule(profile.ladder, resolved.forkIndex, resolved.forkSchedule);
  const genesisTime = resolved.genesisTimestamp ?? nowSeconds(resolved.clock);
  // A fork due at or before the genesis would be the genesis' own fork, skipping what its first block does (Denim's scaling).
  for (const [index, { timestamp }] of resolved.forkSchedule) {
    const name = profile.ladder[index]!.name;
    if (timestamp !== undefined && timestamp <= genesisTime) {
      throw new InvalidOptionsError(
        `forkSchedule.${name}`,
        `timestamp ${timestamp} is not after the genesis (${genesisTime}): start the chain at ${name} with hardfork instead`,
      );
    }
  }
  const params = paramsAtFork(profile, resolved.forkIndex);
  const feeParams: FeeParams | undefined =
    profile.op === undefined || params.eip1559 === undefined ? undefined : { ...params.eip1559, minBaseFee: params.minBaseFee };
  const alloc = new Map<Hex, GenesisAccount>(resolved.accounts.map((account) => [account.address, { balance: account.balance }]));
  // A fork's predeploys are the upstream's (code, storage and the vaults' balances).
  if (profile.op !== undefined && fork === undefined) {
    const l1BlockStorage = l1BlockStorageAt(genesisTime, profile.op.l1);
    for (const [address, account] of predeployAlloc({ denim: schedule.genesis.rules.denim, l1BlockStorage })) alloc.set(address, account);
  }
  // The wallet's EIP-7702 delegate (docs/wallet.md): in every genesis this package writes.
  if (fork === undefined) alloc.set(...walletDelegateAlloc());
  // So are its preinstalls and system contracts (docs/profiles.md "Genesis code"), those of the newest fork the chain will reach.
  if (fork === undefined) {
    const newestEvm = schedule.evmActivations().at(-1)?.evm ?? resolved.evmHardfork;
    const code = genesisCodeAlloc({ chainId: resolved.chainId, hardfork: newestEvm, opStack: profile.op !== undefined, preinstalls: resolved.preinstalls });
    for (const [address, account] of code) alloc.set(address, account);
  }
  const op =
    profile.op === undefined ? undefined : new OpStack(profile.op, schedule.genesis.rules.denim || schedule.upcoming.some(({ fork }) => fork.rules.denim));
  // EVM forks scheduled later: at their time, or (at a block) a placeholder time the Chain moves to the block.
  const forkTimes: Partial<Record<SupportedHardfork, bigint>> = {};
  for (const { evm, activation } of schedule.evmActivations()) forkTimes[evm] = activation.timestamp ?? MAX_TIMESTAMP;
  // A given genesis (or a dump's) brings its own alloc and forks; the dev accounts are then just keys.
  const genesis =
    resolved.state?.genesis ??
    resolved.genesis ??
    devGethGenesis({
      chainId: resolved.chainId,
      hardfork: resolved.evmHardfork,
      gasLimit: resolved.blockGasLimit,
      baseFeePerGas: resolved.initialBaseFeePerGas,
      timestamp: genesisTime,
      alloc,
      forkTimes,
      // Holocene and Jovian: the genesis carries the chain's fee parameters (specs/protocol/holocene/exec-engine.md).
      extraData: feeParams === undefined ? undefined : encodeFeeParams(feeParams),
    });
  const rulesByEvm = new Map<string, ForkRules>();
  for (const active of [schedule.genesis, ...schedule.upcoming.map(({ fork }) => fork)]) rulesByEvm.set(active.rules.evm, active.rules);
  const chain = await Chain.create({
    genesis,
    hardfork: resolved.genesis === undefined && resolved.state === undefined ? resolved.evmHardfork : undefined,
    customCrypto: nativeCrypto(),
    clock: resolved.clock,
    fragmentsPerBlock: resolved.fixedFragmentsPerBlock,
    coinbase: resolved.coinbase,
    minTip: resolved.minPriorityFeePerGas,
    allowUnprotectedTxs: resolved.allowUnprotectedTxs,
    allowBlocksWithSameTimestamp: resolved.allowBlocksWithSameTimestamp,
    stateHistory: resolved.stateHistory === "all" ? undefined : resolved.stateHistory,
    // Blocks whose state is kept stay too: pruning and replays read their headers.
    blockHistory: resolved.blockHistory === "all" ? undefined : Math.max(resolved.blockHistory, resolved.stateHistory === "all" ? 0 : resolved.stateHistory),
    poolLimits: { slots: resolved.poolSlots, accountQueue: resolved.poolAccountQueue, lifetimeMs: resolved.poolLifetimeMs },
    txOrder: resolved.txOrder,
    // Later blocks go on from a given genesis time as the clock moves, as anvil's --timestamp.
    initialTimeOffset: resolved.genesisTimestamp === undefined ? undefined : resolved.genesisTimestamp - nowSeconds(resolved.clock),
    codeSizeLimit: resolved.allowUnlimitedContractSize ? "unlimited" : resolved.codeSizeLimit,
    chainRlp: resolved.chain,
    state: resolved.state,
    op,
    parentBeaconBlockRoot: op === undefined ? undefined : (timestamp) => op.parentBeaconBlockRoot(timestamp),
    schedule,
    feeParams,
    nextBaseFee: feeParams === undefined ? undefined : (parent) => opNextBaseFee(parent, feeParams),
    precompiles: profile.op === undefined ? undefined : opStackPrecompiles(rulesByEvm),
    fork,
  }).catch((error: unknown) => {
    // A dump or a chain that cannot be loaded is a bad option: callers (the CLI) report it as such.
    if (error instanceof StateDumpError) throw new InvalidOptionsError(`state.${error.path}`, error.reason);
    if (error instanceof ChainImportError) throw new InvalidOptionsError("chain", error.message);
    throw error;
  });
  if (op !== undefined) chain.addSnapshotPart(op.snapshotPart);
  // Flashblocks as the profile's chain serves them (docs/flashblocks.md); the forks decide when they retire.
  chain.baseRpc = profile.pendingRules === "base";
  chain.fragmentGasSchedule = schedule.genesis.rules.fragmentGasSchedule || schedule.upcoming.some(({ fork }) => fork.rules.fragmentGasSchedule);
  chain.autoImpersonate = resolved.autoImpersonate;
  // Automine replaces the timer: a fragment and a block per tx, nothing in between.
  const sequencer = new Sequencer(chain, resolved.clock, resolved.fragmentIntervalMs, resolved.mining === "auto" ? "manual" : resolved.mining);
  if (resolved.mining === "auto") chain.setAutomine(true);
  return new PreconfProvider(chain, sequencer, resolved);
}
