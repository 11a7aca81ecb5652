/**
 * Sums self time per function in a V8 .cpuprofile (from `node --cpu-prof`) and prints the top
 * entries with their share of all samples, and the top files.
 *   npx tsx bench/profile-summary.ts CPU.….cpuprofile [top=30]
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
export interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

/** Prints self time per function and per file, top `top` of each. */
export function summarize(profile: Profile, top = 30): void {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

  const shorten = (url: string) =>
    url
      .replace(/^file:\/\//, "")
      .replace(/.*node_modules\//, "~/")
      .replace(/.*\/work\/main\//, "");
  const perFunction = new Map<string, number>();
  const perFile = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const key = `${functionName || "(anonymous)"} ${shorten(url)}:${lineNumber + 1}`;
    perFunction.set(key, (perFunction.get(key) ?? 0) + us);
    const fileKey = shorten(url) || functionName;
    perFile.set(fileKey, (perFile.get(fileKey) ?? 0) + us);
  }
  const print = (title: string, map: Map<string, number>) => {
    console.log(`\n${title} (total ${(total / 1000).toFixed(0)} ms)`);
    for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      console.log(`${((us / total) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${key}`);
    }
  };
  print("self time by function", perFunction);
  print("self time by file", perFile);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [file, topArg] = process.argv.slice(2);
  if (file === undefined) throw new Error("usage: profile-summary.ts <file.cpuprofile> [top]");
  summarize(JSON.parse(readFileSync(file, "utf8")) as Profile, Number(topArg ?? 30));
}
