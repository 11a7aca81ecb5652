/**
 * The JSON-RPC client of a forked chain's upstream. Calls made in the same tick travel as one
 * JSON-RPC batch (an EVM step that reads balance, nonce and code of an account costs one HTTP
 * request, not three); at most `concurrency` HTTP requests are in flight; a request that fails on
 * the network, times out or gets HTTP 429/5xx is retried with exponential backoff. Errors name the
 * upstream (its origin only: a URL's path and query often hold an API key) and what went wrong.
 */
import { ForkUpstreamError } from "../common/errors.ts";

// The upstream could not be reached or refused a call (src/rpc/errors.ts answers it -32603).
export { ForkUpstreamError };

export interface UpstreamOptions {
  url: string;
  /** Extra HTTP headers (an API key, basic auth). */
  headers?: Record<string, string> | undefined;
  /** HTTP requests in flight at once (anvil's default is unbounded; public RPCs rate-limit hard). */
  concurrency?: number;
  /** Retries of a failed request (so 1 + retries attempts). */
  retries?: number;
  /** First backoff, doubled on each retry. */
  backoffMs?: number;
  /** One HTTP request's time limit. */
  timeoutMs?: number;
  /** Calls per JSON-RPC batch (many providers cap batches: Alchemy and QuickNode at 100-1000). */
  maxBatch?: number;
}

interface PendingCall {
  method: string;
  params: unknown[];
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

interface JsonRpcAnswer {
  id?: unknown;
  result?: unknown;
  error?: { code?: number; message?: string; data?: unknown };
}

/** Errors geth, reth, erigon and hosted RPCs give when a block's state is no longer kept. */
const PRUNED_STATE =
  /missing trie node|historical state|state.*not available|header not found|pruned|distance to target block exceeds|block not found|unknown block/i;

export class UpstreamClient {
  readonly url: string;
  /** The URL as errors show it: origin only. */
  readonly origin: string;
  /** HTTP requests sent so far (each attempt counts): tests and the bench read it. */
  requests = 0;
  readonly #options: Required<Omit<UpstreamOptions, "headers">> & { headers: Record<string, string> };
  #queued: PendingCall[] = [];
  #flushScheduled = false;
  #inFlight = 0;
  readonly #waiting: (() => void)[] = [];
  #nextId = 1;

  constructor(options: UpstreamOptions) {
    this.url = options.url;
    let origin: string;
    try {
      const parsed = new URL(options.url);
      if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error("not http(s)");
      origin = parsed.origin;
    } catch {
      throw new ForkUpstreamError(`fork url must be an http:// or https:// URL`);
    }
    this.origin = origin;
    this.#options = {
      url: options.url,
      headers: options.headers ?? {},
      concurrency: options.concurrency ?? 8,
      retries: options.retries ?? 3,
      backoffMs: options.backoffMs ?? 200,
      timeoutMs: options.timeoutMs ?? 30_000,
      maxBatch: options.maxBatch ?? 100,
    };
  }

  /** One call; batched with the others of this tick. */
  call<T = unknown>(method: string, params: unknown[]): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queued.push({ method, params, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        // After the current microtasks: calls an EVM step makes one after the other join the batch.
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#flushScheduled = false;
    const calls = this.#queued;
    this.#queued = [];
    for (let start = 0; start < calls.length; start += this.#options.maxBatch) {
      void this.#send(calls.slice(start, start + this.#options.maxBatch));
    }
  }

  async #send(calls: PendingCall[]): Promise<void> {
    await this.#slot();
    try {
      const ids = calls.map(() => this.#nextId++);
      const body = JSON.stringify(calls.map((call, i) => ({ jsonrpc: "2.0", id: ids[i], method: call.method, params: call.params })));
      const answers = await this.#post(body, calls.length === 1 ? calls[0]!.method : `a batch of ${calls.length} calls`);
      const byId = new Map<unknown, JsonRpcAnswer>();
      for (const answer of Array.isArray(answers) ? (answers as JsonRpcAnswer[]) : [answers as JsonRpcAnswer]) byId.set(answer?.id, answer);
      calls.forEach((call, i) => {
        const answer = byId.get(ids[i]) ?? (calls.length === 1 && !Array.isArray(answers) ? (answers as JsonRpcAnswer) : undefined);
        if (answer === undefined) {
          call.reject(new ForkUpstreamError(`fork upstream ${this.origin} did not answer ${call.method}`));
        } else if (answer.error !== undefined && answer.error !== null) {
          call.reject(this.#callError(call, answer.error));
        } else {
          call.resolve(answer.result ?? null);
        }
      });
    } catch (error) {
      for (const call of calls) call.reject(error);
    } finally {
      this.#release();
    }
  }

  #callError(call: PendingCall, error: NonNullable<JsonRpcAnswer["error"]>): ForkUpstreamError {
    const message = error.message ?? "unknown error";
    const data = { method: call.method, params: call.params, upstream: { code: error.code, message, data: error.data } };
    if (PRUNED_STATE.test(message)) {
      return new ForkUpstreamError(
        `fork upstream ${this.origin} no longer serves the state this read needs (${call.method}: ${message}); fork a more recent block or use an archive node`,
        data,
      );
    }
    return new ForkUpstreamError(`fork upstream ${this.origin} refused ${call.method}: ${message}`, data);
  }

  /** POSTs `body`, retrying network failures, timeouts and HTTP 429/5xx with exponential backoff. */
  async #post(body: string, what: string): Promise<unknown> {
    let lastReason = "";
    for (let attempt = 0; attempt <= this.#options.retries; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, this.#options.backoffMs * 2 ** (attempt - 1)));
      this.requests++;
      let response: Response;
      try {
        response = await fetch(this.url, {
          method: "POST",
          headers: { "content-type": "application/json", ...this.#options.headers },
          body,
          signal: AbortSignal.timeout(this.#options.timeoutMs),
        });
      } catch (error) {
        const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
        lastReason = cause ?? (error instanceof Error ? error.message : String(error));
        continue;
      }
      if (response.status === 429 || response.status >= 500) {
        lastReason = `HTTP ${response.status}`;
        await response.body?.cancel();
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw new ForkUpstreamError(`fork upstream ${this.origin} answered ${what} with HTTP ${response.status}`);
      }
      try {
        return await response.json();
      } catch {
        throw new ForkUpstreamError(`fork upstream ${this.origin} answered ${what} with something that is not JSON`);
      }
    }
    throw new ForkUpstreamError(`fork upstream ${this.origin} is unreachable (${lastReason}) after ${this.#options.retries + 1} attempts`);
  }

  async #slot(): Promise<void> {
    while (this.#inFlight >= this.#options.concurrency) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#inFlight++;
  }

  #release(): void {
    this.#inFlight--;
    this.#waiting.shift()?.();
  }
}
