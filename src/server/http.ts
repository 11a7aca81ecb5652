/**
 * The JSON-RPC server: HTTP and WebSocket on one port (docs/behaviour.md#wire). HTTP takes `POST` with
 * `Content-Type: application/json` (405, 415 otherwise), refuses bodies above the limit with 413
 * before parsing, answers CORS preflights for the origins it is told to allow (none by default),
 * refuses requests from any other browser origin with 403 without running them, and never answers
 * with anything but JSON-RPC. Timeouts bound slow and stuck clients: a request whose headers or
 * body do not arrive in time is answered 408 by Node and its connection closed.
 */
import { createServer } from "node:http";

import { notificationsNotSupported } from "../rpc/errors.ts";
import { registerServedNode } from "../wallet/personality.ts";
import { FastPath } from "./fastHttp.ts";
import { drained, isJson, lingerOnClose, readBody, refusal, send } from "./httpIo.ts";
import { answerObserved, DEFAULT_BATCH_TIMEOUT_MS, DEFAULT_MAX_BATCH, DEFAULT_MAX_RESPONSE_BYTES, errorResponse } from "./jsonrpc.ts";
import { allowedOrigin, bindWarning, isHostAllowed } from "./origins.ts";
import { attachWebSocket } from "./ws.ts";

import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { RequestHandler, RequestObserver } from "./jsonrpc.ts";
import type { ServedProvider } from "./ws.ts";

export { allowedOrigin, bindWarning, isHostAllowed, isLoopback, parseOrigins } from "./origins.ts";
export type { ServedProvider } from "./ws.ts";

export interface ServerOptions {
  /** Interface to bind (127.0.0.1). Anything else exposes the dev keys' chain: a warning is logged. */
  host?: string;
  /** Port (8545); 0 picks a free one. */
  port?: number;
  /**
   * Origins that get CORS headers and may call or open WebSockets: none by default (opt-in), a
   * list of exact origins (`"http://localhost:3000"`), or `"*"` for any; other origins get 403.
   * Clients that send no `Origin` (curl, Node) and browser extensions (wallets) are
   * served either way.
   */
  allowedOrigins?: "*" | readonly string[];
  /**
   * Host names (the `Host` header) served besides IP addresses, `localhost`, `*.localhost` and
   * the bound host: a web page that rebinds its own DNS name to this machine is refused with 403
   * (geth's `--http.vhosts`). `"*"` serves any name.
   */
  allowedHosts?: "*" | readonly string[];
  /** Largest HTTP request body and WebSocket message, in bytes (5 MiB). */
  maxBodyBytes?: number;
  /** Most requests in one batch (1000, as go-ethereum); 0 for no limit. */
  maxBatch?: number;
  /** Most bytes of one response, and of one batch's responses (25,000,000, as go-ethereum); 0 for no limit. */
  maxResponseBytes?: number;
  /** Wall time of one batch (30 s); calls not started by then answer -32002. 0 for none. */
  batchTimeoutMs?: number;
  /** Time for a request's headers to arrive (10 s); then 408 and the connection closes. */
  headersTimeoutMs?: number;
  /** Time for a whole request, headers and body, to arrive (30 s); then 408. */
  requestTimeoutMs?: number;
  /** How long an idle keep-alive connection is kept (5 s). */
  keepAliveTimeoutMs?: number;
  /** A connection with no traffic either way for this long is closed (120 s), e.g. a client that stopped reading. */
  idleTimeoutMs?: number;
  /** A WebSocket whose unsent data (responses, notifications) exceeds this is dropped (16 MiB). */
  wsMaxBufferedBytes?: number;
  /** Requests of one WebSocket answered at once; beyond it the server stops reading from it (64). */
  wsMaxInFlight?: number;
  /** Subscriptions one WebSocket may hold (1024); one more is -32005 "limit exceeded". 0 for no limit. */
  wsMaxSubscriptions?: number;
  /** Where warnings go (console.warn, i.e. stderr). */
  warn?: (message: string) => void;
  /** Told of every request body answered, HTTP or WebSocket: its calls' methods and errors (the CLI's request log). */
  onRequest?: RequestObserver;
}

export interface RunningServer {
  /** `http://host:port` */
  url: string;
  /** `ws://host:port` */
  wsUrl: string;
  port: number;
  host: string;
  /** Open connections (HTTP and WebSocket) at this moment. */
  readonly connections: number;
  /** Stops listening and ends every connection: keep-alive HTTP, half-sent requests, WebSockets. */
  close(): Promise<void>;
}

export const DEFAULT_MAX_BODY_BYTES = 5 * 1024 * 1024;
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 5_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;
export const DEFAULT_WS_MAX_BUFFERED_BYTES = 16 * 1024 * 1024;
export const DEFAULT_WS_MAX_IN_FLIGHT = 64;
export const DEFAULT_WS_MAX_SUBSCRIPTIONS = 1024;
export { DEFAULT_BATCH_TIMEOUT_MS, DEFAULT_MAX_BATCH, DEFAULT_MAX_RESPONSE_BYTES };

/** HTTP cannot push: a client's wallet events go nowhere (one function for every request's session). */
const dropEvent = (): undefined => undefined;

function nonNegative(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
  return value;
}

/**
 * Starts an HTTP + WebSocket JSON-RPC server for a provider. The provider stays the caller's:
 * `close()` stops the server only.
 *
 * @example
 * ```ts
 * const provider = await createPreconfProvider();
 * const server = await startServer(provider, { port: 8545, allowedOrigins: ["http://localhost:3000"] });
 * console.log(server.url); // http://127.0.0.1:8545
 * await server.close();
 * ```
 */
export async function startServer(provider: ServedProvider, options: ServerOptions = {}): Promise<RunningServer> {
  const host = options.host ?? "127.0.0.1";
  const allowed = options.allowedOrigins ?? [];
  const limit = nonNegative("maxBodyBytes", options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES);
  const maxBatch = nonNegative("maxBatch", options.maxBatch, DEFAULT_MAX_BATCH);
  const framing = {
    maxBatch,
    maxResponseBytes: nonNegative("maxResponseBytes", options.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES),
    batchTimeoutMs: nonNegative("batchTimeoutMs", options.batchTimeoutMs, DEFAULT_BATCH_TIMEOUT_MS),
  };
  const requestTimeout = nonNegative("requestTimeoutMs", options.requestTimeoutMs, DEFAULT_REQUEST_TIMEOUT_MS);
  // Node refuses a headers timeout above the request timeout.
  const headersTimeout = Math.min(
    nonNegative("headersTimeoutMs", options.headersTimeoutMs, DEFAULT_HEADERS_TIMEOUT_MS),
    requestTimeout === 0 ? Infinity : requestTimeout,
  );
  const keepAliveTimeout = nonNegative("keepAliveTimeoutMs", options.keepAliveTimeoutMs, DEFAULT_KEEP_ALIVE_TIMEOUT_MS);
  const idleTimeout = nonNegative("idleTimeoutMs", options.idleTimeoutMs, DEFAULT_IDLE_TIMEOUT_MS);
  const warn = options.warn ?? ((message: string) => console.warn(message));

  /**
   * Each request body (a batch included) is one client of the wallet, of the request's origin
   * (its `Origin` header; all requests without one are one origin): its wallet state is its
   * origin's and persists across requests (docs/wallet.md, "Origins"). HTTP cannot push
   * notifications: wallet events are not sent, and subscriptions are refused as go-ethereum does.
   */
  const handlerFor = (origin: string | undefined, onEnd: (end: () => void) => void): RequestHandler => {
    const wallet = provider.openWalletSession?.({ origin, emit: dropEvent, trusted: origin === undefined });
    const session = wallet ?? provider;
    // A client that hangs up before its answer leaves no prompt waiting; after the answer there is none.
    if (wallet !== undefined) onEnd(() => wallet.end());
    return async (method, params) => {
      if (method === "eth_subscribe" || method === "eth_unsubscribe") throw notificationsNotSupported();
      return session.request(params === undefined ? { method } : { method, params });
    };
  };

  const allowedHosts = options.allowedHosts ?? [];
  const onRequest = async (req: IncomingMessage, res: ServerResponse) => {
    if (!isHostAllowed(req.headers.host, allowedHosts, host)) {
      send(res, 403, refusal("invalid host specified"), { Connection: "close" });
      return;
    }
    const origin = allowedOrigin(allowed, req.headers.origin);
    if (origin !== undefined) {
      res.setHeader("Access-Control-Allow-Origin", origin);
      if (origin !== "*") res.setHeader("Vary", "Origin");
    }
    if (req.method === "OPTIONS") {
      // A preflight from an origin not allowed gets no CORS headers: the browser then refuses the call.
      const requested = req.headers["access-control-request-headers"];
      send(
        res,
        204,
        undefined,
        origin === undefined
          ? {}
          : {
              "Access-Control-Allow-Methods": "POST, OPTIONS",
              "Access-Control-Allow-Headers": typeof requested === "string" ? requested : "Content-Type",
              "Access-Control-Max-Age": "600",
              // Chrome's Private Network Access: a public page calling localhost asks for this.
              ...(req.headers["access-control-request-private-network"] === "true" && { "Access-Control-Allow-Private-Network": "true" }),
            },
      );
      return;
    }
    if (req.headers.origin !== undefined && origin === undefined) {
      // CORS only hides answers: the call would still run. A page of another origin (or one that
      // rebound its DNS name to 127.0.0.1) must not drive the chain, as for WebSocket upgrades.
      // The body is not read: close the connection rather than drain it.
      send(res, 403, refusal("origin not allowed"), { Connection: "close" });
      return;
    }
    if (req.method !== "POST") {
      send(res, 405, refusal("only POST is accepted"), { Allow: "POST, OPTIONS" });
      return;
    }
    if (!isJson(req.headers["content-type"])) {
      send(res, 415, refusal("Content-Type must be application/json"));
      return;
    }
    const declared = Number(req.headers["content-length"] ?? 0);
    const body = declared > limit ? undefined : await readBody(req, limit);
    if (body === undefined) {
      // Answered at once (a client waiting for `100 Continue` sends nothing more), then a lingering
      // close: what the client still sends is read and dropped (a bounded amount), so that a
      // client still sending reads the 413 instead of a reset (httpIo.ts).
      lingerOnClose(req.socket);
      send(res, 413, refusal(`body exceeds ${limit} bytes`), { Connection: "close" });
      return;
    }
    const text = await answerObserved(
      body,
      handlerFor(req.headers.origin, (end) => res.once("close", end)),
      framing,
      "http",
      options.onRequest,
    );
    if (text === undefined) send(res, 204);
    else send(res, 200, text);
  };

  /** The last request of each connection still being answered (none once it is). */
  const turns = new WeakMap<Socket, Promise<void>>();
  const failed = (req: IncomingMessage, res: ServerResponse, error: unknown) => {
    // The client went away mid-body: no one to answer.
    if (req.destroyed && !req.complete) return;
    // A bug in the transport itself: still JSON-RPC, never a crash or an HTML page.
    send(res, 500, JSON.stringify(errorResponse(null, error)));
  };
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const { socket } = req;
    // Pipelined requests of one connection run one after another, each only once the answers
    // before it have left the process: a client that never reads holds one answer, not all.
    const before = turns.get(socket);
    // The usual case, a client that awaits each answer before it asks again: nothing to wait for,
    // so the request starts now instead of a few promise turns later.
    const turn =
      before === undefined && !socket.writableNeedDrain && !socket.destroyed
        ? onRequest(req, res).catch((error: unknown) => failed(req, res, error))
        : (before ?? Promise.resolve())
            .then(() => drained(socket))
            .then(() => (socket.destroyed ? undefined : onRequest(req, res)))
            .catch((error: unknown) => failed(req, res, error));
    turns.set(socket, turn);
    void turn.then(() => {
      if (turns.get(socket) === turn) turns.delete(socket);
    });
  };
  // Node checks the two timeouts below only this often (30 s by default); a timeout of 0 is off, so
  // it does not count (it made the interval 10 ms, a check of every connection 100 times a second).
  const timeoutsOn = [headersTimeout, requestTimeout].filter((timeout) => timeout > 0);
  const checkInterval = timeoutsOn.length === 0 ? 1000 : Math.max(10, Math.min(1000, Math.floor(Math.min(...timeoutsOn) / 4)));
  const server = createServer(
    {
      headersTimeout,
      requestTimeout,
      keepAliveTimeout,
      connectionsCheckingInterval: checkInterval,
    },
    listener,
  );
  // `Expect: 100-continue`: a body announced over the limit is refused with 413 at once, as geth
  // does, instead of being invited with `100 Continue`.
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => {
    if (!(Number(req.headers["content-length"] ?? 0) > limit)) res.writeContinue();
    listener(req, res);
  });
  server.setTimeout(idleTimeout);

  /**
   * The fast path (fastHttp.ts) takes the connections and answers the common request itself: a
   * POST of JSON from a host and origin this server serves, within the body budget, answered as
   * `onRequest` would answer it. Any other request (refusals included) goes, with its connection,
   * to the node:http server above.
   */
  // A client sends the same Host on every request: its check is made once per distinct value.
  let lastHost: string | undefined;
  let lastHostAllowed = false;
  const hostAllowed = (name: string) => {
    if (name !== lastHost) {
      lastHostAllowed = isHostAllowed(name, allowedHosts, host);
      lastHost = name;
    }
    return lastHostAllowed;
  };
  const fast = new FastPath({
    accepts: (request) =>
      request.contentLength <= limit &&
      isJson(request.contentType) &&
      hostAllowed(request.host) &&
      // An origin is echoed in a header: ASCII only, so that its bytes are Node's (latin1) too.
      (request.origin === undefined || (allowedOrigin(allowed, request.origin) !== undefined && /^[\x20-\x7e]*$/.test(request.origin))),
    serve: async (request, body, onEnd) => {
      const origin = allowedOrigin(allowed, request.origin);
      // As `onRequest` sets them, before the fields of the answer.
      const headers = origin === undefined ? "" : `Access-Control-Allow-Origin: ${origin}\r\n${origin === "*" ? "" : "Vary: Origin\r\n"}`;
      try {
        const text = await answerObserved(body, handlerFor(request.origin, onEnd), framing, "http", options.onRequest);
        return text === undefined ? { status: 204, headers } : { status: 200, body: text, headers };
      } catch (error) {
        // A bug in the transport itself: still JSON-RPC, as `failed` answers.
        return { status: 500, body: JSON.stringify(errorResponse(null, error)), headers };
      }
    },
    fallback: server,
    headersTimeout,
    requestTimeout,
    keepAliveTimeout,
    idleTimeout,
    // Node's interval for the two request timeouts; with neither, the keep-alive one needs no finer than a second.
    checkInterval: headersTimeout > 0 || requestTimeout > 0 ? checkInterval : 1000,
    maxBodyBytes: limit,
  });
  const listening = fast.server;

  // Every socket, including upgraded and refused ones, so that close() can end them all.
  const sockets = new Set<Socket>();
  listening.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  const webSocket = attachWebSocket(server, provider, {
    isOriginAllowed: (origin) => allowedOrigin(allowed, origin) !== undefined,
    isHostAllowed: (name) => isHostAllowed(name, allowedHosts, host),
    maxPayload: limit,
    framing,
    maxBufferedBytes: nonNegative("wsMaxBufferedBytes", options.wsMaxBufferedBytes, DEFAULT_WS_MAX_BUFFERED_BYTES),
    maxInFlight: Math.max(1, nonNegative("wsMaxInFlight", options.wsMaxInFlight, DEFAULT_WS_MAX_IN_FLIGHT)),
    maxSubscriptions: nonNegative("wsMaxSubscriptions", options.wsMaxSubscriptions, DEFAULT_WS_MAX_SUBSCRIPTIONS),
    onRequest: options.onRequest,
  });

  await new Promise<void>((resolve, reject) => {
    const failed = (error: Error) => {
      fast.close();
      reject(error);
    };
    listening.once("error", failed);
    listening.listen(options.port ?? 8545, host, () => {
      listening.off("error", failed);
      resolve();
    });
  });
  // The node:http server never listens itself: its `listening` starts the checks of its headers
  // and request timeouts for the connections handed to it.
  server.emit("listening");
  const warning = bindWarning(host);
  if (warning !== undefined) warn(warning);

  const { port } = listening.address() as AddressInfo;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  // A wallet adding a chain whose rpcUrl is this node asks it for its chain id, as MetaMask does.
  // Asked as a node method (net_version): the node's own chain, whatever chain a client selected.
  const unregister = registerServedNode(`http://${shownHost}:${port}`, async () => {
    const version = await (provider.openWalletSession?.({ emit: dropEvent, trusted: true }) ?? provider).request({ method: "net_version" });
    return typeof version === "string" && /^\d+$/.test(version) ? `0x${BigInt(version).toString(16)}` : version;
  });
  return {
    url: `http://${shownHost}:${port}`,
    wsUrl: `ws://${shownHost}:${port}`,
    port,
    host,
    get connections() {
      return sockets.size;
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        unregister();
        fast.close();
        listening.close(() => resolve());
        // Not listening: this stops its timeout checks and tells the WebSocket side it is closed.
        server.close();
        webSocket.close();
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}
