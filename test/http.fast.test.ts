/**
 * The server's own HTTP/1.1 path (src/server/fastHttp.ts, http1.ts): which request heads it serves
 * itself, and, over real sockets, that its answers are Node's byte for byte, that requests split at
 * any byte or pipelined are answered in order, and that every other request (chunked, upgrades,
 * GET, bad framing, bodies over budget) is answered by node:http on the same connection.
 */
import { connect } from "node:net";

import { expect } from "chai";
import WebSocket from "ws";

import { startServer } from "../src/index.ts";
import { parseHead } from "../src/server/http1.ts";

import type { Socket } from "node:net";
import type { RunningServer, ServedProvider } from "../src/server/http.ts";

/** A provider that echoes: `echo` answers its params, `eth_chainId` 0x1. */
const provider: ServedProvider = {
  request: async ({ method, params }: { method: string; params?: unknown }) => {
    if (method === "eth_chainId") return "0x1";
    if (method === "echo") return params;
    throw Object.assign(new Error("no such method"), { code: -32601 });
  },
  on: () => provider,
  off: () => provider,
} as unknown as ServedProvider;

const call = (id: number, method = "echo", params: unknown[] = [id]) => JSON.stringify({ jsonrpc: "2.0", id, method, params });
const post = (body: string, extra = "", version = "1.1") =>
  `POST / HTTP/${version}\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

interface Response {
  status: number;
  head: string;
  headers: Record<string, string>;
  body: string;
}

/** Reads HTTP responses off a socket, in order (Content-Length bodies, or none for 204/304/1xx-free answers). */
class Reader {
  private buffer = Buffer.alloc(0);
  private waiting: (() => void) | undefined;
  closed = false;
  constructor(readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.waiting?.();
    });
    socket.on("error", () => undefined);
    socket.on("close", () => {
      this.closed = true;
      this.waiting?.();
    });
  }
  private async more(): Promise<void> {
    if (this.closed) throw new Error(`connection closed; unread: ${JSON.stringify(this.buffer.toString("latin1"))}`);
    await new Promise<void>((resolve) => (this.waiting = resolve));
    this.waiting = undefined;
  }
  async next(): Promise<Response> {
    for (;;) {
      const end = this.buffer.indexOf("\r\n\r\n");
      if (end !== -1) {
        const head = this.buffer.toString("latin1", 0, end);
        const [statusLine, ...lines] = head.split("\r\n");
        const headers: Record<string, string> = {};
        for (const line of lines) headers[line.slice(0, line.indexOf(":")).toLowerCase()] = line.slice(line.indexOf(":") + 1).trim();
        const length = Number(headers["content-length"] ?? 0);
        if (headers["transfer-encoding"] === "chunked") {
          const last = this.buffer.indexOf("0\r\n\r\n", end + 4);
          if (last !== -1) {
            this.buffer = this.buffer.subarray(last + 5);
            return { status: Number(statusLine?.split(" ")[1]), head, headers, body: "" };
          }
        } else if (this.buffer.length >= end + 4 + length) {
          const body = this.buffer.toString("utf8", end + 4, end + 4 + length);
          this.buffer = this.buffer.subarray(end + 4 + length);
          return { status: Number(statusLine?.split(" ")[1]), head, headers, body };
        }
      }
      await this.more();
    }
  }
  async untilClosed(): Promise<void> {
    while (!this.closed) await this.more().catch(() => undefined);
  }
}

async function open(server: RunningServer): Promise<Reader> {
  const socket = connect(server.port, "127.0.0.1");
  socket.setNoDelay(true);
  await new Promise((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  return new Reader(socket);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the server's HTTP/1.1 fast path", () => {
  describe("parseHead: what it serves itself (RFC 9112)", () => {
    const head = (lines: string[]) => lines.join("\r\n");
    const base = ["POST / HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json", "Content-Length: 10"];

    it("a POST with Content-Length, HTTP/1.1 or 1.0, its fields trimmed of OWS", () => {
      expect(parseHead(head(base))).to.deep.equal({
        minor: 1,
        host: "127.0.0.1",
        origin: undefined,
        contentType: "application/json",
        contentLength: 10,
        close: false,
      });
      const request = parseHead(head(["POST /any/path?x=1 HTTP/1.0", "hOsT:\t localhost:8545 \t", "content-length:0", "Origin: http://a.test"]));
      expect(request).to.deep.equal({ minor: 0, host: "localhost:8545", origin: "http://a.test", contentType: undefined, contentLength: 0, close: true });
    });

    it("keeps or closes the connection as RFC 9112 §9.3 says", () => {
      const closes = (version: string, connection?: string) =>
        parseHead(head([`POST / HTTP/${version}`, "Host: h", "Content-Length: 0", ...(connection === undefined ? [] : [`Connection: ${connection}`])]))?.close;
      expect(closes("1.1")).to.equal(false);
      expect(closes("1.1", "close")).to.equal(true);
      expect(closes("1.1", "Keep-Alive, CLOSE")).to.equal(true);
      expect(closes("1.0")).to.equal(true);
      expect(closes("1.0", "keep-alive")).to.equal(false);
      expect(closes("1.0", "foo,  Keep-Alive")).to.equal(false);
    });

    it("leaves everything else to node:http", () => {
      const refused: Record<string, string[]> = {
        GET: ["GET / HTTP/1.1", ...base.slice(1)],
        "lower-case method": ["post / HTTP/1.1", ...base.slice(1)],
        OPTIONS: ["OPTIONS / HTTP/1.1", ...base.slice(1)],
        "HTTP/2.0": ["POST / HTTP/2.0", ...base.slice(1)],
        "HTTP/0.9 form": ["POST /"],
        "two spaces": ["POST  / HTTP/1.1", ...base.slice(1)],
        "a target not in origin-form": ["POST abc HTTP/1.1", ...base.slice(1)],
        "an absolute-form target": ["POST http://127.0.0.1/ HTTP/1.1", ...base.slice(1)],
        "leading empty line": ["", ...base],
        chunked: [...base.slice(0, 3), "Transfer-Encoding: chunked"],
        "both framings": [...base, "Transfer-Encoding: chunked"],
        expect: [...base, "Expect: 100-continue"],
        upgrade: [...base, "Connection: Upgrade", "Upgrade: websocket"],
        "no Host": [base[0]!, ...base.slice(2)],
        "two Hosts": [...base, "Host: other"],
        "no Content-Length": base.slice(0, 3),
        "two Content-Lengths": [...base, "Content-Length: 10"],
        "a list as Content-Length": [...base.slice(0, 3), "Content-Length: 10, 10"],
        "a signed Content-Length": [...base.slice(0, 3), "Content-Length: +10"],
        "a hex Content-Length": [...base.slice(0, 3), "Content-Length: 0x10"],
        "a huge Content-Length": [...base.slice(0, 3), "Content-Length: 1234567890123456"],
        "space before the colon": [...base, "Origin : x"],
        "obs-fold": [...base, "X-A: b", " c"],
        "a bare LF": [...base, "X-A: b\nX-B: c"],
        "a bare CR": [...base, "X-A: b\rc"],
        NUL: [...base, "X-A: b\0"],
        "no colon": [...base, "X-A"],
        "two Origins": [...base, "Origin: a", "Origin: b"],
      };
      for (const [name, lines] of Object.entries(refused)) expect(parseHead(head(lines)), name).to.equal(undefined);
    });
  });

  describe("over sockets", () => {
    let server: RunningServer;
    const start = async (options: Parameters<typeof startServer>[1] = {}) => {
      await server?.close();
      server = await startServer(provider, { port: 0, ...options });
    };
    before(() => start());
    after(() => server.close());

    it("answers with Node's bytes: status, fields in Node's order, Date, keep-alive", async () => {
      const client = await open(server);
      client.socket.write(post(call(1)));
      const answer = await client.next();
      expect(answer.head.replace(/Date: [^\r]+/, "Date: *")).to.equal(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 37\r\nDate: *\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5",
      );
      expect(new Date(answer.headers.date!).getTime()).to.be.closeTo(Date.now(), 2000);
      expect(JSON.parse(answer.body)).to.deep.equal({ jsonrpc: "2.0", id: 1, result: [1] });
      // A notification: 204 without a body.
      client.socket.write(post('{"jsonrpc":"2.0","method":"echo"}'));
      const none = await client.next();
      expect(none.head.replace(/Date: [^\r]+/, "Date: *")).to.equal("HTTP/1.1 204 No Content\r\nDate: *\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5");
      // Unicode in and out: Content-Length counts bytes.
      client.socket.write(post(call(2, "echo", ["é€😀"])));
      const unicode = await client.next();
      expect(Number(unicode.headers["content-length"])).to.equal(Buffer.byteLength(unicode.body));
      expect(JSON.parse(unicode.body).result).to.deep.equal(["é€😀"]);
      client.socket.destroy();
    });

    it("answers a request split at every byte boundary", async () => {
      const client = await open(server);
      const text = post(call(7), "Origin: chrome-extension://abc\r\n");
      for (let cut = 1; cut < text.length; cut++) {
        client.socket.write(text.slice(0, cut));
        await pause(cut % 16 === 0 ? 5 : 0);
        await new Promise((resolve) => setImmediate(resolve));
        client.socket.write(text.slice(cut));
        const answer = await client.next();
        expect(answer.status, `cut at ${cut}`).to.equal(200);
        expect(answer.headers["access-control-allow-origin"]).to.equal("chrome-extension://abc");
        expect(answer.headers.vary).to.equal("Origin");
        expect(JSON.parse(answer.body)).to.deep.equal({ jsonrpc: "2.0", id: 7, result: [7] });
      }
      client.socket.destroy();
    });

    it("answers pipelined requests in order, in one write or byte by byte", async () => {
      const client = await open(server);
      client.socket.write(Array.from({ length: 50 }, (_, i) => post(call(i))).join(""));
      for (let i = 0; i < 50; i++) expect(JSON.parse((await client.next()).body).id).to.equal(i);
      const three = [post(call(100)), post(call(101)), post(call(102))].join("");
      for (const byte of three) {
        client.socket.write(byte);
        await new Promise((resolve) => setImmediate(resolve));
      }
      for (let i = 100; i < 103; i++) expect(JSON.parse((await client.next()).body).id).to.equal(i);
      client.socket.destroy();
    });

    it("hands chunked, GET, OPTIONS, Expect and malformed requests to node:http on the same connection, in order", async () => {
      const client = await open(server);
      const body = call(3);
      const chunked = `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
      client.socket.write(post(call(1)) + post(call(2)) + chunked + post(call(4)));
      for (let id = 1; id <= 4; id++) {
        const answer = await client.next();
        expect(answer.status).to.equal(200);
        expect(JSON.parse(answer.body).id).to.equal(id);
      }
      client.socket.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      const get = await client.next();
      expect(get.status).to.equal(405);
      expect(get.headers.allow).to.equal("POST, OPTIONS");
      client.socket.destroy();

      const expecting = await open(server);
      expecting.socket.write(post(call(5), "Expect: 100-continue\r\n"));
      expect((await expecting.next()).status).to.equal(100);
      expect(JSON.parse((await expecting.next()).body).id).to.equal(5);
      expecting.socket.destroy();

      for (const bad of [
        `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n`,
        `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!`,
        `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
        `POST / HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
      ]) {
        const client = await open(server);
        client.socket.write(bad);
        expect((await client.next()).status, bad).to.equal(400);
        await client.untilClosed();
      }
      // Headers above Node's 16 KiB budget: 431, as before.
      const huge = await open(server);
      huge.socket.write(post(call(1), `X-Pad: ${"a".repeat(20_000)}\r\n`));
      expect((await huge.next()).status).to.equal(431);
      huge.socket.destroy();
    });

    it("serves WebSocket upgrades", async () => {
      const socket = new WebSocket(server.wsUrl);
      await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
      socket.send(call(9));
      const message = await new Promise<string>((resolve) => socket.once("message", (data) => resolve(String(data))));
      expect(JSON.parse(message)).to.deep.equal({ jsonrpc: "2.0", id: 9, result: [9] });
      socket.close();
    });

    it("HTTP/1.0: closes after the answer unless asked to keep the connection", async () => {
      const once = await open(server);
      once.socket.write(post(call(1), "", "1.0"));
      const answer = await once.next();
      expect(answer.headers.connection).to.equal("close");
      expect(answer.headers["keep-alive"]).to.equal(undefined);
      await once.untilClosed();

      const kept = await open(server);
      kept.socket.write(post(call(1), "Connection: keep-alive\r\n", "1.0"));
      expect((await kept.next()).headers.connection).to.equal("keep-alive");
      kept.socket.write(post(call(2), "Connection: keep-alive\r\n", "1.0"));
      expect(JSON.parse((await kept.next()).body).id).to.equal(2);
      kept.socket.destroy();

      const closing = await open(server);
      closing.socket.write(post(call(1), "Connection: close\r\n") + post(call(2)));
      expect((await closing.next()).headers.connection).to.equal("close");
      await closing.untilClosed();
    });

    it("bodies over budget: 413 from node:http, after the answers before them", async () => {
      await start({ maxBodyBytes: 100 });
      const client = await open(server);
      client.socket.write(post(call(1)) + post(call(2, "echo", ["x".repeat(200)])));
      expect((await client.next()).status).to.equal(200);
      const refused = await client.next();
      expect(refused.status).to.equal(413);
      expect(refused.headers.connection).to.equal("close");
      expect(JSON.parse(refused.body).error.data.reason).to.equal("body exceeds 100 bytes");
      await client.untilClosed();
      // Exactly at the budget: served here.
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "echo", params: ["x".repeat(100 - 54)] });
      expect(body.length).to.equal(100);
      const exact = await open(server);
      exact.socket.write(post(body));
      expect((await exact.next()).status).to.equal(200);
      exact.socket.destroy();
      await start();
    });

    it("a truncated body then FIN is 400; a silent or stalled connection 408; an idle one closes", async () => {
      await start({ headersTimeoutMs: 300, requestTimeoutMs: 600, keepAliveTimeoutMs: 200 });
      const truncated = await open(server);
      truncated.socket.write(post(call(1)).slice(0, -5));
      truncated.socket.end();
      const bad = await truncated.next();
      expect(bad.head).to.equal("HTTP/1.1 400 Bad Request\r\nConnection: close");
      await truncated.untilClosed();

      const silent = await open(server);
      const stalled = await open(server);
      stalled.socket.write(post(call(1)).slice(0, -5));
      const started = Date.now();
      for (const client of [silent, stalled]) {
        const answer = await client.next();
        expect(answer.head).to.equal("HTTP/1.1 408 Request Timeout\r\nConnection: close");
        await client.untilClosed();
      }
      expect(Date.now() - started).to.be.lessThan(3000);

      const idle = await open(server);
      idle.socket.write(post(call(1)));
      expect((await idle.next()).headers["keep-alive"]).to.equal("timeout=0");
      const answered = Date.now();
      await idle.untilClosed();
      // keepAliveTimeout plus Node's 1 s buffer, checked on the interval.
      expect(Date.now() - answered).to.be.within(1000, 3000);
      await start();
    });

    it("a head that cannot be a fast one gets Node's 400 at once, not a wait for its end", async () => {
      const heads = [
        "POST / HTTP/1.1\nHost: 127.0.0.1\nContent-Type: application/json\nContent-Length: 2\n\n{}",
        "HELLO\r\n",
        "POST abc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
      ];
      for (const bytes of heads) {
        const client = await open(server);
        const started = Date.now();
        client.socket.write(bytes);
        const answer = await client.next();
        expect(answer.head, JSON.stringify(bytes)).to.equal("HTTP/1.1 400 Bad Request\r\nConnection: close");
        expect(Date.now() - started, JSON.stringify(bytes)).to.be.lessThan(1000);
        await client.untilClosed();
      }
    });

    it("survives garbage and keeps serving others", async () => {
      let seed = 42;
      const random = () => {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        return seed;
      };
      const valid = post(call(1));
      const sockets: Reader[] = [];
      for (let i = 0; i < 40; i++) {
        const client = await open(server);
        sockets.push(client);
        const bytes = Buffer.from(valid);
        // Mutate a few bytes of a valid request, or send noise.
        if (i % 2 === 0) for (let k = 0; k < 3; k++) bytes[random() % bytes.length] = random() % 256;
        client.socket.write(i % 2 === 0 ? bytes : Buffer.from(Array.from({ length: 200 }, () => random() % 256)));
        client.socket.end();
      }
      const probe = await open(server);
      probe.socket.write(post(call(5)));
      expect(JSON.parse((await probe.next()).body).id).to.equal(5);
      probe.socket.destroy();
      for (const client of sockets) await client.untilClosed();
    });
  });
});
