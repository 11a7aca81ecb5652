/**
 * CPU profile of one workload on ours, the timed part only (after one unprofiled warm-up run, so
 * imports, compilation and pre-signing stay out): writes scratch/profiles/<W>.cpuprofile and
 * prints self time per module and per function, and inclusive time per function
 * (profile-summary.ts), and wall time per JSON-RPC method. W6a profiles the bench's own cold start instead: importing ours and its
 * first provider, in this fresh process.
 *   npm run bench:profile -- W3a [runs=3] [top=40]
 *   npx tsx bench/profile.ts W5 [runs] [top]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { loadavg } from "node:os";

import { summarize } from "./profile-summary.ts";

import type { Peer } from "./peers.ts";
import type { Profile } from "./profile-summary.ts";

const [idArg = "W1", runsArg, topArg] = process.argv.slice(2);
const id = idArg.toUpperCase();
let printMethods = () => {};
let cpuStart = process.cpuUsage();
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.setSamplingInterval", { interval: 100 });

if (id === "W6A") {
  await session.post("Profiler.start");
  const { loadPeer } = await import("./peers.ts");
  const { coldMs } = await loadPeer("ours");
  console.log(`W6a: ${coldMs.toFixed(1)} ms (import and first provider)`);
} else {
  const { loadPeer } = await import("./peers.ts");
  const { workloads } = await import("./workloads.ts");
  const selected = workloads.filter((workload) => workload.id.toUpperCase() === id || workload.group.toUpperCase() === id);
  if (selected.length === 0) throw new Error(`no workload ${idArg} (known: W6a, ${workloads.map((workload) => workload.id).join(", ")})`);
  const { peer: plain } = await loadPeer("ours");
  // Wall time per JSON-RPC method (and per instance operation) during the profiled runs.
  const perMethod = new Map<string, { calls: number; ms: number }>();
  let counting = false;
  const timed = async <T>(name: string, body: () => Promise<T>): Promise<T> => {
    const start = performance.now();
    try {
      return await body();
    } finally {
      if (counting) {
        const entry = perMethod.get(name) ?? { calls: 0, ms: 0 };
        entry.calls++;
        entry.ms += performance.now() - start;
        perMethod.set(name, entry);
      }
    }
  };
  const peer: Peer = {
    ...plain,
    async create(options) {
      const instance = await plain.create(options);
      return {
        ...instance,
        request: (method, params) => timed(method, () => instance.request(method, params)),
        tick: () => timed("(tick: one fragment)", () => instance.tick()),
        settle: () => timed("(settle: seal)", () => instance.settle()),
      };
    },
  };
  printMethods = () => {
    const total = [...perMethod.values()].reduce((sum, entry) => sum + entry.ms, 0);
    console.log(`\nwall time per JSON-RPC method, profiled runs (total ${total.toFixed(0)} ms)`);
    for (const [name, { calls, ms }] of [...perMethod].sort((a, b) => b[1].ms - a[1].ms)) {
      console.log(
        `${((ms / total) * 100).toFixed(1).padStart(5)}%  ${ms.toFixed(0).padStart(6)} ms  ${String(calls).padStart(6)} calls  ${((ms * 1000) / calls).toFixed(0).padStart(6)} µs/call  ${name}`,
      );
    }
  };
  for (const workload of selected) await workload.run(peer); // warm-up: JIT, caches, pre-signed txs
  await session.post("Profiler.start");
  counting = true;
  cpuStart = process.cpuUsage();
  for (let run = 0; run < Number(runsArg ?? 3); run++) {
    for (const workload of selected) {
      const sample = await workload.run(peer);
      console.log(`${workload.id}: ${sample?.ms.toFixed(1)} ms ${JSON.stringify(sample?.extra ?? {})}`);
    }
  }
}
const cpu = process.cpuUsage(cpuStart);
const { profile } = await session.post("Profiler.stop");
console.log(
  `\nCPU time of this process while profiling: ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms (load average ${loadavg()
    .map((load) => load.toFixed(1))
    .join(" ")})`,
);
printMethods();
const dir = new URL("../scratch/profiles/", import.meta.url);
mkdirSync(dir, { recursive: true });
writeFileSync(new URL(`${idArg}.cpuprofile`, dir), JSON.stringify(profile));
summarize(profile as unknown as Profile, Number(topArg ?? 40));
console.log(`\nprofile: scratch/profiles/${idArg}.cpuprofile (open in Chrome DevTools → Performance, or VS Code)`);
process.exit(0);
