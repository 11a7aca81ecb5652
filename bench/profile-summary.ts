/**
 * Sums a V8 .cpuprofile (from `node --cpu-prof` or bench/profile.ts), in samples × the sampling
 * interval (CPU time, robust to the process being descheduled): self time per function, per
 * module (an npm package such as @ethereumjs/mpt, or a directory of ours such as src/node), per
 * file, and inclusive time (the function or anything it called) per function, with each entry's
 * share of all samples.
 *   npx tsx bench/profile-summary.ts CPU.….cpuprofile [top=30]
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
export interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

export interface Summary {
  totalMs: number;
  byFunction: [string, number][];
  byModule: [string, number][];
  byFile: [string, number][];
  inclusive: [string, number][];
}

const shorten = (url: string) =>
  url
    .replace(/^file:\/\//, "")
    .replace(/.*node_modules\//, "~/")
    .replace(/.*\/(src|bench|test)\//, "$1/");

/**
 * The module a script belongs to: `~/@scope/pkg` or `~/pkg` for a dependency, `src/node`,
 * `src/rpc`... for ours, `node:` for Node's own, else V8's pseudo-frames ((garbage collector), (program)).
 */
export function moduleOf(url: string, functionName: string): string {
  if (url === "") return functionName || "(native)";
  const short = shorten(url);
  const dependency = /^~\/((?:@[^/]+\/)?[^/]+)/.exec(short);
  if (dependency !== null) return dependency[1]!;
  if (short.startsWith("node:")) return "node: (Node's own)";
  const ours = /^(src|bench|test)\/([^/]+\/)?/.exec(short);
  if (ours !== null) return ours[2] === undefined || !ours[2].endsWith("/") ? ours[1]! : `${ours[1]}/${ours[2].slice(0, -1)}`;
  return short;
}

/** Self time per function, module and file, and inclusive time per function (ms, descending). */
export function summarizeProfile(profile: Profile): Summary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  // Each sample counts one sampling interval (the median gap between samples), not its own gap: on
  // a loaded machine the process is descheduled between samples, and the gap of the sample taken
  // when it runs again (often hundreds of ms) would be charged to whatever function it lands in.
  // The shares are what to read; the sampler thread also waits for a core there, so the
  // milliseconds under-count (bench/profile.ts prints the process' CPU time beside them).
  const gaps = profile.timeDeltas.filter((delta) => delta > 0).sort((a, b) => a - b);
  const interval = gaps[Math.floor(gaps.length / 2)] ?? 1000;
  const selfUs = new Map<number, number>();
  for (const id of profile.samples) selfUs.set(id, (selfUs.get(id) ?? 0) + interval);

  const keyOf = (node: Node) => {
    const { functionName, url, lineNumber } = node.callFrame;
    return `${functionName || "(anonymous)"} ${shorten(url)}:${lineNumber + 1}`;
  };
  const add = (map: Map<string, number>, key: string, us: number) => map.set(key, (map.get(key) ?? 0) + us);
  const perFunction = new Map<string, number>();
  const perModule = new Map<string, number>();
  const perFile = new Map<string, number>();
  const inclusive = new Map<string, number>();
  // The profiler's own stop (serialising the profile) is sampled too: left out.
  const profilerOwn = (id: number) => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) if (byId.get(at)!.callFrame.url === "node:inspector") return true;
    return false;
  };
  for (const id of [...selfUs.keys()]) if (profilerOwn(id)) selfUs.delete(id);
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    const { functionName, url } = node.callFrame;
    add(perFunction, keyOf(node), us);
    add(perModule, moduleOf(url, functionName), us);
    add(perFile, shorten(url) || functionName, us);
    // Each function on the stack once (recursion counted once).
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const key = keyOf(byId.get(at)!);
      if (!seen.has(key)) {
        seen.add(key);
        add(inclusive, key, us);
      }
    }
  }
  const sorted = (map: Map<string, number>) => [...map].map(([key, us]) => [key, us / 1000] as [string, number]).sort((a, b) => b[1] - a[1]);
  const skipRoots = (key: string) => !/^\((root|program|idle)\)/.test(key);
  return {
    totalMs: total / 1000,
    byFunction: sorted(perFunction),
    byModule: sorted(perModule),
    byFile: sorted(perFile),
    inclusive: sorted(inclusive).filter(([key]) => skipRoots(key)),
  };
}

/** Prints self time per module, function and file, and inclusive time, top `top` of each. */
export function summarize(profile: Profile, top = 30): Summary {
  const summary = summarizeProfile(profile);
  const print = (title: string, rows: [string, number][], count: number) => {
    console.log(`\n${title} (total ${summary.totalMs.toFixed(0)} ms)`);
    for (const [key, ms] of rows.slice(0, count)) {
      console.log(`${((ms / summary.totalMs) * 100).toFixed(1).padStart(5)}%  ${ms.toFixed(0).padStart(6)} ms  ${key}`);
    }
  };
  print("self time by module", summary.byModule, top);
  print("self time by function", summary.byFunction, top);
  print("self time by file", summary.byFile, Math.min(top, 20));
  print("inclusive time by function", summary.inclusive, top);
  return summary;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [file, topArg] = process.argv.slice(2);
  if (file === undefined) throw new Error("usage: profile-summary.ts <file.cpuprofile> [top]");
  summarize(JSON.parse(readFileSync(file, "utf8")) as Profile, Number(topArg ?? 30));
}
