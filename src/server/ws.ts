/**
 * JSON-RPC over WebSocket on the HTTP server's port: the same framing as HTTP, plus subscriptions.
 * The provider announces every notification as a `message` event; the server listens once and each
 * connection forwards only those of the subscriptions it created, as `eth_subscription` frames
 * (none before the response announcing the id), and drops them when it closes.
 * A connection is bounded: a message above `maxPayload` closes it (1009), beyond `maxInFlight`
 * unanswered requests the server stops reading from it, and a client that lets more than
 * `maxBufferedBytes` of responses and notifications pile up unread is dropped.
 */
import { createRequire } from "node:module";

import { rawFlashblocksFeed } from "./flashblocksFeed.ts";
import { limitExceeded } from "../rpc/errors.ts";
import { answerObserved } from "./jsonrpc.ts";

import type { Server } from "node:http";
import type { RawData, WebSocket } from "ws";
import type { SubscriptionMessage } from "../rpc/subscriptions.ts";
import type { PreconfProvider } from "../provider.ts";
import type { FramingLimits, Params, RequestHandler, RequestObserver } from "./jsonrpc.ts";

/**
 * What the server needs of a provider: EIP-1193 `request` and its `message` events, and (when it
 * has a wallet) a wallet session per client. Here, below http.ts, so both transports share it.
 */
export type ServedProvider = Pick<PreconfProvider, "request" | "on" | "off"> & Partial<Pick<PreconfProvider, "openWalletSession" | "chain">>;

export interface WebSocketEndpoint {
  /** Ends every connection. */
  close(): void;
}

export interface WebSocketLimits {
  /** Whether a browser origin may connect (clients without Origin always may). */
  isOriginAllowed: (origin: string | undefined) => boolean;
  /** Whether the Host header names this server (DNS rebinding: origins.ts isHostAllowed). */
  isHostAllowed: (host: string | undefined) => boolean;
  maxPayload: number;
  framing: FramingLimits;
  maxBufferedBytes: number;
  maxInFlight: number;
  /** Most subscriptions of one connection; 0 for no limit. */
  maxSubscriptions: number;
  /** Told of every message answered (ServerOptions.onRequest). */
  onRequest?: RequestObserver | undefined;
}

const textOf = (data: RawData): string =>
  Array.isArray(data) ? Buffer.concat(data).toString("utf8") : data instanceof ArrayBuffer ? Buffer.from(data).toString("utf8") : data.toString("utf8");

/** The first positional param, when it is a string (a subscription id). */
const firstString = (params: Params): string | undefined => (Array.isArray(params) && typeof params[0] === "string" ? params[0].toLowerCase() : undefined);

/** What the server's one provider listener needs of a connection. */
interface Connection {
  /** Forwards a notification if it belongs to this connection. */
  deliver(data: SubscriptionMessage["data"]): void;
  /** Ends the connection (its subscriptions go with it). */
  drop(): void;
}

/** A wallet event of this connection's origin, pushed as a JSON-RPC notification (docs/browser.md). */
const walletEvent = (event: string, data: unknown) => JSON.stringify({ jsonrpc: "2.0", method: "preconf_walletEvent", params: { event, data } });

function serveConnection(socket: WebSocket, provider: ServedProvider, limits: WebSocketLimits, connections: Set<Connection>, origin: string | undefined): void {
  /** Subscriptions of this connection. */
  const owned = new Set<string>();
  let closed = false;
  let inFlight = 0;
  /**
   * Notifications of a new subscription wait until the response that announces its id has been
   * sent (clients drop notifications for ids they do not know yet); `early` catches those that
   * arrive while an eth_subscribe is still on its way back.
   */
  const held = new Map<string, string[]>();
  const early: { subscription: string; text: string }[] = [];
  let subscribing = 0;
  /** Bytes of notifications held back: they count against the same budget as unsent data. */
  let heldBytes = 0;

  const overBudget = () => limits.maxBufferedBytes > 0 && socket.bufferedAmount + heldBytes > limits.maxBufferedBytes;
  /** Sends unless the client has stopped reading: then its backlog would grow without bound, so it is dropped. */
  const sendText = (text: string) => {
    if (socket.readyState !== socket.OPEN) return;
    socket.send(text);
    if (overBudget()) socket.terminate();
  };
  const frame = (data: SubscriptionMessage["data"]) =>
    JSON.stringify({ jsonrpc: "2.0", method: baseNamespace.has(data.subscription) ? "base_subscription" : "eth_subscription", params: data });
  /** Holds a notification until its subscription's id has been announced; past the budget the connection is dropped. */
  const hold = (into: string[] | undefined, data: SubscriptionMessage["data"]) => {
    if (socket.readyState !== socket.OPEN) return;
    const text = frame(data);
    heldBytes += text.length;
    if (into !== undefined) into.push(text);
    else early.push({ subscription: data.subscription, text });
    if (overBudget()) socket.terminate();
  };
  /** Subscriptions made with `base_subscribe`: notified as `base_subscription`, as jsonrpsee names them after the method. */
  const baseNamespace = new Set<string>();
  // Each connection is a client of the wallet, of its origin (docs/wallet.md); a page (with an Origin) is not the test.
  const wallet = provider.openWalletSession?.({ origin, emit: (event, data) => sendText(walletEvent(event, data)), trusted: origin === undefined });
  const session = wallet ?? provider;

  const connection: Connection = {
    deliver(data) {
      const waiting = held.get(data.subscription);
      if (waiting !== undefined) hold(waiting, data);
      else if (owned.has(data.subscription)) sendText(frame(data));
      else if (subscribing > 0) hold(undefined, data);
    },
    drop: () => socket.terminate(),
  };
  connections.add(connection);

  /** A handler for one incoming message; `created` collects the subscriptions its response announces. */
  const handlerFor =
    (created: string[]): RequestHandler =>
    async (method, params) => {
      if (method === "eth_unsubscribe" || method === "base_unsubscribe") {
        const id = firstString(params);
        // Another connection's subscription is not this one's to cancel.
        if (id !== undefined && !owned.has(id)) return false;
        const result = await provider.request({ method, params });
        if (id !== undefined) {
          owned.delete(id);
          for (const text of held.get(id) ?? []) heldBytes -= text.length;
          held.delete(id);
          baseNamespace.delete(id);
        }
        return result;
      }
      if (method !== "eth_subscribe" && method !== "base_subscribe") return session.request(params === undefined ? { method } : { method, params });
      if (limits.maxSubscriptions > 0 && owned.size + subscribing >= limits.maxSubscriptions) {
        throw limitExceeded("too many subscriptions on this connection", limits.maxSubscriptions);
      }
      subscribing++;
      try {
        const id = await session.request({ method, params });
        // The client left while it was being created: nobody will ever cancel it.
        if (closed && typeof id === "string") {
          provider.request({ method: "eth_unsubscribe", params: [id] }).catch(() => undefined);
          return id;
        }
        if (typeof id === "string") {
          owned.add(id);
          const earlyForId = early.filter((item) => item.subscription === id).map((item) => item.text);
          if (method === "base_subscribe") {
            baseNamespace.add(id);
            // Held before the id was known, they were framed as eth_subscription.
            for (let i = 0; i < earlyForId.length; i++) {
              const renamed = earlyForId[i]!.replace('"method":"eth_subscription"', '"method":"base_subscription"');
              heldBytes += renamed.length - earlyForId[i]!.length;
              earlyForId[i] = renamed;
            }
          }
          held.set(id, earlyForId);
          created.push(id);
        }
        return id;
      } finally {
        if (--subscribing === 0) {
          // Those kept were copied into `held` (still counted); the others are dropped.
          for (const item of early) if (!owned.has(item.subscription)) heldBytes -= item.text.length;
          early.length = 0;
        }
      }
    };

  /**
   * After a response went out, the subscriptions it announced go live. Only those: another
   * message's response (a batch still waiting on a Sync call) must not release them early.
   */
  const release = (created: readonly string[]) => {
    for (const id of created) {
      const waiting = held.get(id);
      if (waiting === undefined) continue;
      held.delete(id);
      for (const text of waiting) {
        heldBytes -= text.length;
        sendText(text);
      }
    }
  };

  socket.on("message", (data) => {
    // Backpressure on a client that sends faster than it is answered: stop reading until it catches up.
    if (++inFlight >= limits.maxInFlight) socket.pause();
    const created: string[] = [];
    answerObserved(textOf(data), handlerFor(created), limits.framing, "ws", limits.onRequest)
      .then((response) => {
        if (response !== undefined) sendText(response);
        release(created);
      })
      .catch(() => socket.close(1011, "internal error"))
      .finally(() => {
        if (--inFlight < limits.maxInFlight && socket.isPaused && !closed) socket.resume();
      });
  });

  socket.on("close", () => {
    closed = true;
    connections.delete(connection);
    // Nobody can answer this client's prompts any more, nor read their answers.
    wallet?.end();
    for (const id of owned) {
      provider.request({ method: "eth_unsubscribe", params: [id] }).catch(() => undefined);
    }
    owned.clear();
    held.clear();
  });
  // A protocol error (e.g. a message above maxPayload) already closes with its code (1009); anything else ends the socket.
  socket.on("error", () => {
    if (socket.readyState !== socket.CLOSING) socket.terminate();
  });
}

/** Accepts WebSocket upgrades on `server` from allowed origins (clients without Origin: always). */
export function attachWebSocket(server: Server, provider: ServedProvider, limits: WebSocketLimits): WebSocketEndpoint {
  // Required here, not imported: ws costs every plain import of the package ~0.2-0.4 s, and only a server uses it.
  const { WebSocketServer } = createRequire(import.meta.url)("ws") as typeof import("ws");
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxPayload });
  // One provider listener for all connections: a listener each would trip Node's
  // MaxListenersExceededWarning beyond 10 clients and cost an emit per client.
  const connections = new Set<Connection>();
  const onMessage = (message: SubscriptionMessage) => {
    for (const connection of connections) {
      // One failing connection must not starve the others of their notifications.
      try {
        connection.deliver(message.data);
      } catch {
        connection.drop();
      }
    }
  };
  provider.on("message", onMessage);
  // The raw flashblocks feed on `/ws` (flashblocksFeed.ts), and the injected `dropConnections` fault.
  const feed = provider.chain?.feed;
  const raw = feed === undefined ? undefined : rawFlashblocksFeed(feed, { maxBufferedBytes: limits.maxBufferedBytes });
  const dropAll = () => {
    for (const client of wss.clients) client.terminate();
  };
  feed?.on("dropConnections", dropAll);
  const detach = () => {
    provider.off("message", onMessage);
    feed?.off("dropConnections", dropAll);
    raw?.close();
  };
  server.once("close", detach);
  server.on("upgrade", (req, socket, head) => {
    const origin = req.headers.origin;
    if ((origin !== undefined && !limits.isOriginAllowed(origin)) || !limits.isHostAllowed(req.headers.host)) {
      // A page of another site must not drive the chain through the user's browser.
      socket.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    if (raw !== undefined && new URL(req.url ?? "/", "http://localhost").pathname === "/ws") {
      raw.handleUpgrade(req, socket, head);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => serveConnection(ws, provider, limits, connections, origin));
  });
  return {
    close() {
      detach();
      for (const client of wss.clients) client.terminate();
      wss.close();
    },
  };
}
