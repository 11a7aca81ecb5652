/**
 * The EIP-1193 provider: `request` routes to the method table, errors are `RpcError`s with integer
 * `code`, `message` and optional `data`; `preconf` drives the sequencer deterministically.
 */
import { EventEmitter } from "node:events";

import { Chain } from "./node/chain.ts";
import { nativeCrypto } from "./node/crypto.ts";
import { devGethGenesis } from "./node/genesis.ts";
import { Sequencer } from "./node/sequencer.ts";
import { resolveOptions } from "./options.ts";
import { disconnected, invalidRequest } from "./rpc/errors.ts";
import { methods } from "./rpc/methods.ts";
import { dispatch } from "./rpc/table.ts";
import { routeContext } from "./rpc/wallet.ts";
import { Wallet } from "./wallet/wallet.ts";
import { FilterManager } from "./rpc/filters.ts";
import { emitGuarded, SubscriptionManager } from "./rpc/subscriptions.ts";

import type { DevAccount } from "./node/accounts.ts";
import type { Fragment, SealedBlock } from "./node/records.ts";
import type { MiningMode } from "./node/sequencer.ts";
import type { PreconfProviderOptions, ResolvedOptions } from "./options.ts";
import type { MethodContext } from "./rpc/context.ts";
import type { GenesisAccount } from "./node/genesis.ts";
import type { Hex } from "./rpc/schema.ts";
import type { NodeContext } from "./wallet/wallet.ts";

/** Each provider's node services, so that another provider's wallet can route to this chain. */
const nodeContexts = new WeakMap<object, NodeContext>();

export interface RequestArguments {
  readonly method: string;
  readonly params?: readonly unknown[] | object;
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
}

export class PreconfProvider extends EventEmitter {
  readonly chain: Chain;
  readonly preconf: PreconfControls;
  readonly accounts: readonly DevAccount[];
  readonly options: ResolvedOptions;
  /** The simulated wallet: chains, assets, permissions, the approval policy and its request log. */
  readonly wallet: Wallet;
  readonly #context: MethodContext;
  readonly #sequencer: Sequencer;
  #closed = false;

  constructor(chain: Chain, sequencer: Sequencer, options: ResolvedOptions) {
    super();
    this.chain = chain;
    this.options = options;
    this.accounts = options.accounts.map(({ address, privateKey }) => ({ address, privateKey }));
    this.#sequencer = sequencer;
    // Subscriptions arrive as EIP-1193 `message` events; a listener that throws never reaches the chain.
    const subscriptions = new SubscriptionManager(chain, (message) => emitGuarded(this, "message", message));
    const node: NodeContext = { chain, sequencer, accounts: this.accounts, options, subscriptions, filters: new FilterManager(chain, options.clock) };
    // ── Simulated wallet (issue #5): it owns the method context and routes node methods to its active chain.
    nodeContexts.set(this, node);
    this.wallet = new Wallet({
      node,
      clock: options.clock,
      emit: (event, payload) => emitGuarded(this, event, payload),
      initialDecision: options.walletPolicy,
      switchOnAdd: options.switchOnAdd,
      nodeOf: (provider) => nodeContexts.get(provider),
    });
    this.#context = this.wallet.ownContext;
    this.preconf = {
      advance: (count = 1) => sequencer.advance(count),
      fragment: () => chain.produceFragment(),
      seal: () => chain.seal(),
      idle: () => chain.idle(),
      get mining() {
        return sequencer.mode;
      },
      setMining: (mode) => sequencer.setMode(mode),
      fragmentIntervalMs: options.fragmentIntervalMs,
      fragmentsPerBlock: options.fragmentsPerBlock,
    };
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** EIP-1193 `request`. */
  async request(args: RequestArguments): Promise<unknown> {
    if (this.#closed) throw disconnected();
    if (typeof args !== "object" || args === null || typeof args.method !== "string") {
      throw invalidRequest("expected { method: string, params?: array | object }");
    }
    return dispatch(methods, routeContext(this.wallet, args.method), args.method, args.params);
  }

  /** Stops the sequencer, lets queued work finish, and refuses further requests. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#sequencer.close();
    this.#context.subscriptions.close();
    this.#context.filters.close();
    await this.chain.idle();
    this.#closed = true;
    this.emit("disconnect", disconnected());
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
  const resolved = resolveOptions(options);
  const alloc = new Map<Hex, GenesisAccount>(resolved.accounts.map((account) => [account.address, { balance: account.balance }]));
  // A given genesis brings its own alloc and forks; the dev accounts are then just keys.
  const genesis = resolved.genesis ?? devGethGenesis({
    chainId: resolved.chainId,
    hardfork: resolved.hardfork,
    gasLimit: resolved.blockGasLimit,
    baseFeePerGas: resolved.initialBaseFeePerGas,
    timestamp: BigInt(Math.floor(resolved.clock.now() / 1000)),
    alloc,
  });
  const chain = await Chain.create({
    genesis,
    hardfork: resolved.genesis === undefined ? resolved.hardfork : undefined,
    customCrypto: nativeCrypto(),
    clock: resolved.clock,
    fragmentsPerBlock: resolved.fragmentsPerBlock,
    coinbase: resolved.coinbase,
    minTip: resolved.minPriorityFeePerGas,
    allowUnprotectedTxs: resolved.allowUnprotectedTxs,
    chainRlp: resolved.chain,
  });
  const sequencer = new Sequencer(chain, resolved.clock, resolved.fragmentIntervalMs, resolved.mining);
  return new PreconfProvider(chain, sequencer, resolved);
}
