/**
 * How long viem's waitForTransactionReceipt takes on a real clock, over HTTP to a served chain
 * (docs/flashblocks.md, "viem"): viem's own action, and the one of `preconfActions()`, for
 * transfers sent at random points of the fragment schedule. Prints the median and spread of each
 * and of the time until the pre-confirmed receipt exists. Timings are printed, never asserted.
 * Run: npx tsx bench/receipt-wait.ts [sends] [profile]
 */
import { createPublicClient, createWalletClient, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";

import { createPreconfProvider, preconfActions, preconfChainOf, startServer } from "../src/index.ts";

import type { Hex } from "viem";
import type { ProfileName } from "../src/node/profiles/profiles.ts";

const SENDS = Number(process.argv[2] ?? 10);
const PROFILE = (process.argv[3] ?? "dev") as ProfileName;

const provider = await createPreconfProvider({ profile: PROFILE });
const server = await startServer(provider, { port: 0 });
const chain = preconfChainOf(provider, server.url);
const account = privateKeyToAccount(provider.accounts[0]!.privateKey);
const wallet = createWalletClient({ account, chain, transport: http(server.url) });
const plain = createPublicClient({ chain, transport: http(server.url) });
const fast = createPublicClient({ chain, transport: http(server.url) }).extend(preconfActions());

const times: Record<"receipt exists" | "viem's own" | "preconfActions", number[]> = { "receipt exists": [], "viem's own": [], preconfActions: [] };
for (let i = 0; i < SENDS; i++) {
  await new Promise((resolve) => setTimeout(resolve, Math.random() * 2000));
  const started = performance.now();
  const hash = await wallet.sendTransaction({ to: provider.accounts[1]!.address, value: 1n });
  const exists = new Promise<void>((resolve) => {
    const check = async () => {
      if ((await provider.request({ method: "eth_getTransactionReceipt", params: [hash as Hex] })) !== null) resolve();
      else setTimeout(check, 5);
    };
    void check();
  }).then(() => times["receipt exists"].push(performance.now() - started));
  await Promise.all([
    exists,
    plain.waitForTransactionReceipt({ hash }).then(() => times["viem's own"].push(performance.now() - started)),
    fast.waitForTransactionReceipt({ hash }).then(() => times.preconfActions.push(performance.now() - started)),
  ]);
}

const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(0);
  return `median ${at(0.5)} ms, min ${at(0)} ms, max ${at(1)} ms`;
};
console.log(`${PROFILE}: ${provider.options.fragmentIntervalMs} ms fragments, ${provider.preconf.fragmentsPerBlock} per block; ${SENDS} transfers over HTTP`);
for (const [name, values] of Object.entries(times)) console.log(`  ${name.padEnd(16)} ${stats(values)}`);
await server.close();
await provider.close();
