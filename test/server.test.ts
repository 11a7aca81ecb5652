/**
 * The JSON-RPC server (docs/server.md): every transport rule over real HTTP, the same answers as in
 * process through fetch, viem's `http` transport and ethers' JsonRpcProvider, and WebSocket
 * subscriptions on the real-timer path.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { signTx } from "./helpers/sign.ts";

import { expect } from "chai";
import { JsonRpcProvider, Transaction } from "ethers";
import { createPublicClient, http, parseEther, parseGwei, webSocket } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import WebSocket from "ws";

import { createPreconfProvider, startServer } from "../src/index.ts";
import { parseNodeArgs } from "../src/cli.ts";
import { bindWarning } from "../src/server/http.ts";
import { createTestChain, devChain, serveEachTest } from "./helpers/chain.ts";
import { canRelaunch, commandLineOf } from "./helpers/cli.ts";
import { warningsDuring } from "./helpers/warnings.ts";

import type { Hex } from "viem";
import type { PreconfProvider, RunningServer } from "../src/index.ts";
import type { TestChain } from "./helpers/chain.ts";

const RECIPIENT = "0x000000000000000000000000000000000000dEaD";
const ROOT = fileURLToPath(new URL("..", import.meta.url));

async function signedTransfer(provider: PreconfProvider, nonce: number, accountIndex = 0): Promise<Hex> {
  return signTx(provider, accountIndex, { nonce, to: RECIPIENT, value: parseEther("1") });
}

interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

async function post(url: string, body: string, init: { contentType?: string; method?: string; headers?: Record<string, string> } = {}): Promise<RawResponse> {
  const method = init.method ?? "POST";
  const response = await fetch(url, {
    method,
    headers: { "content-type": init.contentType ?? "application/json", ...init.headers },
    ...(method === "POST" && { body }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: text === "" ? undefined : JSON.parse(text) };
}

const call = (method: string, params: unknown[] = [], id: unknown = 1) => JSON.stringify({ jsonrpc: "2.0", id, method, params });

/** What the provider answers in process, as a JSON-RPC response body. */
async function inProcess(provider: PreconfProvider, method: string, params: unknown[]): Promise<unknown> {
  try {
    return { jsonrpc: "2.0", id: 1, result: await provider.request({ method, params }) };
  } catch (error) {
    const { code, message, data } = error as { code: number; message: string; data?: unknown };
    return { jsonrpc: "2.0", id: 1, error: data === undefined ? { code, message } : { code, message, data } };
  }
}

describe("JSON-RPC server", () => {
  let provider: PreconfProvider;
  let server: RunningServer;

  serveEachTest((served, listening) => {
    provider = served;
    server = listening;
  });

  it("binds 127.0.0.1 and answers eth_chainId", async () => {
    expect(server.url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await post(server.url, call("eth_chainId"));
    expect(response.status).to.equal(200);
    expect(response.headers.get("content-type")).to.equal("application/json");
    expect(response.json).to.deep.equal({ jsonrpc: "2.0", id: 1, result: "0x7a69" });
  });

  describe("transport rules (docs/server.md)", () => {
    it("answers a body that is not JSON with -32700", async () => {
      const response = await post(server.url, '{"jsonrpc": "2.0", "method": ');
      expect(response.status).to.equal(200);
      expect(response.json).to.deep.include({ jsonrpc: "2.0", id: null });
      expect((response.json as { error: { code: number; message: string } }).error).to.include({ code: -32700, message: "Parse error" });
    });

    it("answers what is not a request object with -32600", async () => {
      for (const body of [
        "42",
        '"eth_chainId"',
        '{"id": 1, "method": "eth_chainId"}',
        '{"jsonrpc": "1.0", "id": 1, "method": "eth_chainId"}',
        '{"jsonrpc": "2.0", "id": 1, "method": 7}',
        '{"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": "x"}',
      ]) {
        const response = await post(server.url, body);
        const json = response.json as { error: { code: number; message: string } };
        expect(json.error, body).to.include({ code: -32600, message: "Invalid Request" });
      }
    });

    it("answers an id that is neither number, string nor null with -32600 and id null", async () => {
      const response = await post(server.url, '{"jsonrpc": "2.0", "id": {"a": 1}, "method": "eth_chainId"}');
      expect(response.json).to.deep.include({ id: null });
      expect((response.json as { error: { code: number } }).error.code).to.equal(-32600);
    });

    it("answers an unknown method with -32601", async () => {
      const response = await post(server.url, call("eth_noSuchMethod"));
      expect(response.json).to.deep.equal({
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32601, message: "Method not found", data: { method: "eth_noSuchMethod" } },
      });
    });

    it("answers invalid params with -32602", async () => {
      const response = await post(server.url, call("eth_getBalance", ["not an address"]));
      expect((response.json as { error: { code: number; message: string } }).error).to.include({ code: -32602, message: "Invalid params" });
    });

    it("echoes string, null and number ids exactly", async () => {
      for (const id of ["abc", "", null, 0, 7, 1.5, -3]) {
        const response = await post(server.url, call("eth_chainId", [], id));
        expect(response.json).to.deep.equal({ jsonrpc: "2.0", id, result: "0x7a69" });
      }
    });

    it("echoes ids as written, digits and spelling included, over HTTP and WebSocket, alone and in batches", async () => {
      // JSON.parse would turn 9007199254740993 into …992, 1.0 into 1, 1e2 into 100, -0 into 0.
      const ids = ["9007199254740993", "1.0", "1e2", "-0", "-12.50", '"str"', "null"];
      const request = (id: string, method = "eth_chainId") => `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":[]}`;
      const answered = (id: string) => `{"jsonrpc":"2.0","id":${id},"result":"0x7a69"}`;
      const failed = (id: string) => `{"jsonrpc":"2.0","id":${id},"error":{"code":-32601,"message":"Method not found","data":{"method":"no_such_method"}}}`;
      const batch = `[${ids.map((id) => request(id)).join(",")},${request("1.0", "no_such_method")},{"jsonrpc":"1.0","id":2.50,"method":"x"}]`;
      const batchAnswer = `[${ids.map(answered).join(",")},${failed("1.0")},{"jsonrpc":"2.0","id":2.50,"error":{"code":-32600,"message":"Invalid Request","data":{"reason":"jsonrpc must be \\"2.0\\""}}}]`;

      for (const id of ids) expect((await post(server.url, request(id))).text, id).to.equal(answered(id));
      expect((await post(server.url, batch)).text).to.equal(batchAnswer);
      // Above maxBatch, the refusal carries the first call's id, as written.
      const small = await startServer(provider, { port: 0, maxBatch: 1 });
      try {
        const refused = await post(small.url, `[${request("1.50")},${request("2")}]`);
        expect(refused.text).to.equal(
          '[{"jsonrpc":"2.0","id":1.50,"error":{"code":-32600,"message":"Invalid Request","data":{"reason":"batch too large","limit":1}}}]',
        );
      } finally {
        await small.close();
      }

      const socket = new WebSocket(server.wsUrl);
      await new Promise((resolve) => socket.once("open", resolve));
      const next = () => new Promise<string>((resolve) => socket.once("message", (data) => resolve(String(data))));
      for (const id of ids) {
        const reply = next();
        socket.send(request(id));
        expect(await reply, id).to.equal(answered(id));
      }
      const reply = next();
      socket.send(batch);
      expect(await reply).to.equal(batchAnswer);
      socket.close();
    });

    it("answers a batch in order, valid and invalid items alike", async () => {
      const batch = `[${[
        call("eth_chainId", [], "first"),
        '{"jsonrpc": "2.0", "method": "eth_chainId"}',
        "17",
        call("eth_noSuchMethod", [], 2),
        call("net_version", [], null),
        call("eth_getBalance", ["0x1"], 3),
      ].join(",")}]`;
      const response = await post(server.url, batch);
      expect(response.status).to.equal(200);
      const items = response.json as { id: unknown; result?: unknown; error?: { code: number } }[];
      expect(items.map((item) => item.id)).to.deep.equal(["first", null, 2, null, 3]);
      expect(items[0]!.result).to.equal("0x7a69");
      expect(items[1]!.error!.code).to.equal(-32600);
      expect(items[2]!.error!.code).to.equal(-32601);
      expect(items[3]!.result).to.equal("31337");
      expect(items[4]!.error!.code).to.equal(-32602);
    });

    it("answers an empty batch with one -32600", async () => {
      const response = await post(server.url, "[]");
      expect(response.json).to.deep.include({ jsonrpc: "2.0", id: null });
      expect((response.json as { error: { code: number } }).error.code).to.equal(-32600);
    });

    it("does not answer notifications, alone or in a batch (204, empty body)", async () => {
      const raw = await signedTransfer(provider, 0);
      const alone = await post(server.url, JSON.stringify({ jsonrpc: "2.0", method: "eth_sendRawTransaction", params: [raw] }));
      expect(alone.status).to.equal(204);
      expect(alone.text).to.equal("");
      // The notification still ran.
      expect(provider.chain.pool.size).to.equal(1);

      const batch = await post(
        server.url,
        `[${JSON.stringify({ jsonrpc: "2.0", method: "eth_chainId" })},${JSON.stringify({ jsonrpc: "2.0", method: "nope" })}]`,
      );
      expect(batch.status).to.equal(204);
      expect(batch.text).to.equal("");

      const mixed = await post(server.url, `[${JSON.stringify({ jsonrpc: "2.0", method: "eth_chainId" })},${call("eth_chainId", [], 9)}]`);
      expect(mixed.json).to.deep.equal([{ jsonrpc: "2.0", id: 9, result: "0x7a69" }]);
    });

    it("refuses bodies above the limit with 413 before parsing", async () => {
      const small = await startServer(provider, { port: 0, maxBodyBytes: 1024 });
      try {
        const response = await post(small.url, call("eth_chainId", ["x".repeat(2000)]));
        expect(response.status).to.equal(413);
        expect((response.json as { error: { code: number } }).error.code).to.equal(-32600);
        // Not parsed: an invalid body above the limit is still 413, not -32700.
        expect((await post(small.url, "{".repeat(2000))).status).to.equal(413);
        expect((await post(small.url, call("eth_chainId"))).status).to.equal(200);
      } finally {
        await small.close();
      }
    });

    it("refuses bodies above 5 MiB by default", async () => {
      const response = await post(server.url, call("eth_chainId", ["x".repeat(5 * 1024 * 1024)]));
      expect(response.status).to.equal(413);
    });

    it("refuses other HTTP methods with 405", async () => {
      for (const method of ["GET", "PUT", "DELETE"]) {
        const response = await post(server.url, "", { method });
        expect(response.status, method).to.equal(405);
        expect(response.headers.get("allow")).to.equal("POST, OPTIONS");
        expect(response.headers.get("content-type")).to.equal("application/json");
      }
    });

    it("refuses other content types with 415", async () => {
      for (const contentType of ["text/plain", "application/x-www-form-urlencoded", "application/jsonx"]) {
        const response = await post(server.url, call("eth_chainId"), { contentType });
        expect(response.status, contentType).to.equal(415);
      }
      expect((await post(server.url, call("eth_chainId"), { contentType: "application/json; charset=utf-8" })).status).to.equal(200);
    });

    it("answers CORS preflights and sets Access-Control-Allow-Origin when allowed (opt-in: see security.test.ts)", async () => {
      const open = await startServer(provider, { port: 0, allowedOrigins: "*" });
      try {
        const preflight = await post(open.url, "", {
          method: "OPTIONS",
          headers: { origin: "http://localhost:3000", "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
        });
        expect(preflight.status).to.equal(204);
        expect(preflight.headers.get("access-control-allow-origin")).to.equal("*");
        expect(preflight.headers.get("access-control-allow-methods")).to.include("POST");
        expect(preflight.headers.get("access-control-allow-headers")).to.equal("content-type");
        const response = await post(open.url, call("eth_chainId"), { headers: { origin: "http://localhost:3000" } });
        expect(response.headers.get("access-control-allow-origin")).to.equal("*");
      } finally {
        await open.close();
      }
    });

    it("honours a CORS allow-list", async () => {
      const listed = await startServer(provider, { port: 0, allowedOrigins: ["http://localhost:3000"] });
      try {
        const allowed = await post(listed.url, call("eth_chainId"), { headers: { origin: "http://localhost:3000" } });
        expect(allowed.headers.get("access-control-allow-origin")).to.equal("http://localhost:3000");
        const other = await post(listed.url, call("eth_chainId"), { headers: { origin: "http://evil.example" } });
        expect(other.headers.get("access-control-allow-origin")).to.equal(null);
      } finally {
        await listed.close();
      }
    });

    it("turns a thrown bug into -32603, never a crash or an HTML page", async () => {
      const buggy = {
        request: async ({ method }: { method: string }): Promise<unknown> => {
          if (method === "bigint") return 1n; // not JSON-serializable
          throw new TypeError("boom");
        },
        on: () => buggy,
        off: () => buggy,
      };
      const broken = await startServer(buggy as unknown as PreconfProvider, { port: 0 });
      try {
        const thrown = await post(broken.url, call("anything"));
        expect(thrown.status).to.equal(200);
        expect(thrown.json).to.deep.equal({ jsonrpc: "2.0", id: 1, error: { code: -32603, message: "Internal error", data: { reason: "boom" } } });
        const unserializable = await post(broken.url, call("bigint", [], "b"));
        expect((unserializable.json as { id: unknown; error: { code: number } }).error.code).to.equal(-32603);
        expect((unserializable.json as { id: unknown }).id).to.equal("b");
      } finally {
        await broken.close();
      }
    });

    it("refuses subscriptions over HTTP (go-ethereum's -32001)", async () => {
      const response = await post(server.url, call("eth_subscribe", ["newHeads"]));
      expect((response.json as { error: { code: number; message: string } }).error).to.deep.equal({ code: -32001, message: "notifications not supported" });
    });

    it("warns when bound to another interface than loopback", () => {
      // Tests bind 127.0.0.1 only: the warning itself is checked.
      for (const host of ["127.0.0.1", "::1", "localhost"]) expect(bindWarning(host), host).to.equal(undefined);
      for (const host of ["0.0.0.0", "192.168.1.10", "::"]) expect(bindWarning(host), host).to.include(host);
    });

    it("close() ends every connection", async () => {
      const agentResponse = await fetch(server.url, {
        method: "POST",
        headers: { "content-type": "application/json", connection: "keep-alive" },
        body: call("eth_chainId"),
      });
      await agentResponse.text();
      const socket = new WebSocket(server.wsUrl);
      await new Promise((resolve) => socket.once("open", resolve));
      const closed = new Promise((resolve) => socket.once("close", resolve));
      await server.close();
      await closed;
      expect(
        await fetch(server.url).then(
          () => "answered",
          () => "refused",
        ),
      ).to.equal("refused");
    });
  });

  describe("same answers as in process", () => {
    it("raw requests: estimate, send, wallet-less calls and their errors", async () => {
      const raw = await signedTransfer(provider, 0);
      const sender = provider.accounts[0]!.address;
      const requests: [string, unknown[]][] = [
        ["eth_estimateGas", [{ from: sender, to: RECIPIENT, value: "0x1" }]],
        ["eth_estimateGas", [{ from: sender, to: RECIPIENT, value: "0x1" }, "pending"]],
        ["eth_estimateGas", [{ from: sender, data: "0x6080fe" }]],
        ["eth_estimateGas", [{ from: sender, gasPrice: "0x1", maxFeePerGas: "0x1" }]],
        ["eth_getBalance", [sender, "latest"]],
        ["eth_call", [{ to: RECIPIENT, data: "0x" }]],
        ["eth_getTransactionCount", [sender, "pending"]],
        ["eth_blockNumber", []],
      ];
      for (const [method, params] of requests) {
        const expected = await inProcess(provider, method, params);
        const response = await post(server.url, call(method, params));
        expect(response.json, method).to.deep.equal(expected);
      }
      // Send over HTTP; the same raw tx in process is then "already known", and over HTTP too.
      const sent = await post(server.url, call("eth_sendRawTransaction", [raw]));
      const hash = (sent.json as { result: Hex }).result;
      expect(hash).to.match(/^0x[0-9a-f]{64}$/);
      const again = await inProcess(provider, "eth_sendRawTransaction", [raw]);
      expect(again).to.deep.equal({ jsonrpc: "2.0", id: 1, error: { code: -32000, message: "already known" } });
      expect((await post(server.url, call("eth_sendRawTransaction", [raw]))).json).to.deep.equal(again);
      await provider.preconf.advance();
      const receipt = await post(server.url, call("eth_getTransactionReceipt", [hash]));
      expect(receipt.json).to.deep.equal(await inProcess(provider, "eth_getTransactionReceipt", [hash]));
      // Pre-confirmed: the nonce is used, so the raw tx is now "nonce too low".
      const low = await post(server.url, call("eth_sendRawTransaction", [raw]));
      expect((low.json as { error: { message: string } }).error.message).to.equal("nonce too low");
    });

    it("viem's http transport", async () => {
      const client = createPublicClient({ chain: devChain, transport: http(server.url) });
      const sender = provider.accounts[0]!.address;
      expect(await client.getChainId()).to.equal(31337);
      const gas = await client.estimateGas({ account: sender, to: RECIPIENT, value: 1n });
      expect(gas).to.equal(21000n);
      const raw = await signedTransfer(provider, 0);
      const hash = await client.sendRawTransaction({ serializedTransaction: raw });
      await provider.preconf.advance();
      const receipt = await client.getTransactionReceipt({ hash });
      expect(receipt.status).to.equal("success");
      expect(receipt.blockNumber).to.equal(1n);
      const error = await client.sendRawTransaction({ serializedTransaction: raw }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).to.be.instanceOf(Error);
      const cause = JSON.stringify(error, (_, value: unknown) => (typeof value === "bigint" ? value.toString() : value));
      expect(cause).to.include("nonce too low");
      expect(cause).to.include("-32000");
    });

    it("ethers' JsonRpcProvider", async () => {
      const ethersProvider = new JsonRpcProvider(server.url, 31337, { staticNetwork: true, batchMaxCount: 1 });
      try {
        const sender = provider.accounts[0]!.address;
        expect(await ethersProvider.getBlockNumber()).to.equal(0);
        expect(await ethersProvider.estimateGas({ from: sender, to: RECIPIENT, value: 1n })).to.equal(21000n);
        const raw = await signedTransfer(provider, 0);
        const response = await ethersProvider.broadcastTransaction(raw);
        expect(response.hash).to.equal(Transaction.from(raw).hash);
        await provider.preconf.advance();
        const receipt = await ethersProvider.getTransactionReceipt(response.hash);
        expect(receipt?.status).to.equal(1);
        const error = (await ethersProvider.broadcastTransaction(raw).then(
          () => undefined,
          (caught: unknown) => caught,
        )) as { code: string; info?: { error: { code: number; message: string } } } | undefined;
        expect(error?.code).to.equal("NONCE_EXPIRED");
        expect(error?.info?.error).to.deep.include({ code: -32000, message: "nonce too low" });
      } finally {
        ethersProvider.destroy();
      }
    });
  });
});

describe("WebSocket subscriptions (real timers)", () => {
  let provider: PreconfProvider;
  let server: RunningServer;

  serveEachTest(
    (served, listening) => {
      provider = served;
      server = listening;
    },
    () => createPreconfProvider({ fragmentIntervalMs: 200, fragmentsPerBlock: 3 }),
  );

  /** A tiny JSON-RPC client over the `ws` package. */
  async function connect() {
    const socket = new WebSocket(server.wsUrl);
    await new Promise((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    const notifications: { subscription: string; result: unknown; at: number }[] = [];
    const pending = new Map<number, (value: { result?: unknown; error?: { code: number } }) => void>();
    const listeners: (() => void)[] = [];
    let nextId = 1;
    socket.on("message", (data) => {
      const message = JSON.parse(String(data)) as { id?: number; method?: string; params?: { subscription: string; result: unknown }; result?: unknown };
      if (message.method === "eth_subscription" && message.params !== undefined) {
        notifications.push({ ...message.params, at: performance.now() });
        for (const listener of listeners) listener();
      } else if (typeof message.id === "number") {
        pending.get(message.id)?.(message);
      }
    });
    return {
      socket,
      notifications,
      request(method: string, params: unknown[] = []) {
        const id = nextId++;
        return new Promise<{ result?: unknown; error?: { code: number } }>((resolve) => {
          pending.set(id, resolve);
          socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
        });
      },
      waitFor(predicate: () => boolean, timeoutMs: number) {
        return new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error("timed out waiting for notifications")), timeoutMs);
          const check = () => {
            if (!predicate()) return;
            clearTimeout(timer);
            resolve();
          };
          listeners.push(check);
          check();
        });
      },
    };
  }

  it("pushes newFlashblockTransactions within one fragment interval, and newHeads at each seal", async () => {
    const client = await connect();
    const txSubscription = (await client.request("eth_subscribe", ["newFlashblockTransactions"])).result as string;
    const headSubscription = (await client.request("eth_subscribe", ["newHeads"])).result as string;
    expect(txSubscription).to.match(/^0x[0-9a-f]{32}$/);

    const raw = await signedTransfer(provider, 0);
    const sentAt = performance.now();
    const hash = (await client.request("eth_sendRawTransaction", [raw])).result;
    await client.waitFor(() => client.notifications.some((n) => n.subscription === txSubscription), 2000);
    const seen = client.notifications.find((n) => n.subscription === txSubscription)!;
    expect(seen.result).to.equal(hash);
    // One fragment interval (200 ms), with some slack for a loaded machine's timers.
    expect(seen.at - sentAt).to.be.lessThan(200 + 100);

    await client.waitFor(() => client.notifications.filter((n) => n.subscription === headSubscription).length >= 2, 3000);
    const heads = client.notifications.filter((n) => n.subscription === headSubscription).map((n) => n.result as { number: string; hash: string });
    expect(BigInt(heads[1]!.number) - BigInt(heads[0]!.number)).to.equal(1n);
    const sealed = await provider.request({ method: "eth_getBlockByNumber", params: [heads[0]!.number, false] });
    expect((sealed as { hash: string }).hash).to.equal(heads[0]!.hash);
    client.socket.close();
  });

  it("eth_unsubscribe stops notifications; another connection cannot cancel them; closing drops them", async () => {
    const first = await connect();
    const second = await connect();
    const id = (await first.request("eth_subscribe", ["newFlashblocks"])).result as string;
    expect((await second.request("eth_unsubscribe", [id])).result).to.equal(false);
    await first.waitFor(() => first.notifications.length >= 1, 1000);
    expect(second.notifications).to.have.length(0);
    expect((await first.request("eth_unsubscribe", [id])).result).to.equal(true);
    const other = (await second.request("eth_subscribe", ["newFlashblocks"])).result as string;
    await second.waitFor(() => second.notifications.length >= 1, 1000);
    expect(second.notifications.every((n) => n.subscription === other)).to.equal(true);
    second.socket.close();
    await new Promise((resolve) => second.socket.once("close", resolve));
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Its subscription is gone from the provider: nothing is emitted for it any more.
    const emitted: string[] = [];
    const onMessage = (message: { data: { subscription: string } }) => emitted.push(message.data.subscription);
    provider.on("message", onMessage);
    await provider.preconf.advance();
    provider.off("message", onMessage);
    expect(emitted).to.not.include(other);
    first.socket.close();
  });

  it("viem's webSocket transport watches blocks through eth_subscribe", async () => {
    const client = createPublicClient({ chain: devChain, transport: webSocket(server.wsUrl) });
    const numbers: bigint[] = [];
    await new Promise<void>((resolve, reject) => {
      const unwatch = client.watchBlockNumber({
        onBlockNumber: (number) => {
          numbers.push(number);
          if (numbers.length === 2) {
            unwatch();
            resolve();
          }
        },
        onError: reject,
      });
    });
    expect(numbers[1]! - numbers[0]!).to.equal(1n);
    const transport = await client.transport.getRpcClient();
    transport.close();
  });
});

describe("WebSocket connections (fake clock, manual mining)", () => {
  let provider: PreconfProvider;
  let server: RunningServer;
  let clock: TestChain["clock"];

  serveEachTest(
    (served, listening) => {
      provider = served;
      server = listening;
    },
    async () => {
      const chain = await createTestChain({ mining: "manual" });
      clock = chain.clock;
      return chain.provider;
    },
  );

  async function open(): Promise<{ socket: WebSocket; frames: string[] }> {
    const socket = new WebSocket(server.wsUrl);
    const frames: string[] = [];
    socket.on("message", (data) => frames.push(String(data)));
    await new Promise((resolve) => socket.once("open", resolve));
    return { socket, frames };
  }

  async function until(predicate: () => boolean, timeoutMs = 3000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error("condition not met in time");
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  const notificationsIn = (frames: string[]) =>
    frames.filter((frame) => frame.includes('"eth_subscription"')).map((frame) => JSON.parse(frame) as { params: { subscription: string } });

  it("15 clients share one provider listener: no MaxListenersExceededWarning, each gets its own notifications", async () => {
    const clients: { socket: WebSocket; frames: string[]; subscription: string }[] = [];
    const warnings = await warningsDuring(async () => {
      for (let i = 0; i < 15; i++) {
        const client = await open();
        client.socket.send(call("eth_subscribe", ["newFlashblocks"], i));
        await until(() => client.frames.length === 1);
        clients.push({ ...client, subscription: (JSON.parse(client.frames[0]!) as { result: string }).result });
      }
      await provider.preconf.fragment();
      await until(() => clients.every((client) => notificationsIn(client.frames).length === 1));
    });
    expect(warnings.filter((warning) => warning.includes("MaxListeners"))).to.deep.equal([]);
    expect(provider.listenerCount("message")).to.equal(1);
    for (const client of clients) expect(notificationsIn(client.frames).map((n) => n.params.subscription)).to.deep.equal([client.subscription]);
    for (const client of clients) client.socket.close();
    await until(() => provider.wallet.ownContext.subscriptions.size === 0);
    // Connections come and go; the server's listener stays until the server closes.
    expect(provider.listenerCount("message")).to.equal(1);
    await server.close();
    expect(provider.listenerCount("message")).to.equal(0);
  });

  it("a subscription's notifications wait for the response announcing its id, not for any response", async () => {
    const { socket, frames } = await open();
    // A nonce gap: the Sync call waits (until its 1 s timeout), holding the batch response back.
    const gapped = await signTx(provider, 0, { nonce: 5 });
    socket.send(`[${call("eth_subscribe", ["newFlashblocks"], 1)},${call("eth_sendRawTransactionSync", [gapped, 1000], 2)}]`);
    await until(() => provider.wallet.ownContext.subscriptions.size === 1);
    await provider.preconf.fragment();
    socket.send(call("eth_chainId", [], 3));
    await until(() => frames.some((frame) => frame.includes('"id":3')));
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Answering eth_chainId must not release the batch's subscription: its id is not known yet.
    expect(frames.map((frame) => JSON.parse(frame) as unknown)).to.deep.equal([{ jsonrpc: "2.0", id: 3, result: "0x7a69" }]);
    await clock.tickAsync(1000);
    await until(() => frames.length === 3);
    const [batch, notification] = [
      JSON.parse(frames[1]!) as { id: number; result?: string }[],
      JSON.parse(frames[2]!) as { method: string; params: { subscription: string } },
    ];
    expect(batch.map((item) => item.id)).to.deep.equal([1, 2]);
    expect(notification.method).to.equal("eth_subscription");
    expect(notification.params.subscription).to.equal(batch[0]!.result);
    socket.close();
  });
});

describe("the preconf CLI", () => {
  /** Spawns the CLI, waits for the URL it prints, and returns it with the child. */
  async function spawnCli(args: string[]) {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL printed:\n${output}`)), 20_000);
      const check = () => {
        const match = /listening on (http:\/\/\S+)/.exec(output);
        if (match === null) return;
        clearTimeout(timer);
        resolve(match[1]!);
      };
      child.stdout.on("data", check);
      void exited.then(() => reject(new Error(`exited early:\n${output}`)));
    });
    return { child, url, exited, output: () => output };
  }

  for (const [name, args] of [
    ["bin/preconf.js node", ["bin/preconf.js", "node"]],
    ["the sources (tsx src/cli.ts node)", ["--import", "tsx", "src/cli.ts", "node"]],
  ] as const) {
    it(`${name}: prints URL, chain id and dev keys, answers eth_chainId, exits 0 on SIGINT`, async () => {
      const cli = await spawnCli([...args, "--port", "0", "--chain-id", "1337", "--accounts", "2", "--balance", "1.5"]);
      try {
        expect(cli.url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
        const response = await post(cli.url, call("eth_chainId"));
        expect(response.json).to.deep.equal({ jsonrpc: "2.0", id: 1, result: "0x539" });
        const balance = await post(cli.url, call("eth_getBalance", ["0x70997970c51812dc3a010c7d01b50e0d17dc79c8", "latest"]));
        expect((balance.json as { result: string }).result).to.equal(`0x${(15n * 10n ** 17n).toString(16)}`);
        const output = cli.output();
        expect(output).to.include("\nChain ID:          1337\n");
        expect(output).to.match(/publicly known/i);
        expect(output).to.include("(0) 0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
        expect(output).to.include("(1) 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 (1.5 ETH)");
        expect(output).to.not.include("(2)");
        // The CLI started its own process again with V8's compile queue (src/cli/tierUp.ts).
        if (canRelaunch) expect(commandLineOf(cli.child.pid!).slice(0, 2)).to.deep.equal([process.execPath, "--concurrent-recompilation-queue-length=64"]);
      } finally {
        cli.child.kill("SIGINT");
      }
      expect(await cli.exited).to.equal(0);
    });
  }

  it("logs a sealed block with txs, quiet about empty blocks", async () => {
    const cli = await spawnCli(["bin/preconf.js", "node", "--port", "0", "--fragment-interval", "20", "--fragments-per-block", "2"]);
    try {
      const client = createPublicClient({ chain: devChain, transport: http(cli.url) });
      const account = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
      const raw = await account.signTransaction({
        chainId: 31337,
        type: "eip1559",
        nonce: 0,
        to: RECIPIENT,
        value: 1n,
        gas: 21000n,
        maxFeePerGas: parseGwei("10"),
        maxPriorityFeePerGas: parseGwei("1"),
      });
      const hash = await client.sendRawTransaction({ serializedTransaction: raw });
      const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
      // The receipt comes at pre-confirmation; the line at the seal after it. Poll for it (a busy
      // machine may take a while), then let a few more empty blocks seal: they must print nothing.
      const blockLines = () =>
        cli
          .output()
          .split("\n")
          .filter((line) => line.startsWith("Block "));
      for (let waited = 0; blockLines().length === 0 && waited < 20_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const lines = blockLines();
      expect(lines).to.have.length(1);
      expect(lines[0]).to.match(new RegExp(`^Block ${receipt.blockNumber} sealed: 1 tx, gas 21,000, 2 fragments, hash 0x[0-9a-f]{64}$`));
    } finally {
      cli.child.kill("SIGINT");
    }
    expect(await cli.exited).to.equal(0);
  });

  it("defaults to 127.0.0.1:8545 (npm start)", () => {
    expect(parseNodeArgs([])).to.deep.include({ host: "127.0.0.1", port: 8545 });
    expect(parseNodeArgs([])).to.deep.nested.include({ "log.level": 0 });
  });

  it("numbers are digits only: an empty or blank value is refused, not read as 0", () => {
    for (const [flag, value] of [
      ["--max-batch", ""],
      ["--port", " "],
      ["--accounts", "1e3"],
      ["--max-body", "0x10"],
    ] as const) {
      expect(() => parseNodeArgs([flag, value]), `${flag} "${value}"`).to.throw(`${flag} must be an integer`);
    }
    expect(parseNodeArgs(["--max-batch", "0"])).to.deep.nested.include({ "server.maxBatch": 0 });
  });

  it("refuses a bad flag with one line and exit code 2, without the usage text", async () => {
    const child = spawn(process.execPath, ["bin/preconf.js", "node", "--mining", "sometimes"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => child.once("exit", resolve));
    expect(code).to.equal(2);
    expect(stderr).to.equal('preconf: --mining must be interval, auto or manual, got "sometimes"\n');
  });
});
