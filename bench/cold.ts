/**
 * Cold start in a fresh process (row W6d): process start → import → first provider → first answer,
 * timed from the parent's spawn to the child's answer line, so Node's own boot is counted for every
 * peer alike. Ours runs from the compiled `dist/` when a build exists (what an installed package
 * runs), else from `src/` through tsx, and the row says which.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

import type { PeerId } from "./peers.ts";

const CHILD = fileURLToPath(new URL("./cold-child.mjs", import.meta.url));
const DIST_ENTRY = new URL("../dist/index.js", import.meta.url);
const SRC_ENTRY = new URL("../src/index.ts", import.meta.url);

/** Peers with a cold-start child. */
export const COLD_PEERS: readonly PeerId[] = ["ours", "edr", "ganache"];

/** Where ours is imported from in the child: the build when there is one. */
export function oursColdSource(): "dist" | "src (tsx)" {
  return existsSync(DIST_ENTRY) ? "dist" : "src (tsx)";
}

export interface ColdStart {
  /** Spawn → first answer printed, wall time in the parent. */
  ms: number;
  /** The child's own clock (from its process start): import done, first answer. */
  importMs: number;
  answerMs: number;
  /** The child's CPU time from its start to its first answer (every thread). */
  cpuMs: number;
}

export function coldStart(peer: PeerId): Promise<ColdStart> {
  const args = [CHILD, peer];
  if (peer === "ours") {
    const fromDist = oursColdSource() === "dist";
    if (!fromDist) args.unshift("--import", "tsx");
    args.push((fromDist ? DIST_ENTRY : SRC_ENTRY).href);
  }
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], cwd: fileURLToPath(new URL("..", import.meta.url)) });
    let out = "";
    let err = "";
    let ms: number | undefined;
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      if (ms === undefined && chunk.includes("\n")) ms = performance.now() - start;
      out += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0 || ms === undefined) {
        reject(new Error(`cold start of ${peer} exited with ${code}: ${err.trim().slice(-500)}`));
        return;
      }
      const { importMs, answerMs, cpuMs } = JSON.parse(out.trim().split("\n")[0]!) as { importMs: number; answerMs: number; cpuMs: number };
      resolve({ ms, importMs, answerMs, cpuMs });
    });
  });
}
