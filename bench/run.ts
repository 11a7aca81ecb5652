/**
 * `npm run bench`: the same workloads on hardhat-preconf and its peers (Hardhat 3's EDR network,
 * ganache 7, tevm), in one process, alternating ours, peer A, peer B, ... within every repetition;
 * then the server rows (N1-N5: `preconf node`, `hardhat node` and anvil over HTTP, servers.ts);
 * then ours' scaling rows (per-tx cost vs block size, memory vs chain length).
 *
 *   npm run bench -- [--quick] [--reps N] [--warmup N] [--only W1,W4,N,S,M] [--peers edr,ganache] [--servers ours,hardhat,anvil]
 *                    [--memory-blocks N] [--memory-block-history N] [--gc-between-samples] [--out file.json] [--write-docs]
 *
 * Row M seals 10,000 blocks (2,000 with --quick; `--memory-blocks 100000` for the long run) on a
 * chain that keeps every block, or its newest N with `--memory-block-history N` (the
 * `blockHistory` option).
 *
 * Prints medians and ratios ours / peer (< 1: we are faster) and writes every raw sample to
 * bench/results/latest.json (not committed: figures belong to the machine that made them);
 * `--write-docs` then regenerates docs/benchmarks.md from that file (also: `npx tsx bench/docs.ts [file]`).
 * Every workload checks on every peer that it measures what it claims (check.ts); a failed check
 * stops the bench with exit code 1.
 */
import { heapGrowth } from "./docs.ts";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import { dirname } from "node:path";
import v8 from "node:v8";
import vm from "node:vm";

import { loadPeer, PEER_IDS } from "./peers.ts";

import type { Peer, PeerId } from "./peers.ts";
import type { PreparedServer, ServerId } from "./servers.ts";
import type { BlockScaling, MemoryPoint } from "./scaling.ts";
import type { Sample } from "./workloads.ts";

// ── Arguments ───────────────────────────────────────────────────────────────────────────────────

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  if (index === -1) return undefined;
  const value = process.argv[index + 1];
  if (value === undefined || value.startsWith("--")) throw new Error(`${name} needs a value`);
  return value;
}

const quick = process.argv.includes("--quick");
const reps = Number(argument("--reps") ?? (quick ? 1 : 5));
/**
 * Untimed runs of each workload on each peer before its timed repetitions (default 1): a peer
 * written in JavaScript (ours, ganache, tevm) runs its first repetition mostly in the
 * interpreter, while V8 compiles the hot paths, and EDR runs native code from the start. The
 * first run is what a single short script feels (row W6); the rows W1-W5 time the steady state.
 */
const warmup = Number(argument("--warmup") ?? (quick ? 0 : 1));
/**
 * Force a full GC before every sample (earlier rounds did, by default). Test runners do not do
 * this by default, and it is not neutral: a full GC between calls collects the hidden classes (maps) of
 * the objects that only live during a call (a frame's stack and run state, a tx, a message), and
 * V8 then discards the optimized code that checks them ("weak objects"), so every sample of a
 * JavaScript peer re-runs the JIT's tiers (bench/benchmarks-notes.md, "Reading the figures").
 * A native EVM (EDR's) barely notices. Off by default; the memory row (M) always collects first.
 */
const gcBetweenSamples = process.argv.includes("--gc-between-samples");
const only = argument("--only")
  ?.split(",")
  .map((item) => item.trim().toUpperCase());
const peerIds: PeerId[] = [
  "ours",
  ...(
    (argument("--peers")
      ?.split(",")
      .map((item) => item.trim().toLowerCase()) ?? PEER_IDS.filter((id) => id !== "ours")) as PeerId[]
  ).filter((id) => id !== "ours"),
];
for (const id of peerIds) if (!PEER_IDS.includes(id)) throw new Error(`unknown peer ${id} (known: ${PEER_IDS.join(", ")})`);
const out = argument("--out") ?? new URL("./results/latest.json", import.meta.url).pathname;
const selected = (id: string, group: string) => only === undefined || only.includes(id.toUpperCase()) || only.includes(group.toUpperCase());
const log = (line: string) => process.stderr.write(`${line}\n`);

// A full GC (untimed) before the memory row, and between samples with --gc-between-samples, without asking for `node --expose-gc`.
v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;
const gcBeforeSample = gcBetweenSamples ? gc : () => {};

// ── Cold start in a fresh process (W6d), alternating peers, before anything else runs ────────────

const { coldStart, COLD_PEERS, oursColdSource } = await import("./cold.ts");
const coldProcess: Partial<Record<PeerId, number[]>> = {};
const coldProcessCpu: Partial<Record<PeerId, number[]>> = {};
const coldProcessExtra: Partial<Record<PeerId, Record<string, number[]>>> = {};
if (selected("W6d", "W6")) {
  for (let rep = 0; rep < reps; rep++) {
    for (const id of peerIds.filter((peer) => COLD_PEERS.includes(peer))) {
      const sample = await coldStart(id);
      (coldProcess[id] ??= []).push(sample.ms);
      (coldProcessCpu[id] ??= []).push(sample.cpuMs);
      const extra = (coldProcessExtra[id] ??= {});
      (extra["import done (child clock) ms"] ??= []).push(sample.importMs);
      log(`W6d rep ${rep + 1}/${reps} ${id.padEnd(7)} ${sample.ms.toFixed(0)} ms (import done at ${sample.importMs.toFixed(0)} ms)`);
    }
  }
}

// ── Cold start: each peer's first provider, import included, before anything else loads ─────────

const peers: Peer[] = [];
const cold: Partial<Record<PeerId, number>> = {};
const coldCpu: Partial<Record<PeerId, number>> = {};
for (const id of peerIds) {
  const { peer, coldMs, coldCpuMs } = await loadPeer(id);
  peers.push(peer);
  cold[id] = coldMs;
  coldCpu[id] = coldCpuMs;
  log(`loaded ${peer.label} ${peer.version} (cold ${coldMs.toFixed(0)} ms, chain id ${peer.chainId})`);
}

const { workloads, setCollectGarbage, setEstimateProbe, median } = await import("./workloads.ts");
const { isCheckFailure } = await import("./check.ts");
const { estimateStats } = await import("../src/node/execution/estimate.ts");
setCollectGarbage(gcBeforeSample);
setEstimateProbe(() => estimateStats.lastExecutions);

// ── Workloads, alternating peers within each repetition ──────────────────────────────────────────

interface Row {
  id: string;
  title: string;
  ops: number;
  opName: string;
  /** Keyed by peer id (in-process rows) or server id (server rows). */
  samples: Partial<Record<string, number[]>>;
  /** CPU time per sample (timing.ts), where the workload measures it. */
  cpu: Partial<Record<string, number[]>>;
  extra: Partial<Record<string, Record<string, number[]>>>;
  /** A server row (N1-N5): its columns are the servers, and its CPU time is the server process's. */
  servers?: boolean;
}
const rows: Row[] = [];

if (selected("W6d", "W6")) {
  rows.push({
    id: "W6d",
    title: `fresh process → first answer (ours from ${oursColdSource()})`,
    ops: 1,
    opName: "process",
    samples: coldProcess,
    cpu: coldProcessCpu,
    extra: coldProcessExtra,
  });
}
if (selected("W6a", "W6")) {
  rows.push({
    id: "W6a",
    title: "new provider, cold (first in process, import included)",
    ops: 1,
    opName: "provider",
    samples: Object.fromEntries(Object.entries(cold).map(([id, ms]) => [id, [ms]])),
    cpu: Object.fromEntries(Object.entries(coldCpu).map(([id, ms]) => [id, [ms]])),
    extra: {},
  });
}

for (const workload of workloads) {
  if (!selected(workload.id, workload.group)) continue;
  const row: Row = { id: workload.id, title: workload.title, ops: workload.ops, opName: workload.opName, samples: {}, cpu: {}, extra: {} };
  for (let rep = -warmup; rep < reps; rep++) {
    for (const peer of peers) {
      if (rep >= (peer.maxReps ?? reps) || (rep < 0 && peer.maxReps !== undefined)) continue;
      gcBeforeSample();
      let sample: Sample | undefined;
      try {
        sample = await workload.run(peer);
      } catch (error) {
        if (isCheckFailure(error)) {
          log(`${workload.id} CHECK FAILED: ${(error as Error).message}`);
          process.exit(1);
        }
        // tevm throws plain { code, message } objects.
        const reason = error instanceof Error ? error.message : typeof error === "object" ? JSON.stringify(error) : String(error);
        log(`${workload.id} ${peer.id} failed (n/a): ${reason.slice(0, 300)}`);
        continue;
      }
      if (sample === undefined) continue;
      if (rep < 0) {
        log(`${workload.id} warm-up ${peer.id.padEnd(7)} ${sample.ms.toFixed(1)} ms (not counted)`);
        continue;
      }
      (row.samples[peer.id] ??= []).push(sample.ms);
      if (sample.cpuMs !== undefined) (row.cpu[peer.id] ??= []).push(sample.cpuMs);
      for (const [name, value] of Object.entries(sample.extra ?? {})) ((row.extra[peer.id] ??= {})[name] ??= []).push(value);
      log(`${workload.id} rep ${rep + 1}/${reps} ${peer.id.padEnd(7)} ${sample.ms.toFixed(1)} ms (CPU ${sample.cpuMs?.toFixed(1) ?? "n/a"} ms)`);
    }
  }
  rows.push(row);
}
// ── W5's phases (ours): CPU time per step of the test file ──────────────────────────────────────

let phases: Record<string, number> | undefined;
if (selected("W5", "W5")) {
  const { testFilePhases } = await import("./phases.ts");
  gcBeforeSample();
  phases = await testFilePhases(reps);
  log("W5 phases done");
}

// ── Server rows: ours, hardhat node and anvil as processes, over HTTP, alternating ─────────────────

const serverIds = (argument("--servers")
  ?.split(",")
  .map((item) => item.trim().toLowerCase()) ?? ["ours", "hardhat", "anvil"]) as ServerId[];
const serverVersions: Record<string, string> = {};
if (serverIds.length > 0 && (only === undefined || only.some((item) => item.startsWith("N")))) {
  const { markServerOutput, prepareServer, serverWorkloads, SERVER_IDS } = await import("./servers.ts");
  for (const id of serverIds) if (!SERVER_IDS.includes(id)) throw new Error(`unknown server ${id} (known: ${SERVER_IDS.join(", ")})`);
  const prepared: PreparedServer[] = [];
  try {
    for (const id of serverIds) {
      const server = await prepareServer(id);
      prepared.push(server);
      serverVersions[id] = `${server.server.label} ${server.server.version}`;
      log(`started ${server.server.label} ${server.server.version}`);
    }
    for (const workload of serverWorkloads) {
      if (!selected(workload.id, "N")) continue;
      const row: Row = { id: workload.id, title: workload.title, ops: workload.ops, opName: workload.opName, samples: {}, cpu: {}, extra: {}, servers: true };
      for (let rep = -warmup; rep < reps; rep++) {
        for (const { server, reset } of prepared) {
          await reset();
          gcBeforeSample();
          markServerOutput(server.id, `${workload.id} ${rep < 0 ? "warm-up" : `rep ${rep + 1}`}`);
          let sample: Sample;
          try {
            sample = await workload.run(server);
          } catch (error) {
            if (isCheckFailure(error)) {
              log(`${workload.id} CHECK FAILED: ${(error as Error).message}`);
              process.exit(1);
            }
            log(`${workload.id} ${server.id} failed (n/a): ${(error instanceof Error ? error.message : String(error)).slice(0, 300)}`);
            continue;
          }
          const what = `${sample.ms.toFixed(1)} ms (server CPU ${sample.cpuMs?.toFixed(1) ?? "n/a"} ms)`;
          if (rep < 0) {
            log(`${workload.id} warm-up ${server.id.padEnd(7)} ${what} (not counted)`);
            continue;
          }
          (row.samples[server.id] ??= []).push(sample.ms);
          if (sample.cpuMs !== undefined) (row.cpu[server.id] ??= []).push(sample.cpuMs);
          log(`${workload.id} rep ${rep + 1}/${reps} ${server.id.padEnd(7)} ${what}`);
        }
      }
      rows.push(row);
    }
  } finally {
    for (const { server } of prepared) await server.close();
  }
}

// W6a printed with the other W6 rows.
rows.sort((a, b) => a.id.localeCompare(b.id));

// ── Ours only: scaling with block size, memory with chain length ───────────────────────────────

let scaling: BlockScaling[] | undefined;
let memory: MemoryPoint[] | undefined;
let memoryTraffic: string | undefined;
const MEMORY_BLOCKS = Number(argument("--memory-blocks") ?? (quick ? 2_000 : 10_000));
const MEMORY_BLOCK_HISTORY = argument("--memory-block-history") === undefined ? undefined : Number(argument("--memory-block-history"));
const MEMORY_TXS_PER_BLOCK = 2;
if (selected("S", "S") || selected("M", "M")) {
  const { measureBlock, memoryAfterBlocks, MEMORY_TRAFFIC } = await import("./scaling.ts");
  memoryTraffic = `${MEMORY_BLOCKS} blocks of ${MEMORY_TRAFFIC} (${MEMORY_TXS_PER_BLOCK} transfers + 1 ERC-20 transfer per block)${
    MEMORY_BLOCK_HISTORY === undefined ? "" : `, keeping the newest ${MEMORY_BLOCK_HISTORY} blocks (blockHistory)`
  }`;
  if (selected("S", "S")) {
    await measureBlock(100); // warm-up
    scaling = [];
    for (const size of [10, 100, 1000, 5000]) {
      gcBeforeSample();
      scaling.push(await measureBlock(size));
      log(`S ${size} txs done`);
    }
  }
  if (selected("M", "M")) {
    gc();
    memory = await memoryAfterBlocks(MEMORY_BLOCKS, MEMORY_TXS_PER_BLOCK, gc, MEMORY_BLOCKS >= 50_000 ? 10 : 5, MEMORY_BLOCK_HISTORY);
    log(`M ${MEMORY_BLOCKS} blocks done`);
  }
}

// ── Report ──────────────────────────────────────────────────────────────────────────────────────

const cpus = os.cpus();
const machine = {
  cpu: cpus[0]?.model ?? "?",
  cores: cpus.length,
  memoryGb: Math.round(os.totalmem() / 2 ** 30),
  node: process.version,
  platform: `${process.platform} ${process.arch}`,
  load: os.loadavg().map((value) => Number(value.toFixed(2))),
};
const versions = Object.fromEntries(peers.map((peer) => [peer.id, `${peer.label} ${peer.version}`]));

const fmt = (ms: number | undefined) => (ms === undefined ? "n/a" : ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
const ratio = (ours: number | undefined, peer: number | undefined) => (ours === undefined || peer === undefined ? "n/a" : (ours / peer).toFixed(2));
const medianOf = (values: number[] | undefined) => (values === undefined || values.length === 0 ? undefined : median(values));

const others = peers.filter((peer) => peer.id !== "ours");

/** Medians per column, then ours / each other column in wall time and in CPU time. */
function comparison(body: Row[], columns: string[]): { head: string[]; lines: string[][] } {
  const theirs = columns.filter((id) => id !== "ours");
  const head = ["", "workload", ...columns.map((id) => `${id} ms`), ...theirs.map((id) => `ours/${id}`), ...theirs.map((id) => `ours/${id} CPU`)];
  const lines = body.map((row) => {
    const ours = medianOf(row.samples.ours);
    const oursCpu = medianOf(row.cpu.ours);
    return [
      row.id,
      row.title,
      ...columns.map((id) => fmt(medianOf(row.samples[id]))),
      ...theirs.map((id) => ratio(ours, medianOf(row.samples[id]))),
      ...theirs.map((id) => ratio(oursCpu, medianOf(row.cpu[id]))),
    ];
  });
  return { head, lines };
}
const inProcess = comparison(
  rows.filter((row) => row.servers !== true),
  peers.map((peer) => peer.id),
);
const serverRows = rows.filter((row) => row.servers === true);
const overHttp = comparison(serverRows, Object.keys(serverVersions));

/** A Markdown table; the first `textColumns` columns are left-aligned, the rest are numbers. */
function printTable(head: string[], body: string[][], textColumns = 2): void {
  const widths = head.map((cell, i) => Math.max(cell.length, ...body.map((line) => line[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => (i < textColumns ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(" | ")} |`;
  console.log(line(head));
  console.log(`|${widths.map((width, i) => (i < textColumns ? "-".repeat(width + 2) : `${"-".repeat(width + 1)}:`)).join("|")}|`);
  for (const cells of body) console.log(line(cells));
}

console.log(`\nhardhat-preconf peer bench — ${new Date().toISOString()}`);
console.log(
  `machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB, ${machine.platform}, node ${machine.node}, load ${machine.load.join(" ")}`,
);
console.log(`versions: ${peers.map((peer) => `${peer.label} ${peer.version}`).join("; ")}`);
console.log(
  `median of ${reps} repetition(s) per cell after ${warmup} untimed warm-up run(s) per workload and peer, ms per workload (W6: per provider / per pair); ratio = ours / peer: < 1 means hardhat-preconf is faster (wall time, and CPU time of the process doing the work)\n`,
);
if (inProcess.lines.length > 0) printTable(inProcess.head, inProcess.lines);
if (serverRows.length > 0) {
  console.log(`\nservers over HTTP: ${Object.values(serverVersions).join("; ")}; CPU = the server process's\n`);
  printTable(overHttp.head, overHttp.lines);
}

const oursExtra = rows.flatMap((row) => Object.entries(row.extra.ours ?? {}).map(([name, values]) => `${row.id} ${name}: ${fmt(median(values))}`));
if (oursExtra.length > 0) console.log(`\nours: ${oursExtra.join("; ")}`);
for (const row of rows) {
  const ours = medianOf(row.samples.ours);
  if (ours !== undefined && row.ops > 1) console.log(`  ${row.id}: ${((ours * 1000) / row.ops).toFixed(0)} µs per ${row.opName} (ours)`);
}
for (const peer of others) if (peer.note !== undefined) console.log(`\nnote — ${peer.note}`);

if (phases !== undefined) {
  const { TEST_FILE_ITERATIONS } = await import("./workloads.ts");
  const total = Object.values(phases).reduce((sum, ms) => sum + ms, 0);
  console.log(`\nW5 phases (ours): CPU time of one run of the test file, ${total.toFixed(0)} ms`);
  printTable(
    ["phase", "CPU ms per run", "share", "µs per test"],
    Object.entries(phases).map(([phase, ms]) => [
      phase,
      ms.toFixed(1),
      `${((ms / total) * 100).toFixed(1)} %`,
      ((ms * 1000) / TEST_FILE_ITERATIONS).toFixed(0),
    ]),
    1,
  );
}
if (scaling !== undefined) {
  console.log("\nS: one block of n transfers (ours): µs per tx");
  printTable(
    ["txs in block", "admission", "fragment", "seal", "total"],
    scaling.map(({ size, admitMs, fragmentMs, sealMs }) => [
      String(size),
      ((admitMs * 1000) / size).toFixed(0),
      ((fragmentMs * 1000) / size).toFixed(0),
      ((sealMs * 1000) / size).toFixed(0),
      (((admitMs + fragmentMs + sealMs) * 1000) / size).toFixed(0),
    ]),
    0,
  );
}
if (memory !== undefined) {
  console.log(`\nM: memory after GC, ${memoryTraffic} (ours)`);
  printTable(
    ["blocks", "heapUsed MB", "RSS MB", "ms per block"],
    memory.map((point) => [String(point.blocks), point.heapUsedMb.toFixed(1), point.rssMb.toFixed(1), point.msPerBlock.toFixed(2)]),
    0,
  );
  console.log(`heap growth: ${heapGrowth(memory)}`);
}

mkdirSync(dirname(out), { recursive: true });
writeFileSync(
  out,
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      command: `npm run bench -- ${process.argv.slice(2).join(" ")}`.trim(),
      machine,
      versions,
      servers: serverVersions,
      reps,
      warmup,
      gcBetweenSamples,
      quick,
      workloads: rows.map((row) => ({
        id: row.id,
        title: row.title,
        ops: row.ops,
        samplesMs: row.samples,
        cpuMs: row.cpu,
        extra: row.extra,
        ...(row.servers === true && { servers: true }),
      })),
      phases,
      scaling,
      memory,
      memoryTraffic,
      notes: Object.fromEntries(others.filter((peer) => peer.note !== undefined).map((peer) => [peer.id, peer.note])),
    },
    null,
    2,
  )}\n`,
);
console.log(`\nraw samples: ${out}`);
if (process.argv.includes("--write-docs")) {
  const { writeBenchmarksPage } = await import("./docs.ts");
  console.log(`docs: ${writeBenchmarksPage(out)}`);
}
// ganache and EDR may hold handles open; the bench is done.
process.exit(0);
