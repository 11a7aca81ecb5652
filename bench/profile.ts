/**
 * CPU profile of one workload on ours, the timed part only (after one unprofiled warm-up run, so
 * imports, compilation and pre-signing stay out): writes scratch/profiles/<W>.cpuprofile and
 * prints self time per function.
 *   npx tsx bench/profile.ts W1 [runs=3] [top=40]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";

import { loadPeer } from "./peers.ts";
import { summarize } from "./profile-summary.ts";
import { workloads } from "./workloads.ts";

import type { Profile } from "./profile-summary.ts";

const [id = "W1", runsArg, topArg] = process.argv.slice(2);
const selected = workloads.filter((workload) => workload.id === id || workload.group === id);
if (selected.length === 0) throw new Error(`no workload ${id}`);
const { peer } = await loadPeer("ours");
for (const workload of selected) await workload.run(peer); // warm-up: JIT, caches, pre-signed txs

const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.setSamplingInterval", { interval: 100 });
await session.post("Profiler.start");
for (let run = 0; run < Number(runsArg ?? 3); run++) {
  for (const workload of selected) {
    const sample = await workload.run(peer);
    console.log(`${workload.id}: ${sample?.ms.toFixed(1)} ms ${JSON.stringify(sample?.extra ?? {})}`);
  }
}
const { profile } = await session.post("Profiler.stop");
const dir = new URL("../scratch/profiles/", import.meta.url);
mkdirSync(dir, { recursive: true });
writeFileSync(new URL(`${id}.cpuprofile`, dir), JSON.stringify(profile));
summarize(profile as unknown as Profile, Number(topArg ?? 40));
process.exit(0);
