/**
 * The injected wallet in a real headless Chromium (Debian's chromium, driven by playwright-core):
 * the docs' example (examples/browser/dapp-in-chromium.ts) runs as written, and what it returns is
 * checked here. scripts/ensure-chromium.sh installs Chromium when it is missing and fails with a
 * clear message when it cannot: this test never skips.
 */
import { execFileSync } from "node:child_process";

import { expect } from "chai";
import { zeroHash } from "viem";

import { batchHooksInChromium } from "../examples/browser/batch-hooks-in-chromium.ts";
import { batchInChromium } from "../examples/browser/batch-in-chromium.ts";
import { dappInChromium } from "../examples/browser/dapp-in-chromium.ts";
import { WALLET_DELEGATE_ADDRESS } from "../src/node/state/walletDelegate.ts";
import { walletScript } from "../src/index.ts";

import type { HooksResult } from "../examples/browser/batch-hooks-in-chromium.ts";

describe("walletScript in a real Chromium (docs/browser.md)", function () {
  // Installing Chromium (first run only) and starting it are slow on a busy machine.
  this.timeout(600_000);
  let chromium: string;

  before(() => {
    try {
      chromium = execFileSync("sh", ["scripts/ensure-chromium.sh"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr ?? String(error);
      throw new Error(`The browser tests need Chromium. ${stderr.trim()}`);
    }
  });

  it("the example: EIP-6963 discovery, connect, pending balance, a rejected then approved tx, add and switch a chain, watch a token", async () => {
    const result = await dappInChromium(chromium);
    expect(result.info).to.include({ name: "hardhat-preconf", rdns: "dev.hardhat-preconf" });
    expect(result.info.uuid).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(result.info.icon).to.match(/^data:image\/svg\+xml;base64,/);
    expect(result.accountsBefore).to.deep.equal([]);
    expect(result.rejected).to.deep.equal({ code: 4001, message: "User rejected the request" });
    // The test's log holds the page's requests, in order.
    expect(result.walletMethods).to.deep.equal([
      "eth_requestAccounts",
      "eth_sendTransaction",
      "eth_sendTransaction",
      "wallet_addEthereumChain",
      "wallet_switchEthereumChain",
      "wallet_watchAsset",
    ]);
    // The page saw MetaMask's events: its accounts, each chain change. The wallet connects as the page
    // loads (walletScript.ts `open`): whether the page's listeners, added once EIP-6963 found the
    // wallet, come before that `connect` is a race of two round trips, so it may be first, once.
    const [first, ...rest] = result.events;
    const events = first?.name === "connect" ? rest : result.events;
    if (first?.name === "connect") expect(first.data).to.deep.equal({ chainId: "0x7a69" });
    expect(events.map((event) => event.name)).to.deep.equal(["accountsChanged", "chainChanged", "chainChanged"]);
    expect((events[0]!.data as string[])[0]).to.match(/^0x[0-9a-f]{40}$/);
    expect(events.slice(1).map((event) => event.data)).to.deep.equal(["0x2105", "0x7a69"]);
  });

  it("the batch example: a wagmi dapp's sendCalls / waitForCallsStatus run approve + deposit in one transaction through the EIP-7702 delegate", async () => {
    const result = await batchInChromium(chromium);
    expect(result.capabilitiesBefore).to.deep.equal({ 31337: { atomic: { status: "ready" } } });
    // The declined upgrade reaches wagmi as the wallet's 5750 (MetaMask's text: metamask-extension useSmartAccountActions.ts).
    expect(result.declined).to.deep.nested.include({ "error.code": 5750 });
    expect((result.declined as { error: { message: string } }).error.message).to.include("User rejected account upgrade");
    expect(result.deposited).to.deep.include({ status: "success", statusCode: 200 });
    expect((result.deposited as { transactions: string[] }).transactions).to.have.length(1);
    expect(result.transaction).to.deep.include({ type: "0x4", to: result.accounts[0]!.toLowerCase() });
    expect((result.transaction.authorizationList as { address: string }[])[0]!.address).to.equal(WALLET_DELEGATE_ADDRESS);
    expect(result.code).to.equal(`0xef0100${WALLET_DELEGATE_ADDRESS.slice(2)}`);
    expect(result.deposits).to.equal(5n);
    expect(result.capabilitiesAfter).to.deep.equal({ 31337: { atomic: { status: "supported" } } });
    expect(result.prompts).to.deep.equal([
      ["wallet_requestPermissions", "approve"],
      ["wallet_sendCalls", null],
      ["wallet_upgradeAccount", "reject"],
      ["wallet_sendCalls", "approve"],
      ["wallet_upgradeAccount", "approve"],
    ]);
  });

  describe("the React example: wagmi's hooks (useConnect, useCapabilities, useSendCalls, useWaitForCallsStatus), one page per profile", () => {
    let results: HooksResult[];
    before(async () => {
      results = await batchHooksInChromium(chromium, ["dev", "optimism"]);
    });

    for (const [index, profile, chainId] of [
      [0, "dev", 31337],
      [1, "optimism", 10],
    ] as const) {
      it(`on ${profile}: a declined upgrade (5750), a rejected batch (4001), approve + deposit in one type-4 transaction through the delegate (200), a reverted batch (500)`, () => {
        const result = results[index]!;
        expect(result).to.include({ profile, chainId });
        const delegation = `0xef0100${WALLET_DELEGATE_ADDRESS.slice(2)}`;
        // MetaMask answers "ready" for a plain account on a chain with EIP-7702 (eip-5792-middleware hooks/getCapabilities.ts).
        expect(result.capabilitiesBefore).to.deep.equal({ [chainId]: { atomic: { status: "ready" } } });
        // useSendCalls' error is viem's; the wallet's code and message are in its cause.
        // 5750: MetaMask's text for a declined upgrade (metamask-extension ui/pages/confirmations/hooks/useSmartAccountActions.ts, handleRejectUpgrade).
        expect(result.declinedUpgrade).to.deep.equal({ error: { name: "TransactionExecutionError", code: 5750, message: "User rejected account upgrade" } });
        // 4001: EIP-1193's "User Rejected Request", the batch's prompt declined after the upgrade was approved.
        expect(result.rejected).to.deep.equal({ error: { name: "TransactionExecutionError", code: 4001, message: "User rejected the request" } });

        // useWaitForCallsStatus stops at 200 (EIP-5792: "Batch included onchain without reverts"), here pre-confirmed:
        // the receipt's block hash is zero until its block seals (docs/wallet.md).
        if (!("receipts" in result.deposited)) expect.fail(`the batch failed: ${JSON.stringify(result.deposited)}`);
        expect(result.deposited).to.deep.include({ status: "success", statusCode: 200 });
        expect(result.deposited.receipts).to.have.length(1);
        expect(result.deposited.receipts[0]).to.deep.include({ blockHash: zeroHash, status: "success" });
        expect(result.depositTransaction).to.deep.include({ type: "0x4", to: result.account.toLowerCase() });
        expect(result.depositTransaction.authorizationList!.map((authorization) => authorization.address)).to.deep.equal([WALLET_DELEGATE_ADDRESS]);
        expect(result.code).to.equal(delegation);
        // The hook refetched the capabilities after the batch: the account is upgraded.
        expect(result.capabilitiesAfter).to.deep.equal({ [chainId]: { atomic: { status: "supported" } } });

        // 500: EIP-5792's "Batch reverted completely"; MetaMask's getStatusCode (eip-5792-middleware hooks/getCallsStatus.ts).
        if (!("receipts" in result.reverted)) expect.fail(`the batch was not sent: ${JSON.stringify(result.reverted)}`);
        expect(result.reverted).to.deep.include({ status: "failure", statusCode: 500 });
        expect(result.reverted.receipts.map((receipt) => receipt.status)).to.deep.equal(["reverted"]);
        expect(result.revertedReceipt).to.deep.include({ status: "0x0", to: result.account.toLowerCase() });
        // Only the approved batch deposited: the reverted one's approve was undone with its spend.
        expect(result.deposits).to.equal(5n);
        expect(result.prompts).to.deep.equal([
          ["wallet_requestPermissions", "approve"],
          ["wallet_sendCalls", null],
          ["wallet_upgradeAccount", "reject"],
          ["wallet_sendCalls", "reject"],
          ["wallet_upgradeAccount", "approve"],
          ["wallet_sendCalls", "approve"],
          ["wallet_upgradeAccount", "approve"],
          ["wallet_sendCalls", "approve"],
        ]);
      });
    }
  });

  it("walletScript refuses a missing or non-WebSocket URL; http:// is read as ws://", () => {
    expect(() => walletScript({} as never)).to.throw(TypeError, "options.url");
    expect(() => walletScript({ url: "ftp://127.0.0.1" })).to.throw(TypeError, "expected a ws:// or http:// URL");
    expect(walletScript({ url: "http://127.0.0.1:8545" })).to.include('"url":"ws://127.0.0.1:8545/"');
    expect(walletScript({ url: "ws://127.0.0.1:8545", info: { name: "</script>" } })).to.not.include("</script>");
  });
});
