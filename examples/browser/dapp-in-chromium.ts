/**
 * Test a dapp in a real browser: a headless Chromium (driven by playwright-core) opens a dapp
 * page whose wallet is hardhat-preconf's injected wallet. The page discovers it through EIP-6963,
 * connects, reads its balance, sends a transaction the test rejects and then approves, adds and
 * switches a chain and watches a token, while the test scripts the "user" from Node.
 *
 * Run it: `npx tsx examples/browser/dapp-in-chromium.ts` (needs Chromium: Debian's `chromium`
 * package, or CHROMIUM_PATH). docs/browser.md walks through it.
 */
import assert from "node:assert/strict";
import { readFile, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

import FakeTimers from "@sinonjs/fake-timers";
import { chromium } from "playwright-core";

import { createPreconfProvider, startServer, walletScript } from "hardhat-preconf";

import type { AddressInfo } from "node:net";

const here = dirname(fileURLToPath(import.meta.url));
/** mipd's browser build, served to the page next to it. */
const mipd = join(dirname(createRequire(import.meta.url).resolve("mipd/package.json")), "dist", "esm");

/** Chromium flags for a closed network: without the background-networking ones it waits for Google's servers. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Serves the dapp page and mipd on 127.0.0.1 (any free port). */
async function serveDapp(): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const file = path === "/" ? join(here, "dapp.html") : path.startsWith("/mipd/") ? join(mipd, normalize(path.slice("/mipd/".length))) : undefined;
    if (file === undefined || (!file.startsWith(mipd) && file !== join(here, "dapp.html"))) {
      res.writeHead(404).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { "Content-Type": file.endsWith(".html") ? "text/html" : "text/javascript" }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export interface ExampleResult {
  info: { uuid: string; name: string; icon: string; rdns: string };
  accountsBefore: string[];
  rejected: { code: number; message: string };
  hash: string;
  walletMethods: string[];
  events: { name: string; data: unknown }[];
}

export async function dappInChromium(executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"): Promise<ExampleResult> {
  // The chain: a fake clock, so the test decides when fragments happen.
  const clock = FakeTimers.createClock(Date.now());
  const provider = await createPreconfProvider({ clock });
  const dapp = await serveDapp();
  // The page's origin may talk to the node; other sites may not.
  const node = await startServer(provider, { port: 0, allowedOrigins: [dapp.origin] });
  const userDataDir = await mkdtemp(join(tmpdir(), "preconf-chromium-"));
  const browser = await chromium.launchPersistentContext(userDataDir, { executablePath, headless: true, args: CHROMIUM_ARGS });
  /** The test's own calls to the node: from Node (no Origin), so the policy methods are allowed. */
  const rpc = async (method: string, params: unknown[] = []) => {
    const response = await fetch(node.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    const answer = (await response.json()) as { result?: unknown; error?: { message: string } };
    if (answer.error !== undefined) throw new Error(`${method}: ${answer.error.message}`);
    return answer.result;
  };
  /** The next prompt the page is waiting on (manual mode). */
  const nextPrompt = async (): Promise<{ id: number; method: string }> => {
    for (;;) {
      const [first] = (await rpc("preconf_walletPending")) as { id: number; method: string }[];
      if (first !== undefined) return first;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  try {
    const page = browser.pages()[0] ?? (await browser.newPage());
    await page.addInitScript(walletScript({ url: node.wsUrl }));
    await page.goto(dapp.origin);
    type Answer = { result?: unknown; error?: { code: number; message: string } };
    const request = (method: string, params?: unknown) =>
      page.evaluate(([m, p]) => (globalThis as unknown as { dapp: { request(m: string, p: unknown): Promise<Answer> } }).dapp.request(m, p), [
        method,
        params,
      ] as const);

    // EIP-6963: the page found the wallet by its announcement.
    const info = await page.evaluate(() => (globalThis as unknown as { dapp: { info(): Promise<ExampleResult["info"]> } }).dapp.info());
    assert.equal(info.name, "hardhat-preconf");

    // A fresh MetaMask: no accounts until the page connects.
    const accountsBefore = (await request("eth_accounts")).result as string[];
    assert.deepEqual(accountsBefore, []);
    const [account] = (await request("eth_requestAccounts")).result as string[];
    assert.equal(account, provider.accounts[0]!.address);

    const balance = BigInt((await request("eth_getBalance", [account, "pending"])).result as string);
    assert.equal(balance, 10_000n * 10n ** 18n);

    // The user rejects the first transaction and approves the second.
    await rpc("preconf_setWalletPolicy", [{ manual: true }]);
    const tx = { from: account, to: provider.accounts[1]!.address, value: "0xde0b6b3a7640000" };
    const first = request("eth_sendTransaction", [tx]);
    await rpc("preconf_resolveWalletRequest", [(await nextPrompt()).id, "reject"]);
    const rejected = (await first).error!;
    assert.equal(rejected.code, 4001);
    const second = request("eth_sendTransaction", [tx]);
    await rpc("preconf_resolveWalletRequest", [(await nextPrompt()).id, "approve"]);
    const hash = (await second).result as string;
    assert.match(hash, /^0x[0-9a-f]{64}$/);
    await rpc("preconf_setWalletPolicy", [{ manual: false }]);

    // One fragment later the transfer is pre-confirmed: the pending balance has moved.
    await provider.preconf.advance();
    const after = BigInt((await request("eth_getBalance", [account, "pending"])).result as string);
    assert.ok(after < balance - 10n ** 18n);

    // Add a chain (the wallet switches to it, as MetaMask does), then switch back.
    const base = {
      chainId: "0x2105",
      chainName: "Base",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: ["https://mainnet.base.org"],
    };
    assert.equal((await request("wallet_addEthereumChain", [base])).result, null);
    assert.equal((await request("eth_chainId")).result, "0x2105");
    assert.equal((await request("wallet_switchEthereumChain", [{ chainId: "0x7a69" }])).result, null);

    // Watch a token.
    const usdc = { type: "ERC20", options: { address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", symbol: "USDC", decimals: 6 } };
    assert.equal((await request("wallet_watchAsset", usdc)).result, true);

    const walletMethods = provider.wallet.requests.map((record) => record.method);
    const events = await page.evaluate(() => (globalThis as unknown as { dapp: { events(): ExampleResult["events"] } }).dapp.events());
    return { info, accountsBefore, rejected, hash, walletMethods, events };
  } finally {
    await browser.close();
    await rm(userDataDir, { recursive: true, force: true });
    await node.close();
    await dapp.close();
    await provider.close();
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = await dappInChromium();
  console.log("The dapp found", result.info.name, "and sent", result.hash);
}
