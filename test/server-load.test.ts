/**
 * The server under load and abuse (README "Limits and security"). Each case checks that the server
 * answers or refuses with the documented status, keeps serving a normal client meanwhile, and that
 * its memory stays bounded. Sizes are reduced in `npm test`; `LOAD_SCALE=full` (`npm run
 * stress`, with the mempool load test) runs them in full. A summary of requests, statuses and memory is printed at the end.
 */
import { once } from "node:events";
import { request as httpRequest, Agent } from "node:http";
import { connect } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

import { expect } from "chai";
import WebSocket from "ws";

import { createPreconfProvider, startServer } from "../src/index.ts";
import { createTestChain } from "./helpers/chain.ts";
import { send, signTx } from "./helpers/sign.ts";

import type { Socket } from "node:net";
import type { PreconfProvider, RunningServer } from "../src/index.ts";
import type { ServerOptions } from "../src/server/http.ts";

const FULL = process.env.LOAD_SCALE === "full";
const SIZE = {
  connections: FULL ? 2000 : 500,
  subscriptions: FULL ? 500 : 100,
  fragments: FULL ? 50 : 10,
  batch: 1000,
  concurrentBatches: FULL ? 20 : 4,
  truncated: FULL ? 500 : 100,
  oversized: FULL ? 200 : 40,
  slowloris: FULL ? 500 : 100,
  pipelined: FULL ? 100 : 30,
  wsFlood: FULL ? 20_000 : 3000,
  hostileMs: FULL ? 20_000 : 1500,
};
/** Generous: the point is "bounded", not a budget. */
const HEAP_BOUND = 64 * 1024 * 1024;

// A real gc makes before/after comparable; mocha is not started with --expose-gc.
setFlagsFromString("--expose-gc");
const gc = ((globalThis as { gc?: () => void }).gc ?? runInNewContext("gc")) as () => void;

function memory() {
  gc();
  gc();
  const { heapUsed, arrayBuffers, rss } = process.memoryUsage();
  return { heapUsed, arrayBuffers, rss };
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

interface Figures {
  requests: number;
  statuses: Record<string, number>;
  heapBefore: number;
  heapAfter: number;
  heapPeak: number;
  ms: number;
}
const summary = new Map<string, Figures>();

/** Runs a case, records its figures and checks that memory came back within the bound. */
async function measured(kind: string, run: (figures: Figures, sample: () => void) => Promise<void>): Promise<Figures> {
  const before = memory();
  const figures: Figures = { requests: 0, statuses: {}, heapBefore: before.heapUsed, heapAfter: 0, heapPeak: before.heapUsed, ms: 0 };
  const sample = () => {
    figures.heapPeak = Math.max(figures.heapPeak, process.memoryUsage().heapUsed);
  };
  const started = performance.now();
  await run(figures, sample);
  figures.ms = Math.round(performance.now() - started);
  const after = memory();
  figures.heapAfter = after.heapUsed;
  summary.set(kind, figures);
  expect(after.heapUsed - before.heapUsed, `${kind}: heap growth`).to.be.lessThan(HEAP_BOUND);
  expect(after.arrayBuffers - before.arrayBuffers, `${kind}: buffer growth`).to.be.lessThan(HEAP_BOUND);
  return figures;
}

const count = (figures: Figures, status: number | string) => {
  figures.requests++;
  figures.statuses[status] = (figures.statuses[status] ?? 0) + 1;
};

const call = (method: string, params: unknown[] = [], id: unknown = 1) => ({ jsonrpc: "2.0", id, method, params });

/** An HTTP response read off a raw socket: status, body and whether the server closed the connection. */
interface RawResponse {
  status: number | undefined;
  body: string;
  error?: string;
}

function parseRaw(text: string): RawResponse {
  const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
  const split = text.indexOf("\r\n\r\n");
  return { status: match === null ? undefined : Number(match[1]), body: split < 0 ? "" : text.slice(split + 4) };
}

function openRaw(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => resolve(socket));
    socket.once("error", reject);
  });
}

/** Reads everything until the server closes the socket. */
function readUntilClosed(socket: Socket): Promise<RawResponse> {
  return new Promise((resolve) => {
    let text = "";
    let error: string | undefined;
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (text += chunk));
    socket.on("error", (caught: NodeJS.ErrnoException) => (error = caught.code));
    socket.on("close", () => resolve({ ...parseRaw(text), ...(error !== undefined && { error }) }));
  });
}

const requestText = (body: string, extra = "") =>
  `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

/** A plain request on a fresh connection, as a well-behaved client sends it meanwhile. */
function probe(url: string, timeoutMs = 3000): Promise<{ status: number; ms: number; json: unknown }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const body = JSON.stringify(call("eth_chainId"));
    const req = httpRequest(url, { method: "POST", agent: false, timeout: timeoutMs, headers: { "content-type": "application/json" } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode!, ms: performance.now() - started, json: JSON.parse(text) }));
    });
    req.on("timeout", () => req.destroy(new Error("probe timed out")));
    req.on("error", reject);
    req.end(body);
  });
}

async function expectServing(url: string): Promise<void> {
  const answer = await probe(url);
  expect(answer.status).to.equal(200);
  expect(answer.json).to.deep.equal({ jsonrpc: "2.0", id: 1, result: "0x7a69" });
}

describe(`server under load and abuse (${FULL ? "full" : "reduced"} size)`, function () {
  this.timeout(FULL ? 600_000 : 60_000);
  let provider: PreconfProvider;
  let server: RunningServer;
  const start = async (options: ServerOptions = {}) => {
    server = await startServer(provider, { port: 0, ...options });
  };

  beforeEach(async () => {
    ({ provider } = await createTestChain());
  });

  afterEach(async () => {
    await server?.close();
    await provider.close();
  });

  after(() => {
    const rows = [...summary].map(
      ([kind, f]) =>
        `  ${kind.padEnd(34)} ${String(f.requests).padStart(7)} req  ${JSON.stringify(f.statuses).padEnd(44)} heap ${mib(f.heapBefore)} → peak ${mib(f.heapPeak)} → ${mib(f.heapAfter)}  ${f.ms} ms`,
    );
    console.log(`\n  load summary (${FULL ? "full" : "reduced"}):\n${rows.join("\n")}`);
  });

  it(`${SIZE.connections} concurrent HTTP connections, each with its own request`, async () => {
    await start();
    const sender = provider.accounts[0]!.address;
    await measured("concurrent connections", async (figures, sample) => {
      // Every connection is open before any request is written: they really are concurrent.
      const sockets = await Promise.all(Array.from({ length: SIZE.connections }, () => openRaw(server.port)));
      figures.statuses.open = sockets.length;
      sample();
      const answers = sockets.map((socket) => readUntilClosed(socket));
      sockets.forEach((socket, i) => {
        const request = [call("eth_chainId", [], i), call("eth_blockNumber", [], i), call("eth_getBalance", [sender, "latest"], i)][i % 3]!;
        socket.write(requestText(JSON.stringify(request), "Connection: close\r\n"));
      });
      const responses = await Promise.all(answers);
      sample();
      responses.forEach((response, i) => {
        count(figures, response.status ?? response.error ?? "none");
        expect(response.status, `connection ${i}`).to.equal(200);
        expect((JSON.parse(response.body) as { id: number }).id).to.equal(i);
      });
    });
  });

  it(`a WebSocket with ${SIZE.subscriptions} subscriptions gets every fragment notification, HTTP served meanwhile`, async () => {
    await start();
    await measured("websocket subscriptions", async (figures, sample) => {
      const socket = new WebSocket(server.wsUrl);
      await once(socket, "open");
      const ids: string[] = [];
      const perSubscription = new Map<string, number>();
      let answered = 0;
      socket.on("message", (data) => {
        const message = JSON.parse(String(data)) as { id?: number; result?: string; params?: { subscription: string } };
        if (message.params !== undefined) {
          perSubscription.set(message.params.subscription, (perSubscription.get(message.params.subscription) ?? 0) + 1);
        } else if (typeof message.result === "string") {
          ids.push(message.result);
          answered++;
        }
      });
      const kinds = ["newFlashblocks", "newFlashblockTransactions", "pendingLogs", "newHeads"];
      for (let i = 0; i < SIZE.subscriptions; i++) socket.send(JSON.stringify(call("eth_subscribe", [kinds[i % kinds.length]!], i)));
      while (answered < SIZE.subscriptions) await new Promise((resolve) => setTimeout(resolve, 5));
      figures.requests += SIZE.subscriptions;
      // One transfer per fragment, so newFlashblockTransactions fires every time.
      for (let nonce = 0; nonce < SIZE.fragments; nonce++) {
        await send(provider, await signTx(provider, 0, { nonce }));
        await provider.preconf.advance();
        if (nonce % 5 === 0) await expectServing(server.url);
        sample();
      }
      const expectedTotal = (SIZE.subscriptions / 4) * (SIZE.fragments * 2 + Math.floor(SIZE.fragments / 10));
      const deadline = Date.now() + 10_000;
      const total = () => [...perSubscription.values()].reduce((a, b) => a + b, 0);
      while (total() < expectedTotal && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      figures.statuses.notifications = total();
      expect(total()).to.equal(expectedTotal);
      ids.forEach((id, i) => {
        if (kinds[i % 4] === "newFlashblocks" || kinds[i % 4] === "newFlashblockTransactions")
          expect(perSubscription.get(id), kinds[i % 4]).to.equal(SIZE.fragments);
      });
      socket.close();
      await once(socket, "close");
    });
  });

  it(`batches of ${SIZE.batch} (${SIZE.concurrentBatches} at once) are answered in order; one more is refused`, async () => {
    await start();
    await measured("batches", async (figures, sample) => {
      const sender = provider.accounts[0]!.address;
      const batch = Array.from({ length: SIZE.batch }, (_, i) => (i % 2 === 0 ? call("eth_getBalance", [sender, "latest"], i) : call("net_version", [], i)));
      const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
      const post = (body: unknown) =>
        new Promise<{ status: number; json: unknown }>((resolve, reject) => {
          const text = JSON.stringify(body);
          const req = httpRequest(server.url, { method: "POST", agent, headers: { "content-type": "application/json" } }, (res) => {
            let data = "";
            res.setEncoding("utf8");
            res.on("data", (chunk: string) => (data += chunk));
            res.on("end", () => resolve({ status: res.statusCode!, json: JSON.parse(data) }));
          });
          req.on("error", reject);
          req.end(text);
        });
      const [answers, meanwhile] = await Promise.all([Promise.all(Array.from({ length: SIZE.concurrentBatches }, () => post(batch))), probe(server.url)]);
      sample();
      expect(meanwhile.status).to.equal(200);
      for (const answer of answers) {
        count(figures, answer.status);
        figures.requests += SIZE.batch - 1;
        const items = answer.json as { id: number; result: string }[];
        expect(items.map((item) => item.id)).to.deep.equal(batch.map((item) => item.id));
        expect(items[1]!.result).to.equal("31337");
      }
      const over = await post([...batch, call("eth_chainId", [], "last")]);
      count(figures, `${over.status} batch too large`);
      expect(over).to.deep.equal({
        status: 200,
        json: [{ jsonrpc: "2.0", id: 0, error: { code: -32600, message: "Invalid Request", data: { reason: "batch too large", limit: 1000 } } }],
      });
      agent.destroy();
    });
  });

  it(`${SIZE.truncated} truncated bodies and invalid JSON: 400 or 408 for the first, -32700 for the second`, async () => {
    await start({ requestTimeoutMs: 800, headersTimeoutMs: 800 });
    await measured("truncated / invalid bodies", async (figures, sample) => {
      const body = JSON.stringify(call("eth_chainId"));
      const jobs: Promise<void>[] = [];
      for (let i = 0; i < SIZE.truncated; i++) {
        jobs.push(
          (async () => {
            const socket = await openRaw(server.port);
            const answer = readUntilClosed(socket);
            const kind = i % 3;
            if (kind === 0) {
              // Declares more than it sends, then ends its side: Node's parser answers 400 and closes.
              socket.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n${body}`);
              socket.end();
              const response = await answer;
              count(figures, response.status ?? "none");
              expect(response.status).to.equal(400);
            } else if (kind === 1) {
              // Declares more than it sends and waits: the request timeout answers 408.
              socket.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n${body}`);
              const response = await answer;
              count(figures, response.status ?? "none");
              expect(response.status).to.equal(408);
            } else {
              socket.write(requestText('{"jsonrpc":"2.0","id":1,"method":', "Connection: close\r\n"));
              const response = await answer;
              count(figures, `${response.status} parse error`);
              expect(response.status).to.equal(200);
              expect((JSON.parse(response.body) as { error: { code: number } }).error.code).to.equal(-32700);
            }
          })(),
        );
      }
      await expectServing(server.url);
      await Promise.all(jobs);
      sample();
      await expectServing(server.url);
    });
  });

  it(`${SIZE.oversized} oversized bodies are refused with 413 before they are read`, async () => {
    const limit = 64 * 1024;
    await start({ maxBodyBytes: limit });
    await measured("oversized bodies", async (figures, sample) => {
      const big = JSON.stringify(call("eth_chainId", ["x".repeat(limit)]));
      const jobs = Array.from({ length: SIZE.oversized }, async (_, i) => {
        const socket = await openRaw(server.port);
        const answer = readUntilClosed(socket);
        if (i % 2 === 0) {
          // Declared: refused on the headers alone; the body is never sent.
          socket.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${50 * 1024 * 1024}\r\n\r\n`);
        } else {
          // Chunked, no length: refused once the limit is crossed.
          socket.write(
            `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${big.length.toString(16)}\r\n${big}\r\n`,
          );
        }
        const response = await answer;
        count(figures, response.status ?? response.error ?? "none");
        expect(response.status).to.equal(413);
      });
      await expectServing(server.url);
      await Promise.all(jobs);
      sample();
    });
  });

  it(`slowloris: ${SIZE.slowloris} clients dribbling headers get 408 and are closed; others are served meanwhile`, async () => {
    await start({ headersTimeoutMs: 1000, requestTimeoutMs: 2000 });
    await measured("slowloris", async (figures, sample) => {
      const started = performance.now();
      const sockets = await Promise.all(Array.from({ length: SIZE.slowloris }, () => openRaw(server.port)));
      const answers = sockets.map((socket) => readUntilClosed(socket));
      const header = "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Padding: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
      let position = 0;
      const drip = setInterval(() => {
        for (const socket of sockets) if (!socket.destroyed) socket.write(header[position % header.length]!);
        position++;
      }, 100);
      try {
        // Meanwhile, normal requests are answered promptly.
        for (let i = 0; i < 5; i++) {
          const answer = await probe(server.url);
          expect(answer.status).to.equal(200);
          expect(answer.ms).to.be.lessThan(1000);
          figures.statuses.probe = (figures.statuses.probe ?? 0) + 1;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const responses = await Promise.all(answers);
        sample();
        for (const response of responses) {
          count(figures, response.status ?? response.error ?? "none");
          expect(response.status).to.equal(408);
        }
        // Within the headers timeout plus Node's check interval, and some slack for a loaded machine.
        expect(performance.now() - started).to.be.lessThan(4000);
      } finally {
        clearInterval(drip);
      }
      // A connection that never sends a byte is closed the same way.
      const silent = await openRaw(server.port);
      const silentAnswer = await readUntilClosed(silent);
      count(figures, silentAnswer.status ?? "none");
      expect(silentAnswer.status).to.equal(408);
    });
  });

  it("a client that pipelines requests and never reads the answers: bounded memory, others served, closed when idle", async () => {
    await start({ idleTimeoutMs: 1500 });
    await measured("pipelining, never reading", async (figures, sample) => {
      // Each request asks for ~1.7 MiB of answer: together far more than the socket buffers hold.
      const batch = JSON.stringify(Array.from({ length: 1000 }, (_, i) => call("eth_getBlockByNumber", ["0x0", true], i)));
      const answerBytes = 1_700_000;
      const socket = await openRaw(server.port);
      socket.pause();
      let received = 0;
      const closed = new Promise<string>((resolve) => {
        socket.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
        socket.on("close", () => resolve("closed"));
      });
      const request = requestText(batch);
      for (let i = 0; i < SIZE.pipelined; i++) socket.write(request);
      figures.requests += SIZE.pipelined;
      await new Promise((resolve) => setTimeout(resolve, 500));
      sample();
      await expectServing(server.url);
      // Once nothing has moved for idleTimeoutMs the server drops it; a paused client sees that only when it reads again.
      while (server.connections > 0) await new Promise((resolve) => setTimeout(resolve, 50));
      socket.on("data", (chunk: Buffer) => (received += chunk.length));
      socket.resume();
      const outcome = await closed;
      received += socket.readableLength;
      figures.statuses[`dropped (${outcome}), ${mib(received)} of ${mib(SIZE.pipelined * answerBytes)} answered`] = 1;
      expect(received).to.be.lessThan((SIZE.pipelined * answerBytes) / 2);
      await expectServing(server.url);
    });
  });

  it("a WebSocket client that stops reading is dropped once its backlog passes the limit; its subscriptions go", async () => {
    await start({ wsMaxBufferedBytes: 1024 * 1024 });
    await measured("websocket, never reading", async (figures, sample) => {
      const socket = new WebSocket(server.wsUrl);
      await once(socket, "open");
      let answered = 0;
      socket.on("message", () => answered++);
      for (let i = 0; i < 50; i++) socket.send(JSON.stringify(call("eth_subscribe", ["newFlashblocks"], i)));
      while (answered < 50) await new Promise((resolve) => setTimeout(resolve, 5));
      figures.requests += 50;
      const subscriptions = provider.wallet.ownContext.subscriptions;
      expect(subscriptions.size).to.equal(50);
      socket.pause();
      // Big answers too: batches of 1000 (40 KiB each) that it never reads.
      const batch = JSON.stringify(Array.from({ length: 1000 }, (_, i) => call("net_version", [], i)));
      let fragments = 0;
      while (subscriptions.size > 0 && fragments < 2000) {
        socket.send(batch);
        await provider.preconf.advance();
        fragments++;
        if (fragments % 20 === 0) sample();
      }
      figures.statuses[`dropped after ${fragments} fragments`] = 1;
      expect(subscriptions.size).to.equal(0);
      await expectServing(server.url);
      socket.terminate();
    });
  });

  it(`a WebSocket client firing ${SIZE.wsFlood} requests without waiting gets every answer`, async () => {
    await start({ wsMaxInFlight: 16 });
    await measured("websocket flood", async (figures, sample) => {
      const socket = new WebSocket(server.wsUrl);
      await once(socket, "open");
      const seen = new Set<number>();
      const done = new Promise<void>((resolve) => {
        socket.on("message", (data) => {
          seen.add((JSON.parse(String(data)) as { id: number }).id);
          if (seen.size === SIZE.wsFlood) resolve();
        });
      });
      for (let i = 0; i < SIZE.wsFlood; i++) socket.send(JSON.stringify(call(i % 2 === 0 ? "eth_blockNumber" : "eth_chainId", [], i)));
      await expectServing(server.url);
      await done;
      sample();
      figures.requests += SIZE.wsFlood;
      figures.statuses.answered = seen.size;
      socket.close();
    });
  });

  it(`a hostile client beside a normal client: looping calls (latest and pending) and a prompt flood for ${SIZE.hostileMs} ms; the normal client's latency and blocks sealed are printed`, async () => {
    // Real time: the fragment timer must keep its cadence while the hostile calls run.
    const real = await createPreconfProvider({ fragmentIntervalMs: 100, fragmentsPerBlock: 5, rpcEvmTimeoutMs: FULL ? 5000 : 200 });
    const page = "http://127.0.0.1:5173";
    const realServer = await startServer(real, { port: 0, allowedOrigins: [page] });
    // Every wallet prompt waits for the test, which never answers: only the clients' going away ends them.
    real.wallet.policy.manual();
    try {
      await measured("hostile beside normal", async (figures, sample) => {
        const loop = (id: number, method: string, block: string) => call(method, [{ data: "0x5b5f56", gas: "0xffffffffffffffff" }, block], id);
        const began = performance.now();
        const until = began + SIZE.hostileMs;
        const startBlock = Number((await real.request({ method: "eth_blockNumber" })) as string);
        // When each fragment was produced: a fragment waiting for a call shows as a long gap.
        const produced: number[] = [];
        const onFragment = () => produced.push(performance.now());
        real.chain.on("fragment", onFragment);
        // Looping dry runs: on latest (a state view), and on pending (a snapshot of the pre-confirmed state).
        const kinds = [
          ["eth_call", "latest"],
          ["eth_call", "pending"],
          ["eth_estimateGas", "pending"],
          ["eth_call", "latest"],
        ] as const;
        const hostile = kinds.map(async ([method, block]) => {
          while (performance.now() < until) {
            const response = await fetch(realServer.url, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify(Array.from({ length: FULL ? 10 : 2 }, (_, i) => loop(i, method, block))),
            });
            await response.text();
            count(figures, `hostile ${method} ${block} ${response.status}`);
            sample();
          }
        });
        // A prompt flood: a page asks for more signatures than it may keep waiting, hangs up, and comes back.
        const flood = (async () => {
          const from = real.accounts[0]!.address;
          while (performance.now() < until) {
            const socket = new WebSocket(realServer.wsUrl, { origin: page });
            await once(socket, "open");
            const refused = new Promise<void>((resolve) => socket.on("message", (data) => (String(data).includes("-32005") ? resolve() : undefined)));
            for (let i = 0; i < 40; i++) socket.send(JSON.stringify(call("personal_sign", ["0x00", from], i)));
            await refused;
            count(figures, "prompt flood -32005");
            socket.close();
            await once(socket, "close");
            sample();
          }
        })();
        const latencies: number[] = [];
        // The normal client: eth_chainId, and small calls on the blocks the hostile calls loop on.
        const callLatencies: number[] = [];
        const normal = (async () => {
          for (let turn = 0; performance.now() < until; turn++) {
            const answer = await probe(realServer.url);
            expect(answer.status).to.equal(200);
            latencies.push(answer.ms);
            count(figures, "normal 200");
            const started = performance.now();
            const response = await fetch(realServer.url, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify(call("eth_call", [{ data: "0x5a5f5260205ff3" }, turn % 2 === 0 ? "latest" : "pending"])),
            });
            expect(((await response.json()) as { result?: string }).result).to.match(/^0x/);
            callLatencies.push(performance.now() - started);
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        })();
        await Promise.all([...hostile, flood, normal]);
        real.chain.off("fragment", onFragment);
        const inWindow = produced.filter((at) => at <= until);
        const longestGap = Math.max(0, ...inWindow.slice(1).map((at, i) => at - inWindow[i]!));
        const sealed = Number((await real.request({ method: "eth_blockNumber" })) as string) - startBlock;
        const expected = Math.floor((performance.now() - began) / (100 * 5));
        latencies.sort((a, b) => a - b);
        const p99 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? 0;
        figures.statuses[`normal p99 ${Math.round(p99)} ms, blocks ${sealed}/${expected}`] = latencies.length;
        callLatencies.sort((a, b) => a - b);
        const callP99 = callLatencies[Math.min(callLatencies.length - 1, Math.floor(callLatencies.length * 0.99))] ?? 0;
        figures.statuses[`normal eth_call p99 ${Math.round(callP99)} ms, max ${Math.round(callLatencies.at(-1) ?? 0)} ms`] = callLatencies.length;
        figures.statuses[`fragments ${inWindow.length}/${Math.floor(SIZE.hostileMs / 100)} in the window, longest gap ${Math.round(longestGap)} ms`] =
          inWindow.length;
        expect(latencies.length).to.be.greaterThan(0);
        // Every page hung up: none of their prompts is left waiting.
        for (let i = 0; i < 100 && real.wallet.policy.pending().length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
        expect(real.wallet.policy.pending()).to.deep.equal([]);
      });
    } finally {
      await realServer.close();
      await real.close();
    }
  });

  it("close() ends keep-alive sockets, half-sent requests, pending requests and WebSockets promptly", async () => {
    await start({ keepAliveTimeoutMs: 60_000 });
    await measured("close under load", async (figures) => {
      const closes: Promise<unknown>[] = [];
      // Idle keep-alive connections.
      const agent = new Agent({ keepAlive: true, maxSockets: 20 });
      await Promise.all(
        Array.from(
          { length: 20 },
          () =>
            new Promise<void>((resolve, reject) => {
              const req = httpRequest(server.url, { method: "POST", agent, headers: { "content-type": "application/json" } }, (res) => {
                res.resume();
                res.on("end", () => resolve());
              });
              req.on("error", reject);
              req.end(JSON.stringify(call("eth_chainId")));
            }),
        ),
      );
      const idle = Object.values(agent.freeSockets).flat();
      expect(idle.length).to.be.greaterThan(0);
      for (const socket of idle) closes.push(once(socket!, "close"));
      // Half-sent headers, half-sent bodies.
      for (let i = 0; i < 20; i++) {
        const socket = await openRaw(server.port);
        socket.write(
          i % 2 === 0
            ? "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            : "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
        );
        socket.on("error", () => undefined);
        closes.push(once(socket, "close"));
      }
      // A request still being answered (a Sync waiting for a fragment that never comes).
      const pending = await openRaw(server.port);
      pending.on("error", () => undefined);
      pending.write(requestText(JSON.stringify(call("eth_sendRawTransactionSync", [await signTx(provider, 0, { nonce: 0 }), 6000]))));
      closes.push(once(pending, "close"));
      // WebSockets, with subscriptions.
      for (let i = 0; i < 10; i++) {
        const socket = new WebSocket(server.wsUrl);
        await once(socket, "open");
        socket.send(JSON.stringify(call("eth_subscribe", ["newFlashblocks"])));
        closes.push(once(socket, "close"));
      }
      const started = performance.now();
      await server.close();
      await Promise.all(closes);
      const ms = performance.now() - started;
      figures.requests = closes.length;
      figures.statuses[`connections ended in ${Math.round(ms)} ms`] = closes.length;
      expect(ms).to.be.lessThan(1000);
      const refused = await probe(server.url).then(
        () => "answered",
        (error: NodeJS.ErrnoException) => error.code,
      );
      expect(refused).to.equal("ECONNREFUSED");
      agent.destroy();
    });
  });
});
