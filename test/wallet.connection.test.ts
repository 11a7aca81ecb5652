/**
 * Connection state as MetaMask keeps it (walletConnected: false), the typed-data chain check, and
 * errors that survive @metamask/rpc-errors' serializeError and a json-rpc-engine stack unchanged.
 * wagmi's injected connector drives the provider as a dapp would.
 */
import { JsonRpcEngine } from "@metamask/json-rpc-engine";
import { serializeError } from "@metamask/rpc-errors";
import { connect, createConfig, createStorage, disconnect, getAccount, injected, reconnect } from "@wagmi/core";
import { expect } from "chai";
import { custom } from "viem";

import { createTestChain, devChain, rpcError } from "./helpers/chain.ts";

import type { PreconfProvider } from "../src/index.ts";

const UNAUTHORIZED = { code: 4100, message: "The requested account and/or method has not been authorized by the user." };

const MAIL = {
  types: {
    EIP712Domain: [
      { name: "name", type: "string" },
      { name: "chainId", type: "uint256" },
    ],
    Mail: [{ name: "contents", type: "string" }],
  },
  primaryType: "Mail",
  domain: { name: "Ether Mail", chainId: 31337 },
  message: { contents: "Hello" },
};

function recordEvents(provider: PreconfProvider, name: string): unknown[] {
  const seen: unknown[] = [];
  provider.on(name, (payload: unknown) => seen.push(payload));
  return seen;
}

describe("wallet connection state (walletConnected)", () => {
  let provider: PreconfProvider;
  afterEach(async () => provider.close());

  it("default true: eth_accounts answers the dev accounts before any connection (the Hardhat plugin and the CLI keep it)", async () => {
    ({ provider } = await createTestChain());
    expect(await provider.request({ method: "eth_accounts" })).to.deep.equal(provider.wallet.accounts);
  });

  it("false: [] until eth_requestAccounts is approved, the accounts then, [] again after wallet_revokePermissions; accountsChanged each time", async () => {
    ({ provider } = await createTestChain({ walletConnected: false }));
    const changes = recordEvents(provider, "accountsChanged");
    expect(await provider.request({ method: "eth_accounts" })).to.deep.equal([]);
    provider.wallet.policy.queue("eth_requestAccounts", "reject");
    expect((await rpcError(provider, "eth_requestAccounts")).code).to.equal(4001);
    expect(await provider.request({ method: "eth_accounts" })).to.deep.equal([]);
    const accounts = await provider.request({ method: "eth_requestAccounts" });
    expect(accounts).to.deep.equal(provider.wallet.accounts);
    expect(await provider.request({ method: "eth_accounts" })).to.deep.equal(accounts);
    await provider.request({ method: "wallet_revokePermissions", params: [{ eth_accounts: {} }] });
    expect(await provider.request({ method: "eth_accounts" })).to.deep.equal([]);
    expect(changes).to.deep.equal([accounts, []]);
  });

  it("false: wallet_requestPermissions connects as eth_requestAccounts does", async () => {
    ({ provider } = await createTestChain({ walletConnected: false }));
    const [permission] = (await provider.request({ method: "wallet_requestPermissions", params: [{ eth_accounts: {} }] })) as { parentCapability: string }[];
    expect(permission!.parentCapability).to.equal("eth_accounts");
    expect(await provider.request({ method: "eth_accounts" })).to.deep.equal(provider.wallet.accounts);
  });

  it("false: signing and sending before connecting is refused with MetaMask's 4100, before any prompt", async () => {
    ({ provider } = await createTestChain({ walletConnected: false }));
    const from = provider.accounts[0]!.address;
    provider.wallet.policy.queue("eth_sendTransaction", "approve");
    expect(await rpcError(provider, "eth_sendTransaction", [{ from, to: from, value: "0x1" }])).to.deep.equal({ ...UNAUTHORIZED, data: undefined });
    expect(await rpcError(provider, "personal_sign", ["0x68656c6c6f", from])).to.deep.equal({ ...UNAUTHORIZED, data: undefined });
    expect(await rpcError(provider, "eth_signTypedData_v4", [from, MAIL])).to.deep.equal({ ...UNAUTHORIZED, data: undefined });
    // The refused request never consumed the scripted decision.
    expect(provider.wallet.policy.queued("eth_sendTransaction")).to.deep.equal(["approve"]);
    await provider.request({ method: "eth_requestAccounts" });
    const signature = await provider.request({ method: "personal_sign", params: ["0x68656c6c6f", from] });
    expect(signature).to.match(/^0x[0-9a-f]{130}$/);
  });

  it("true: signing works without connecting (today's behaviour)", async () => {
    ({ provider } = await createTestChain());
    const from = provider.accounts[0]!.address;
    expect(await provider.request({ method: "personal_sign", params: ["0x68656c6c6f", from] })).to.match(/^0x[0-9a-f]{130}$/);
  });
});

describe("eth_signTypedData_v4: the domain's chainId must be the active chain (MetaMask)", () => {
  let provider: PreconfProvider;
  afterEach(async () => provider.close());

  it("refuses another chain with MetaMask's text, in any spelling; signs for the active one", async () => {
    ({ provider } = await createTestChain());
    const from = provider.accounts[0]!.address;
    const mismatch = { code: -32603, message: 'Provided chainId "1" must match the active chainId "31337"' };
    for (const chainId of [1, "1", "0x1"]) {
      expect(await rpcError(provider, "eth_signTypedData_v4", [from, { ...MAIL, domain: { ...MAIL.domain, chainId } }])).to.deep.equal({
        ...mismatch,
        data: undefined,
      });
    }
    expect(await rpcError(provider, "eth_signTypedData_v4", [from, JSON.stringify({ ...MAIL, domain: { ...MAIL.domain, chainId: 1 } })])).to.deep.equal({
      ...mismatch,
      data: undefined,
    });
    for (const chainId of [31337, "31337", "0x7a69"]) {
      const signature = await provider.request({ method: "eth_signTypedData_v4", params: [from, { ...MAIL, domain: { ...MAIL.domain, chainId } }] });
      expect(signature).to.match(/^0x[0-9a-f]{130}$/);
    }
    const bad = await rpcError(provider, "eth_signTypedData_v4", [from, { ...MAIL, domain: { ...MAIL.domain, chainId: "mainnet" } }]);
    expect(bad).to.deep.include({ code: -32602, message: "Invalid params" });
  });
});

describe("errors survive @metamask/rpc-errors and json-rpc-engine unchanged", () => {
  let provider: PreconfProvider;
  afterEach(async () => provider.close());

  async function caught(promise: Promise<unknown>): Promise<unknown> {
    return promise.then(
      () => expect.fail("expected a rejection"),
      (error: unknown) => error,
    );
  }

  /** What a JSON-RPC error carries: its code, message and (only when present) data. */
  function fields(error: unknown): Record<string, unknown> {
    const { code, message, data } = error as { code: unknown; message: unknown; data?: unknown };
    return "data" in (error as object) ? { code, message, data } : { code, message };
  }

  it("serializeError(our 4001) keeps its code and message and adds nothing", async () => {
    ({ provider } = await createTestChain({ walletPolicy: "reject" }));
    const error = await caught(provider.request({ method: "eth_requestAccounts" }));
    // serializeError passes a well-formed JSON-RPC error through; anything else becomes -32603 with data.cause.
    expect(fields(serializeError(error, { shouldIncludeStack: false }))).to.deep.equal({ code: 4001, message: "User rejected the request" });
    expect(Object.keys(error as object)).to.not.include("data");
    expect((error as Error).name).to.equal("Error");
  });

  it("serializeError keeps data when it is set (4902 with its chainId)", async () => {
    ({ provider } = await createTestChain());
    const error = await caught(provider.request({ method: "wallet_switchEthereumChain", params: [{ chainId: "0x2105" }] }));
    expect(fields(serializeError(error, { shouldIncludeStack: false }))).to.deep.equal({
      code: 4902,
      message: "Unrecognized chain ID",
      data: { chainId: "0x2105" },
    });
  });

  it("a json-rpc-engine middleware stack over the provider answers our errors as we do", async () => {
    ({ provider } = await createTestChain({ walletPolicy: "reject" }));
    const engine = new JsonRpcEngine();
    engine.push(async (request, response, _next, end) => {
      try {
        response.result = (await provider.request({ method: request.method, params: request.params as unknown[] })) as never;
        end();
      } catch (error) {
        end(error as Error);
      }
    });
    const rejected = (await engine.handle({ jsonrpc: "2.0", id: 1, method: "eth_requestAccounts" })) as { error: unknown };
    expect(fields(rejected.error)).to.deep.equal({ code: 4001, message: "User rejected the request" });
    const invalid = (await engine.handle({ jsonrpc: "2.0", id: 2, method: "wallet_switchEthereumChain", params: [{ chainId: "1" }] })) as { error: unknown };
    expect(fields(invalid.error)).to.deep.equal({
      code: -32602,
      message: "Invalid params",
      data: { field: "params[0].chainId", reason: "expected a 0x-prefixed hex string" },
    });
  });
});

describe("wagmi core's injected connector over walletConnected: false", () => {
  let provider: PreconfProvider;
  const globals = globalThis as { window?: unknown };
  // wagmi's injected connector looks for its provider only where a `window` exists.
  before(() => {
    globals.window = globalThis;
  });
  after(() => {
    delete globals.window;
  });
  afterEach(async () => provider.close());

  const memory = () => {
    const items = new Map<string, string>();
    return {
      getItem: (key: string) => items.get(key) ?? null,
      setItem: (key: string, value: string) => void items.set(key, value),
      removeItem: (key: string) => void items.delete(key),
    };
  };

  function wagmiConfig() {
    return createConfig({
      chains: [devChain],
      connectors: [injected({ target: { id: "preconf", name: "hardhat-preconf", provider: provider as never } })],
      storage: createStorage({ storage: memory() }),
      multiInjectedProviderDiscovery: false,
      transports: { [devChain.id]: custom(provider) },
    });
  }

  it("reconnect() on a page that never connected stays disconnected (with walletConnected: true it would connect)", async () => {
    ({ provider } = await createTestChain({ walletConnected: false }));
    const config = wagmiConfig();
    await reconnect(config);
    expect(getAccount(config).status).to.equal("disconnected");
    expect(provider.wallet.requests.map((request) => request.method)).to.not.include("eth_requestAccounts");
    await provider.close();

    ({ provider } = await createTestChain());
    const silent = wagmiConfig();
    await reconnect(silent);
    expect(getAccount(silent).status).to.equal("connected");
  });

  it("connect → disconnect (wallet_revokePermissions) → eth_accounts is []; reconnect() stays disconnected", async () => {
    ({ provider } = await createTestChain({ walletConnected: false }));
    const config = wagmiConfig();
    const [connector] = config.connectors;
    const { accounts, chainId } = await connect(config, { connector: connector! });
    expect(accounts.map((account) => account.toLowerCase())).to.deep.equal(provider.wallet.accounts);
    expect(chainId).to.equal(31337);
    expect(getAccount(config).status).to.equal("connected");
    await disconnect(config);
    expect(provider.wallet.requests.map((request) => request.method)).to.include("wallet_revokePermissions");
    expect(await provider.request({ method: "eth_accounts" })).to.deep.equal([]);
    const fresh = createConfig({ ...wagmiConfigParts(), storage: createStorage({ storage: memory() }), multiInjectedProviderDiscovery: false });
    await reconnect(fresh);
    expect(getAccount(fresh).status).to.equal("disconnected");
  });

  it("a connect event does not connect an idle dapp (with walletConnected: true it would)", async () => {
    const settle = () => new Promise((resolve) => setTimeout(resolve, 10));
    ({ provider } = await createTestChain({ walletConnected: false }));
    const idle = wagmiConfig();
    await settle(); // the connector's setup() starts listening for connect
    provider.emit("connect", { chainId: "0x7a69" });
    await settle();
    expect(getAccount(idle).status).to.equal("disconnected");
    await provider.close();

    ({ provider } = await createTestChain());
    const eager = wagmiConfig();
    await settle();
    provider.emit("connect", { chainId: "0x7a69" });
    await settle();
    expect(getAccount(eager).status).to.equal("connected");
  });

  function wagmiConfigParts() {
    return {
      chains: [devChain] as const,
      connectors: [injected({ target: { id: "preconf", name: "hardhat-preconf", provider: provider as never } })],
      transports: { [devChain.id]: custom(provider) },
    };
  }
});
