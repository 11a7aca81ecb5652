/**
 * MetaMask's smaller answers (docs/wallet.md, the method table): eth_sendTransaction's checks,
 * eth_sign, legacy typed data (v1, v3) signed exactly as @metamask/eth-sig-util signs it,
 * wallet_registerOnboarding, the endowment:permitted-chains permission, typed data for clients
 * that are not a dapp, and ERC-7846 wallet_connect for the Base Account personality.
 */
import { SignTypedDataVersion, signTypedData, typedSignatureHash } from "@metamask/eth-sig-util";
import { expect } from "chai";
import { verifyMessage } from "viem";
import { parseSiweMessage } from "viem/siwe";

import { createTestChain, rpcError } from "./helpers/chain.ts";
import { startServer } from "../src/index.ts";
import { legacyTypedDataDigest } from "../src/wallet/sign.ts";

import type { PreconfProvider, PreconfProviderOptions } from "../src/index.ts";

const MAIL_V3 = {
  types: {
    EIP712Domain: [
      { name: "name", type: "string" },
      { name: "chainId", type: "uint256" },
    ],
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
  domain: { name: "Ether Mail", chainId: 31337 },
  message: {
    from: { name: "Cow", wallet: "0xcd2a3d9f938e13cd947ec05abc7fe734df8dd826" },
    to: { name: "Bob", wallet: "0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb" },
    contents: "Hello, Bob!",
  },
};

const LEGACY = [
  { type: "string", name: "message", value: "Hi, Alice!" },
  { type: "uint32", name: "value", value: 42 },
  { type: "bool", name: "flag", value: true },
  { type: "address", name: "to", value: "0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb" },
  { type: "bytes", name: "memo", value: "0xdeadbeef" },
];

describe("MetaMask's smaller answers", () => {
  let provider: PreconfProvider;
  const open = async (options: PreconfProviderOptions = {}) => {
    ({ provider } = await createTestChain(options));
    return provider;
  };
  afterEach(async () => provider.close());
  const keyOf = (index = 0) => Buffer.from(provider.accounts[index]!.privateKey.slice(2), "hex");

  describe("eth_sendTransaction (transaction-controller utils/validation.ts)", () => {
    it("a chainId other than the dapp's: -32602 Invalid transaction params: chainId must match the network client (validateParamChainId)", async () => {
      await open();
      const from = provider.accounts[0]!.address;
      expect(await rpcError(provider, "eth_sendTransaction", [{ from, to: from, chainId: "0x1" }])).to.deep.equal({
        code: -32602,
        message: "Invalid transaction params: chainId must match the network client, got: 0x1, expected: 0x7a69",
        data: undefined,
      });
      // The dapp's own chain is fine, in any case.
      expect(await provider.request({ method: "eth_sendTransaction", params: [{ from, to: from, chainId: "0x7A69" }] })).to.match(/^0x[0-9a-f]{64}$/);
    });

    it("a dapp's own EIP-7702 authorizations: -32602 External EIP-7702 transactions are not supported (validateTransactionOrigin)", async () => {
      await open();
      const from = provider.accounts[0]!.address;
      const refused = { code: -32602, message: "External EIP-7702 transactions are not supported", data: undefined };
      const authorization = { chainId: "0x7a69", address: from, nonce: "0x0", yParity: "0x0", r: "0x1", s: "0x1" };
      expect(await rpcError(provider, "eth_sendTransaction", [{ from, to: from, authorizationList: [authorization] }])).to.deep.equal(refused);
      expect(await rpcError(provider, "eth_sendTransaction", [{ from, to: from, type: "0x4" }])).to.deep.equal(refused);
      expect(provider.wallet.lastRequest?.decision).to.equal(undefined);
    });

    it("other personalities keep the interface's -32602 with the field", async () => {
      await open({ walletPersonality: "coinbase" });
      const from = provider.accounts[0]!.address;
      expect(await rpcError(provider, "eth_sendTransaction", [{ from, to: from, chainId: "0x1" }])).to.deep.include({
        code: -32602,
        message: "Invalid params",
      });
    });
  });

  it("eth_sign is removed: -32601, as in MetaMask since its eth_sign toggle went away", async () => {
    await open();
    expect((await rpcError(provider, "eth_sign", [provider.accounts[0]!.address, "0x68656c6c6f"])).code).to.equal(-32601);
  });

  describe("legacy typed data", () => {
    it("eth_signTypedData (v1): [typedData, address], the signature @metamask/eth-sig-util makes", async () => {
      await open();
      expect(legacyTypedDataDigest(LEGACY)).to.equal(typedSignatureHash(LEGACY));
      const signature = await provider.request({ method: "eth_signTypedData", params: [LEGACY, provider.accounts[0]!.address] });
      expect(signature).to.equal(signTypedData({ privateKey: keyOf(), data: LEGACY, version: SignTypedDataVersion.V1 }));
      expect(provider.wallet.lastRequest).to.deep.include({ method: "eth_signTypedData", decision: "approve" });
    });

    it("eth_signTypedData_v3: the signature eth-sig-util's V3 makes; arrays are V4's (-32602); another chain is MetaMask's -32603", async () => {
      await open();
      const from = provider.accounts[0]!.address;
      expect(await provider.request({ method: "eth_signTypedData_v3", params: [from, JSON.stringify(MAIL_V3)] })).to.equal(
        signTypedData({ privateKey: keyOf(), data: MAIL_V3 as never, version: SignTypedDataVersion.V3 }),
      );
      const withArray = { ...MAIL_V3, types: { ...MAIL_V3.types, Mail: [...MAIL_V3.types.Mail, { name: "cc", type: "Person[]" }] } };
      expect(await rpcError(provider, "eth_signTypedData_v3", [from, withArray])).to.deep.equal({
        code: -32602,
        message: "Invalid params",
        data: { field: "params[1].types", reason: "Arrays are unimplemented in encodeData; use V4 extension" },
      });
      expect(await rpcError(provider, "eth_signTypedData_v3", [from, { ...MAIL_V3, domain: { ...MAIL_V3.domain, chainId: 1 } }])).to.deep.equal({
        code: -32603,
        message: 'Provided chainId "1" must match the active chainId "31337"',
        data: undefined,
      });
    });
  });

  it("wallet_registerOnboarding answers true (MetaMask's onboarding library); other wallets have no such method (-32601)", async () => {
    await open();
    expect(await provider.request({ method: "wallet_registerOnboarding" })).to.equal(true);
    await provider.close();
    await open({ walletPersonality: "coinbase" });
    expect((await rpcError(provider, "wallet_registerOnboarding")).code).to.equal(-32601);
  });

  describe("permissions (@metamask/eip1193-permission-middleware)", () => {
    it("one grant: eth_accounts and endowment:permitted-chains share its id; a chain switched to is permitted; revoking either revokes both", async () => {
      await open({ walletConnected: false });
      const granted = (await provider.request({ method: "wallet_requestPermissions", params: [{ "endowment:permitted-chains": {} }] })) as {
        id: string;
        parentCapability: string;
        invoker: string;
        caveats: unknown[];
      }[];
      expect(granted.map((permission) => [permission.parentCapability, permission.caveats])).to.deep.equal([
        ["eth_accounts", [{ type: "restrictReturnedAccounts", value: provider.wallet.accounts }]],
        ["endowment:permitted-chains", [{ type: "restrictNetworkSwitching", value: ["0x7a69"] }]],
      ]);
      expect(granted[0]!.id).to.equal(granted[1]!.id);
      expect(granted[0]!.invoker).to.equal("hardhat-preconf");
      await provider.request({
        method: "wallet_addEthereumChain",
        params: [
          { chainId: "0x2105", chainName: "Base", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: ["https://mainnet.base.org"] },
        ],
      });
      const [, chains] = (await provider.request({ method: "wallet_getPermissions" })) as { caveats: { value: string[] }[] }[];
      expect(chains!.caveats[0]!.value).to.deep.equal(["0x7a69", "0x2105"]);
      expect(await provider.request({ method: "wallet_revokePermissions", params: [{ "endowment:permitted-chains": {} }] })).to.equal(null);
      expect(await provider.request({ method: "wallet_getPermissions" })).to.deep.equal([]);
      expect(await provider.request({ method: "eth_accounts" })).to.deep.equal([]);
    });

    it("other wallets grant eth_accounts only, and refuse endowment:permitted-chains (-32602)", async () => {
      await open({ walletPersonality: "coinbase" });
      const granted = (await provider.request({ method: "wallet_requestPermissions", params: [{ eth_accounts: {} }] })) as { parentCapability: string }[];
      expect(granted.map((permission) => permission.parentCapability)).to.deep.equal(["eth_accounts"]);
      expect(await rpcError(provider, "wallet_requestPermissions", [{ "endowment:permitted-chains": {} }])).to.deep.include({
        code: -32602,
        message: "Invalid params",
      });
    });
  });

  it("over the server, a client without an Origin (a script) signs typed data for any domain; a page keeps MetaMask's rule", async () => {
    await open();
    const page = "http://localhost:5173";
    const server = await startServer(provider, { port: 0, allowedOrigins: [page] });
    try {
      const from = provider.accounts[0]!.address;
      const forMainnet = { ...MAIL_V3, domain: { ...MAIL_V3.domain, chainId: 1 } };
      const post = async (origin?: string) => {
        const response = await fetch(server.url, {
          method: "POST",
          headers: { "content-type": "application/json", ...(origin !== undefined && { origin }) },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_signTypedData_v4", params: [from, forMainnet] }),
        });
        return (await response.json()) as { result?: string; error?: unknown };
      };
      expect((await post()).result).to.equal(signTypedData({ privateKey: keyOf(), data: forMainnet as never, version: SignTypedDataVersion.V4 }));
      expect((await post(page)).error).to.deep.equal({ code: -32603, message: 'Provided chainId "1" must match the active chainId "31337"' });
    } finally {
      await server.close();
    }
  });

  describe("ERC-7846 wallet_connect (Base Account)", () => {
    it("connects and signs in with Ethereum in one prompt: an EIP-4361 message for the nonce and chain, signed by the account", async () => {
      await open({ walletPersonality: "base-account", walletConnected: false });
      const result = (await provider.request({
        method: "wallet_connect",
        params: [{ version: "1", capabilities: { signInWithEthereum: { nonce: "abcdef123456", chainId: "0x7a69" } } }],
      })) as {
        accounts: { address: `0x${string}`; capabilities: { signInWithEthereum: { message: string; signature: `0x${string}` } } }[];
        chainIds: string[];
      };
      const [first] = result.accounts;
      expect(first!.address).to.equal(provider.accounts[0]!.address);
      const { message, signature } = first!.capabilities.signInWithEthereum;
      expect(parseSiweMessage(message)).to.deep.include({ nonce: "abcdef123456", chainId: 31337, version: "1" });
      expect(parseSiweMessage(message).address?.toLowerCase()).to.equal(first!.address);
      expect(await verifyMessage({ address: first!.address, message, signature })).to.equal(true);
      expect(result.chainIds).to.deep.equal(["0x7a69"]);
      expect(await provider.request({ method: "eth_accounts" })).to.deep.equal(provider.wallet.accounts);
      expect(provider.wallet.lastRequest).to.deep.include({ method: "wallet_connect", decision: "approve" });
      expect(await provider.request({ method: "wallet_disconnect" })).to.equal(null);
      expect(await provider.request({ method: "eth_accounts" })).to.deep.equal([]);
    });

    it("a rejected connect is 4001; MetaMask has no wallet_connect (-32601)", async () => {
      await open({ walletPersonality: "base-account" });
      provider.wallet.policy.queue("wallet_connect", "reject");
      expect((await rpcError(provider, "wallet_connect", [{}])).code).to.equal(4001);
      await provider.close();
      await open();
      expect((await rpcError(provider, "wallet_connect", [{}])).code).to.equal(-32601);
    });
  });
});
