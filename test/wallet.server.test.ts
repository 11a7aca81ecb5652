/**
 * One wallet, state per origin, on the server (docs/wallet.md, "Origins"): a client's chain switch
 * or connection is its origin's; the chains and tokens it adds are the wallet's; node methods
 * always answer for the node's chain; the approval policy and the request log are the test's, out
 * of reach of browser pages.
 */
import { expect } from "chai";
import { WebSocket } from "ws";

import { createTestChain } from "./helpers/chain.ts";
import { startServer } from "../src/index.ts";

import type { PreconfProvider, RunningServer } from "../src/index.ts";
import type { PendingPrompt } from "../src/wallet/policy.ts";

const MAINNET = { chainId: "0x1", chainName: "Ethereum", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: ["https://eth.example"] };
const TOKEN = { type: "ERC20", options: { address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", symbol: "USDC", decimals: 6 } };

interface Client {
  call(method: string, params?: unknown): Promise<{ result?: unknown; error?: { code: number; message: string; data?: unknown } }>;
  /** preconf_walletEvent notifications received so far. */
  events: { event: string; data: unknown }[];
  close(): void;
}

async function client(url: string, origin?: string): Promise<Client> {
  const socket = new WebSocket(url, origin === undefined ? {} : { origin });
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", reject);
  });
  let nextId = 1;
  const waiting = new Map<number, (answer: never) => void>();
  const events: Client["events"] = [];
  socket.on("message", (data) => {
    const message = JSON.parse(data.toString()) as { id?: number; method?: string; params?: { event: string; data: unknown } };
    if (message.method === "preconf_walletEvent") events.push(message.params!);
    else if (message.id !== undefined) waiting.get(message.id)?.(message as never);
  });
  return {
    events,
    call(method, params) {
      const id = nextId++;
      socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, ...(params !== undefined && { params }) }));
      return new Promise((resolve) => waiting.set(id, resolve));
    },
    close: () => socket.close(),
  };
}

async function httpCall(url: string, method: string, params: unknown[] = []): Promise<{ result?: unknown; error?: { code: number } }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return (await response.json()) as never;
}

/** Waits (real timers: sockets) until `ready` holds; fails after ~5 s rather than hanging. */
async function until(ready: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !ready(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(ready(), "condition never held").to.equal(true);
}

describe("per-connection wallets on the server", () => {
  let provider: PreconfProvider;
  let server: RunningServer;
  const clients: Client[] = [];
  const PAGE = "http://127.0.0.1:5173";
  const OTHER_PAGE = "http://localhost:3000";

  beforeEach(async () => {
    ({ provider } = await createTestChain());
    server = await startServer(provider, { port: 0, allowedOrigins: [PAGE, OTHER_PAGE] });
  });
  afterEach(async () => {
    for (const open of clients.splice(0)) open.close();
    await server.close();
    await provider.close();
  });
  const connect = async (origin?: string) => {
    const opened = await client(server.wsUrl, origin);
    clients.push(opened);
    return opened;
  };

  it("one origin's wallet_addEthereumChain switches only that origin; node methods answer for the node's chain for everyone", async () => {
    const a = await connect(PAGE);
    const b = await connect();
    expect(await a.call("wallet_addEthereumChain", [MAINNET])).to.deep.include({ result: null });
    expect(await a.call("eth_chainId")).to.deep.include({ result: "0x1" });
    expect(a.events).to.deep.equal([{ event: "chainChanged", data: "0x1" }]);
    // The switching client's node methods still run on the node (no 4901), and nobody else moved.
    expect((await a.call("eth_blockNumber")).result).to.equal("0x0");
    expect(await b.call("eth_chainId")).to.deep.include({ result: "0x7a69" });
    expect((await b.call("eth_blockNumber")).result).to.equal("0x0");
    expect(b.events).to.deep.equal([]);
    expect((await httpCall(server.url, "eth_chainId")).result).to.equal("0x7a69");
    expect(provider.wallet.activeChainId).to.equal("0x7a69");
    // The log is the test's: it holds every client's requests.
    expect(provider.wallet.requests.map((request) => request.method)).to.deep.equal(["wallet_addEthereumChain"]);
  });

  it("HTTP keeps its origin's state: a switch in one request holds in the next, and over a WebSocket without Origin", async () => {
    expect((await httpCall(server.url, "wallet_addEthereumChain", [MAINNET])).result).to.equal(null);
    expect((await httpCall(server.url, "eth_chainId")).result).to.equal("0x1");
    // Clients without an Origin are one origin, whatever their transport.
    const script = await connect();
    expect(await script.call("eth_chainId")).to.deep.include({ result: "0x1" });
    // The in-process provider is an origin of its own.
    expect(provider.wallet.activeChainId).to.equal("0x7a69");
  });

  it("connection state is per origin (preconf_walletConnection); a watched token is the wallet's", async () => {
    const a = await connect(PAGE);
    const b = await connect(OTHER_PAGE);
    expect(await a.call("preconf_walletConnection", [{ connected: false }])).to.deep.include({ result: null });
    expect(await a.call("eth_accounts")).to.deep.include({ result: [] });
    expect((await b.call("eth_accounts")).result).to.deep.equal(provider.wallet.accounts);
    const from = provider.accounts[0]!.address;
    expect((await a.call("personal_sign", ["0x00", from])).error).to.deep.equal({
      code: 4100,
      message: "The requested account and/or method has not been authorized by the user.",
    });
    expect((await a.call("eth_requestAccounts")).result).to.deep.equal(provider.wallet.accounts);
    expect(a.events).to.deep.equal([{ event: "accountsChanged", data: provider.wallet.accounts }]);
    expect(await a.call("wallet_watchAsset", TOKEN)).to.deep.include({ result: true });
    // Watched for the selected account on the chain the origin selected: the wallet's list, seen by every client.
    expect(provider.wallet.assets()).to.deep.equal([{ type: "ERC20", ...TOKEN.options }]);
  });

  it("a browser page cannot read the log or script the user for everyone (4100); the test can, from Node", async () => {
    const page = await connect(PAGE);
    const test = await connect();
    const refused = { code: 4100, message: "The requested account and/or method has not been authorized by the user." };
    expect((await page.call("preconf_setWalletPolicy", [{ manual: true, delayMs: 2_000_000_000 }])).error).to.deep.equal(refused);
    expect((await page.call("preconf_queueWalletDecisions", ["eth_sendTransaction", ["reject"]])).error).to.deep.equal(refused);
    expect((await page.call("preconf_walletRequests")).error).to.deep.equal(refused);
    expect((await page.call("preconf_walletPending")).error).to.deep.equal(refused);
    expect((await page.call("preconf_resolveWalletRequest", [1, "approve"])).error).to.deep.equal(refused);
    const postFromPage = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", origin: PAGE },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "preconf_setWalletPolicy", params: [{ manual: true }] }),
    });
    expect(((await postFromPage.json()) as { error: unknown }).error).to.deep.equal(refused);
    expect(provider.wallet.policy.isManual).to.equal(false);
    expect(provider.wallet.policy.delayMs).to.equal(0);
    // The test drives the policy that every connection's prompts follow.
    expect((await test.call("preconf_queueWalletDecisions", ["wallet_watchAsset", ["reject"]])).result).to.equal(1);
    expect((await page.call("wallet_watchAsset", TOKEN)).error).to.deep.include({ code: 4001 });
  });

  describe("manual-mode prompts of a client that goes away", () => {
    const SIGN = (provider: PreconfProvider) => ["0x00", provider.accounts[0]!.address];
    const pendingMethods = () => provider.wallet.policy.pending().map((prompt: PendingPrompt) => prompt.method);

    it("a WebSocket that closes: its prompts are rejected (4001) and leave the pending list; another client's stay", async () => {
      provider.wallet.policy.manual();
      const leaving = await connect(PAGE);
      const staying = await connect(PAGE);
      void leaving.call("personal_sign", SIGN(provider));
      void leaving.call("eth_requestAccounts");
      const kept = staying.call("wallet_watchAsset", TOKEN);
      await until(() => provider.wallet.policy.pending().length === 3);
      leaving.close();
      await until(() => provider.wallet.policy.pending().length === 1);
      expect(pendingMethods()).to.deep.equal(["wallet_watchAsset"]);
      const rejected = { error: { code: 4001, message: "User rejected the request" } };
      expect(provider.wallet.requests.map((request) => [request.method, request.outcome])).to.deep.equal([
        ["personal_sign", rejected],
        ["eth_requestAccounts", rejected],
        ["wallet_watchAsset", "pending"],
      ]);
      provider.wallet.policy.approve(provider.wallet.policy.pending()[0]!.id);
      expect(await kept).to.deep.include({ result: true });
    });

    it("an HTTP request aborted while its prompt waits: the prompt is rejected and leaves the pending list", async () => {
      provider.wallet.policy.manual();
      const abort = new AbortController();
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "personal_sign", params: SIGN(provider) });
      const posted = fetch(server.url, { method: "POST", headers: { "content-type": "application/json" }, body, signal: abort.signal }).catch(
        (error: Error) => error.name,
      );
      await provider.wallet.policy.waitForPending();
      abort.abort();
      expect(await posted).to.equal("AbortError");
      await until(() => provider.wallet.policy.pending().length === 0);
      expect(provider.wallet.lastRequest?.outcome).to.deep.equal({ error: { code: 4001, message: "User rejected the request" } });
    });

    it("one connection may keep 32 prompts waiting: one more is -32005; other connections still prompt", async () => {
      const { MAX_PENDING_PROMPTS_PER_CLIENT } = await import("../src/wallet/policy.ts");
      provider.wallet.policy.manual();
      const greedy = await connect(PAGE);
      const other = await connect(PAGE);
      for (let i = 0; i < MAX_PENDING_PROMPTS_PER_CLIENT; i++) void greedy.call("personal_sign", SIGN(provider));
      await until(() => provider.wallet.policy.pending().length === MAX_PENDING_PROMPTS_PER_CLIENT);
      expect((await greedy.call("personal_sign", SIGN(provider))).error).to.deep.equal({
        code: -32005,
        message: "limit exceeded",
        data: { reason: "too many wallet prompts waiting for this connection", limit: MAX_PENDING_PROMPTS_PER_CLIENT },
      });
      void other.call("personal_sign", SIGN(provider));
      await until(() => provider.wallet.policy.pending().length === MAX_PENDING_PROMPTS_PER_CLIENT + 1);
      // The provider's own requests (the test's) are not a connection's.
      void provider.request({ method: "personal_sign", params: SIGN(provider) }).catch(() => undefined);
      await until(() => provider.wallet.policy.pending().length === MAX_PENDING_PROMPTS_PER_CLIENT + 2);
      provider.wallet.policy.reset();
    });
  });
});
