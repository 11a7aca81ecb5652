/**
 * EIP-5792 batches in a real browser: a wagmi dapp (batch-dapp.mjs, @wagmi/core actions) finds
 * hardhat-preconf's injected wallet through EIP-6963, connects and sends an ERC-20 approve and the
 * deposit that spends it as one atomic batch. The wallet (MetaMask's answers) asks to upgrade the
 * account with EIP-7702 first: the test declines once (the dapp sees 5750), then approves, and the
 * batch runs in one transaction through the delegate while the test moves the chain's clock.
 *
 * Run it: `npx tsx examples/browser/batch-in-chromium.ts` (needs Chromium, as dapp-in-chromium.ts).
 * docs/wallet.md walks through it.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import FakeTimers from "@sinonjs/fake-timers";
import { build } from "esbuild";
import { chromium } from "playwright-core";
import { createPublicClient, createWalletClient, custom, parseEther } from "viem";
import { privateKeyToAccount } from "viem/accounts";

import { createPreconfProvider, startServer, walletScript } from "hardhat-preconf";

import TokenArtifact from "../../fixtures/artifacts/Token.json" with { type: "json" };
import VaultArtifact from "../../fixtures/artifacts/Vault.json" with { type: "json" };
import { CHROMIUM_ARGS } from "./dapp-in-chromium.ts";

import type { AddressInfo } from "node:net";
import type { Abi, Hex } from "viem";
import type { PreconfProvider } from "hardhat-preconf";

const here = dirname(fileURLToPath(import.meta.url));

/**
 * Serves a dapp page and its script, bundled for the browser by esbuild (JSX included: the hooks
 * example is React), on 127.0.0.1.
 */
export async function serveDapp(entry = "batch-dapp.mjs", html = "batch.html"): Promise<{ origin: string; close(): Promise<void> }> {
  const bundle = await build({
    entryPoints: [join(here, entry)],
    bundle: true,
    format: "esm",
    platform: "browser",
    jsx: "automatic",
    // The page runs as a shipped dapp does: React's production build (its development build is 3× the size and slower to load).
    define: { "process.env.NODE_ENV": '"production"' },
    write: false,
    logLevel: "silent",
  });
  const script = bundle.outputFiles[0]!.contents;
  const page = await readFile(join(here, html));
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (path === "/") res.writeHead(200, { "Content-Type": "text/html" }).end(page);
    else if (path === "/dapp.js") res.writeHead(200, { "Content-Type": "text/javascript" }).end(script);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * Deploys the token and the vault from Node with a dev key (raw transactions: no wallet prompt),
 * each sealed in a block: viem estimates on `latest`, where a contract only pre-confirmed has no code yet.
 */
export async function deployContracts(provider: PreconfProvider): Promise<{ token: Hex; vault: Hex }> {
  const account = privateKeyToAccount(provider.accounts[1]!.privateKey);
  const client = createWalletClient({ account, transport: custom(provider) });
  const deploy = async (artifact: { abi: unknown; bytecode: string }, args: unknown[]) => {
    const hash = await client.deployContract({ abi: artifact.abi as Abi, bytecode: artifact.bytecode as Hex, args, chain: null });
    await provider.preconf.seal();
    const receipt = (await provider.request({ method: "eth_getTransactionReceipt", params: [hash] })) as { contractAddress: Hex };
    return receipt.contractAddress;
  };
  const token = await deploy(TokenArtifact, ["Token", "TKN", parseEther("1000")]);
  const vault = await deploy(VaultArtifact, []);
  // The page's account gets tokens to deposit.
  const transfer = await client.writeContract({
    address: token,
    abi: TokenArtifact.abi as Abi,
    functionName: "transfer",
    args: [provider.accounts[0]!.address, parseEther("10")],
    chain: null,
  });
  await provider.preconf.seal();
  const { status } = (await provider.request({ method: "eth_getTransactionReceipt", params: [transfer] })) as { status: Hex };
  if (status !== "0x1") throw new Error("the token transfer reverted");
  return { token, vault };
}

type Deposit = { id: string; status: string; statusCode: number; transactions: Hex[] } | { error: { name: string; code: number; message: string } };

export interface BatchResult {
  accounts: Hex[];
  capabilitiesBefore: unknown;
  declined: Deposit;
  deposited: Deposit;
  capabilitiesAfter: unknown;
  code: Hex;
  deposits: bigint;
  prompts: [string, unknown][];
  transaction: { type: string; to: Hex; authorizationList?: unknown[] };
}

export async function batchInChromium(executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"): Promise<BatchResult> {
  const clock = FakeTimers.createClock(Date.now());
  const provider = await createPreconfProvider({ clock });
  const { token, vault } = await deployContracts(provider);
  const dapp = await serveDapp();
  const node = await startServer(provider, { port: 0, allowedOrigins: [dapp.origin] });
  const userDataDir = await mkdtemp(join(tmpdir(), "preconf-chromium-"));
  const browser = await chromium.launchPersistentContext(userDataDir, { executablePath, headless: true, args: CHROMIUM_ARGS });
  try {
    const page = browser.pages()[0] ?? (await browser.newPage());
    await page.addInitScript(walletScript({ url: node.wsUrl }));
    await page.goto(`${dapp.origin}/?rpc=${encodeURIComponent(node.url)}`);
    await page.locator("#status", { hasText: "ready" }).waitFor();
    type Dapp = { connect(): Promise<Hex[]>; capabilities(): Promise<unknown>; deposit(token: Hex, vault: Hex, amount: string): Promise<Deposit> };
    const accounts = await page.evaluate(() => (globalThis as unknown as { dapp: Dapp }).dapp.connect());
    const capabilitiesBefore = await page.evaluate(() => (globalThis as unknown as { dapp: Dapp }).dapp.capabilities());

    // The user declines the upgrade once: wagmi's sendCalls fails with the wallet's 5750.
    await provider.request({ method: "preconf_queueWalletDecisions", params: ["wallet_upgradeAccount", ["reject"]] });
    const declined = await page.evaluate(([t, v]) => (globalThis as unknown as { dapp: Dapp }).dapp.deposit(t, v, "5"), [token, vault] as const);

    // Approved: while wagmi polls wallet_getCallsStatus, the chain pre-confirms a fragment.
    const pending = page.evaluate(([t, v]) => (globalThis as unknown as { dapp: Dapp }).dapp.deposit(t, v, "5"), [token, vault] as const);
    let settled = false;
    void pending.finally(() => {
      settled = true;
    });
    for (let i = 0; i < 50 && !settled; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      await provider.preconf.advance();
    }
    const deposited = await pending;
    const capabilitiesAfter = await page.evaluate(() => (globalThis as unknown as { dapp: Dapp }).dapp.capabilities());

    const code = (await provider.request({ method: "eth_getCode", params: [accounts[0], "pending"] })) as Hex;
    const reader = createPublicClient({ transport: custom(provider) });
    const deposits = (await reader.readContract({
      address: vault,
      abi: VaultArtifact.abi as Abi,
      functionName: "deposits",
      args: [token, accounts[0]],
      blockTag: "pending",
    })) as bigint;
    const hash = "transactions" in deposited ? deposited.transactions[0] : undefined;
    const transaction = (await provider.request({ method: "eth_getTransactionByHash", params: [hash] })) as BatchResult["transaction"];
    const prompts = provider.wallet.requests.map((request): [string, unknown] => [request.method, request.decision ?? null]);
    return { accounts, capabilitiesBefore, declined, deposited, capabilitiesAfter, code, deposits, prompts, transaction };
  } finally {
    await browser.close();
    await rm(userDataDir, { recursive: true, force: true });
    await node.close();
    await dapp.close();
    await provider.close();
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = await batchInChromium();
  console.log("The wagmi dapp batched approve + deposit:", result.deposited);
}
