/**
 * The fast path of the HTTP server (docs/server.md, "Transport"): connections are accepted by a
 * plain `net.Server`, and the common request — a `POST` of JSON with a `Content-Length` body
 * (http1.ts) — is parsed and answered here, with the bytes Node's server would send. A connection
 * whose next request is anything else is handed, with the bytes read so far, to the `node:http`
 * server, which serves it from then on exactly as before (refusals, 413 and its lingering close,
 * chunked bodies, WebSocket upgrades, preflights, Node's 400/431 for malformed requests).
 *
 * Node's `http` module costs about twice a native server's CPU per request on a keep-alive
 * connection (bench rows N1-N5): most of it is the generic machinery (IncomingMessage and
 * ServerResponse streams, header objects, per-request timers) that a JSON-RPC POST does not need.
 */
import { createServer } from "node:net";

import { parseHead } from "./http1.ts";

import type { Server as HttpServer } from "node:http";
import type { Server, Socket } from "node:net";
import type { FastRequest } from "./http1.ts";

/** What the fast path answers with; `headers` are whole field lines (`Name: value\r\n`) before Content-Type. */
export interface FastReply {
  status: 200 | 204 | 500;
  body?: string;
  headers: string;
}

export interface FastPathOptions {
  /** Whether this request is served here; any other goes, with its connection, to `fallback`. */
  accepts(request: FastRequest): boolean;
  /** Answers a request; `onEnd` is called once, when the answer is sent or the client goes first. Never rejects. */
  serve(request: FastRequest, body: string, onEnd: (end: () => void) => void): Promise<FastReply>;
  /** The node:http server that takes the connections this path does not serve. */
  fallback: HttpServer;
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  idleTimeout: number;
  /** How often the timeouts above are checked (ms), as Node's `connectionsCheckingInterval`. */
  checkInterval: number;
  maxBodyBytes: number;
}

/**
 * A head longer than this goes to Node, whose header budget (16 KiB, `--max-http-header-size`)
 * and 431 then apply exactly; JSON-RPC clients send a few hundred bytes.
 */
export const MAX_FAST_HEAD_BYTES = 8 * 1024;

/**
 * Node's server keeps an idle keep-alive connection this much longer than the `Keep-Alive:
 * timeout` it announces (`keepAliveTimeoutBuffer`, 1 s), so that a client reusing it at the last
 * moment does not meet a reset.
 */
const KEEP_ALIVE_BUFFER_MS = 1000;

const STATUS_TEXT: Record<number, string> = { 200: "OK", 204: "No Content", 500: "Internal Server Error" };
// The answers Node's server sends for a half-closed or a stalled request (ERR_HTTP_REQUEST_TIMEOUT).
const BAD_REQUEST = "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n";
const REQUEST_TIMEOUT = "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n";
const HEAD_END = Buffer.from("\r\n\r\n");
/** What every head the fast path serves starts with: a POST in origin-form (RFC 9112 §3.2.1). */
const FAST_START = Buffer.from("POST /");

/**
 * Whether `bytes`, a head still without its empty line, can still become one the fast path serves:
 * it starts as a POST in origin-form and every line so far ends in CRLF. Anything else goes to
 * Node's parser at once, so a bare LF or a garbled line gets Node's immediate 400, not a wait for
 * the rest of a head that will never come (RFC 9112 §2.2 lets a server accept a bare LF; Node does not).
 */
function mayBecomeFastHead(bytes: Buffer): boolean {
  const start = Math.min(bytes.length, FAST_START.length);
  if (bytes.compare(FAST_START, 0, start, 0, start) !== 0) return false;
  for (let index = bytes.indexOf(0x0a); index !== -1; index = bytes.indexOf(0x0a, index + 1)) {
    if (index === 0 || bytes[index - 1] !== 0x0d) return false;
  }
  // A CR not followed by LF (the last byte may be a CR whose LF has not arrived yet).
  for (let index = bytes.indexOf(0x0d); index !== -1 && index < bytes.length - 1; index = bytes.indexOf(0x0d, index + 1)) {
    if (bytes[index + 1] !== 0x0a) return false;
  }
  return true;
}

/** The `Date` field (RFC 9110 §6.6.1), made once a second as Node does. */
let dateText = "";
let dateUntil = 0;
function date(now: number): string {
  if (now >= dateUntil) {
    dateText = new Date(now).toUTCString();
    dateUntil = now - (now % 1000) + 1000;
  }
  return dateText;
}

/** Where a connection is: what its clock (`since`) times. */
const Phase = {
  /** Waiting for a request head: since the connection opened, or the head's first byte. */
  Head: 0,
  /** Head read, body arriving: since the head's first byte. */
  Body: 1,
  /** A request being answered: no timeout but the idle one. */
  Busy: 2,
  /** Keep-alive, nothing buffered: since the last answer. */
  Idle: 3,
} as const;
type Phase = (typeof Phase)[keyof typeof Phase];

class Connection {
  private chunks: Buffer[] = [];
  private size = 0;
  private request: FastRequest | undefined;
  phase: Phase = Phase.Head;
  since = Date.now();
  /** Handed off, closing or closed: this path no longer reads or writes it. */
  private done = false;
  /** The client ended its side (FIN). */
  private ended = false;
  private paused = false;
  /** Called when the request being answered is over (answered, or its client gone). */
  private onEnd: (() => void) | undefined;

  constructor(
    readonly socket: Socket,
    private readonly path: FastPath,
  ) {
    socket.on("data", this.onData);
    socket.on("end", this.onEndOfInput);
    socket.on("error", () => undefined); // `close` follows; nothing to answer.
    socket.on("close", this.onClose);
    socket.on("timeout", this.onIdle);
    if (path.options.idleTimeout > 0) socket.setTimeout(path.options.idleTimeout);
  }

  private readonly onData = (chunk: Buffer) => {
    if (this.done) return;
    if (this.size === 0 && this.phase === Phase.Idle) {
      this.phase = Phase.Head;
      this.since = Date.now();
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.phase === Phase.Busy) {
      // Pipelined requests wait for the answer before them; past one request's budget, stop reading.
      if (this.size > this.path.options.maxBodyBytes + MAX_FAST_HEAD_BYTES && !this.paused) {
        this.paused = true;
        this.socket.pause();
      }
      return;
    }
    this.pump();
  };

  private readonly onEndOfInput = () => {
    this.ended = true;
    // As Node's server (httpAllowHalfOpen false): a client that ends its side has gone, even
    // while its request is being answered; the answer is dropped and its prompts are rejected.
    if (this.phase === Phase.Busy) this.close();
    else this.pump();
  };

  private readonly onClose = () => {
    this.done = true;
    this.path.connections.delete(this);
    this.finish();
  };

  private readonly onIdle = () => {
    // No traffic either way for idleTimeout (a client that stopped reading, or went quiet).
    this.socket.destroy();
  };

  private finish(): void {
    const end = this.onEnd;
    this.onEnd = undefined;
    end?.();
  }

  /** The buffered bytes as one buffer. */
  private bytes(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks, this.size)];
    return this.chunks[0] ?? Buffer.alloc(0);
  }

  private consume(count: number): void {
    const rest = this.bytes().subarray(count);
    this.size = rest.length;
    this.chunks = rest.length === 0 ? [] : [rest];
  }

  /** Serves the buffered requests, one at a time, until one is incomplete or being answered. */
  private pump(): void {
    if (this.done || this.phase === Phase.Busy) return;
    if (this.paused) {
      this.paused = false;
      this.socket.resume();
    }
    let request = this.request;
    if (request === undefined) {
      if (this.size === 0) {
        // Nothing more from a client that ended its side: end ours (Node's server does the same).
        if (this.ended) this.close();
        return;
      }
      const bytes = this.bytes();
      const end = bytes.indexOf(HEAD_END);
      if (end === -1 || end + 4 > MAX_FAST_HEAD_BYTES) {
        if (bytes.length > MAX_FAST_HEAD_BYTES || !mayBecomeFastHead(bytes)) this.handOff();
        // A head cut short by the client's FIN: Node answers 400.
        else if (this.ended) this.refuse(BAD_REQUEST);
        return;
      }
      request = parseHead(bytes.toString("latin1", 0, end));
      if (request === undefined || !this.path.options.accepts(request)) {
        this.handOff();
        return;
      }
      this.consume(end + 4);
      this.request = request;
      this.phase = Phase.Body;
    }
    if (this.size < request.contentLength) {
      // A body shorter than its Content-Length, then FIN (RFC 9112 §8: incomplete): Node answers 400.
      if (this.ended) this.refuse(BAD_REQUEST);
      return;
    }
    const bytes = this.bytes();
    const body = bytes.toString("utf8", 0, request.contentLength);
    this.consume(request.contentLength);
    this.request = undefined;
    this.phase = Phase.Busy;
    void this.path.options
      .serve(request, body, (end) => {
        this.onEnd = end;
      })
      .then((reply) => this.answer(request, reply));
  }

  private answer(request: FastRequest, reply: FastReply): void {
    if (this.done) return;
    const { keepAliveTimeout } = this.path.options;
    const now = Date.now();
    let head = `HTTP/1.1 ${reply.status} ${STATUS_TEXT[reply.status]}\r\n${reply.headers}`;
    if (reply.body !== undefined) head += `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(reply.body)}\r\n`;
    head += `Date: ${date(now)}\r\n`;
    if (request.close) head += "Connection: close\r\n\r\n";
    else if (keepAliveTimeout > 0) head += `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(keepAliveTimeout / 1000)}\r\n\r\n`;
    else head += "Connection: keep-alive\r\n\r\n";
    this.socket.write(reply.body === undefined ? head : head + reply.body);
    this.finish();
    if (request.close) {
      this.close();
      return;
    }
    // The next request starts once this answer has left the process: a client that never reads
    // holds one answer in memory, not all of them (docs/server.md, "Pipelining and slow readers").
    // Until then the connection stays busy: only the idle timeout runs, as in Node's server.
    if (this.socket.writableNeedDrain) this.socket.once("drain", this.next);
    else this.next();
  }

  private readonly next = () => {
    this.phase = this.size === 0 ? Phase.Idle : Phase.Head;
    this.since = Date.now();
    this.pump();
  };

  /** Answers `response` (400, 408) and closes, as Node's server does. */
  refuse(response: string): void {
    if (this.done) return;
    this.done = true;
    this.socket.end(response);
    this.socket.destroySoon();
  }

  /** Ends the connection once the answers written have left, as Node's server (`destroySoon`). */
  private close(): void {
    this.done = true;
    this.socket.destroySoon();
  }

  /**
   * Gives the connection to the node:http server: the bytes read so far go back into the socket
   * (`unshift`), and Node's parser reads them first as if it had accepted the connection itself.
   * Only between requests (nothing being answered), so answers keep their order.
   */
  private handOff(): void {
    this.done = true;
    this.path.connections.delete(this);
    const { socket } = this;
    socket.off("data", this.onData);
    socket.off("end", this.onEndOfInput);
    socket.off("close", this.onClose);
    socket.off("timeout", this.onIdle);
    socket.setTimeout(0);
    if (this.ended) {
      // Its input is over, so Node's server could not read it: what it would answer.
      socket.end(BAD_REQUEST);
      socket.destroySoon();
      return;
    }
    socket.pause();
    if (this.size > 0) socket.unshift(this.bytes());
    this.chunks = [];
    this.path.options.fallback.emit("connection", socket);
    socket.resume();
  }
}

/** The listening side: accepts connections and times out the stalled ones. */
export class FastPath {
  readonly server: Server;
  readonly connections = new Set<Connection>();
  private checker: NodeJS.Timeout | undefined;

  constructor(readonly options: FastPathOptions) {
    // As Node's http.Server: half-open sockets (the server, not the socket, decides what a
    // client's FIN means) and no Nagle delay on answers.
    this.server = createServer({ allowHalfOpen: true, noDelay: true }, (socket) => {
      this.connections.add(new Connection(socket, this));
    });
    const { headersTimeout, requestTimeout, keepAliveTimeout } = options;
    if (headersTimeout > 0 || requestTimeout > 0 || keepAliveTimeout > 0) {
      this.checker = setInterval(() => this.check(), options.checkInterval);
      this.checker.unref();
    }
  }

  /** Node's server checks its headers and request timeouts on an interval too, not per request. */
  private check(): void {
    const { headersTimeout, requestTimeout, keepAliveTimeout } = this.options;
    const now = Date.now();
    for (const connection of this.connections) {
      const waited = now - connection.since;
      if (connection.phase === Phase.Idle) {
        if (keepAliveTimeout > 0 && waited > keepAliveTimeout + KEEP_ALIVE_BUFFER_MS) connection.socket.destroy();
      } else if (connection.phase !== Phase.Busy) {
        const late = (connection.phase === Phase.Head && headersTimeout > 0 && waited > headersTimeout) || (requestTimeout > 0 && waited > requestTimeout);
        if (late) connection.refuse(REQUEST_TIMEOUT);
      }
    }
  }

  close(): void {
    clearInterval(this.checker);
  }
}
