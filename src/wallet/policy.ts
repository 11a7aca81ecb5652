/**
 * The scriptable "user" behind the simulated wallet (docs/wallet.md): which answer each prompt gets.
 * Resolution order for a valid request: a queued one-shot decision for its method, then manual
 * mode, then the decision function, then the method's default, then the global default.
 */
import { invalidParams, limitExceeded, RpcError } from "../protocol/errors.ts";
import { unrecognizedChain, unsupportedMethod, userRejected } from "./errors.ts";

import type { Clock } from "../clock.ts";

/** The methods that prompt the user. */
export const PROMPTING_METHODS = [
  "eth_requestAccounts",
  "wallet_requestPermissions",
  "wallet_addEthereumChain",
  "wallet_switchEthereumChain",
  "wallet_watchAsset",
  "eth_sendTransaction",
  "personal_sign",
  "eth_signTypedData",
  "eth_signTypedData_v3",
  "eth_signTypedData_v4",
  "wallet_sendCalls",
  // Not a JSON-RPC method: the EIP-7702 upgrade screen before a first atomic batch (MetaMask's
  // internal wallet_upgradeAccount, @metamask/eip-7702-internal-rpc-middleware).
  "wallet_upgradeAccount",
  "wallet_connect",
] as const;

export type PromptingMethod = (typeof PROMPTING_METHODS)[number];

export const isPromptingMethod = (name: string): name is PromptingMethod => (PROMPTING_METHODS as readonly string[]).includes(name);

/** An error the user's wallet answers with, as EIP-1193 describes it. */
export interface CustomDecision {
  code: number;
  message: string;
  data?: unknown;
}

export const DECISION_NAMES = ["approve", "reject", "unsupported", "unrecognizedChain", "invalidParams"] as const;
export type DecisionName = (typeof DECISION_NAMES)[number];
export type Decision = DecisionName | CustomDecision;

/** What a decision function and a manual approver see. */
export interface PromptRequest {
  readonly id: number;
  readonly method: PromptingMethod;
  /** Deep-cloned params, as the dapp sent them. */
  readonly params: unknown;
  /** The wallet's active chain when the request arrived (0x hex). */
  readonly chainId: string;
  readonly time: number;
}

/** `undefined` falls through to the defaults; `"prompt"` waits for `approve(id)` / `reject(id)`. */
export type DecisionFunction = (request: PromptRequest) => Decision | "prompt" | undefined;

export interface PendingPrompt extends PromptRequest {
  /** Where the decision came from, for the log. */
  readonly source: "manual";
}

/** A prompt as an observer sees it: `waiting` for the test (manual mode), then `decided`. */
export type PromptEvent = { kind: "waiting"; request: PromptRequest } | { kind: "decided"; request: PromptRequest; decision: Decision };

interface Waiter {
  request: PromptRequest;
  resolve: (decision: Decision) => void;
  /** The client (a server connection's wallet) the prompt was asked for, if not the provider itself. */
  client: object | undefined;
}

/** The error a non-approving decision answers with (always from errors.ts). */
export function decisionError(decision: Exclude<Decision, "approve">, chainId: string): RpcError {
  if (typeof decision === "object") return new RpcError(decision.code, decision.message, decision.data);
  switch (decision) {
    case "reject":
      return userRejected();
    case "unsupported":
      return unsupportedMethod();
    case "unrecognizedChain":
      return unrecognizedChain(chainId);
    case "invalidParams":
      return invalidParams("params", "refused by the wallet policy");
  }
}

/** Manual-mode prompts waiting at once: more are -32005 rather than held for ever. */
export const MAX_PENDING_PROMPTS = 256;
/** Of those, the most one client of the server (one WebSocket, one HTTP request) may have waiting. */
export const MAX_PENDING_PROMPTS_PER_CLIENT = 32;

export class WalletPolicy {
  /** Milliseconds (of the provider's clock) every decision waits before it is answered. */
  delayMs = 0;
  #default: Decision;
  readonly #initialDefault: Decision;
  #methodDefaults = new Map<PromptingMethod, Decision>();
  #queues = new Map<PromptingMethod, Decision[]>();
  #function: DecisionFunction | undefined;
  #manual = false;
  #pending = new Map<number, Waiter>();
  #pendingListeners: ((request: PendingPrompt) => void)[] = [];
  readonly #observers = new Set<(event: PromptEvent) => void>();
  readonly #clock: Clock;

  constructor(clock: Clock, initialDefault: Decision = "approve") {
    this.#clock = clock;
    this.#initialDefault = initialDefault;
    this.#default = initialDefault;
  }

  /** The decision for every method (no `method`), or for one method. */
  setDefault(decision: Decision, method?: PromptingMethod): this {
    if (method === undefined) this.#default = decision;
    else this.#methodDefaults.set(method, decision);
    return this;
  }

  defaultFor(method: PromptingMethod): Decision {
    return this.#methodDefaults.get(method) ?? this.#default;
  }

  /** One-shot decisions for the next valid requests of `method`, first in first out. */
  queue(method: PromptingMethod, ...decisions: Decision[]): this {
    this.#queues.set(method, [...(this.#queues.get(method) ?? []), ...decisions]);
    return this;
  }

  /** Decisions still queued for `method`. */
  queued(method: PromptingMethod): readonly Decision[] {
    return [...(this.#queues.get(method) ?? [])];
  }

  /** A function of the request; `undefined` clears it. */
  use(decide: DecisionFunction | undefined): this {
    this.#function = decide;
    return this;
  }

  /** In manual mode every request without a queued decision waits for `approve` / `reject`. */
  manual(enabled = true): this {
    this.#manual = enabled;
    return this;
  }

  get isManual(): boolean {
    return this.#manual;
  }

  /** Requests waiting for the test to answer, oldest first. */
  pending(): PendingPrompt[] {
    return [...this.#pending.values()].map(({ request }) => ({ ...request, source: "manual" }));
  }

  /** Resolves with the oldest waiting request, or the next one to arrive. */
  waitForPending(): Promise<PendingPrompt> {
    const [first] = this.pending();
    if (first !== undefined) return Promise.resolve(first);
    return new Promise((resolve) => this.#pendingListeners.push(resolve));
  }

  approve(id: number): void {
    this.#settle(id, "approve");
  }

  /** Rejects a waiting request with 4001, or with another decision or `{ code, message, data }`. */
  reject(id: number, error: Exclude<Decision, "approve"> = "reject"): void {
    this.#settle(id, error);
  }

  /** Back to the initial default: no method defaults, queues, function, manual mode or delay. */
  reset(): void {
    this.#default = this.#initialDefault;
    this.#methodDefaults.clear();
    this.#queues.clear();
    this.#function = undefined;
    this.#manual = false;
    this.delayMs = 0;
    for (const id of [...this.#pending.keys()]) this.#settle(id, "reject");
  }

  /**
   * Rejects (4001) every prompt still waiting for `client`, whose connection has gone: MetaMask
   * rejects the pending approvals of an origin with userRejectedRequest when they can no longer
   * be answered (metamask-extension app/scripts/lib/approval/utils.ts, rejectOriginApprovals).
   */
  dropPromptsOf(client: object): void {
    for (const [id, waiter] of [...this.#pending]) if (waiter.client === client) this.#settle(id, "reject");
  }

  /**
   * Decides a valid request (the only caller consumes queued decisions). `client`: who asked, so
   * that its prompts are capped on their own and dropped when it goes (`dropPromptsOf`).
   */
  async decide(request: PromptRequest, client?: object): Promise<Decision> {
    const decision = await this.#choose(request, client);
    if (this.delayMs > 0) await new Promise<void>((resolve) => this.#clock.after(this.delayMs, resolve));
    this.#tell({ kind: "decided", request, decision });
    return decision;
  }

  /**
   * The decision for a valid request of `method` when nothing would see the request itself: no
   * observer, no decision function, no manual mode, no delay: the queued decision or the default
   * (what `decide` answers then, consuming the queued one as it would). Undefined otherwise: the
   * caller then builds the request (a copy of its params) for `decide`.
   */
  decideUnseen(method: PromptingMethod): Decision | undefined {
    if (this.#observers.size > 0 || this.#function !== undefined || this.#manual || this.delayMs > 0) return undefined;
    return this.#queues.get(method)?.shift() ?? this.defaultFor(method);
  }

  /** Tells `observer` of every prompt (the CLI's log) until the returned function is called. */
  observe(observer: (event: PromptEvent) => void): () => void {
    this.#observers.add(observer);
    return () => this.#observers.delete(observer);
  }

  #tell(event: PromptEvent): void {
    for (const observer of this.#observers) {
      try {
        observer(event);
      } catch {
        // An observer's failure is not the wallet's: the prompt goes on.
      }
    }
  }

  #choose(request: PromptRequest, client: object | undefined): Decision | Promise<Decision> {
    const queued = this.#queues.get(request.method)?.shift();
    if (queued !== undefined) return queued;
    const chosen = this.#manual ? "prompt" : (this.#function?.(request) ?? this.defaultFor(request.method));
    if (chosen !== "prompt") return chosen;
    if (this.#pending.size >= MAX_PENDING_PROMPTS) throw limitExceeded("too many wallet prompts waiting", MAX_PENDING_PROMPTS);
    if (client !== undefined && this.#countOf(client) >= MAX_PENDING_PROMPTS_PER_CLIENT) {
      throw limitExceeded("too many wallet prompts waiting for this connection", MAX_PENDING_PROMPTS_PER_CLIENT);
    }
    this.#tell({ kind: "waiting", request });
    return new Promise<Decision>((resolve) => {
      this.#pending.set(request.id, { request, resolve, client });
      const listeners = this.#pendingListeners.splice(0);
      for (const listener of listeners) listener({ ...request, source: "manual" });
    });
  }

  #countOf(client: object): number {
    let count = 0;
    for (const waiter of this.#pending.values()) if (waiter.client === client) count++;
    return count;
  }

  #settle(id: number, decision: Decision): void {
    const waiter = this.#pending.get(id);
    if (waiter === undefined) throw new Error(`no pending wallet request with id ${id}`);
    this.#pending.delete(id);
    waiter.resolve(decision);
  }
}
