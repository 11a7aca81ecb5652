/**
 * How a workload's cost settles as one process warms: runs it N times in a row on one peer (a
 * fresh provider per run, as the bench makes them) and prints, per run, the CPU time of its timed
 * part, of the whole run (setup included, every thread) and of the main thread alone (the rest is
 * V8 compiling and collecting on its background threads).
 *
 *   npx tsx bench/curve.ts W4 [runs=8] [--peer edr] [--gc-between-samples]
 *
 * With --gc-between-samples a full GC runs before each run, as the bench did before its ninth
 * round (bench/benchmarks-notes.md, "Reading the figures"). Add `node --trace-opt --trace-deopt`
 * (`node --trace-opt --import tsx bench/curve.ts …`) to see what V8 compiles in each run.
 */
import v8 from "node:v8";
import vm from "node:vm";

import { loadPeer, PEER_IDS } from "./peers.ts";
import { mainThreadCpuMs } from "./timing.ts";

import type { PeerId } from "./peers.ts";

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const positional = args.filter((arg, index) => !arg.startsWith("--") && !(index > 0 && args[index - 1] === "--peer"));
const [id = "W4", runsArg = "8"] = positional;
const peerId = (option("--peer") ?? "ours") as PeerId;
if (!PEER_IDS.includes(peerId)) throw new Error(`unknown peer ${peerId} (known: ${PEER_IDS.join(", ")})`);

const { workloads, setCollectGarbage } = await import("./workloads.ts");
const selected = workloads.filter((workload) => workload.id.toUpperCase() === id.toUpperCase());
if (selected.length === 0) throw new Error(`no workload ${id} (known: ${workloads.map((workload) => workload.id).join(", ")})`);
let gc = () => {};
if (flag("--gc-between-samples")) {
  v8.setFlagsFromString("--expose-gc");
  gc = vm.runInNewContext("gc") as () => void;
  setCollectGarbage(gc);
}
const { peer } = await loadPeer(peerId);

console.log(`${id} on ${peer.label}, ${runsArg} runs${flag("--gc-between-samples") ? ", a full GC before each" : ""}: CPU ms`);
console.log("run  timed   whole   main thread");
for (let run = 0; run < Number(runsArg); run++) {
  gc();
  const cpuBefore = process.cpuUsage();
  const mainBefore = mainThreadCpuMs();
  let timed: number | undefined;
  for (const workload of selected) timed = (await workload.run(peer))?.cpuMs;
  const cpu = process.cpuUsage(cpuBefore);
  const mainAfter = mainThreadCpuMs();
  const main = mainBefore === undefined || mainAfter === undefined ? "n/a" : String(mainAfter - mainBefore);
  console.log(
    `${String(run).padStart(3)}  ${(timed?.toFixed(0) ?? "n/a").padStart(5)}  ${((cpu.user + cpu.system) / 1000).toFixed(0).padStart(6)}  ${main.padStart(6)}`,
  );
}
process.exit(0);
