/**
 * EIP-5792 batches with EIP-7702 upgrades (docs/wallet.md, "Batches"), driven by viem's wallet
 * actions as a dapp drives MetaMask: an ERC-20 approve and the call that spends it run atomically
 * in one transaction through the delegate in the genesis, on the dev chain and on a pre-confirming
 * OP-stack profile. Every code and message asserted is MetaMask's (metamask/core
 * packages/eip-5792-middleware, packages/transaction-controller) or EIP-5792's, cited beside it.
 */
import { createServer } from "node:http";

import { expect } from "chai";
import { createWalletClient, custom, encodeFunctionData, parseEther, zeroHash } from "viem";

import { Token, Vault } from "./helpers/contracts.ts";
import { createTestChain, devChain, rpcError, viemClients } from "./helpers/chain.ts";
import { WALLET_DELEGATE_ADDRESS } from "../src/node/state/walletDelegate.ts";

import type { AddressInfo } from "node:net";
import type { Hex } from "viem";
import type { PreconfProvider, PreconfProviderOptions } from "../src/index.ts";

const DELEGATION = `0xef0100${WALLET_DELEGATE_ADDRESS.slice(2)}`;

interface Setup {
  provider: PreconfProvider;
  account: Hex;
  token: Hex;
  vault: Hex;
  /** viem's wallet client with a JSON-RPC account: the wallet holds the key, every action is a request to it. */
  wallet: ReturnType<typeof createWalletClient>;
  publicClient: ReturnType<typeof viemClients>["publicClient"];
  /** approve(vault, amount) then vault.deposit(token, spent). */
  approveAndDeposit(amount: bigint, spent?: bigint): { to: Hex; data: Hex }[];
}

async function setup(options: PreconfProviderOptions = {}): Promise<Setup> {
  const { provider } = await createTestChain(options);
  const { walletClient, publicClient, account } = viemClients(provider);
  const chain = { ...devChain, id: Number(provider.chain.chainId) };
  const deploy = async (artifact: typeof Token, args: unknown[] = []) => {
    const hash = await walletClient.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args, chain } as never);
    // An OP-stack block's fragment 0 holds only its system deposits: advance until the deploy is in.
    for (let i = 0; i < 10 && (await provider.request({ method: "eth_getTransactionReceipt", params: [hash] })) === null; i++) await provider.preconf.advance();
    return (await publicClient.getTransactionReceipt({ hash })).contractAddress!;
  };
  const token = await deploy(Token, ["Token", "TKN", parseEther("1000")]);
  const vault = await deploy(Vault);
  const wallet = createWalletClient({ account: account.address, chain, transport: custom(provider) });
  return {
    provider,
    account: account.address.toLowerCase() as Hex,
    token,
    vault,
    wallet,
    publicClient,
    approveAndDeposit: (amount, spent = amount) => [
      { to: token, data: encodeFunctionData({ abi: Token.abi, functionName: "approve", args: [vault, amount] }) },
      { to: vault, data: encodeFunctionData({ abi: Vault.abi, functionName: "deposit", args: [token, spent] }) },
    ],
  };
}

const deposits = (s: Setup, tag: "pending" | "latest" = "pending") =>
  s.publicClient.readContract({ address: s.vault, abi: Vault.abi, functionName: "deposits", args: [s.token, s.account], blockTag: tag });

/** Advances the provider's fake clock while viem polls on real timers, until `promise` settles. */
async function whileAdvancing<T>(provider: PreconfProvider, promise: Promise<T>, fragments = 1): Promise<T> {
  let settled = false;
  const done = promise.finally(() => {
    settled = true;
  });
  for (let i = 0; i < fragments && !settled; i++) {
    await new Promise((resolve) => setTimeout(resolve, 30));
    await provider.preconf.advance();
  }
  return done;
}

describe("EIP-5792 + EIP-7702 (metamask personality)", function () {
  this.timeout(60_000);
  let s: Setup;
  afterEach(async () => s.provider.close());

  it("viem sendCalls → waitForCallsStatus: approve + spend in one type-4 transaction through the delegate; then supported, no second upgrade", async () => {
    s = await setup();
    // MetaMask's getCapabilities (eip-5792-middleware hooks/getCapabilities.ts): a plain account can be upgraded, "ready".
    expect(await s.wallet.getCapabilities({ account: s.account })).to.deep.equal({ 31337: { atomic: { status: "ready" } } });
    const { id } = await s.wallet.sendCalls({ account: s.account, calls: s.approveAndDeposit(parseEther("5")) });
    // MetaMask's ids are 16 bytes (a UUID's, eip-5792-middleware processSendCalls.ts generateBatchId).
    expect(id).to.match(/^0x[0-9a-f]{32}$/);
    const status = await whileAdvancing(s.provider, s.wallet.waitForCallsStatus({ id }));
    expect(status).to.deep.include({ status: "success", statusCode: 200, atomic: true, chainId: 31337, version: "2.0.0" });
    expect(status.receipts).to.have.length(1);
    const [receipt] = status.receipts!;
    // Pre-confirmed in a fragment: its block is still open (Base's convention, zero hash).
    expect(receipt!.blockHash).to.equal(zeroHash);
    const tx = await s.publicClient.getTransaction({ hash: receipt!.transactionHash });
    expect(tx.type).to.equal("eip7702");
    expect(tx.to).to.equal(s.account);
    expect(tx.authorizationList).to.have.length(1);
    expect(tx.authorizationList![0]!.address.toLowerCase()).to.equal(WALLET_DELEGATE_ADDRESS);
    expect(await deposits(s)).to.equal(parseEther("5"));
    expect(await s.publicClient.getCode({ address: s.account, blockTag: "pending" })).to.equal(DELEGATION);
    expect(await s.wallet.getCapabilities({ account: s.account })).to.deep.equal({ 31337: { atomic: { status: "supported" } } });
    expect(s.provider.wallet.requests.map((request) => [request.method, request.decision])).to.deep.equal([
      ["wallet_sendCalls", "approve"],
      ["wallet_upgradeAccount", "approve"],
    ]);

    // The second batch: no upgrade prompt, a type-2 call to the account's own execute.
    const second = await s.wallet.sendCalls({ account: s.account, calls: s.approveAndDeposit(parseEther("2")) });
    const again = await whileAdvancing(s.provider, s.wallet.waitForCallsStatus({ id: second.id }));
    expect(again.statusCode).to.equal(200);
    const secondTx = await s.publicClient.getTransaction({ hash: again.receipts![0]!.transactionHash });
    expect(secondTx.type).to.equal("eip1559");
    expect(await deposits(s)).to.equal(parseEther("7"));
    expect(s.provider.wallet.requests.map((request) => request.method)).to.deep.equal(["wallet_sendCalls", "wallet_upgradeAccount", "wallet_sendCalls"]);
  });

  it("a batch's status follows the chain: 100 while pooled, 200 pre-confirmed (zero block hash), then the sealed block's hash", async () => {
    s = await setup();
    const { id } = await s.wallet.sendCalls({ account: s.account, calls: s.approveAndDeposit(1n) });
    expect(await s.wallet.getCallsStatus({ id })).to.deep.include({ statusCode: 100, status: "pending", receipts: [] });
    await s.provider.preconf.advance();
    const preconfirmed = await s.wallet.getCallsStatus({ id });
    expect(preconfirmed.statusCode).to.equal(200);
    expect(preconfirmed.receipts![0]!.blockHash).to.equal(zeroHash);
    await s.provider.preconf.seal();
    const sealed = await s.wallet.getCallsStatus({ id });
    expect(sealed.statusCode).to.equal(200);
    expect(sealed.receipts![0]!.blockHash).to.equal((await s.publicClient.getBlock({ blockTag: "latest" })).hash);
  });

  it("walletPreconfirmedCallsStatus 201: viem's waitForCallsStatus keeps waiting through pre-confirmation and returns once the block seals", async () => {
    s = await setup({ walletPreconfirmedCallsStatus: 201 });
    const { id } = await s.wallet.sendCalls({ account: s.account, calls: s.approveAndDeposit(1n) });
    await s.provider.preconf.advance();
    expect((await s.wallet.getCallsStatus({ id })).statusCode).to.equal(201);
    // viem stops on 200 or ≥ 300 only (actions/wallet/waitForCallsStatus.ts): 201 is still waiting.
    const waited = whileAdvancing(s.provider, s.wallet.waitForCallsStatus({ id, pollingInterval: 20 }), 20);
    const result = await waited;
    expect(result.statusCode).to.equal(200);
    expect(result.receipts![0]!.blockHash).to.not.equal(zeroHash);
  });

  it("walletPreconfirmedCallsStatus 100: pending until sealed, without receipts", async () => {
    s = await setup({ walletPreconfirmedCallsStatus: 100 });
    const { id } = await s.wallet.sendCalls({ account: s.account, calls: s.approveAndDeposit(1n) });
    await s.provider.preconf.advance();
    expect(await s.wallet.getCallsStatus({ id })).to.deep.include({ statusCode: 100, receipts: [] });
    await s.provider.preconf.seal();
    expect((await s.wallet.getCallsStatus({ id })).statusCode).to.equal(200);
  });

  it("on a pre-confirming OP-stack profile (optimism's 250 ms flashblocks): the same batch, pre-confirmed in a fragment", async () => {
    s = await setup({ profile: "optimism" });
    const { id } = await s.wallet.sendCalls({ account: s.account, calls: s.approveAndDeposit(parseEther("3")) });
    const status = await whileAdvancing(s.provider, s.wallet.waitForCallsStatus({ id, pollingInterval: 20 }), 10);
    expect(status).to.deep.include({ statusCode: 200, chainId: 10 });
    expect(status.receipts![0]!.blockHash).to.equal(zeroHash);
    expect(await deposits(s)).to.equal(parseEther("3"));
    expect(await s.publicClient.getCode({ address: s.account, blockTag: "pending" })).to.equal(DELEGATION);
  });

  it("on a chain that mines every send (automine): confirmed at once in its sealed block", async () => {
    s = await setup();
    s.provider.chain.setAutomine(true);
    const { id } = await s.wallet.sendCalls({ account: s.account, calls: s.approveAndDeposit(parseEther("1")) });
    const status = await s.wallet.waitForCallsStatus({ id });
    expect(status.statusCode).to.equal(200);
    expect(status.receipts![0]!.blockHash).to.not.equal(zeroHash);
  });

  describe("the policy scripts the user", () => {
    it("a rejected upgrade: 5750 User rejected account upgrade, before the batch is asked; nothing sent, the account stays plain", async () => {
      s = await setup();
      s.provider.wallet.policy.queue("wallet_upgradeAccount", "reject");
      // metamask-extension ui/pages/confirmations/hooks/useSmartAccountActions.ts, handleRejectUpgrade.
      expect(await rpcError(s.provider, "wallet_sendCalls", [sendCalls(s, s.approveAndDeposit(1n))])).to.deep.equal({
        code: 5750,
        message: "User rejected account upgrade",
        data: undefined,
      });
      expect(s.provider.wallet.requests.map((request) => [request.method, request.decision ?? null])).to.deep.equal([
        ["wallet_sendCalls", null],
        ["wallet_upgradeAccount", "reject"],
      ]);
      expect(await s.publicClient.getCode({ address: s.account, blockTag: "pending" })).to.equal(undefined);
      expect(s.provider.chain.pool.size).to.equal(0);
    });

    it("a rejected batch: 4001 after the upgrade was approved; nothing sent", async () => {
      s = await setup();
      s.provider.wallet.policy.queue("wallet_sendCalls", "reject");
      expect(await rpcError(s.provider, "wallet_sendCalls", [sendCalls(s, s.approveAndDeposit(1n))])).to.deep.equal({
        code: 4001,
        message: "User rejected the request",
        data: undefined,
      });
      expect(s.provider.chain.pool.size).to.equal(0);
      expect(await s.publicClient.getCode({ address: s.account, blockTag: "pending" })).to.equal(undefined);
    });

    it("a reverted batch: status 500 with the reverted receipt, and nothing of it applied (the approve is undone with the spend)", async () => {
      s = await setup();
      // Spends more than it approves: Token's transferFrom reverts, and with it the whole batch.
      const { id } = await s.wallet.sendCalls({ account: s.account, calls: s.approveAndDeposit(1n, 2n) });
      await s.provider.preconf.advance();
      // MetaMask's getStatusCode (eip-5792-middleware hooks/getCallsStatus.ts): failed with a hash is REVERTED, 500.
      const status = await s.wallet.getCallsStatus({ id });
      expect(status).to.deep.include({ statusCode: 500, status: "failure", atomic: true });
      expect(status.receipts!.map((receipt) => receipt.status)).to.deep.equal(["reverted"]);
      expect(await deposits(s)).to.equal(0n);
      const allowance = await s.publicClient.readContract({
        address: s.token,
        abi: Token.abi,
        functionName: "allowance",
        args: [s.account, s.vault],
        blockTag: "pending",
      });
      expect(allowance).to.equal(0n);
      // The upgrade in the same transaction stays: EIP-7702 authorizations apply even when execution reverts.
      expect(await s.publicClient.getCode({ address: s.account, blockTag: "pending" })).to.equal(DELEGATION);
      // viem's waitForCallsStatus throws on failure when told to (throwOnFailure).
      const thrown = await s.wallet.waitForCallsStatus({ id, throwOnFailure: true }).catch((error: Error) => error.name);
      expect(thrown).to.equal("BundleFailedError");
    });

    it("manual mode: the batch waits for the test like any prompt", async () => {
      s = await setup();
      s.provider.wallet.policy.manual();
      const sent = s.wallet.sendCalls({ account: s.account, calls: s.approveAndDeposit(1n) });
      const upgrade = await s.provider.wallet.policy.waitForPending();
      expect(upgrade.method).to.equal("wallet_upgradeAccount");
      expect(upgrade.params).to.deep.equal([{ account: s.account, chainId: "0x7a69", delegate: WALLET_DELEGATE_ADDRESS }]);
      s.provider.wallet.policy.approve(upgrade.id);
      for (let i = 0; i < 100 && s.provider.wallet.policy.pending().length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
      const [batch] = s.provider.wallet.policy.pending();
      expect(batch!.method).to.equal("wallet_sendCalls");
      s.provider.wallet.policy.approve(batch!.id);
      expect((await sent).id).to.match(/^0x[0-9a-f]{32}$/);
    });
  });

  describe("one call: a plain transaction, answered before the user decides (MetaMask's addTransaction)", () => {
    it("the id comes at once; 100 while the prompt waits; approved: a type-2 tx and 200, with no upgrade", async () => {
      s = await setup();
      s.provider.wallet.policy.manual();
      const [call] = s.approveAndDeposit(1n);
      const { id } = await s.wallet.sendCalls({ account: s.account, calls: [call!] });
      expect((await s.wallet.getCallsStatus({ id })).statusCode).to.equal(100);
      const prompt = await s.provider.wallet.policy.waitForPending();
      expect(prompt.method).to.equal("wallet_sendCalls");
      s.provider.wallet.policy.approve(prompt.id);
      for (let i = 0; i < 100 && s.provider.chain.pool.size === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
      await s.provider.preconf.advance();
      const status = await s.wallet.getCallsStatus({ id });
      expect(status.statusCode).to.equal(200);
      expect((await s.publicClient.getTransaction({ hash: status.receipts![0]!.transactionHash })).type).to.equal("eip1559");
      expect(await s.publicClient.getCode({ address: s.account, blockTag: "pending" })).to.equal(undefined);
    });

    it("rejected: the batch leaves the wallet, 5730 No matching bundle found", async () => {
      s = await setup();
      s.provider.wallet.policy.queue("wallet_sendCalls", "reject");
      const [call] = s.approveAndDeposit(1n);
      const { id } = await s.wallet.sendCalls({ account: s.account, calls: [call!] });
      for (let i = 0; i < 100 && s.provider.wallet.lastRequest?.outcome === "pending"; i++) await new Promise((resolve) => setTimeout(resolve, 5));
      // eip-5792-middleware hooks/getCallsStatus.ts (MetaMask deletes a rejected transaction).
      expect(await rpcError(s.provider, "wallet_getCallsStatus", [id])).to.deep.equal({ code: 5730, message: "No matching bundle found", data: undefined });
    });
  });

  describe("MetaMask's refusals, in its order (eip-5792-middleware hooks/processSendCalls.ts)", () => {
    beforeEach(async () => {
      s = await setup();
    });

    it("a version other than 2.0.0: -32000 Version not supported (validateSendCallsVersion)", async () => {
      expect(await rpcError(s.provider, "wallet_sendCalls", [{ ...sendCalls(s, s.approveAndDeposit(1n)), version: "1.0" }])).to.deep.equal({
        code: -32000,
        message: "Version not supported: Got 1.0, expected 2.0.0",
        data: undefined,
      });
    });

    it("a chain other than the dapp's: -32602 Chain ID must match the dApp selected network (validateDappChainId)", async () => {
      expect(await rpcError(s.provider, "wallet_sendCalls", [{ ...sendCalls(s, s.approveAndDeposit(1n)), chainId: "0x1" }])).to.deep.equal({
        code: -32602,
        message: "Chain ID must match the dApp selected network: Got 0x1, expected 0x7a69",
        data: undefined,
      });
    });

    it("a non-optional capability it lacks: 5700 Unsupported non-optional capabilities (validateCapabilities); an optional one is ignored", async () => {
      const request = {
        ...sendCalls(s, s.approveAndDeposit(1n)),
        capabilities: { paymasterService: { url: "https://pm.example" }, dataSuffix: { value: "0xdd", optional: true } },
      };
      expect(await rpcError(s.provider, "wallet_sendCalls", [request])).to.deep.equal({
        code: 5700,
        message: "Unsupported non-optional capabilities: paymasterService",
        data: undefined,
      });
      // MetaMask takes no dataSuffix: an optional one leaves the calldata as it is.
      const { id } = (await s.provider.request({
        method: "wallet_sendCalls",
        params: [{ ...request, capabilities: { dataSuffix: { value: "0xdd", optional: true } } }],
      })) as {
        id: Hex;
      };
      await s.provider.preconf.advance();
      const status = await s.wallet.getCallsStatus({ id });
      const tx = await s.publicClient.getTransaction({ hash: status.receipts![0]!.transactionHash });
      expect(tx.input.endsWith("dd")).to.equal(false);
    });

    it("a required auxiliaryFunds on a chain it has none for: 5772 (validateAuxFundsSupportAndRequiredAssets)", async () => {
      const request = { ...sendCalls(s, s.approveAndDeposit(1n)), capabilities: { auxiliaryFunds: {} } };
      expect(await rpcError(s.provider, "wallet_sendCalls", [request])).to.deep.equal({
        code: 5772,
        message: "The wallet no longer supports auxiliary funds on the requested chain: 0x7a69",
        data: undefined,
      });
    });

    it("more than 10 calls: 5740 Batch size cannot exceed 10 (transaction-controller utils/validation.ts validateBatchRequest)", async () => {
      const calls = Array.from({ length: 11 }, () => s.approveAndDeposit(1n)[0]!);
      expect(await rpcError(s.provider, "wallet_sendCalls", [sendCalls(s, calls)])).to.deep.equal({
        code: 5740,
        message: "Batch size cannot exceed 10. got: 11",
        data: undefined,
      });
    });

    it("a call with data to one of the wallet's accounts: -32602 External calls to internal accounts cannot include data (validateBatchRequest)", async () => {
      const calls = [s.approveAndDeposit(1n)[0]!, { to: s.provider.accounts[1]!.address, data: "0x12345678" as Hex }];
      expect(await rpcError(s.provider, "wallet_sendCalls", [sendCalls(s, calls)])).to.deep.equal({
        code: -32602,
        message: "External calls to internal accounts cannot include data",
        data: undefined,
      });
    });

    it("an account delegated to another contract: left out of the capabilities, and -32603 Account upgraded to unsupported contract (utils/batch.ts)", async () => {
      const other = "0x1111111111111111111111111111111111111111";
      await s.provider.request({ method: "hardhat_setCode", params: [s.account, `0xef0100${other.slice(2)}`] });
      expect(await s.wallet.getCapabilities({ account: s.account })).to.deep.equal({});
      expect(await rpcError(s.provider, "wallet_sendCalls", [sendCalls(s, s.approveAndDeposit(1n))])).to.deep.equal({
        code: -32603,
        message: "Account upgraded to unsupported contract",
        data: undefined,
      });
    });

    it("an unknown batch id: 5730 No matching bundle found (hooks/getCallsStatus.ts); wallet_showCallsStatus is not MetaMask's: -32601", async () => {
      expect(await rpcError(s.provider, "wallet_getCallsStatus", ["0x1234"])).to.deep.equal({
        code: 5730,
        message: "No matching bundle found",
        data: undefined,
      });
      expect((await rpcError(s.provider, "wallet_showCallsStatus", ["0x1234"])).code).to.equal(-32601);
    });

    it("an account the page was not granted: 4100 (validateAndNormalizeKeyholder), for getCapabilities and sendCalls", async () => {
      await s.provider.close();
      s = await setup({ walletConnected: false });
      const unauthorized = { code: 4100, message: "The requested account and/or method has not been authorized by the user.", data: undefined };
      expect(await rpcError(s.provider, "wallet_getCapabilities", [s.account])).to.deep.equal(unauthorized);
      expect(await rpcError(s.provider, "wallet_sendCalls", [sendCalls(s, s.approveAndDeposit(1n))])).to.deep.equal(unauthorized);
      await s.provider.request({ method: "eth_requestAccounts" });
      expect(await s.wallet.getCapabilities({ account: s.account })).to.deep.equal({ 31337: { atomic: { status: "ready" } } });
    });

    it("a chain without EIP-7702 (hardfork cancun): no capabilities, and 5710 EIP-7702 not supported on chain (validateSendCallsChainId)", async () => {
      await s.provider.close();
      s = await setup({ hardfork: "cancun" });
      expect(await s.wallet.getCapabilities({ account: s.account })).to.deep.equal({});
      expect(await rpcError(s.provider, "wallet_sendCalls", [sendCalls(s, s.approveAndDeposit(1n))])).to.deep.equal({
        code: 5710,
        message: "EIP-7702 not supported on chain: 0x7a69",
        data: undefined,
      });
    });
  });
});

describe("EIP-5792 under the other personalities", function () {
  this.timeout(60_000);
  let s: Setup;
  afterEach(async () => s.provider.close());

  it("coinbase: atomic supported from the start, with a paymaster and auxiliary funds; no upgrade prompt", async () => {
    s = await setup({ walletPersonality: "coinbase" });
    // docs.cdp.coinbase.com coinbase-wallet provider-rpc-methods/wallet_getCapabilities.
    expect(await s.wallet.getCapabilities({ account: s.account })).to.deep.equal({
      31337: { atomic: { status: "supported" }, paymasterService: { supported: true }, auxiliaryFunds: { supported: true } },
    });
    const { id } = await s.wallet.sendCalls({ account: s.account, calls: s.approveAndDeposit(4n) });
    expect((await whileAdvancing(s.provider, s.wallet.waitForCallsStatus({ id }))).statusCode).to.equal(200);
    expect(await deposits(s)).to.equal(4n);
    expect(s.provider.wallet.requests.map((request) => request.method)).to.deep.equal(["wallet_sendCalls"]);
    expect(await s.provider.request({ method: "wallet_showCallsStatus", params: [id] })).to.equal(null);
  });

  it("base-account: dataSuffix (ERC-8021) is appended to each call's calldata", async () => {
    s = await setup({ walletPersonality: "base-account" });
    const capabilities = (await s.wallet.getCapabilities({ account: s.account })) as Record<number, unknown>;
    expect(capabilities[31337]).to.deep.include({ dataSuffix: { supported: true } });
    const suffix = "0x0123456789abcdef0080218021802180218021802180218021";
    const { id } = await s.wallet.sendCalls({ account: s.account, calls: s.approveAndDeposit(1n), capabilities: { dataSuffix: { value: suffix } } });
    await s.provider.preconf.advance();
    const status = await s.wallet.getCallsStatus({ id });
    expect(status.statusCode).to.equal(200);
    // Each inner call carries the suffix: the approve's data ends with it inside the execute calldata.
    const tx = await s.publicClient.getTransaction({ hash: status.receipts![0]!.transactionHash });
    const approve = s.approveAndDeposit(1n)[0]!.data;
    expect(tx.input).to.include(`${approve.slice(2)}${suffix.slice(2)}`);
  });

  describe("paymasterService (ERC-7677): a local paymaster service, and the wallet's sponsor pays the gas", () => {
    const PAYMASTER = "0x00000000000000000000000000000000000000aa";
    let service: { url: string; requests: { method: string; params: unknown[] }[]; fail: boolean; close(): Promise<void> };
    beforeEach(async () => {
      const requests: { method: string; params: unknown[] }[] = [];
      const state = { fail: false };
      const server = createServer((req, res) => {
        let body = "";
        req.on("data", (chunk: Buffer) => {
          body += chunk.toString();
        });
        req.on("end", () => {
          const { id, method, params } = JSON.parse(body) as { id: number; method: string; params: unknown[] };
          requests.push({ method, params });
          const answer = state.fail
            ? { error: { code: -32000, message: "policy rejected the operation" } }
            : method === "pm_getPaymasterStubData"
              ? {
                  result: {
                    paymaster: PAYMASTER,
                    paymasterData: "0x",
                    paymasterVerificationGasLimit: "0x1",
                    paymasterPostOpGasLimit: "0x1",
                    sponsor: { name: "Test" },
                  },
                }
              : { result: { paymaster: PAYMASTER, paymasterData: "0x1234" } };
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id, ...answer }));
        });
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      service = {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`,
        requests,
        get fail() {
          return state.fail;
        },
        set fail(value) {
          state.fail = value;
        },
        close: () => new Promise((resolve) => server.close(() => resolve())),
      };
    });
    afterEach(async () => service.close());

    it("stub data, then data, with [userOp, EntryPoint v0.7, chainId, context]; the sponsor sends and pays, the user pays nothing", async () => {
      s = await setup({ walletPersonality: "base-account" });
      const sponsor = s.provider.accounts.at(-1)!.address;
      const balances = async () => [
        await s.publicClient.getBalance({ address: s.account, blockTag: "pending" }),
        await s.publicClient.getBalance({ address: sponsor, blockTag: "pending" }),
      ];
      const [userBefore, sponsorBefore] = await balances();
      const capabilities = { paymasterService: { url: service.url, context: { policyId: "abc" } } };
      const { id } = await s.wallet.sendCalls({ account: s.account, calls: s.approveAndDeposit(7n), capabilities });
      await s.provider.preconf.advance();
      const status = await s.wallet.getCallsStatus({ id });
      expect(status.statusCode).to.equal(200);
      const tx = await s.publicClient.getTransaction({ hash: status.receipts![0]!.transactionHash });
      expect(tx).to.deep.include({ type: "eip7702", from: sponsor.toLowerCase(), to: s.account });
      // The sponsor sends: the authorization names the account's own nonce (its two deployments), which the batch leaves as it is.
      expect(tx.authorizationList![0]!.nonce).to.equal(2);
      expect(await s.publicClient.getTransactionCount({ address: s.account, blockTag: "pending" })).to.equal(3);
      const [userAfter, sponsorAfter] = await balances();
      expect(userAfter).to.equal(userBefore);
      expect(sponsorAfter! < sponsorBefore!).to.equal(true);
      expect(await deposits(s)).to.equal(7n);
      expect(service.requests.map((request) => request.method)).to.deep.equal(["pm_getPaymasterStubData", "pm_getPaymasterData"]);
      const [userOp, entryPoint, chainId, context] = service.requests[0]!.params as [{ sender: string; nonce: string }, string, string, unknown];
      expect([userOp.sender, userOp.nonce, entryPoint, chainId, context]).to.deep.equal([
        s.account,
        "0x0",
        "0x0000000071727De22E5E9d8BAf0edAc6f37da032",
        "0x7a69",
        { policyId: "abc" },
      ]);
      // The data request carries the stub's paymaster fields (ERC-7677), not its display-only sponsor.
      expect(service.requests[1]!.params[0]).to.deep.include({ paymaster: PAYMASTER, paymasterData: "0x" }).and.not.have.property("sponsor");

      // A second sponsored batch: the account is upgraded, the signed batch's nonce has moved on.
      const second = await s.wallet.sendCalls({ account: s.account, calls: s.approveAndDeposit(1n), capabilities });
      await s.provider.preconf.advance();
      expect((await s.wallet.getCallsStatus({ id: second.id })).statusCode).to.equal(200);
      expect(await deposits(s)).to.equal(8n);
      expect((service.requests[2]!.params[0] as { nonce: string }).nonce).to.equal("0x1");
    });

    it("a service that answers an error: -32603 Paymaster service error with its error, nothing sent; a URL off this machine is -32602", async () => {
      s = await setup({ walletPersonality: "base-account" });
      service.fail = true;
      const failed = await rpcError(s.provider, "wallet_sendCalls", [
        { ...sendCalls(s, s.approveAndDeposit(1n)), capabilities: { paymasterService: { url: service.url } } },
      ]);
      expect(failed).to.deep.equal({
        code: -32603,
        message: "Paymaster service error",
        data: { url: service.url, method: "pm_getPaymasterStubData", reason: { code: -32000, message: "policy rejected the operation" } },
      });
      expect(s.provider.chain.pool.size).to.equal(0);
      const remote = await rpcError(s.provider, "wallet_sendCalls", [
        { ...sendCalls(s, s.approveAndDeposit(1n)), capabilities: { paymasterService: { url: "https://paymaster.example/rpc" } } },
      ]);
      expect(remote).to.deep.include({ code: -32602, message: "Invalid params" });
    });
  });

  it("eip: the dapp's id names the batch, 5720 when it is taken; atomicRequired on a chain without EIP-7702 is 5760", async () => {
    s = await setup({ walletPersonality: "eip" });
    const request = { ...sendCalls(s, s.approveAndDeposit(1n)), id: "my-batch" };
    expect(await s.provider.request({ method: "wallet_sendCalls", params: [request] })).to.deep.equal({ id: "my-batch" });
    // EIP-5792: "5720 Duplicate ID".
    expect(await rpcError(s.provider, "wallet_sendCalls", [request])).to.deep.equal({ code: 5720, message: "Duplicate ID", data: { id: "my-batch" } });
    await s.provider.preconf.advance();
    expect(await s.provider.request({ method: "wallet_getCallsStatus", params: ["my-batch"] })).to.deep.include({ id: "my-batch", status: 200 });
    await s.provider.close();

    s = await setup({ walletPersonality: "eip", hardfork: "cancun" });
    expect(await s.wallet.getCapabilities({ account: s.account })).to.deep.include({
      31337: {
        atomic: { status: "unsupported" },
        paymasterService: { supported: true },
        auxiliaryFunds: { supported: true },
        dataSuffix: { supported: true },
      },
    });
    // EIP-5792: "5760 Atomicity not supported".
    expect(await rpcError(s.provider, "wallet_sendCalls", [{ ...sendCalls(s, s.approveAndDeposit(1n)), atomicRequired: true }])).to.deep.equal({
      code: 5760,
      message: "Atomicity not supported",
      data: undefined,
    });
  });

  it("eip, atomicity unsupported: the calls go one by one, 200 when all succeed, 600 when one reverts", async () => {
    s = await setup({ walletPersonality: "eip", hardfork: "cancun" });
    const ok = await s.wallet.sendCalls({ account: s.account, calls: s.approveAndDeposit(3n) });
    await s.provider.preconf.advance();
    const okStatus = await s.wallet.getCallsStatus({ id: ok.id });
    expect(okStatus).to.deep.include({ statusCode: 200, atomic: false });
    expect(okStatus.receipts).to.have.length(2);
    const partial = await s.wallet.sendCalls({ account: s.account, calls: s.approveAndDeposit(1n, 5n) });
    await s.provider.preconf.advance();
    const partialStatus = await s.wallet.getCallsStatus({ id: partial.id });
    // EIP-5792: 600, "batch reverted partially; some changes related to batch calls may have been included onchain".
    expect(partialStatus.statusCode).to.equal(600);
    expect(partialStatus.receipts!.map((receipt) => receipt.status)).to.deep.equal(["success", "reverted"]);
  });
});

/** The wallet_sendCalls object viem sends (actions/wallet/sendCalls.ts). */
function sendCalls(s: Setup, calls: { to: Hex; data: Hex }[]) {
  return { version: "2.0.0", chainId: `0x${s.provider.chain.chainId.toString(16)}`, from: s.account, atomicRequired: false, calls };
}
