/**
 * Server budgets as a client meets them: 413 delivered (never `100 Continue` for a body over the
 * limit, and readable by a client still sending), response-size and batch-time budgets with
 * go-ethereum's errors, and a deep request with a non-canonical id answering JSON-RPC.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { expect } from "chai";
import WebSocket from "ws";

import { startServer } from "../src/index.ts";
import { createTestChain, serveEachTest } from "./helpers/chain.ts";

import type { PreconfProvider, RunningServer } from "../src/index.ts";

const LIMIT = 5 * 1024 * 1024;

/** A POST with `Expect: 100-continue`: which of `continue` and `response` comes first, and the status. */
function expectContinue(url: string, length: number): Promise<{ first: string; status: number | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers: { "Content-Type": "application/json", "Content-Length": String(length), Expect: "100-continue" } });
    req.on("continue", () => {
      req.destroy();
      resolve({ first: "continue", status: undefined });
    });
    req.on("response", (res) => {
      res.resume();
      resolve({ first: "response", status: res.statusCode });
      req.destroy();
    });
    req.on("error", reject);
    req.flushHeaders();
  });
}

describe("server budgets", () => {
  let server: RunningServer;
  serveEachTest((_provider, s) => {
    server = s;
  });

  it("a Host header naming another site is refused with 403 (DNS rebinding); IPs and loopback names are served", async () => {
    const status = (hostHeader: string) =>
      new Promise<number | undefined>((resolve, reject) => {
        const req = request(server.url, { method: "POST", headers: { Host: hostHeader, "Content-Type": "application/json" } }, (res) => {
          res.resume();
          resolve(res.statusCode);
        });
        req.on("error", reject);
        req.end(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId" }));
      });
    expect(await status("attacker.example:8545")).to.equal(403);
    expect(await status("localhost:8545")).to.equal(200);
    expect(await status("app.localhost")).to.equal(200);
    expect(await status("127.0.0.1:8545")).to.equal(200);
    expect(await status("[::1]:8545")).to.equal(200);
  });

  it("a body announced over the limit with Expect: 100-continue gets 413, not 100 Continue", async () => {
    expect(await expectContinue(server.url, LIMIT + 1)).to.deep.equal({ first: "response", status: 413 });
    // Under the limit, the client is told to go on.
    expect((await expectContinue(server.url, 100)).first).to.equal("continue");
  });

  it("a 6 MiB body: fetch reads the 413 and its JSON-RPC error instead of a broken pipe", async () => {
    const body = `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":["${"x".repeat(6 * 1024 * 1024)}"]}`;
    const response = await fetch(server.url, { method: "POST", headers: { "Content-Type": "application/json" }, body });
    expect(response.status).to.equal(413);
    expect(response.headers.get("connection")).to.equal("close");
    expect(((await response.json()) as { error: { code: number } }).error.code).to.equal(-32600);
  });

  it("bodies of 6 and 16 MiB: fetch reads the 413 every time (5 tries each), never a reset connection", async () => {
    const statuses: (number | string)[] = [];
    for (const mib of [6, 16]) {
      const body = `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":["${"x".repeat(mib * 1024 * 1024)}"]}`;
      for (let i = 0; i < 5; i++) {
        const response = await fetch(server.url, { method: "POST", headers: { "Content-Type": "application/json" }, body }).catch(
          (error: Error & { cause?: { code?: string } }) => error.cause?.code ?? error.message,
        );
        if (typeof response === "string") statuses.push(response);
        else {
          statuses.push(response.status);
          await response.arrayBuffer();
        }
      }
    }
    expect(statuses).to.deep.equal(new Array(10).fill(413));
  });

  it("a 6 MiB body from curl: 413 with its JSON-RPC error, with and without Expect: 100-continue", async () => {
    const dir = mkdtempSync(join(tmpdir(), "preconf-413-"));
    const file = join(dir, "body.json");
    writeFileSync(file, `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":["${"x".repeat(6 * 1024 * 1024)}"]}`);
    const curl = (extra: string[]) =>
      new Promise<{ code: number | null; stdout: string }>((resolve) => {
        execFile(
          "curl",
          ["-sS", "-w", "\n%{http_code}", "-H", "Content-Type: application/json", "--data-binary", `@${file}`, ...extra, server.url],
          (error, stdout) => resolve({ code: error === null ? 0 : (error.code as number), stdout }),
        );
      });
    try {
      for (const extra of [[], ["-H", "Expect:"]]) {
        const { code, stdout } = await curl(extra);
        expect(code, `curl ${extra.join(" ")}`).to.equal(0);
        const [json, status] = stdout.split("\n");
        expect(status).to.equal("413");
        expect(JSON.parse(json!)).to.deep.equal({
          jsonrpc: "2.0",
          id: null,
          error: { code: -32600, message: "Invalid Request", data: { reason: `body exceeds ${LIMIT} bytes` } },
        });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("after the 413 the close lingers: the server keeps reading what the client still sends, then closes once it goes quiet", async () => {
    const socket = connect({ port: server.port, host: "127.0.0.1", allowHalfOpen: true });
    await new Promise((resolve) => socket.once("connect", resolve));
    let answer = "";
    const events: string[] = [];
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString()));
    socket.on("end", () => events.push("end"));
    socket.on("error", (error: NodeJS.ErrnoException) => events.push(`error ${error.code}`));
    socket.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${LIMIT + 4 * 1024 * 1024}\r\n\r\n`);
    // The 413 comes at once, with the server's end of the connection (FIN) …
    for (let waited = 0; !events.includes("end") && waited < 5000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(answer).to.match(/^HTTP\/1\.1 413 /);
    // … and what the client sends after it is still read: no reset however much it sends (up to the bound).
    const chunk = Buffer.alloc(256 * 1024, 0x78);
    for (let i = 0; i < 16; i++) {
      await new Promise<void>((resolve, reject) => socket.write(chunk, (error) => (error ? reject(error) : resolve())));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(events).to.deep.equal(["end"]);
    expect(server.connections).to.equal(1);
    // Quiet for LINGER_IDLE_MS: the server closes.
    for (let waited = 0; server.connections > 0 && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.connections).to.equal(0);
    socket.destroy();
  });

  it("a WebSocket message above the limit closes the socket with 1009 (message too big)", async () => {
    const socket = new WebSocket(server.wsUrl);
    await new Promise((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)));
    socket.send(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":["${"x".repeat(6 * 1024 * 1024)}"]}`);
    expect(await closed).to.equal(1009);
  });

  it("a 6 MiB body streamed without a length: 413 after the limit, readable by the client", async () => {
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 6 * 1024 * 1024) controller.close();
        else {
          sent += chunk.length;
          controller.enqueue(chunk);
        }
      },
    });
    const response = await fetch(server.url, { method: "POST", headers: { "Content-Type": "application/json" }, body: stream, duplex: "half" } as RequestInit);
    expect(response.status).to.equal(413);
  });
});

describe("server budgets with small limits", () => {
  let provider: PreconfProvider;
  let server: RunningServer;
  afterEach(async () => {
    await server.close();
    await provider.close();
  });

  async function rpc(body: unknown): Promise<unknown> {
    const response = await fetch(server.url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    expect(response.status).to.equal(200);
    return response.json();
  }

  it("a response above maxResponseBytes is -32003 'response too large'; in a batch, so is every call after the budget is spent", async () => {
    ({ provider } = await createTestChain());
    server = await startServer(provider, { port: 0, maxResponseBytes: 3000 });
    const big = { jsonrpc: "2.0", id: 7, method: "preconf_dumpState" };
    const small = (id: number) => ({ jsonrpc: "2.0", id, method: "eth_getBlockByNumber", params: ["latest", false] });
    expect(await rpc(big)).to.deep.equal({ jsonrpc: "2.0", id: 7, error: { code: -32003, message: "response too large" } });
    const answers = (await rpc([small(1), big, small(2), small(3), small(4)])) as { id: number; result?: unknown; error?: { code: number } }[];
    expect(answers.map((answer) => answer.id)).to.deep.equal([1, 7, 2, 3, 4]);
    expect(answers[0]!.result).to.not.equal(undefined);
    expect(answers[1]!.error?.code).to.equal(-32003);
    expect(answers[2]!.result).to.not.equal(undefined);
    // Two blocks (~1.1 KB each) and the error spend the 3000 bytes: the rest is refused.
    expect(answers.slice(3).map((answer) => answer.error?.code)).to.deep.equal([-32003, -32003]);
  });

  it("a batch past batchTimeoutMs answers its calls not yet started with -32002 'request timed out'", async () => {
    // The loop's gas unbounded (Prague, no RPC gas cap, a huge block): the 200 ms budget ends it on any machine.
    ({ provider } = await createTestChain({ rpcEvmTimeoutMs: 200, hardfork: "prague", blockGasLimit: 10n ** 12n, rpcGasCap: 0 }));
    server = await startServer(provider, { port: 0, batchTimeoutMs: 100 });
    const answers = await rpc([
      { jsonrpc: "2.0", id: 1, method: "eth_call", params: [{ data: "0x5b5f56", gas: "0xffffffffffffffff" }] },
      { jsonrpc: "2.0", id: 2, method: "eth_chainId" },
      { jsonrpc: "2.0", method: "eth_chainId" },
    ]);
    expect(answers).to.deep.equal([
      { jsonrpc: "2.0", id: 1, error: { code: -32000, message: "execution aborted (timeout = 200ms)" } },
      { jsonrpc: "2.0", id: 2, error: { code: -32002, message: "request timed out" } },
    ]);
  });

  it("a 100k-deep request with the id 1.0 answers JSON-RPC, not HTTP 500", async () => {
    ({ provider } = await createTestChain());
    server = await startServer(provider, { port: 0 });
    const deep = `{"jsonrpc":"2.0","id":1.0,"method":"eth_chainId","params":[${"[".repeat(100_000)}${"]".repeat(100_000)}]}`;
    const answer = (await rpc(deep)) as { id: number; error: { code: number } };
    expect(answer.id).to.equal(1);
    expect(answer.error.code).to.equal(-32602);
  });
});

describe("allowedHosts", () => {
  it("extends the names served; '*' serves any", async () => {
    const { isHostAllowed } = await import("../src/server/http.ts");
    expect(isHostAllowed("dev.test:8545", [], "127.0.0.1")).to.equal(false);
    expect(isHostAllowed("dev.test:8545", ["dev.test"], "127.0.0.1")).to.equal(true);
    expect(isHostAllowed("dev.test", "*", "127.0.0.1")).to.equal(true);
    expect(isHostAllowed("box.lan:8545", [], "box.lan")).to.equal(true);
    expect(isHostAllowed(undefined, [], "127.0.0.1")).to.equal(true);
  });
});

describe("WebSocket subscriptions per connection", () => {
  let provider: PreconfProvider;
  let server: RunningServer;
  afterEach(async () => {
    await server.close();
    await provider.close();
  });

  it("one subscription above wsMaxSubscriptions is -32005; another connection still subscribes", async () => {
    ({ provider } = await createTestChain());
    server = await startServer(provider, { port: 0, wsMaxSubscriptions: 2 });
    const open = async () => {
      const socket = new WebSocket(server.wsUrl);
      await new Promise((resolve) => socket.once("open", resolve));
      let next = 0;
      const ask = (method: string, params: unknown[]) =>
        new Promise<{ result?: unknown; error?: unknown }>((resolve) => {
          const id = ++next;
          const onMessage = (data: WebSocket.RawData) => {
            const message = JSON.parse(data.toString()) as { id?: number; result?: unknown; error?: unknown };
            if (message.id !== id) return;
            socket.off("message", onMessage);
            resolve(message);
          };
          socket.on("message", onMessage);
          socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
        });
      return { socket, ask };
    };
    const a = await open();
    expect((await a.ask("eth_subscribe", ["newHeads"])).result).to.be.a("string");
    expect((await a.ask("eth_subscribe", ["newFlashblocks"])).result).to.be.a("string");
    expect((await a.ask("eth_subscribe", ["newHeads"])).error).to.deep.equal({
      code: -32005,
      message: "limit exceeded",
      data: { reason: "too many subscriptions on this connection", limit: 2 },
    });
    const b = await open();
    expect((await b.ask("eth_subscribe", ["newHeads"])).result).to.be.a("string");
    a.socket.close();
    b.socket.close();
  });
});

describe("WebSocket notifications held back count against wsMaxBufferedBytes", () => {
  let provider: PreconfProvider;
  let server: RunningServer;
  afterEach(async () => {
    await server.close();
    await provider.close();
  });

  it("a batch whose response waits while its new subscription's notifications pile up drops the connection past the budget", async () => {
    ({ provider } = await createTestChain());
    server = await startServer(provider, { port: 0, wsMaxBufferedBytes: 20_000 });
    const socket = new WebSocket(server.wsUrl);
    await new Promise((resolve) => socket.once("open", resolve));
    const closed = new Promise((resolve) => socket.once("close", resolve));
    // Each fragment's flashblock (~400 bytes) is held until the batch's response goes out.
    socket.send(
      JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["newFlashblocks"] },
        { jsonrpc: "2.0", id: 2, method: "preconf_advance", params: ["0xc8"] },
      ]),
    );
    await closed;
    expect(socket.readyState).to.equal(WebSocket.CLOSED);
  });
});
