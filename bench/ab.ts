/**
 * Ours against ours: the CPU of each workload in this checkout and in another one (a commit to
 * compare with, checked out elsewhere), in fresh processes that alternate A, B, A, B, ... so that
 * the machine's load falls on both alike. Each process runs a workload once to warm up, then
 * `--reps` times, and reports the median; the table gives the median over `--pairs` processes of
 * each side. Same-process ratios against EDR are `npm run bench`'s; this is for before/after.
 *
 * W6d (fresh process → first answer) runs `bench/cold-child.mjs` on each checkout's dist/, `--reps`
 * fresh processes a side per pair, so both checkouts need `npm run build` first.
 *
 *   npx tsx bench/ab.ts <other checkout> [--pairs 6] [--reps 3] [--only W1,W2,W3a,W3b,W4,W5,W6d]
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

function argument(name: string, fallback: string): string {
  const index = process.argv.indexOf(name);
  return index === -1 ? fallback : process.argv[index + 1]!;
}

const other = process.argv[2];
if (other === undefined || other.startsWith("--")) throw new Error("usage: npx tsx bench/ab.ts <other checkout> [--pairs N] [--reps N] [--only W1,W5]");
const here = fileURLToPath(new URL("..", import.meta.url));
const pairs = Number(argument("--pairs", "6"));
const reps = Number(argument("--reps", "3"));
const only = argument("--only", "W1,W2,W3a,W3b,W4,W5").split(",");
const inProcess = only.filter((id) => id !== "W6d");

// Runs in the checkout's own directory, on its own bench/ and src/ (the specifiers resolve from it).
const child = `
import { loadPeer } from "./bench/peers.ts";
import { workloads } from "./bench/workloads.ts";
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const { peer } = await loadPeer("ours");
const out = {};
for (const id of ${JSON.stringify(inProcess)}) {
  const workload = workloads.find((w) => w.id === id);
  await workload.run(peer);
  const samples = [];
  for (let i = 0; i < ${reps}; i++) { const start = cpu(); await workload.run(peer); samples.push(cpu() - start); }
  samples.sort((a, b) => a - b);
  out[id] = samples[Math.floor(samples.length / 2)];
}
console.log(JSON.stringify(out));
process.exit(0);
`;

/** W6d: the median CPU of `reps` fresh processes to their first answer, on the checkout's build. */
function coldStart(checkout: string, node: string): number {
  const entry = resolve(checkout, "dist/index.js");
  if (!existsSync(entry)) throw new Error(`${checkout} has no dist/: run \`npm run build\` there first`);
  const samples = Array.from({ length: reps }, () => {
    const output = execFileSync(node, [resolve(checkout, "bench/cold-child.mjs"), "ours", pathToFileURL(entry).href], { cwd: checkout, encoding: "utf8" });
    return (JSON.parse(output.trim().split("\n")[0]!) as { cpuMs: number }).cpuMs;
  }).sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

function run(checkout: string): Record<string, number> {
  const node = resolve(checkout, "node_modules/node/bin/node");
  const out: Record<string, number> = {};
  if (only.includes("W6d")) out.W6d = coldStart(checkout, node);
  if (inProcess.length === 0) return out;
  const output = execFileSync(node, ["--import", "tsx", "--input-type=module", "-e", child], {
    cwd: checkout,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  return { ...out, ...JSON.parse(output.trim().split("\n").at(-1)!) };
}

const sides = { A: here, B: resolve(other) };
const results: Record<"A" | "B", Record<string, number>[]> = { A: [], B: [] };
for (let pair = 0; pair < pairs; pair++) {
  for (const side of pair % 2 === 0 ? (["A", "B"] as const) : (["B", "A"] as const)) results[side].push(run(sides[side]));
  process.stderr.write(`pair ${pair + 1}/${pairs}\n`);
}
const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
console.log(`A: ${sides.A}\nB: ${sides.B}\n${pairs} pairs of fresh processes, each the median of ${reps} runs; ours' CPU ms\n`);
console.log("| row | B | A | A/B | A lower in |\n|---|--:|--:|--:|--:|");
for (const id of only) {
  const a = results.A.map((r) => r[id]!);
  const b = results.B.map((r) => r[id]!);
  const lower = a.filter((value, i) => value < b[i]!).length;
  console.log(
    `| ${id} | ${median([...b]).toFixed(0)} | ${median([...a]).toFixed(0)} | ${(median([...a]) / median([...b])).toFixed(2)} | ${lower} of ${pairs} |`,
  );
}
