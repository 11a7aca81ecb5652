/**
 * Where ours spends its time, outside the profiler: CPU time of this process per phase.
 *
 * - `testFilePhases` (printed by `npm run bench` with row W5, and in docs/benchmarks.md): W5's test
 *   file, each automined transaction split into the steps automine takes inside one request:
 *   admission (`eth_sendRawTransaction` on a chain that does not mine by itself), the fragment
 *   that executes it, the seal; and the rest of the test: the receipt, snapshot/revert, reads.
 * - `transferPhases`: a plain transfer per block (admission, fragment, seal, the first read at
 *   the new `latest`), 400 blocks, the first 100 not counted (JIT warm-up).
 *
 *   npx tsx bench/phases.ts            (both)
 */
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";

import FakeTimers from "@sinonjs/fake-timers";

import { createPreconfProvider } from "../src/index.ts";
import { signTx } from "./sign.ts";
import { TEST_FILE_ITERATIONS, testFileReads, testFileTxs } from "./workloads.ts";

import type { Hex } from "viem";

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

export const TEST_FILE_PHASES = ["send (admission)", "execute (fragment)", "seal", "receipt", "snapshot/revert", "reads"] as const;
export type TestFilePhase = (typeof TEST_FILE_PHASES)[number];

/**
 * CPU ms per phase over `rounds` runs of W5's test file (50 iterations each), after one run not
 * counted (JIT warm-up). Returns the totals per phase, per run.
 */
export async function testFilePhases(rounds = 3): Promise<Record<TestFilePhase, number>> {
  const totals = Object.fromEntries(TEST_FILE_PHASES.map((phase) => [phase, 0])) as Record<TestFilePhase, number>;
  const raws = testFileTxs(31337, 1);
  for (let round = -1; round < rounds; round++) {
    const provider = await createPreconfProvider({ clock: FakeTimers.createClock(1_700_000_000_000), mining: "manual" });
    const request = (method: string, params: unknown[] = []) => provider.request({ method, params });
    const phase = async <T>(name: TestFilePhase, body: () => Promise<T>): Promise<T> => {
      const start = cpuMs();
      try {
        return await body();
      } finally {
        if (round >= 0) totals[name] += cpuMs() - start;
      }
    };
    let snapshot = await request("evm_snapshot");
    for (let i = 0; i < TEST_FILE_ITERATIONS; i++) {
      await phase("snapshot/revert", async () => {
        await request("evm_revert", [snapshot]);
        snapshot = await request("evm_snapshot");
      });
      let token: Hex | undefined;
      for (const [k, raw] of raws.entries()) {
        const hash = await phase("send (admission)", () => request("eth_sendRawTransaction", [raw]));
        await phase("execute (fragment)", () => provider.preconf.fragment());
        await phase("seal", () => provider.preconf.seal());
        if (k === 0) token = ((await phase("receipt", () => request("eth_getTransactionReceipt", [hash]))) as { contractAddress: Hex }).contractAddress;
      }
      const reads = testFileReads(token!);
      const balance = await phase("reads", async () => {
        const value = await request("eth_call", reads.call);
        await request("eth_getBalance", reads.balance);
        await request("eth_blockNumber");
        return value;
      });
      if (BigInt(balance as string) !== 10n) throw new Error(`phases: token balance ${String(balance)}, expected 10`);
    }
    await provider.close();
  }
  for (const name of TEST_FILE_PHASES) totals[name] /= rounds;
  return totals;
}

/** CPU µs per one-transfer block: admission, fragment, seal, the first read at the new `latest`. */
export async function transferPhases(blocks = 400, warmup = 100): Promise<Record<string, number>> {
  const provider = await createPreconfProvider({ clock: FakeTimers.createClock(1_700_000_000_000), mining: "manual" });
  const [sender, recipient] = provider.accounts;
  const raws = Array.from({ length: blocks }, (_, nonce) =>
    signTx(sender!.privateKey, { chainId: 31337, nonce, to: recipient!.address, value: 1n, gas: 21000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n }),
  );
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
      if (index >= warmup) phases[phase] += cpuMs() - start;
    }
  }
  await provider.close();
  return Object.fromEntries(Object.entries(phases).map(([phase, ms]) => [phase, (ms * 1000) / (blocks - warmup)]));
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const perBlock = await transferPhases();
  console.log(
    `CPU µs per one-transfer block: ${Object.entries(perBlock)
      .map(([phase, us]) => `${phase} ${us.toFixed(0)}`)
      .join(", ")} (load average ${loadavg()[0]!.toFixed(1)})`,
  );
  const testFile = await testFilePhases();
  const total = Object.values(testFile).reduce((sum, ms) => sum + ms, 0);
  console.log(`\nW5 test file (${TEST_FILE_ITERATIONS} iterations), CPU ms per run: total ${total.toFixed(0)}`);
  for (const [phase, ms] of Object.entries(testFile)) {
    console.log(
      `  ${phase.padEnd(20)} ${ms.toFixed(1).padStart(7)} ms  ${((ms / total) * 100).toFixed(1).padStart(5)} %  ${((ms * 1000) / TEST_FILE_ITERATIONS).toFixed(0).padStart(6)} µs per test`,
    );
  }
  process.exit(0);
}
