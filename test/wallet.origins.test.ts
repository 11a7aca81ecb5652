/**
 * One wallet, state per origin (docs/wallet.md, "Origins"), driven as the interface is: plain
 * JSON-RPC over HTTP POST, one request at a time. The wallet's chains and assets persist across
 * requests; each origin's selected chain is its own; what a client can add is bounded.
 */
import { expect } from "chai";
import { WebSocket } from "ws";

import { createTestChain } from "./helpers/chain.ts";
import { startServer } from "../src/index.ts";
import { MAX_KNOWN_CHAINS, MAX_ORIGINS, MAX_WATCHED_ASSETS } from "../src/wallet/wallet.ts";

import type { PreconfProvider, RunningServer } from "../src/index.ts";

const BASE = { chainId: "0x2105", chainName: "Base", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: ["https://mainnet.base.org"] };
const USDC = { type: "ERC20", options: { address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", symbol: "USDC", decimals: 6 } };
const DAPP = "http://localhost:5173";
const OTHER_DAPP = "http://127.0.0.1:3000";

type Answer = { result?: unknown; error?: { code: number; message: string; data?: unknown } };

describe("one wallet, state per origin, over plain HTTP", () => {
  let provider: PreconfProvider;
  let server: RunningServer;
  let nextId = 1;

  beforeEach(async () => {
    ({ provider } = await createTestChain());
    server = await startServer(provider, { port: 0, allowedOrigins: [DAPP, OTHER_DAPP] });
  });
  afterEach(async () => {
    await server.close();
    await provider.close();
  });

  /** One JSON-RPC request in its own HTTP POST, as the interface's section 1 describes it. */
  async function post(method: string, params: unknown, origin?: string): Promise<Answer> {
    const response = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...(origin !== undefined && { origin }) },
      body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params }),
    });
    expect(response.status).to.equal(200);
    return (await response.json()) as Answer;
  }

  it("the interface's wallet scenario, one request each: add a chain, switch to it, re-add it with another symbol (refused), watch a token and read it back", async () => {
    expect(await post("wallet_addEthereumChain", [BASE])).to.deep.include({ result: null });
    // MetaMask switches to an added chain (switchOnAdd); switch back, then to it again in its own request.
    expect(await post("eth_chainId", [])).to.deep.include({ result: "0x2105" });
    expect(await post("wallet_switchEthereumChain", [{ chainId: "0x7a69" }])).to.deep.include({ result: null });
    expect(await post("wallet_switchEthereumChain", [{ chainId: "0x2105" }])).to.deep.include({ result: null });
    expect(await post("eth_chainId", [])).to.deep.include({ result: "0x2105" });
    // A chain is known once: another currency symbol is invalid (docs/behaviour.md, wallet methods).
    expect((await post("wallet_addEthereumChain", [{ ...BASE, nativeCurrency: { ...BASE.nativeCurrency, symbol: "BETH" } }])).error).to.deep.equal({
      code: -32602,
      message: "Invalid params",
      data: { field: "params[0].nativeCurrency.symbol", reason: "chain 0x2105 is known with the currency symbol ETH" },
    });
    expect(await post("wallet_watchAsset", USDC)).to.deep.include({ result: true });
    const state = (await post("preconf_walletState", [])).result as { chains: { chainId: string }[]; assets: unknown[] };
    expect(state.chains.map((chain) => chain.chainId)).to.deep.equal(["0x7a69", "0x2105"]);
    expect(state.assets).to.deep.equal([{ account: provider.accounts[0]!.address, chainId: "0x2105", type: "ERC20", ...USDC.options }]);
    // The in-process provider reads the same wallet.
    expect(provider.wallet.assets(provider.accounts[0]!.address, "0x2105")).to.deep.equal([{ type: "ERC20", ...USDC.options }]);
    expect(provider.wallet.requests.map((request) => [request.method, request.decision ?? null])).to.deep.equal([
      ["wallet_addEthereumChain", "approve"],
      ["wallet_switchEthereumChain", "approve"],
      ["wallet_switchEthereumChain", "approve"],
      ["wallet_addEthereumChain", null],
      ["wallet_watchAsset", "approve"],
    ]);
  });

  it("two origins keep separate selected chains; a chain one origin added is known to the other", async () => {
    expect(await post("wallet_addEthereumChain", [BASE], DAPP)).to.deep.include({ result: null });
    expect(await post("eth_chainId", [], DAPP)).to.deep.include({ result: "0x2105" });
    expect(await post("eth_chainId", [], OTHER_DAPP)).to.deep.include({ result: "0x7a69" });
    expect(await post("eth_chainId", [])).to.deep.include({ result: "0x7a69" });
    // The other origin switches to the wallet's chain without adding it: no 4902.
    expect(await post("wallet_switchEthereumChain", [{ chainId: "0x2105" }], OTHER_DAPP)).to.deep.include({ result: null });
    expect(await post("wallet_switchEthereumChain", [{ chainId: "0x7a69" }], DAPP)).to.deep.include({ result: null });
    expect(await post("eth_chainId", [], DAPP)).to.deep.include({ result: "0x7a69" });
    expect(await post("eth_chainId", [], OTHER_DAPP)).to.deep.include({ result: "0x2105" });
    // Node methods answer for the node's chain whatever chain an origin selected.
    expect(await post("net_version", [], OTHER_DAPP)).to.deep.include({ result: "31337" });
    const origins = ((await post("preconf_walletState", [])).result as { origins: { origin: string; chainId: string }[] }).origins;
    expect(origins.map(({ origin, chainId }) => [origin, chainId])).to.have.deep.members([
      [DAPP, "0x7a69"],
      [OTHER_DAPP, "0x2105"],
      ["no-origin", "0x7a69"],
      ["hardhat-preconf", "0x7a69"],
    ]);
  });

  it("a plain read builds no wallet state for its origin; a wallet method does", async () => {
    expect(await post("eth_blockNumber", [], DAPP)).to.deep.include({ result: "0x0" });
    const originsOf = async () => ((await post("preconf_walletState", [])).result as { origins: { origin: string }[] }).origins.map(({ origin }) => origin);
    expect(await originsOf()).to.not.include(DAPP);
    expect(await post("eth_accounts", [], DAPP)).to.have.property("result");
    expect(await originsOf()).to.include(DAPP);
  });

  it("a page may not read the wallet's state (4100): it is the test's", async () => {
    expect((await post("preconf_walletState", [], DAPP)).error).to.deep.equal({
      code: 4100,
      message: "The requested account and/or method has not been authorized by the user.",
    });
  });

  it("every WebSocket of an origin hears its chainChanged; another origin's does not", async () => {
    const open = async (origin: string) => {
      const socket = new WebSocket(server.wsUrl, { origin });
      const events: unknown[] = [];
      socket.on("message", (data) => {
        const message = JSON.parse(data.toString()) as { method?: string; params?: unknown };
        if (message.method === "preconf_walletEvent") events.push(message.params);
      });
      await new Promise((resolve) => socket.once("open", resolve));
      // A wallet method makes the connection a client of its origin.
      socket.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId" }));
      await new Promise((resolve) => socket.once("message", resolve));
      return { socket, events };
    };
    const first = await open(DAPP);
    const second = await open(DAPP);
    const other = await open(OTHER_DAPP);
    expect(await post("wallet_addEthereumChain", [BASE], DAPP)).to.deep.include({ result: null });
    for (let i = 0; i < 200 && (first.events.length === 0 || second.events.length === 0); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(first.events).to.deep.equal([{ event: "chainChanged", data: "0x2105" }]);
    expect(second.events).to.deep.equal([{ event: "chainChanged", data: "0x2105" }]);
    expect(other.events).to.deep.equal([]);
    for (const { socket } of [first, second, other]) socket.close();
  });
});

describe("a wallet session's methods", () => {
  it("work detached from the session (a page's provider hands `request` around), wallet methods on its origin's wallet", async () => {
    const { provider } = await createTestChain();
    try {
      const { request, end } = provider.openWalletSession({ origin: DAPP, emit: () => undefined, trusted: false });
      expect(await request({ method: "eth_chainId" })).to.equal("0x7a69");
      expect(await request({ method: "wallet_addEthereumChain", params: [BASE] })).to.equal(null);
      // The session's origin moved to Base; the provider's own (another origin) did not.
      expect(await request({ method: "eth_chainId" })).to.equal("0x2105");
      expect(await provider.request({ method: "eth_chainId" })).to.equal("0x7a69");
      end();
    } finally {
      await provider.close();
    }
  });
});

describe("evm_snapshot / evm_revert and the wallet's origins", () => {
  it("a revert restores the wallet's chains and every origin's selected chain; an origin that moves back hears chainChanged", async () => {
    const { provider } = await createTestChain();
    try {
      const events: unknown[] = [];
      const dapp = provider.openWalletSession({ origin: DAPP, emit: (event, data) => events.push([event, data]), trusted: false });
      expect(await dapp.request({ method: "eth_chainId" })).to.equal("0x7a69");
      const snapshot = await provider.request({ method: "evm_snapshot" });
      expect(await dapp.request({ method: "wallet_addEthereumChain", params: [BASE] })).to.equal(null);
      expect(await dapp.request({ method: "eth_chainId" })).to.equal("0x2105");
      expect(await provider.request({ method: "evm_revert", params: [snapshot] })).to.equal(true);
      expect(await dapp.request({ method: "eth_chainId" })).to.equal("0x7a69");
      expect(provider.wallet.chains().map((chain) => chain.chainId)).to.deep.equal(["0x7a69"]);
      expect(events).to.deep.equal([
        ["chainChanged", "0x2105"],
        ["chainChanged", "0x7a69"],
      ]);
      dapp.end();
    } finally {
      await provider.close();
    }
  });
});

describe("what a client can add to the wallet is bounded (docs/limits.md)", () => {
  let provider: PreconfProvider;
  beforeEach(async () => {
    ({ provider } = await createTestChain());
  });
  afterEach(async () => provider.close());

  const limit = (reason: string, value: number) => ({ code: -32005, message: "limit exceeded", data: { reason, limit: value } });
  async function failure(request: Promise<unknown>): Promise<unknown> {
    try {
      await request;
    } catch (error) {
      const { code, message, data } = error as { code: number; message: string; data?: unknown };
      return { code, message, data };
    }
    throw new Error("expected the request to fail");
  }

  it(`origins: ${MAX_ORIGINS} tracked; a new one evicts the least recent without a live client, or is -32005 when every one has one`, async () => {
    const session = (origin: string) => provider.openWalletSession({ origin, emit: () => undefined, trusted: false });
    // The provider's own origin is one of them.
    const live = Array.from({ length: MAX_ORIGINS - 1 }, (_, i) => session(`http://dapp-${i}.localhost`));
    for (const client of live) await client.request({ method: "eth_chainId" });
    const refused = session("http://one-too-many.localhost");
    expect(await failure(refused.request({ method: "eth_chainId" }))).to.deep.equal(limit("too many wallet origins", MAX_ORIGINS));
    // Node methods still answer: they build no wallet state.
    expect(await refused.request({ method: "eth_blockNumber" })).to.equal("0x0");
    live[0]!.end();
    expect(await refused.request({ method: "eth_chainId" })).to.equal("0x7a69");
  });

  it(`known chains: ${MAX_KNOWN_CHAINS}, then -32005 before the prompt (no decision consumed)`, async () => {
    for (let i = 1; i < MAX_KNOWN_CHAINS; i++) {
      await provider.request({ method: "wallet_addEthereumChain", params: [{ ...BASE, chainId: `0x${(0x1000 + i).toString(16)}` }] });
    }
    provider.wallet.policy.queue("wallet_addEthereumChain", "approve");
    expect(await failure(provider.request({ method: "wallet_addEthereumChain", params: [BASE] }))).to.deep.equal(
      limit("too many known chains", MAX_KNOWN_CHAINS),
    );
    expect(provider.wallet.policy.queued("wallet_addEthereumChain")).to.deep.equal(["approve"]);
    // A known chain may still be added again (its URLs merge).
    expect(await provider.request({ method: "wallet_addEthereumChain", params: [{ ...BASE, chainId: "0x1001" }] })).to.equal(null);
    expect(provider.wallet.chains()).to.have.length(MAX_KNOWN_CHAINS);
  });

  it(`watched assets: ${MAX_WATCHED_ASSETS}, then -32005; watching a listed token again still works`, async () => {
    const token = (i: number) => ({ type: "ERC20", options: { address: `0x${i.toString(16).padStart(40, "0")}`, symbol: "T", decimals: 18 } });
    for (let i = 1; i <= MAX_WATCHED_ASSETS; i++) await provider.request({ method: "wallet_watchAsset", params: token(i) });
    expect(await failure(provider.request({ method: "wallet_watchAsset", params: token(MAX_WATCHED_ASSETS + 1) }))).to.deep.equal(
      limit("too many watched assets", MAX_WATCHED_ASSETS),
    );
    expect(await provider.request({ method: "wallet_watchAsset", params: token(1) })).to.equal(true);
    expect(provider.wallet.assets()).to.have.length(MAX_WATCHED_ASSETS);
  });
});
