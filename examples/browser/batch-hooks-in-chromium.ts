/**
 * EIP-5792 batches from wagmi's React hooks in a real browser: a React dapp (batch-hooks-dapp.jsx:
 * WagmiProvider, useConnect, useCapabilities, useSendCalls, useWaitForCallsStatus) connects
 * hardhat-preconf's injected wallet (EIP-6963) and sends an ERC-20 approve and the deposit that
 * spends it as one atomic batch. The test clicks the page's buttons and plays the user from Node:
 * it declines the EIP-7702 upgrade (5750), rejects a batch (4001), approves one (one type-4
 * transaction through the delegate) and sends one that spends more than it approves (status 500),
 * moving the chain's clock while wagmi polls.
 *
 * It runs on the dev chain and on a pre-confirming OP-stack profile (optimism: 250 ms flashblocks),
 * one page each in one Chromium.
 *
 * Run it: `npx tsx examples/browser/batch-hooks-in-chromium.ts [profile…]` (needs Chromium, as
 * dapp-in-chromium.ts). docs/browser.md walks through it.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import FakeTimers from "@sinonjs/fake-timers";
import { chromium } from "playwright-core";
import { createPublicClient, custom } from "viem";

import { createPreconfProvider, startServer, walletScript } from "hardhat-preconf";

import VaultArtifact from "../../fixtures/artifacts/Vault.json" with { type: "json" };
import { deployContracts, serveDapp } from "./batch-in-chromium.ts";
import { CHROMIUM_ARGS } from "./dapp-in-chromium.ts";

import type { BrowserContext, Page } from "playwright-core";
import type { Abi, Hex } from "viem";
import type { PreconfProvider, PreconfProviderOptions } from "hardhat-preconf";

/** What the page shows for a batch once it is over: wagmi's error, or the final status. */
export type HookOutcome =
  | { id: Hex; status: "success" | "failure"; statusCode: number; receipts: { transactionHash: Hex; blockHash: Hex; status: "success" | "reverted" }[] }
  | { error: { name: string; code: number; message: string } };

type Transaction = { type: Hex; to: Hex; authorizationList?: { address: Hex }[] };

type Profile = NonNullable<PreconfProviderOptions["profile"]>;

export interface HooksResult {
  profile: Profile;
  chainId: number;
  account: Hex;
  capabilitiesBefore: unknown;
  /** The user declined the EIP-7702 upgrade. */
  declinedUpgrade: HookOutcome;
  /** The user approved the upgrade and declined the batch. */
  rejected: HookOutcome;
  /** Approved: approve(5) + deposit(5). */
  deposited: HookOutcome;
  capabilitiesAfter: unknown;
  /** approve(1) + deposit(2): the deposit's transferFrom reverts, and the batch with it. */
  reverted: HookOutcome;
  /** The account's code after the batches, at `pending`. */
  code: Hex | undefined;
  /** The vault's record of the account's deposits, at `pending`. */
  deposits: bigint;
  depositTransaction: Transaction;
  revertedReceipt: { status: Hex; to: Hex };
  /** The wallet's prompts and how the policy answered them. */
  prompts: [string, unknown][];
}

/** Clicks the page's deposit button and waits for that attempt's outcome, advancing the chain while wagmi polls. */
async function deposit(page: Page, provider: PreconfProvider, attempt: number, amount: string, spent = amount): Promise<HookOutcome> {
  await page.fill("#amount", amount);
  await page.fill("#spent", spent);
  await page.click("#deposit");
  const done = page.locator(`#batch[data-attempt="${attempt}"][data-done="true"]`);
  for (let i = 0; i < 200 && (await done.count()) === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    await provider.preconf.advance();
  }
  if ((await done.count()) === 0) throw new Error(`batch ${attempt} did not finish: the page shows "${await page.locator("#batch").innerText()}"`);
  return JSON.parse(await done.innerText()) as HookOutcome;
}

/** The capabilities the page shows, once they match `status` (the hook refetches them after a batch). */
async function capabilities(page: Page, status: string): Promise<unknown> {
  const output = page.locator("#capabilities", { hasText: `"status":"${status}"` });
  await output.waitFor({ timeout: 10_000 });
  return JSON.parse(await output.innerText());
}

/** One profile's run: its own chain and node, a new page of the shared browser. */
async function runProfile(browser: BrowserContext, dappOrigin: string, profile: Profile): Promise<HooksResult> {
  const clock = FakeTimers.createClock(Date.now());
  const provider = await createPreconfProvider({ clock, profile });
  const chainId = Number(provider.chain.chainId);
  const node = await startServer(provider, { port: 0, allowedOrigins: [dappOrigin] });
  const queue = (method: string, decisions: string[]) => provider.request({ method: "preconf_queueWalletDecisions", params: [method, decisions] });
  const page = await browser.newPage();
  try {
    const { token, vault } = await deployContracts(provider);
    await page.addInitScript(walletScript({ url: node.wsUrl }));
    await page.goto(`${dappOrigin}/?${new URLSearchParams({ rpc: node.url, chainId: String(chainId), token, vault })}`);
    // wagmi found the wallet through EIP-6963 when the button names it.
    await page.locator("#connect", { hasText: "hardhat-preconf" }).click();
    await page.locator('#connection[data-status="connected"]').waitFor();
    const account = (await page.locator("#connection").innerText()).split(" ")[1] as Hex;
    const capabilitiesBefore = await capabilities(page, "ready");

    await queue("wallet_upgradeAccount", ["reject"]);
    const declinedUpgrade = await deposit(page, provider, 1, "5");
    await queue("wallet_sendCalls", ["reject"]);
    const rejected = await deposit(page, provider, 2, "5");
    const deposited = await deposit(page, provider, 3, "5");
    const capabilitiesAfter = await capabilities(page, "supported");
    const reverted = await deposit(page, provider, 4, "1", "2");

    const code = (await provider.request({ method: "eth_getCode", params: [account, "pending"] })) as Hex;
    const reader = createPublicClient({ transport: custom(provider) });
    const deposits = (await reader.readContract({
      address: vault,
      abi: VaultArtifact.abi as Abi,
      functionName: "deposits",
      args: [token, account],
      blockTag: "pending",
    })) as bigint;
    const transactionOf = (outcome: HookOutcome) => ("receipts" in outcome ? outcome.receipts[0]?.transactionHash : undefined);
    const depositTransaction = (await provider.request({ method: "eth_getTransactionByHash", params: [transactionOf(deposited)] })) as Transaction;
    const revertedReceipt = (await provider.request({
      method: "eth_getTransactionReceipt",
      params: [transactionOf(reverted)],
    })) as HooksResult["revertedReceipt"];
    const prompts = provider.wallet.requests.map((request): [string, unknown] => [request.method, request.decision ?? null]);
    return {
      profile,
      chainId,
      account,
      capabilitiesBefore,
      declinedUpgrade,
      rejected,
      deposited,
      capabilitiesAfter,
      reverted,
      code: code === "0x" ? undefined : code,
      deposits,
      depositTransaction,
      revertedReceipt,
      prompts,
    };
  } finally {
    await page.close();
    await node.close();
    await provider.close();
  }
}

/** Runs the dapp on each profile, one page each, in one Chromium. */
export async function batchHooksInChromium(
  executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  profiles: Profile[] = ["dev", "optimism"],
): Promise<HooksResult[]> {
  const dapp = await serveDapp("batch-hooks-dapp.jsx", "batch-hooks.html");
  const userDataDir = await mkdtemp(join(tmpdir(), "preconf-chromium-"));
  const browser = await chromium.launchPersistentContext(userDataDir, { executablePath, headless: true, args: CHROMIUM_ARGS });
  try {
    const results: HooksResult[] = [];
    for (const profile of profiles) results.push(await runProfile(browser, dapp.origin, profile));
    return results;
  } finally {
    await browser.close();
    await rm(userDataDir, { recursive: true, force: true });
    await dapp.close();
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const profiles = process.argv.length > 2 ? (process.argv.slice(2) as Profile[]) : undefined;
  for (const { profile, declinedUpgrade, rejected, deposited, reverted } of await batchHooksInChromium(undefined, profiles)) {
    console.log(`The React dapp's batches on ${profile}:`, { declinedUpgrade, rejected, deposited, reverted });
  }
}
