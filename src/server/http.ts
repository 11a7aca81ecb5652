/**
 * The JSON-RPC server: HTTP and WebSocket on one port (DECISIONS §1). HTTP takes `POST` with
 * `Content-Type: application/json` (405, 415 otherwise), refuses bodies above the limit with 413
 * before parsing, answers CORS preflights, and never answers with anything but JSON-RPC.
 */
import { createServer } from "node:http";

import { invalidRequest, notificationsNotSupported } from "../rpc/errors.ts";
import { answerText, errorResponse } from "./jsonrpc.ts";
import { attachWebSocket } from "./ws.ts";

import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { PreconfProvider } from "../provider.ts";
import type { RequestHandler } from "./jsonrpc.ts";

/** What the server needs of a provider: EIP-1193 `request` and its `message` events. */
export type ServedProvider = Pick<PreconfProvider, "request" | "on" | "off">;

export interface ServerOptions {
  /** Interface to bind (127.0.0.1). Anything else exposes the dev keys' chain: a warning is logged. */
  host?: string;
  /** Port (8545); 0 picks a free one. */
  port?: number;
  /** Origins allowed by CORS and for WebSocket upgrades: "*" (default) or a list. */
  allowedOrigins?: "*" | readonly string[];
  /** Largest request body, in bytes (5 MiB). */
  maxBodyBytes?: number;
  /** Where warnings go (console.warn). */
  warn?: (message: string) => void;
}

export interface RunningServer {
  /** `http://host:port` */
  url: string;
  /** `ws://host:port` */
  wsUrl: string;
  port: number;
  host: string;
  /** Stops listening and ends every HTTP and WebSocket connection. */
  close(): Promise<void>;
}

export const DEFAULT_MAX_BODY_BYTES = 5 * 1024 * 1024;
const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/** Bound beyond loopback, the chain (and the funds of its publicly known keys) is reachable by others. */
export function bindWarning(host: string): string | undefined {
  if (LOOPBACK.has(host)) return undefined;
  return `hardhat-preconf is listening on ${host}: anyone who can reach it can use the chain and its publicly known dev keys.`;
}

/** The value for Access-Control-Allow-Origin, or undefined when the origin is not allowed. */
export function allowedOrigin(allowed: "*" | readonly string[], origin: string | undefined): string | undefined {
  if (allowed === "*") return "*";
  return origin !== undefined && allowed.includes(origin) ? origin : undefined;
}

function setCors(req: IncomingMessage, res: ServerResponse, allowed: "*" | readonly string[]): void {
  const origin = allowedOrigin(allowed, req.headers.origin);
  if (origin === undefined) return;
  res.setHeader("Access-Control-Allow-Origin", origin);
  if (origin !== "*") res.setHeader("Vary", "Origin");
}

function send(res: ServerResponse, status: number, body?: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, body === undefined ? headers : { "Content-Type": "application/json", ...headers });
  res.end(body);
}

const refusal = (reason: string) => JSON.stringify(errorResponse(null, invalidRequest(reason)));

function isJson(contentType: string | undefined): boolean {
  const mediaType = contentType?.split(";")[0]?.trim().toLowerCase();
  return mediaType === "application/json";
}

/** Reads the body up to `limit` bytes; undefined when it is larger (the rest is not read). */
function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners("data");
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/**
 * Starts an HTTP + WebSocket JSON-RPC server for a provider. The provider stays the caller's:
 * `close()` stops the server only.
 *
 * @example
 * ```ts
 * const provider = await createPreconfProvider();
 * const server = await startServer(provider, { port: 8545 });
 * console.log(server.url); // http://127.0.0.1:8545
 * await server.close();
 * ```
 */
export async function startServer(provider: ServedProvider, options: ServerOptions = {}): Promise<RunningServer> {
  const host = options.host ?? "127.0.0.1";
  const allowed = options.allowedOrigins ?? "*";
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const warn = options.warn ?? ((message: string) => console.warn(message));

  // HTTP cannot push notifications: subscriptions are refused as go-ethereum does.
  const handle: RequestHandler = async (method, params) => {
    if (method === "eth_subscribe" || method === "eth_unsubscribe") throw notificationsNotSupported();
    return provider.request(params === undefined ? { method } : { method, params });
  };

  const onRequest = async (req: IncomingMessage, res: ServerResponse) => {
    setCors(req, res, allowed);
    if (req.method === "OPTIONS") {
      const requested = req.headers["access-control-request-headers"];
      send(res, 204, undefined, {
        "Access-Control-Allow-Methods": "POST, OPTIONS",
        "Access-Control-Allow-Headers": typeof requested === "string" ? requested : "Content-Type",
        "Access-Control-Max-Age": "600",
      });
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
      // The rest of the body is never read: close the connection rather than drain it.
      send(res, 413, refusal(`body exceeds ${limit} bytes`), { Connection: "close" });
      return;
    }
    const text = await answerText(body, handle);
    if (text === undefined) send(res, 204);
    else send(res, 200, text);
  };

  const server = createServer((req, res) => {
    onRequest(req, res).catch((error: unknown) => {
      // A bug in the transport itself: still JSON-RPC, never a crash or an HTML page.
      send(res, 500, JSON.stringify(errorResponse(null, error)));
    });
  });
  const webSocket = attachWebSocket(server, provider, (origin) => allowedOrigin(allowed, origin) !== undefined, limit);

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 8545, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const warning = bindWarning(host);
  if (warning !== undefined) warn(warning);

  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${port}`,
    wsUrl: `ws://${shownHost}:${port}`,
    port,
    host,
    close() {
      closing ??= new Promise<void>((resolve) => {
        webSocket.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
