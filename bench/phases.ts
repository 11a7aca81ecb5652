/**
 * Where an automined transaction's time goes, outside the profiler: CPU time of this process per
 * one-transaction block, split into admission (eth_sendRawTransaction), the fragment that executes
 * it, the seal, and the first read at the new `latest` (which builds that block's state view).
 * A plain transfer from one sender per block, 400 blocks, the first 100 not counted (JIT warm-up).
 *   npx tsx bench/phases.ts
 */
import { loadavg } from "node:os";

import FakeTimers from "@sinonjs/fake-timers";

import { createPreconfProvider } from "../src/index.ts";
import { signTx } from "./sign.ts";

const BLOCKS = 400;
const WARMUP = 100;

const provider = await createPreconfProvider({ clock: FakeTimers.createClock(1_700_000_000_000), mining: "manual" });
const [sender, recipient] = provider.accounts;
const raws = Array.from({ length: BLOCKS }, (_, nonce) =>
  signTx(sender!.privateKey, { chainId: 31337, nonce, to: recipient!.address, value: 1n, gas: 21000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n }),
);
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const phases = { admission: 0, fragment: 0, seal: 0, "first read at the new latest": 0 };
const steps: [keyof typeof phases, (raw: `0x${string}`) => Promise<unknown>][] = [
  ["admission", (raw) => provider.request({ method: "eth_sendRawTransaction", params: [raw] })],
  ["fragment", () => provider.preconf.fragment()],
  ["seal", () => provider.preconf.seal()],
  ["first read at the new latest", () => provider.request({ method: "eth_getBalance", params: [recipient!.address, "latest"] })],
];
for (const [index, raw] of raws.entries()) {
  for (const [phase, step] of steps) {
    const start = cpuMs();
    await step(raw);
    if (index >= WARMUP) phases[phase] += cpuMs() - start;
  }
}
const counted = BLOCKS - WARMUP;
const line = Object.entries(phases).map(([phase, ms]) => `${phase} ${((ms * 1000) / counted).toFixed(0)}`);
console.log(`CPU µs per one-transfer block: ${line.join(", ")} (load average ${loadavg()[0]!.toFixed(1)})`);
await provider.close();
process.exit(0);
