/**
 * walletPersonality: each documented difference between wallets (docs/wallet-personalities.md),
 * asserted with its exact code, message and data.
 */
import { expect } from "chai";

import { createTestChain, rpcError } from "./helpers/chain.ts";
import { startServer } from "../src/index.ts";

import type { PreconfProvider, RunningServer } from "../src/index.ts";
import type { WalletPersonality } from "../src/options.ts";

const TOKEN = { type: "ERC20", options: { address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", symbol: "USDC", decimals: 6 } };
const chainData = (chainId: string, rpcUrl: string, currency: Record<string, unknown> = {}) => [
  { chainId, chainName: "Chain", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18, ...currency }, rpcUrls: [rpcUrl] },
];

describe("wallet personalities (walletPersonality)", () => {
  const opened: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const item of opened.splice(0).reverse()) await item.close();
  });
  async function walletOf(personality?: WalletPersonality, chainId?: number): Promise<PreconfProvider> {
    const { provider } = await createTestChain({
      ...(personality !== undefined && { walletPersonality: personality }),
      ...(chainId !== undefined && { chainId }),
    });
    opened.push(provider);
    return provider;
  }
  async function serve(provider: PreconfProvider): Promise<RunningServer> {
    const server = await startServer(provider, { port: 0 });
    opened.push(server);
    return server;
  }

  describe("an unknown chain", () => {
    const unknown = { code: 4902, message: "Unrecognized chain ID", data: { chainId: "0x2105" } };
    const expected: Record<WalletPersonality, unknown> = {
      metamask: unknown,
      eip: unknown,
      // Base Account answers EIP-3326's 4902 (docs.base.org base-account/reference/core/provider-rpc-methods/wallet_switchEthereumChain).
      "base-account": unknown,
      "metamask-mobile": { code: -32603, message: "Unrecognized chain ID", data: { originalError: unknown } },
      coinbase: { code: -32603, message: "Unrecognized chain ID", data: { chainId: "0x2105" } },
    };
    for (const [personality, error] of Object.entries(expected)) {
      it(`${personality}: wallet_switchEthereumChain and an unrecognizedChain decision`, async () => {
        const provider = await walletOf(personality as WalletPersonality);
        expect(await rpcError(provider, "wallet_switchEthereumChain", [{ chainId: "0x2105" }])).to.deep.equal(error);
        // A scripted "unrecognizedChain" names the active chain the same way.
        provider.wallet.policy.queue("personal_sign", "unrecognizedChain");
        const scripted = await rpcError(provider, "personal_sign", ["0x00", provider.accounts[0]!.address]);
        expect(JSON.stringify(scripted)).to.equal(JSON.stringify(error).replaceAll("0x2105", "0x7a69"));
      });
    }

    it("the default is metamask", async () => {
      const provider = await walletOf();
      expect(provider.wallet.personality).to.equal("metamask");
      expect((await rpcError(provider, "wallet_switchEthereumChain", [{ chainId: "0x2105" }])).code).to.equal(4902);
    });
  });

  describe("wallet_watchAsset: before or after the user decides", () => {
    it("eip: true at once, before the decision; a later rejection only reaches the log", async () => {
      const provider = await walletOf("eip");
      provider.wallet.policy.manual(true);
      expect(await provider.request({ method: "wallet_watchAsset", params: TOKEN })).to.equal(true);
      const [pending] = provider.wallet.policy.pending();
      expect(pending!.method).to.equal("wallet_watchAsset");
      provider.wallet.policy.reject(pending!.id);
      await Promise.resolve();
      await new Promise((resolve) => setImmediate(resolve));
      expect(provider.wallet.assets()).to.deep.equal([]);
      expect(provider.wallet.lastRequest!.outcome).to.deep.equal({ error: { code: 4001, message: "User rejected the request" } });
      // Invalid params are still answered as errors.
      expect((await rpcError(provider, "wallet_watchAsset", { ...TOKEN, type: "ERC721" })).code).to.equal(-32602);
    });

    for (const personality of ["metamask", "coinbase"] as const) {
      it(`${personality}: answers once the user decided (true, or 4001)`, async () => {
        const provider = await walletOf(personality);
        provider.wallet.policy.manual(true);
        let settled = false;
        const answer = provider.request({ method: "wallet_watchAsset", params: TOKEN }).finally(() => (settled = true));
        const pending = await provider.wallet.policy.waitForPending();
        expect(settled).to.equal(false);
        provider.wallet.policy.approve(pending.id);
        expect(await answer).to.equal(true);
        expect(provider.wallet.assets()).to.have.length(1);
      });
    }
  });

  describe("wallet_addEthereumChain: the rpcUrl's chain id (MetaMask asks a served node)", () => {
    it("metamask: a served node answering another chain id is -32602 with MetaMask's text; the matching one is added; no decision consumed", async () => {
      const provider = await walletOf("metamask");
      const other = await walletOf(undefined, 8453);
      const server = await serve(other);
      provider.wallet.policy.queue("wallet_addEthereumChain", "approve");
      expect(await rpcError(provider, "wallet_addEthereumChain", chainData("0x1", server.url))).to.deep.equal({
        code: -32602,
        message: `Chain ID returned by RPC URL ${server.url} does not match 0x1`,
        data: { chainId: "0x2105" },
      });
      expect(provider.wallet.policy.queued("wallet_addEthereumChain")).to.deep.equal(["approve"]);
      expect(provider.wallet.knownChain("0x1")).to.equal(undefined);
      // localhost and 127.0.0.1 name the same node.
      expect(await provider.request({ method: "wallet_addEthereumChain", params: chainData("0x2105", server.url.replace("127.0.0.1", "localhost")) })).to.equal(
        null,
      );
      expect(provider.wallet.activeChainId).to.equal("0x2105");
    });

    it("metamask-mobile: a served node that cannot answer is -32603 (Request for method 'eth_chainId on … failed)", async () => {
      const provider = await walletOf("metamask-mobile");
      const other = await walletOf(undefined, 8453);
      const server = await serve(other);
      await other.close();
      expect(await rpcError(provider, "wallet_addEthereumChain", chainData("0x2105", server.url))).to.deep.equal({
        code: -32603,
        message: `Request for method 'eth_chainId on ${server.url} failed`,
        data: undefined,
      });
    });

    it("eip and coinbase do not ask; URLs no served node has are never asked", async () => {
      const other = await walletOf(undefined, 8453);
      const server = await serve(other);
      for (const personality of ["eip", "coinbase"] as const) {
        const provider = await walletOf(personality);
        expect(await provider.request({ method: "wallet_addEthereumChain", params: chainData("0x1", server.url) })).to.equal(null);
      }
      const metamask = await walletOf("metamask");
      expect(await metamask.request({ method: "wallet_addEthereumChain", params: chainData("0x1", "http://127.0.0.1:1") })).to.equal(null);
    });
  });

  describe("nativeCurrency: EIP-3085's letter", () => {
    it("eip: a 1-character symbol and decimals other than 18 are -32602; metamask takes both", async () => {
      const eip = await walletOf("eip");
      expect(await rpcError(eip, "wallet_addEthereumChain", chainData("0x2105", "https://mainnet.base.org", { symbol: "E" }))).to.deep.equal({
        code: -32602,
        message: "Invalid params",
        data: { field: "params[0].nativeCurrency.symbol", reason: "currency symbol must be 2-6 characters (EIP-3085)" },
      });
      expect(await rpcError(eip, "wallet_addEthereumChain", chainData("0x2105", "https://mainnet.base.org", { decimals: 6 }))).to.deep.equal({
        code: -32602,
        message: "Invalid params",
        data: { field: "params[0].nativeCurrency.decimals", reason: "decimals must be 18 (EIP-3085)" },
      });
      const metamask = await walletOf("metamask");
      expect(
        await metamask.request({ method: "wallet_addEthereumChain", params: chainData("0x2105", "https://mainnet.base.org", { symbol: "E", decimals: 6 }) }),
      ).to.equal(null);
    });
  });
});
