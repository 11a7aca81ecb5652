/**
 * docs/benchmarks.md, generated from one bench run's JSON (bench/run.ts writes it), so the page can
 * be regenerated after any change and always shows figures that one run measured together:
 *
 *   npx tsx bench/docs.ts [bench/results/latest.json] [--baseline earlier.json]      (or `npm run bench -- ... --write-docs`)
 *
 * With `--baseline`, a run made before a round of changes (same command, same machine) adds a
 * "Before and after" table: each row's ratios to the peers in both runs.
 *
 * The hand-written part (what the figures mean, what is left and why) is bench/benchmarks-notes.md,
 * appended as is.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

interface Results {
  date: string;
  command?: string;
  machine: { cpu: string; cores: number; memoryGb: number; node: string; platform: string; load: number[] };
  versions: Record<string, string>;
  /** Server rows' processes (absent in older results). */
  servers?: Record<string, string>;
  reps: number;
  /** Untimed runs per workload and peer before the repetitions (absent in older results: none). */
  warmup?: number;
  /** Whether a full GC was forced before every sample (absent in older results, which all did). */
  gcBetweenSamples?: boolean;
  quick: boolean;
  workloads: {
    id: string;
    title: string;
    ops: number;
    samplesMs: Record<string, number[]>;
    /** CPU time per sample: of the bench's process (in-process rows, W6d's child), of the server process (server rows). */
    cpuMs?: Record<string, number[]>;
    extra: Record<string, Record<string, number[]>>;
    servers?: boolean;
  }[];
  /** W5's CPU ms per phase, per run of the test file (bench/phases.ts). */
  phases?: Record<string, number>;
  /** Set by hand on a baseline file: how it was made, when the command alone does not say. */
  note?: string;
  scaling?: { size: number; admitMs: number; fragmentMs: number; sealMs: number }[];
  memory?: { blocks: number; heapUsedMb: number; rssMb: number; msPerBlock: number }[];
  memoryTraffic?: string;
  notes: Record<string, string>;
}

const PAGE = new URL("../docs/benchmarks.md", import.meta.url);
const NOTES = new URL("./benchmarks-notes.md", import.meta.url);

/** The targets, as ours / EDR in one run (below 1: ours is faster): the engine work's goals (docs/benchmarks.md). */
export const TARGETS: Record<string, number> = { W1: 0.8, W2: 1.0, W3a: 2, W3b: 2, W4: 1.0, W5: 1.5, W6a: 1.0, W6b: 1.0, W6d: 1.0, W7: 1.5 };

const median = (values: number[] | undefined): number | undefined => {
  if (values === undefined || values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const fmt = (ms: number | undefined) => (ms === undefined ? "n/a" : ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));

function table(head: string[], body: string[][], textColumns: number): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  const rule = `|${head.map((_, i) => (i < textColumns ? "---" : "--:")).join("|")}|`;
  return [line(head), rule, ...body.map(line)].join("\n");
}

type Row = Results["workloads"][number];

const ratioOf = (ours: number | undefined, theirs: number | undefined) => (ours === undefined || theirs === undefined ? undefined : ours / theirs);
const fmtRatio = (value: number | undefined) => (value === undefined ? "n/a" : value.toFixed(2));

/** Medians per column, ours / each other column (wall and CPU), and the verdict against `target(row)` on `against`. */
function comparison(rows: Row[], columns: string[], against: string | undefined, target: (id: string) => number | undefined): string {
  const theirs = columns.filter((id) => id !== "ours");
  const head = [
    "",
    "workload",
    ...columns.map((id) => `${id} ms`),
    ...theirs.map((id) => `ours/${id}`),
    ...theirs.map((id) => `ours/${id} CPU`),
    ...(against !== undefined ? [`target (ours/${against})`] : []),
  ];
  const body = rows.map((row) => {
    const ours = median(row.samplesMs.ours);
    const oursCpu = median(row.cpuMs?.ours);
    const goal = target(row.id);
    let verdict = "";
    if (against !== undefined && goal !== undefined) {
      // CPU time where measured (the machine is shared), else wall time.
      const measured = ratioOf(oursCpu, median(row.cpuMs?.[against])) ?? ratioOf(ours, median(row.samplesMs[against]));
      verdict = measured === undefined ? `≤ ${goal}` : `≤ ${goal} ${measured <= goal ? "met" : "**not met**"}`;
    }
    return [
      row.id,
      row.title,
      ...columns.map((id) => fmt(median(row.samplesMs[id]))),
      ...theirs.map((id) => fmtRatio(ratioOf(ours, median(row.samplesMs[id])))),
      ...theirs.map((id) => fmtRatio(ratioOf(oursCpu, median(row.cpuMs?.[id])))),
      ...(against !== undefined ? [verdict] : []),
    ];
  });
  return table(head, body, 2);
}

/** Server rows: ours / anvil at most 1.0 on every row. */
const SERVER_TARGET = 1.0;

/** Whether a full GC was forced before each sample: results from before the flag existed all forced one. */
const gcForced = (results: Results) => results.gcBetweenSamples ?? true;

/** Says so when the two runs differ in it (bench/benchmarks-notes.md, "Reading the figures"). */
function gcMethodChange(baseline: Results, results: Results): string {
  if (gcForced(baseline) === gcForced(results)) return "";
  return gcForced(baseline)
    ? ", with a full GC forced before every in-process sample (this page's run forces none; the server rows measure the server's own process, which it never reached)"
    : ", with no GC forced between samples (this page's run forces one before every in-process sample; the server rows measure the server's own process, which it never reaches)";
}

/** Each row's CPU ratio (wall where no CPU was measured) to `peer`, before and after. */
function beforeAndAfter(baseline: Results, results: Results): string {
  const ratioTo = (row: Row, peer: string) =>
    ratioOf(median(row.cpuMs?.ours), median(row.cpuMs?.[peer])) ?? ratioOf(median(row.samplesMs.ours), median(row.samplesMs[peer]));
  const body: string[][] = [];
  for (const row of results.workloads) {
    const before = baseline.workloads.find((candidate) => candidate.id === row.id);
    if (before === undefined) continue;
    const peer = row.servers === true ? "anvil" : "edr";
    const [was, now] = [ratioTo(before, peer), ratioTo(row, peer)];
    const oursCpu = [median(before.cpuMs?.ours), median(row.cpuMs?.ours)];
    body.push([
      row.id,
      row.title,
      `ours/${peer}`,
      fmtRatio(was),
      fmtRatio(now),
      oursCpu[0] === undefined || oursCpu[1] === undefined ? "n/a" : `${fmt(oursCpu[0])} → ${fmt(oursCpu[1])}`,
    ]);
  }
  return [
    `Ratios in CPU time (wall time where none was measured), each from its own alternating run: before, ${baseline.note ?? `\`${baseline.command ?? "npm run bench"}\``} on ${baseline.date} (load ${baseline.machine.load.join(" / ")})${gcMethodChange(baseline, results)}; after, this page's run. Ours' own CPU ms per workload beside them: the two runs' machines were loaded differently, so compare ratios.`,
    "",
    table(["", "workload", "ratio", "before", "after", "ours CPU ms (before → after)"], body, 3),
  ].join("\n");
}

export function renderBenchmarksPage(results: Results, notes: string, baseline?: Results): string {
  const peers = Object.keys(results.versions);
  const inProcess = results.workloads.filter((row) => row.servers !== true);
  const serverRows = results.workloads.filter((row) => row.servers === true);
  const servers = Object.keys(results.servers ?? {});
  const perOp = inProcess
    .filter((row) => row.ops > 1 && median(row.samplesMs.ours) !== undefined)
    .map((row) => `${row.id} ${((median(row.samplesMs.ours)! * 1000) / row.ops).toFixed(0)} µs`);
  const extras = inProcess.flatMap((row) => Object.entries(row.extra.ours ?? {}).map(([name, values]) => `${row.id} ${name}: ${fmt(median(values))}`));
  const lines: string[] = [
    "# Benchmarks",
    "",
    "<!-- Generated by bench/docs.ts from one run of the bench; edit bench/docs.ts or bench/benchmarks-notes.md, then regenerate. -->",
    "",
    'The same workloads on hardhat-preconf ("ours") and its peers, in one process, alternating the peers within every',
    "repetition so that each ratio compares runs made under the same machine load. Each cell is the median of the",
    "repetitions, in milliseconds per workload; a ratio below 1 means hardhat-preconf is faster. Ratios are given in",
    "wall time and in CPU time of the process doing the work (the bench's own process for in-process rows, the server",
    "process for server rows): on a shared machine a process also waits for a core, which only wall time counts, so",
    "targets are judged on the CPU ratio. Before timing, every workload checks on every peer that it measures what it",
    "claims (the contracts have code at the block tag the workload reads, estimates and calls return the expected",
    "values, balances move as sent); a failed check stops the bench. Row W6d starts a fresh Node process per sample",
    "(process start → import → first provider → first answer).",
    "",
    `- Command: \`${results.command ?? "npm run bench"}\``,
    `- Date: ${results.date}; ${results.reps} repetition(s) after ${results.warmup ?? 0} untimed warm-up run(s) per workload and peer${results.quick ? " (quick run)" : ""}; ${
      gcForced(results) ? "a full GC forced before every sample" : "no GC forced between samples"
    }`,
    `- Machine: ${results.machine.cpu}, ${results.machine.cores} cores, ${results.machine.memoryGb} GB, ${results.machine.platform}, Node ${results.machine.node}; load average at the end of the run ${results.machine.load.join(" / ")}`,
    `- Versions: ${Object.entries(results.versions)
      .map(([id, version]) => `${id} = ${version}`)
      .join("; ")}`,
    "",
    comparison(inProcess, peers, peers.includes("edr") ? "edr" : undefined, (id) => TARGETS[id]),
    "",
  ];
  if (perOp.length > 0) lines.push(`Per operation (ours): ${perOp.join(" · ")}.`, "");
  if (extras.length > 0) lines.push(`Side figures (ours): ${extras.join(" · ")}.`, "");
  for (const [peer, note] of Object.entries(results.notes)) lines.push(`Note (${peer}): ${note}`, "");

  if (serverRows.length > 0) {
    lines.push(
      "## Servers over HTTP",
      "",
      "`preconf node`, `hardhat node` and anvil, each a process of its own on a local port, driven by one keep-alive HTTP",
      "connection with the same pre-signed transactions, every request awaited, all three automining. Each sample starts",
      "from a snapshot taken after the token's deployment; the servers alternate within every repetition. CPU is the server",
      "process's own.",
      "",
      `- Servers: ${Object.entries(results.servers ?? {})
        .map(([id, version]) => `${id} = ${version}`)
        .join("; ")}`,
      "",
      comparison(serverRows, servers, servers.includes("anvil") ? "anvil" : undefined, () => SERVER_TARGET),
      "",
    );
  }
  if (baseline !== undefined) lines.push("## Before and after", "", beforeAndAfter(baseline, results), "");
  if (results.phases !== undefined) {
    const total = Object.values(results.phases).reduce((sum, ms) => sum + ms, 0);
    const iterations = results.workloads.find((row) => row.id === "W5")?.ops ?? 1;
    lines.push(
      "## Where W5's time goes (ours)",
      "",
      `CPU time of one run of W5's test file, ${total.toFixed(0)} ms, by phase (\`bench/phases.ts\`): each automined transaction`,
      "split into the steps automine takes inside its request (admission, the fragment that executes it, the seal), then the",
      "rest of the test (the deployment's receipt, snapshot/revert, the three reads).",
      "",
      table(
        ["phase", "CPU ms per run", "share", "µs per test"],
        Object.entries(results.phases).map(([phase, ms]) => [
          phase,
          ms.toFixed(1),
          `${((ms / total) * 100).toFixed(1)} %`,
          ((ms * 1000) / iterations).toFixed(0),
        ]),
        1,
      ),
      "",
    );
  }
  if (results.scaling !== undefined) {
    lines.push(
      "## One block of n transfers (ours)",
      "",
      "Microseconds per transaction: admission of all, one fragment executing all, one seal.",
      "",
      table(
        ["txs in block", "admission", "fragment", "seal", "total"],
        results.scaling.map(({ size, admitMs, fragmentMs, sealMs }) => [
          String(size),
          ((admitMs * 1000) / size).toFixed(0),
          ((fragmentMs * 1000) / size).toFixed(0),
          ((sealMs * 1000) / size).toFixed(0),
          (((admitMs + fragmentMs + sealMs) * 1000) / size).toFixed(0),
        ]),
        0,
      ),
      "",
    );
  }
  if (results.memory !== undefined && results.memory.length > 0) {
    lines.push(
      "## Memory of a long-running server (ours)",
      "",
      `${results.memoryTraffic ?? "Blocks of transfers"}; heap and RSS after a full GC.`,
      "",
      table(
        ["blocks", "heapUsed MB", "RSS MB", "ms per block"],
        results.memory.map((point) => [String(point.blocks), point.heapUsedMb.toFixed(1), point.rssMb.toFixed(1), point.msPerBlock.toFixed(2)]),
        0,
      ),
      "",
      `Heap growth: ${heapGrowth(results.memory)}.`,
      "",
    );
  }
  lines.push(notes.trim(), "");
  return lines.join("\n");
}

/** Writes docs/benchmarks.md from a results file; returns the page's path. */
export function writeBenchmarksPage(resultsPath: string, baselinePath?: string): string {
  const results = JSON.parse(readFileSync(resultsPath, "utf8")) as Results;
  const baseline = baselinePath === undefined ? undefined : (JSON.parse(readFileSync(baselinePath, "utf8")) as Results);
  writeFileSync(PAGE, renderBenchmarksPage(results, readFileSync(NOTES, "utf8"), baseline));
  return fileURLToPath(PAGE);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--baseline");
  const baselinePath = at === -1 ? undefined : args[at + 1];
  const positional = args.filter((arg, i) => arg !== "--baseline" && args[i - 1] !== "--baseline");
  const path = positional[0] ?? fileURLToPath(new URL("./results/latest.json", import.meta.url));
  console.log(writeBenchmarksPage(path, baselinePath));
}

/**
 * Heap bytes per sealed block over the whole row, and over its second half: a chain that drops
 * old blocks (blockHistory) grows in the first part only, so the second figure shows the bound.
 */
export function heapGrowth(memory: readonly { blocks: number; heapUsedMb: number }[]): string {
  const perBlock = (from: { blocks: number; heapUsedMb: number }, to: { blocks: number; heapUsedMb: number }) =>
    Math.round(((to.heapUsedMb - from.heapUsedMb) * 2 ** 20) / (to.blocks - from.blocks));
  const first = memory[0]!;
  const last = memory.at(-1)!;
  const middle = memory.find((point) => point.blocks >= last.blocks / 2) ?? first;
  const half = middle === last ? "" : ` (${perBlock(middle, last)} bytes per block from block ${middle.blocks} on)`;
  return `${perBlock(first, last)} bytes per block${half}`;
}
