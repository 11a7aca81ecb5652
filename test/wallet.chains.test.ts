/**
 * Known chains and simulated chains: re-adding asks the policy and merges, switchOnAdd and
 * chainChanged, routing of node methods to the active simulated chain, 4901 for URL-only chains.
 */
import { expect } from "chai";
import FakeTimers from "@sinonjs/fake-timers";
import { createPublicClient, custom, defineChain, parseEther, SwitchChainError, UserRejectedRequestError } from "viem";

import { createPreconfProvider } from "../src/index.ts";
import { rpcError, START_MS } from "./helpers/chain.ts";
import { base, dappWallet, optimism, rejectsWith } from "./helpers/wallet.ts";

import type { PreconfProvider } from "../src/index.ts";

const RECIPIENT = "0x000000000000000000000000000000000000dEaD";
const BASE_PARAMS = {
  chainId: "0x2105",
  chainName: "Base",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: ["https://mainnet.base.org"],
};

describe("wallet chains", function () {
  let clock: ReturnType<typeof FakeTimers.createClock>;
  let provider: PreconfProvider;
  let changes: unknown[];

  beforeEach(async function () {
    clock = FakeTimers.createClock(START_MS);
    provider = await createPreconfProvider({ clock, mining: "manual" });
    changes = [];
    provider.on("chainChanged", (chainId) => changes.push(chainId));
  });

  afterEach(async function () {
    await provider.close();
  });

  describe("wallet_addEthereumChain", function () {
    it("an approved add switches to the chain and emits chainChanged once", async function () {
      const { walletClient } = dappWallet(provider);
      await walletClient.addChain({ chain: base });
      expect(changes).to.deep.equal(["0x2105"]);
      expect(await provider.request({ method: "eth_chainId" })).to.equal("0x2105");
      expect(provider.wallet.chains().map((known) => known.chainId)).to.deep.equal(["0x7a69", "0x2105"]);
      expect(provider.wallet.knownChain("0x2105")).to.deep.include({ chainName: "Base", blockExplorerUrls: ["https://basescan.org"], simulated: false });
    });

    it("re-adding a known chain asks the policy, never duplicates it and merges RPC URLs", async function () {
      const { walletClient } = dappWallet(provider);
      await walletClient.addChain({ chain: base });
      provider.wallet.policy.queue("wallet_addEthereumChain", "reject");
      expect(await rpcError(provider, "wallet_addEthereumChain", [{ ...BASE_PARAMS, rpcUrls: ["https://base.llamarpc.com"] }])).to.include({
        code: 4001,
        message: "User rejected the request",
      });
      expect(provider.wallet.knownChain("0x2105")!.rpcUrls).to.deep.equal(["https://mainnet.base.org"]);

      await provider.request({
        method: "wallet_addEthereumChain",
        params: [{ ...BASE_PARAMS, rpcUrls: ["https://base.llamarpc.com", "https://mainnet.base.org"] }],
      });
      expect(provider.wallet.chains().filter((known) => known.chainId === "0x2105")).to.have.length(1);
      expect(provider.wallet.knownChain("0x2105")!.rpcUrls).to.deep.equal(["https://mainnet.base.org", "https://base.llamarpc.com"]);
      // Already active: no second chainChanged.
      expect(changes).to.deep.equal(["0x2105"]);
      expect(provider.wallet.requests.map((record) => record.decision)).to.deep.equal(["approve", "reject", "approve"]);
    });

    it("re-adding the active chain while on another switches back with one chainChanged", async function () {
      const { walletClient } = dappWallet(provider);
      await walletClient.addChain({ chain: base });
      await walletClient.switchChain({ id: 31337 });
      await walletClient.addChain({ chain: base });
      expect(changes).to.deep.equal(["0x2105", "0x7a69", "0x2105"]);
    });

    it("switchOnAdd: false adds without switching or emitting", async function () {
      const { provider: quiet } = { provider: await createPreconfProvider({ clock, mining: "manual", switchOnAdd: false }) };
      const events: unknown[] = [];
      quiet.on("chainChanged", (chainId) => events.push(chainId));
      await dappWallet(quiet).walletClient.addChain({ chain: base });
      expect(quiet.wallet.activeChainId).to.equal("0x7a69");
      expect(quiet.wallet.knownChain("0x2105")).to.not.equal(undefined);
      expect(events).to.deep.equal([]);
      quiet.wallet.switchOnAdd = true;
      await dappWallet(quiet).walletClient.addChain({ chain: optimism });
      expect(events).to.deep.equal(["0xa"]);
      await quiet.close();
    });
  });

  describe("wallet_switchEthereumChain", function () {
    it("an unknown chain is 4902 (SwitchChainError); a rejected switch stays put", async function () {
      const { walletClient } = dappWallet(provider);
      const error = await rejectsWith(walletClient.switchChain({ id: 10 }), SwitchChainError);
      expect(error.cause).to.include({ code: 4902 });
      await walletClient.addChain({ chain: optimism });
      await walletClient.switchChain({ id: 31337 });
      provider.wallet.policy.queue("wallet_switchEthereumChain", "reject");
      await rejectsWith(walletClient.switchChain({ id: 10 }), UserRejectedRequestError);
      expect(provider.wallet.activeChainId).to.equal("0x7a69");
      expect(changes).to.deep.equal(["0xa", "0x7a69"]);
    });

    it("switching to the active chain answers null without a prompt", async function () {
      provider.wallet.policy.setDefault("reject");
      expect(await provider.request({ method: "wallet_switchEthereumChain", params: [{ chainId: "0x7a69" }] })).to.equal(null);
      expect(changes).to.deep.equal([]);
    });
  });

  describe("simulated chains", function () {
    let baseChain: PreconfProvider;

    beforeEach(async function () {
      baseChain = await createPreconfProvider({ clock, chainId: 8453, mining: "manual" });
      provider.wallet.addSimulatedChain(baseChain);
    });

    afterEach(async function () {
      await baseChain.close();
    });

    it("add → switch → transact across chains", async function () {
      const { walletClient } = dappWallet(provider);
      // The wallet does not list Base yet: the classic MetaMask flow of 4902, then add.
      await rejectsWith(walletClient.switchChain({ id: 8453 }), SwitchChainError);
      await walletClient.addChain({ chain: base });
      expect(await provider.request({ method: "eth_chainId" })).to.equal("0x2105");
      expect(provider.wallet.knownChain("0x2105")).to.have.property("simulated", true);

      const onBase = await walletClient.sendTransaction({ chain: null, to: RECIPIENT, value: parseEther("2") });
      await baseChain.preconf.fragment();
      const publicClient = createPublicClient({ transport: custom(provider) });
      expect((await publicClient.getTransactionReceipt({ hash: onBase })).status).to.equal("success");
      expect(await publicClient.getBalance({ address: RECIPIENT, blockTag: "pending" })).to.equal(parseEther("2"));
      expect(await baseChain.request({ method: "eth_getTransactionReceipt", params: [onBase] })).to.not.equal(null);

      await walletClient.switchChain({ id: 31337 });
      expect(await publicClient.getBalance({ address: RECIPIENT, blockTag: "pending" })).to.equal(0n);
      expect(await publicClient.getTransactionReceipt({ hash: onBase }).catch(() => null)).to.equal(null);
      const onDev = await walletClient.sendTransaction({ chain: null, to: RECIPIENT, value: parseEther("3") });
      await provider.preconf.fragment();
      expect((await publicClient.getTransactionReceipt({ hash: onDev })).status).to.equal("success");
      expect(await baseChain.request({ method: "eth_getBalance", params: [RECIPIENT, "pending"] })).to.equal(`0x${parseEther("2").toString(16)}`);
      expect(changes).to.deep.equal(["0x2105", "0x7a69"]);
      expect(provider.wallet.requests.map((record) => [record.method, record.chainId])).to.deep.equal([
        ["wallet_switchEthereumChain", "0x7a69"],
        ["wallet_addEthereumChain", "0x7a69"],
        ["eth_sendTransaction", "0x2105"],
        ["wallet_switchEthereumChain", "0x2105"],
        ["eth_sendTransaction", "0x7a69"],
      ]);
    });

    it("viem's chain check sees the switch (assertCurrentChain)", async function () {
      provider.wallet.addSimulatedChain(await createPreconfProvider({ clock, chainId: 10, mining: "manual" }), { known: true, chainName: "OP Mainnet" });
      const { walletClient } = dappWallet(provider, defineChain({ ...optimism }));
      await walletClient.switchChain({ id: 10 });
      const hash = await walletClient.sendTransaction({ to: RECIPIENT, value: 1n });
      expect(hash).to.match(/^0x[0-9a-f]{64}$/);
    });

    it("a chain known only by URL answers node methods with 4901; wallet methods still work", async function () {
      const { walletClient } = dappWallet(provider);
      const connects: unknown[] = [];
      provider.on("connect", (info) => connects.push(info));
      await walletClient.addChain({ chain: optimism });
      expect(await provider.request({ method: "eth_chainId" })).to.equal("0xa");
      expect(await rpcError(provider, "eth_blockNumber")).to.deep.equal({
        code: 4901,
        message: "The provider is disconnected from the specified chain",
        data: { chainId: "0xa" },
      });
      expect(await rpcError(provider, "eth_sendTransaction", [{ from: provider.accounts[0]!.address, to: RECIPIENT }])).to.include({ code: 4901 });
      expect(await provider.request({ method: "eth_accounts" })).to.have.length(20);
      await walletClient.switchChain({ id: 31337 });
      expect(await provider.request({ method: "eth_blockNumber" })).to.equal("0x0");
      expect(connects).to.deep.equal([{ chainId: "0x7a69" }]);
    });

    it("refuses a second simulator for the same chain id", async function () {
      expect(() => provider.wallet.addSimulatedChain(baseChain)).to.throw(TypeError, /already simulated/);
    });
  });
});
