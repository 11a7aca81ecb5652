/**
 * A dapp's connection state, per origin, as MetaMask keeps it: the chain the origin selected
 * (MetaMask's per-dapp network, selected-network-controller), what it was granted (one grant:
 * eth_accounts and endowment:permitted-chains, eip1193-permission-middleware) and whether it must
 * connect before it sees accounts. Every client of an origin (its HTTP requests, its WebSockets)
 * shares that state and hears its events; the wallet's accounts, chains and assets are the
 * wallet's (state.ts). The registry is bounded (docs/limits.md).
 */
import { limitExceeded } from "../protocol/errors.ts";

import type { Hex } from "../node/common/types.ts";

/** The origin of the in-process provider's own requests (the test's dapp). Never a browser's Origin. */
export const IN_PROCESS_ORIGIN = "hardhat-preconf";
/** The one origin of every client that sends no `Origin` header (scripts, curl, Hardhat over HTTP). */
export const NO_ORIGIN = "no-origin";

/** Origins tracked at once: the least recently used one without a live client makes room for a new one. */
export const MAX_ORIGINS = 256;

/** What an origin was granted when it connected (both permissions derive from it). */
export interface Grant {
  id: string;
  date: number;
  accounts: Hex[];
  /** endowment:permitted-chains: the chains the origin may switch to without asking again. */
  chains: Hex[];
}

export type Listener = (event: string, payload: unknown) => void;

export class OriginState {
  readonly key: string;
  selectedChainId: Hex;
  grant: Grant | undefined;
  /** Accounts hidden (and signing refused) until the origin connects: walletConnected false. */
  requireConnection: boolean;
  /** Every live client's event sink: the origin's events reach all of them. */
  readonly listeners = new Set<Listener>();
  /** Live clients: an origin with one is never evicted. */
  clients = 0;

  constructor(key: string, selectedChainId: Hex, requireConnection: boolean) {
    this.key = key;
    this.selectedChainId = selectedChainId;
    this.requireConnection = requireConnection;
  }

  get connected(): boolean {
    return this.grant !== undefined;
  }

  emit(event: string, payload: unknown): void {
    for (const listener of [...this.listeners]) listener(event, payload);
  }
}

/** The origins the wallet knows, most recently used last (a Map keeps insertion order). */
export class OriginRegistry {
  readonly #origins = new Map<string, OriginState>();
  readonly #create: (key: string) => OriginState;

  constructor(create: (key: string) => OriginState) {
    this.#create = create;
  }

  /** The origin's state, created on first use; -32005 when every tracked origin has a live client. */
  get(key: string): OriginState {
    const known = this.#origins.get(key);
    if (known !== undefined) {
      // Most recently used last: eviction takes the first idle one.
      this.#origins.delete(key);
      this.#origins.set(key, known);
      return known;
    }
    if (this.#origins.size >= MAX_ORIGINS) {
      const idle = [...this.#origins.values()].find((origin) => origin.clients === 0 && origin.key !== IN_PROCESS_ORIGIN);
      if (idle === undefined) throw limitExceeded("too many wallet origins", MAX_ORIGINS);
      this.#origins.delete(idle.key);
    }
    const created = this.#create(key);
    this.#origins.set(key, created);
    return created;
  }

  peek(key: string): OriginState | undefined {
    return this.#origins.get(key);
  }

  values(): OriginState[] {
    return [...this.#origins.values()];
  }

  get size(): number {
    return this.#origins.size;
  }
}
