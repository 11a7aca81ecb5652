/**
 * Faults (README "Faults and shutdown"): each has one defined outcome.
 * - a `message` listener that throws: the chain keeps going, the other listeners are still called,
 *   the error becomes a process warning;
 * - a WebSocket client that leaves mid-subscription (even while its eth_subscribe is on its way):
 *   the server drops its subscriptions (its one provider listener stays until it closes), nothing
 *   leaks or crashes;
 * - `provider.close()` during a fragment: the fragment finishes, close resolves, requests made
 *   from the moment close() was called are 4900;
 * - a request after close: 4900 in process and over a still-running server; connection refused
 *   once the server is closed;
 * - a pending eth_sendRawTransactionSync (or any request still waiting) when close() is called:
 *   rejected with 4900 as soon as queued work is done, not at its timeout.
 */
import { once } from "node:events";
import { request as httpRequest } from "node:http";

import { expect } from "chai";
import WebSocket from "ws";

import { createPreconfProvider, startServer } from "../src/index.ts";
import { createTestChain, serveEachTest } from "./helpers/chain.ts";
import { send, signTx } from "./helpers/sign.ts";
import { warningsDuring } from "./helpers/warnings.ts";

import type { PreconfProvider, RunningServer, SubscriptionMessage } from "../src/index.ts";
import type { ServedProvider } from "../src/server/http.ts";

const DISCONNECTED = { code: 4900, message: "The provider is disconnected from all chains" };

const subscriptionCount = (provider: PreconfProvider) => provider.wallet.ownContext.subscriptions.size;

async function failure(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    const { code, message } = error as { code: number; message: string };
    return { code, message };
  }
  throw new Error("expected a rejection");
}

/** Resolves with the warnings emitted while `run` runs. */
async function openSocket(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url);
  await once(socket, "open");
  return socket;
}

/** Sends a JSON-RPC request over the socket and resolves with its response. */
function wsCall(socket: WebSocket, id: number, method: string, params: unknown[] = []): Promise<{ id: number; result?: unknown; error?: { code: number } }> {
  return new Promise((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      const message = JSON.parse(String(data)) as { id?: number };
      if (message.id !== id) return;
      socket.off("message", onMessage);
      resolve(message as { id: number });
    };
    socket.on("message", onMessage);
    socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
  });
}

async function until(predicate: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function postJson(url: string, body: unknown): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const req = httpRequest(
      url,
      { method: "POST", agent: false, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(text) } },
      (res) => {
        let data = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (data += chunk));
        res.on("end", () => resolve({ status: res.statusCode!, json: data === "" ? undefined : JSON.parse(data) }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

describe("faults", () => {
  describe("a message listener that throws", () => {
    it("does not stop the chain, the other listeners still get every notification, the error becomes a warning", async () => {
      const { provider } = await createTestChain();
      try {
        const seen: SubscriptionMessage[] = [];
        provider.on("message", () => {
          throw new Error("listener bug");
        });
        provider.on("message", (message: SubscriptionMessage) => seen.push(message));
        await provider.request({ method: "eth_subscribe", params: ["newFlashblocks"] });
        await provider.request({ method: "eth_subscribe", params: ["newFlashblockTransactions"] });
        const hash = await send(provider, await signTx(provider, 0, { nonce: 0 }));
        const warnings = await warningsDuring(() => provider.preconf.advance(12));
        // 12 fragments + 1 tx; block 1 sealed after 10 fragments and the chain went on.
        expect(seen.filter((message) => typeof message.data.result === "object")).to.have.length(12);
        expect(seen.filter((message) => message.data.result === hash)).to.have.length(1);
        expect(await provider.request({ method: "eth_blockNumber" })).to.equal("0x1");
        expect(warnings).to.have.length(13);
        expect(warnings[0]).to.equal('PreconfListenerWarning: a "message" listener threw: listener bug');
      } finally {
        await provider.close();
      }
    });

    it("a throwing disconnect listener does not break close()", async () => {
      const { provider } = await createTestChain();
      let called = false;
      provider.on("disconnect", () => {
        throw new Error("disconnect bug");
      });
      provider.on("disconnect", () => (called = true));
      const warnings = await warningsDuring(() => provider.close());
      expect(called).to.equal(true);
      expect(warnings.some((warning) => warning.includes("disconnect bug"))).to.equal(true);
    });
  });

  describe("a WebSocket client that disconnects mid-subscription", () => {
    let provider: PreconfProvider;
    let server: RunningServer;

    serveEachTest((served, listening) => {
      provider = served;
      server = listening;
    });

    it("drops the client's subscriptions; the chain and other clients go on", async () => {
      // The server listens once for all its connections.
      const listenersBefore = provider.listenerCount("message");
      expect(listenersBefore).to.equal(1);
      const leaving = await openSocket(server.wsUrl);
      const staying = await openSocket(server.wsUrl);
      for (let i = 0; i < 10; i++) await wsCall(leaving, i, "eth_subscribe", [i % 2 === 0 ? "newFlashblocks" : "newHeads"]);
      const kept = (await wsCall(staying, 1, "eth_subscribe", ["newFlashblocks"])).result;
      expect(subscriptionCount(provider)).to.equal(11);
      let received = 0;
      staying.on("message", () => received++);
      // Notifications are flowing to both when the first one vanishes without a close frame.
      await provider.preconf.advance(3);
      leaving.terminate();
      await provider.preconf.advance(3);
      await until(() => subscriptionCount(provider) === 1);
      expect(provider.listenerCount("message")).to.equal(listenersBefore);
      await until(() => received === 6);
      expect(received).to.equal(6);
      expect((await wsCall(staying, 2, "eth_unsubscribe", [kept])).result).to.equal(true);
      staying.close();
    });

    it("cancels a subscription whose eth_subscribe was still on its way when the client left", async () => {
      // A provider whose eth_subscribe answers only after the client has gone.
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const slow: ServedProvider = {
        request: async (args) => {
          if (args.method === "eth_subscribe") await gate;
          return provider.request(args);
        },
        on: (event, listener) => provider.on(event, listener),
        off: (event, listener) => provider.off(event, listener),
      };
      const slowServer = await startServer(slow, { port: 0 });
      try {
        const socket = await openSocket(slowServer.wsUrl);
        socket.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["newFlashblocks"] }));
        await new Promise((resolve) => setTimeout(resolve, 20));
        socket.terminate();
        await new Promise((resolve) => setTimeout(resolve, 20));
        release();
        // One listener per running server (this one's and the slow one's), none per connection.
        await until(() => subscriptionCount(provider) === 0);
        expect(provider.listenerCount("message")).to.equal(2);
        await provider.preconf.advance();
      } finally {
        await slowServer.close();
      }
      expect(provider.listenerCount("message")).to.equal(1);
    });
  });

  describe("close() during a fragment", () => {
    it("the fragment under way finishes, close resolves, requests from then on are 4900", async () => {
      const provider = await createPreconfProvider({ mining: "manual" });
      const hashes = [];
      for (let nonce = 0; nonce < 20; nonce++) hashes.push(await send(provider, await signTx(provider, 0, { nonce })));
      let disconnects = 0;
      provider.on("disconnect", () => disconnects++);
      const fragment = provider.preconf.fragment();
      const closing = provider.close();
      // Refused at once, before the fragment is done.
      expect(await failure(provider.request({ method: "eth_blockNumber" }))).to.deep.equal(DISCONNECTED);
      const produced = await fragment;
      expect(produced.transactions.map((record) => record.hash)).to.deep.equal(hashes);
      await closing;
      await provider.close();
      expect(disconnects).to.equal(1);
      expect(provider.closed).to.equal(true);
      expect(await failure(provider.request({ method: "eth_getTransactionReceipt", params: [hashes[0]] }))).to.deep.equal(DISCONNECTED);
      expect(await failure(provider.preconf.advance())).to.deep.equal(DISCONNECTED);
      expect(await failure(provider.preconf.fragment())).to.deep.equal(DISCONNECTED);
    });

    it("close() called from inside a fragment (a real-timer fragment listener) resolves and stops the sequencer", async () => {
      const provider = await createPreconfProvider({ fragmentIntervalMs: 10, fragmentsPerBlock: 3 });
      let fragments = 0;
      const closed = new Promise<void>((resolve, reject) => {
        provider.chain.on("fragment", () => {
          if (++fragments === 2) provider.close().then(resolve, reject);
        });
      });
      await closed;
      const count = fragments;
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(fragments).to.equal(count);
      expect(await failure(provider.request({ method: "eth_chainId" }))).to.deep.equal(DISCONNECTED);
    });
  });

  describe("requests after close", () => {
    it("in process: 4900; over a running server: 4900 in a 200 response; server closed: connection refused", async () => {
      const { provider } = await createTestChain();
      const server = await startServer(provider, { port: 0 });
      await provider.close();
      expect(await failure(provider.request({ method: "eth_chainId" }))).to.deep.equal(DISCONNECTED);
      const response = await postJson(server.url, { jsonrpc: "2.0", id: 1, method: "eth_chainId" });
      expect(response).to.deep.equal({ status: 200, json: { jsonrpc: "2.0", id: 1, error: DISCONNECTED } });
      // Over WebSocket alike.
      const socket = await openSocket(server.wsUrl);
      expect((await wsCall(socket, 5, "eth_subscribe", ["newHeads"])).error).to.deep.equal(DISCONNECTED);
      const socketClosed = once(socket, "close");
      await server.close();
      await socketClosed;
      const refused = await postJson(server.url, { jsonrpc: "2.0", id: 1, method: "eth_chainId" }).then(
        () => undefined,
        (error: NodeJS.ErrnoException) => error.code,
      );
      expect(refused).to.equal("ECONNREFUSED");
    });
  });

  describe("a pending eth_sendRawTransactionSync when close() is called", () => {
    it("in process (fake clock, never advanced): rejected with 4900 at once, not at its timeout", async () => {
      const { provider } = await createTestChain();
      const raw = await signTx(provider, 0, { nonce: 0 });
      const sync = provider.request({ method: "eth_sendRawTransactionSync", params: [raw, 6000] });
      const outcome = failure(sync);
      await provider.preconf.idle();
      const started = performance.now();
      await provider.close();
      expect(await outcome).to.deep.equal(DISCONNECTED);
      expect(performance.now() - started).to.be.lessThan(500);
    });

    it("real timers, manual mining: rejected with 4900 well before its 6 s timeout", async () => {
      const provider = await createPreconfProvider({ mining: "manual" });
      const raw = await signTx(provider, 0, { nonce: 0 });
      const started = performance.now();
      const outcome = failure(provider.request({ method: "eth_sendRawTransactionSync", params: [raw, 6000] }));
      await new Promise((resolve) => setTimeout(resolve, 50));
      await provider.close();
      expect(await outcome).to.deep.equal(DISCONNECTED);
      expect(performance.now() - started).to.be.lessThan(1000);
    });

    it("a Sync whose tx the last fragment pre-confirms answers its receipt", async () => {
      const provider = await createPreconfProvider({ mining: "manual" });
      const raw = await signTx(provider, 0, { nonce: 0 });
      const sync = provider.request({ method: "eth_sendRawTransactionSync", params: [raw] });
      await provider.preconf.idle();
      const fragment = provider.preconf.fragment();
      await provider.close();
      await fragment;
      expect(await sync).to.deep.include({ status: "0x1" });
    });

    it("over HTTP: provider.close() answers it 4900; server.close() ends its connection promptly", async () => {
      const { provider } = await createTestChain();
      const server = await startServer(provider, { port: 0 });
      try {
        const pending = postJson(server.url, {
          jsonrpc: "2.0",
          id: 7,
          method: "eth_sendRawTransactionSync",
          params: [await signTx(provider, 0, { nonce: 0 }), 6000],
        });
        await until(() => provider.chain.pool.size === 1);
        await provider.close();
        expect(await pending).to.deep.equal({ status: 200, json: { jsonrpc: "2.0", id: 7, error: DISCONNECTED } });
      } finally {
        await server.close();
      }

      const second = await createTestChain();
      const other = await startServer(second.provider, { port: 0 });
      const hanging = postJson(other.url, {
        jsonrpc: "2.0",
        id: 8,
        method: "eth_sendRawTransactionSync",
        params: [await signTx(second.provider, 0, { nonce: 0 }), 6000],
      }).then(
        () => "answered",
        (error: NodeJS.ErrnoException) => error.code,
      );
      await until(() => second.provider.chain.pool.size === 1);
      const started = performance.now();
      await other.close();
      expect(await hanging).to.equal("ECONNRESET");
      expect(performance.now() - started).to.be.lessThan(500);
      await second.provider.close();
    });
  });
});
