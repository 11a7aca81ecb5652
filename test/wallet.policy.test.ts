/**
 * The approval policy (docs/wallet.md) through viem's wallet actions: defaults, queues, functions,
 * manual mode, delays, reset, custom errors; the request log; real signatures.
 */
import { expect } from "chai";
import { InternalRpcError, SwitchChainError, UnauthorizedProviderError, UserRejectedRequestError, parseEther, verifyMessage, verifyTypedData } from "viem";

import { createTestChain, rpcError } from "./helpers/chain.ts";
import { base, dappWallet, rejectsWith, USDC } from "./helpers/wallet.ts";

import type { PreconfProvider } from "../src/index.ts";
import type { TestChain } from "./helpers/chain.ts";

const RECIPIENT = "0x000000000000000000000000000000000000dEaD";
const TOKEN = { type: "ERC20", options: { address: USDC, symbol: "USDC", decimals: 6 } } as const;

const typedData = {
  domain: { name: "Mail", version: "1", chainId: 31337, verifyingContract: "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC" },
  types: {
    Person: [
      { name: "name", type: "string" },
      { name: "wallet", type: "address" },
    ],
    Mail: [
      { name: "from", type: "Person" },
      { name: "to", type: "Person" },
      { name: "contents", type: "string" },
    ],
  },
  primaryType: "Mail",
  message: {
    from: { name: "Cow", wallet: "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826" },
    to: { name: "Bob", wallet: "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB" },
    contents: "Hello, Bob!",
  },
} as const;

describe("wallet approval policy (viem wallet actions)", function () {
  let chain: TestChain;
  let provider: PreconfProvider;
  let wallet: ReturnType<typeof dappWallet>;

  beforeEach(async function () {
    chain = await createTestChain({ mining: "manual" });
    provider = chain.provider;
    wallet = dappWallet(provider);
  });

  afterEach(async function () {
    await provider.close();
  });

  describe("default decision", function () {
    it("approves every prompt by default: addChain, watchAsset, switchChain, sendTransaction, signMessage", async function () {
      const { walletClient, account } = wallet;
      await walletClient.addChain({ chain: base });
      expect(provider.wallet.activeChainId).to.equal("0x2105");
      await walletClient.switchChain({ id: 31337 });
      expect(await walletClient.watchAsset(TOKEN)).to.equal(true);
      const hash = await walletClient.sendTransaction({ to: RECIPIENT, value: parseEther("1") });
      await provider.preconf.fragment();
      const receipt = await provider.request({ method: "eth_getTransactionReceipt", params: [hash] });
      expect(receipt).to.have.property("status", "0x1");
      const signature = await walletClient.signMessage({ message: "hello preconf" });
      expect(await verifyMessage({ address: account, message: "hello preconf", signature })).to.equal(true);
      expect(provider.wallet.requests.map((record) => [record.method, record.decision])).to.deep.equal([
        ["wallet_addEthereumChain", "approve"],
        ["wallet_switchEthereumChain", "approve"],
        ["wallet_watchAsset", "approve"],
        ["eth_sendTransaction", "approve"],
        ["personal_sign", "approve"],
      ]);
    });

    it("reject as the default surfaces as viem's UserRejectedRequestError for every action", async function () {
      const { walletClient } = wallet;
      provider.wallet.policy.setDefault("reject");
      await rejectsWith(walletClient.addChain({ chain: base }), UserRejectedRequestError);
      await rejectsWith(walletClient.watchAsset(TOKEN), UserRejectedRequestError);
      await rejectsWith(walletClient.sendTransaction({ to: RECIPIENT, value: 1n }), UserRejectedRequestError);
      await rejectsWith(walletClient.signMessage({ message: "no" }), UserRejectedRequestError);
      await rejectsWith(walletClient.signTypedData(typedData), UserRejectedRequestError);
      await rejectsWith(walletClient.requestAddresses(), UserRejectedRequestError);
      expect(provider.wallet.chains().map((known) => known.chainId)).to.deep.equal(["0x7a69"]);
      expect(provider.wallet.assets()).to.deep.equal([]);
      expect(provider.chain.pool.size).to.equal(0);
      for (const record of provider.wallet.requests) {
        expect(record.decision).to.equal("reject");
        expect(record.outcome).to.deep.equal({ error: { code: 4001, message: "User rejected the request" } });
      }
    });

    it("a default per method wins over the global default", async function () {
      const { walletClient } = wallet;
      provider.wallet.policy.setDefault("reject").setDefault("approve", "wallet_watchAsset");
      expect(await walletClient.watchAsset(TOKEN)).to.equal(true);
      await rejectsWith(walletClient.signMessage({ message: "no" }), UserRejectedRequestError);
    });

    it("the walletPolicy option sets the initial default", async function () {
      const { provider: rejecting } = await createTestChain({ walletPolicy: "reject" });
      const error = await rpcError(rejecting, "wallet_watchAsset", TOKEN);
      expect(error).to.deep.equal({ code: 4001, message: "User rejected the request", data: undefined });
      const { provider: unsupported } = await createTestChain({ walletPolicy: "unsupported" });
      expect(await rpcError(unsupported, "wallet_watchAsset", TOKEN)).to.include({ code: 4100, message: "Requested method not supported" });
      await Promise.all([rejecting.close(), unsupported.close()]);
    });
  });

  describe("queued one-shot decisions", function () {
    it("are consumed first in first out, then the default applies again", async function () {
      const { walletClient } = wallet;
      provider.wallet.policy.queue("personal_sign", "reject", "approve", "reject");
      await rejectsWith(walletClient.signMessage({ message: "1" }), UserRejectedRequestError);
      await walletClient.signMessage({ message: "2" });
      await rejectsWith(walletClient.signMessage({ message: "3" }), UserRejectedRequestError);
      await walletClient.signMessage({ message: "4" });
      expect(provider.wallet.requests.map((record) => record.decision)).to.deep.equal(["reject", "approve", "reject", "approve"]);
      // The cheap views of the log agree with the full copy.
      expect(provider.wallet.requestCount).to.equal(4);
      expect(provider.wallet.lastRequest).to.deep.equal(provider.wallet.requests.at(-1));
    });

    it("are per method", async function () {
      const { walletClient } = wallet;
      provider.wallet.policy.queue("wallet_watchAsset", "reject");
      await walletClient.addChain({ chain: base });
      await rejectsWith(walletClient.watchAsset(TOKEN), UserRejectedRequestError);
    });

    it("unrecognizedChain (4902) surfaces as viem's SwitchChainError with the 4902 error as its cause", async function () {
      const { walletClient } = wallet;
      await walletClient.addChain({ chain: base });
      provider.wallet.policy.queue("wallet_switchEthereumChain", "unrecognizedChain");
      const error = await rejectsWith(walletClient.switchChain({ id: 31337 }), SwitchChainError);
      expect(error.code).to.equal(4902);
      expect(error.cause).to.include({ code: 4902, message: "Unrecognized chain ID" });
      expect(provider.wallet.activeChainId).to.equal("0x2105");
    });

    it("unsupported (4100), invalidParams (-32602) and custom { code, message, data } decisions", async function () {
      const { walletClient } = wallet;
      provider.wallet.policy.queue("wallet_watchAsset", "unsupported", "invalidParams", { code: -32603, message: "Internal error", data: { why: "test" } });
      const unsupported = await rejectsWith(walletClient.watchAsset(TOKEN), UnauthorizedProviderError);
      expect(unsupported.cause).to.include({ code: 4100, message: "Requested method not supported" });
      expect(await rpcError(provider, "wallet_watchAsset", TOKEN)).to.deep.equal({
        code: -32602,
        message: "Invalid params",
        data: { field: "params", reason: "refused by the wallet policy" },
      });
      const custom = await rejectsWith(walletClient.watchAsset(TOKEN), InternalRpcError);
      expect(custom.cause).to.deep.include({ code: -32603, message: "Internal error", data: { why: "test" } });
    });

    it("a switch to an unknown chain is 4902 before the policy: SwitchChainError, no decision consumed", async function () {
      const { walletClient } = wallet;
      provider.wallet.policy.queue("wallet_switchEthereumChain", "approve");
      const error = await rejectsWith(walletClient.switchChain({ id: 8453 }), SwitchChainError);
      expect(error.cause).to.deep.include({ code: 4902, message: "Unrecognized chain ID", data: { chainId: "0x2105" } });
      expect(provider.wallet.policy.queued("wallet_switchEthereumChain")).to.deep.equal(["approve"]);
      expect(provider.wallet.requests.at(-1)).to.not.have.property("decision");
    });
  });

  describe("a decision function", function () {
    it("decides from the request; undefined falls through to the default", async function () {
      const { walletClient } = wallet;
      const seen: string[] = [];
      provider.wallet.policy.use((request) => {
        seen.push(request.method);
        if (request.method !== "wallet_watchAsset") return undefined;
        const { options } = request.params as { options: { symbol: string } };
        return options.symbol === "SCAM" ? "reject" : "approve";
      });
      provider.wallet.policy.setDefault("reject");
      expect(await walletClient.watchAsset(TOKEN)).to.equal(true);
      await rejectsWith(walletClient.watchAsset({ ...TOKEN, options: { ...TOKEN.options, symbol: "SCAM" } }), UserRejectedRequestError);
      await rejectsWith(walletClient.signMessage({ message: "hi" }), UserRejectedRequestError);
      expect(seen).to.deep.equal(["wallet_watchAsset", "wallet_watchAsset", "personal_sign"]);
    });
  });

  describe("manual mode", function () {
    it("holds each request until the test approves or rejects it", async function () {
      const { walletClient } = wallet;
      const { policy } = provider.wallet;
      policy.manual();
      const adding = walletClient.addChain({ chain: base });
      const prompt = await policy.waitForPending();
      expect(prompt).to.include({ method: "wallet_addEthereumChain", chainId: "0x7a69" });
      expect(provider.wallet.requests.at(-1)!.outcome).to.equal("pending");
      expect(provider.wallet.activeChainId).to.equal("0x7a69");
      policy.approve(prompt.id);
      await adding;
      expect(provider.wallet.activeChainId).to.equal("0x2105");

      const signing = walletClient.signMessage({ message: "later" });
      const second = await policy.waitForPending();
      expect(policy.pending().map((pending) => pending.id)).to.deep.equal([second.id]);
      policy.reject(second.id);
      await rejectsWith(signing, UserRejectedRequestError);
      expect(policy.pending()).to.deep.equal([]);
    });

    it("reject(id, error) answers with another error", async function () {
      const { policy } = provider.wallet;
      policy.manual();
      const watching = provider.request({ method: "wallet_watchAsset", params: TOKEN });
      const prompt = await policy.waitForPending();
      policy.reject(prompt.id, { code: 4200, message: "Unsupported Method" });
      await watching.then(
        () => expect.fail("expected a rejection"),
        (error: unknown) => expect(error).to.include({ code: 4200, message: "Unsupported Method" }),
      );
    });

    it("queued decisions still win over manual mode", async function () {
      const { policy } = provider.wallet;
      policy.manual().queue("wallet_watchAsset", "approve");
      expect(await provider.request({ method: "wallet_watchAsset", params: TOKEN })).to.equal(true);
      expect(policy.pending()).to.deep.equal([]);
    });
  });

  describe("delayMs", function () {
    it("answers after the delay on the provider's clock", async function () {
      const { walletClient, account } = wallet;
      provider.wallet.policy.delayMs = 5_000;
      let settled = false;
      const signing = walletClient.signMessage({ message: "slow" }).finally(() => {
        settled = true;
      });
      await chain.clock.tickAsync(4_999);
      expect(settled).to.equal(false);
      await chain.clock.tickAsync(1);
      const signature = await signing;
      expect(await verifyMessage({ address: account, message: "slow", signature })).to.equal(true);
    });
  });

  describe("reset", function () {
    it("clears defaults, queues, function, manual mode and delay", async function () {
      const { policy } = provider.wallet;
      policy
        .setDefault("reject")
        .setDefault("reject", "personal_sign")
        .queue("wallet_watchAsset", "reject")
        .use(() => "reject")
        .manual();
      policy.delayMs = 10;
      policy.reset();
      expect(policy.queued("wallet_watchAsset")).to.deep.equal([]);
      expect(policy.isManual).to.equal(false);
      expect(policy.delayMs).to.equal(0);
      expect(await provider.request({ method: "wallet_watchAsset", params: TOKEN })).to.equal(true);
      expect(policy.defaultFor("personal_sign")).to.equal("approve");
    });
  });

  describe("signatures and transactions", function () {
    it("personal_sign and eth_signTypedData_v4 signatures verify with viem", async function () {
      const { walletClient, account } = wallet;
      const raw = await walletClient.signMessage({ message: { raw: "0xdeadbeef" } });
      expect(await verifyMessage({ address: account, message: { raw: "0xdeadbeef" }, signature: raw })).to.equal(true);
      const typed = await walletClient.signTypedData(typedData);
      expect(await verifyTypedData({ address: account, ...typedData, signature: typed })).to.equal(true);
    });

    it("malformed typed data and unknown accounts are -32602 before the policy", async function () {
      const { account } = wallet;
      provider.wallet.policy.queue("eth_signTypedData_v4", "approve");
      const broken = { ...typedData, primaryType: "Letter" };
      expect(await rpcError(provider, "eth_signTypedData_v4", [account, JSON.stringify(broken)])).to.include({ code: -32602, message: "Invalid params" });
      expect(await rpcError(provider, "eth_signTypedData_v4", [RECIPIENT, JSON.stringify(typedData)])).to.deep.include({
        code: -32602,
        data: { field: "params[0]", reason: "not an account of this wallet" },
      });
      provider.wallet.policy.queue("eth_sendTransaction", "approve");
      expect(await rpcError(provider, "eth_sendTransaction", [{ from: RECIPIENT, to: account }])).to.deep.include({
        code: -32602,
        data: { field: "params[0].from", reason: "not an account of this wallet" },
      });
      expect(provider.wallet.policy.queued("eth_signTypedData_v4")).to.deep.equal(["approve"]);
      expect(provider.wallet.policy.queued("eth_sendTransaction")).to.deep.equal(["approve"]);
    });
  });

  describe("accounts and permissions", function () {
    it("eth_requestAccounts prompts once, connects and emits accountsChanged", async function () {
      const { walletClient } = wallet;
      const changes: unknown[] = [];
      provider.on("accountsChanged", (accounts) => changes.push(accounts));
      provider.wallet.policy.queue("eth_requestAccounts", "reject");
      await rejectsWith(walletClient.requestAddresses(), UserRejectedRequestError);
      expect(provider.wallet.connected).to.equal(false);
      const addresses = await walletClient.requestAddresses();
      expect(addresses).to.have.length(20);
      expect(changes).to.have.length(1);
      expect(await walletClient.getPermissions()).to.have.nested.property("[0].parentCapability", "eth_accounts");
      provider.wallet.policy.setDefault("reject");
      // Already connected: no prompt (as MetaMask), so the reject default is not asked.
      expect(await walletClient.requestAddresses()).to.have.length(20);
      expect(provider.wallet.requests.map((record) => record.decision ?? "-")).to.deep.equal(["reject", "approve", "-", "-"]);
    });

    it("wallet_requestPermissions grants eth_accounts; anything else is -32602", async function () {
      const { walletClient } = wallet;
      const granted = await walletClient.requestPermissions({ eth_accounts: {} });
      expect(granted).to.have.nested.property("[0].caveats[0].type", "restrictReturnedAccounts");
      expect(await rpcError(provider, "wallet_requestPermissions", [{ eth_sign: {} }])).to.include({ code: -32602, message: "Invalid params" });
    });
  });

  describe("the request log", function () {
    it("records deep-cloned params, decision, outcome and time", async function () {
      const params = { ...TOKEN, options: { ...TOKEN.options, symbol: "USDC" as string } };
      provider.wallet.policy.queue("wallet_watchAsset", "reject");
      await provider.request({ method: "wallet_watchAsset", params }).catch(() => undefined);
      await chain.clock.tickAsync(1_000);
      await provider.request({ method: "wallet_watchAsset", params });
      params.options.symbol = "CHANGED";
      const [first, second] = provider.wallet.requests;
      expect(first).to.deep.include({ method: "wallet_watchAsset", decision: "reject", chainId: "0x7a69" });
      expect(first!.params).to.deep.equal(TOKEN);
      expect(first!.outcome).to.deep.equal({ error: { code: 4001, message: "User rejected the request" } });
      expect(second).to.deep.include({ decision: "approve", outcome: { result: true } });
      expect(second!.time - first!.time).to.equal(1_000);
    });
  });

  describe("over JSON-RPC", function () {
    it("preconf_setWalletPolicy, preconf_queueWalletDecisions and preconf_walletRequests", async function () {
      expect(await provider.request({ method: "preconf_setWalletPolicy", params: ["reject"] })).to.equal(null);
      expect(await rpcError(provider, "wallet_watchAsset", TOKEN)).to.include({ code: 4001 });
      await provider.request({ method: "preconf_setWalletPolicy", params: [{ default: "approve", methods: { personal_sign: "unsupported" } }] });
      expect(await provider.request({ method: "preconf_queueWalletDecisions", params: ["wallet_watchAsset", ["reject", "approve"]] })).to.equal(2);
      expect(await rpcError(provider, "wallet_watchAsset", TOKEN)).to.include({ code: 4001 });
      expect(await provider.request({ method: "wallet_watchAsset", params: [TOKEN] })).to.equal(true);
      expect(await rpcError(provider, "personal_sign", ["0x00", wallet.account])).to.include({ code: 4100 });
      const log = (await provider.request({ method: "preconf_walletRequests" })) as { method: string; decision: unknown }[];
      expect(log.map((record) => record.decision)).to.deep.equal(["reject", "reject", "approve", "unsupported"]);
      expect(await rpcError(provider, "preconf_queueWalletDecisions", ["eth_call", ["approve"]])).to.include({ code: -32602 });
      expect(await rpcError(provider, "preconf_setWalletPolicy", ["maybe"])).to.include({ code: -32602 });
    });

    it("manual mode: preconf_walletPending and preconf_resolveWalletRequest", async function () {
      await provider.request({ method: "preconf_setWalletPolicy", params: [{ manual: true }] });
      const watching = provider.request({ method: "wallet_watchAsset", params: TOKEN });
      await provider.wallet.policy.waitForPending();
      const [pending] = (await provider.request({ method: "preconf_walletPending" })) as { id: number }[];
      await provider.request({ method: "preconf_resolveWalletRequest", params: [pending!.id, "approve"] });
      expect(await watching).to.equal(true);
    });
  });
});
