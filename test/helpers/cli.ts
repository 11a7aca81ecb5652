/**
 * The compiled CLI (dist/cli.js) as a subprocess, started directly with this Node (no npm, no
 * shim): run to completion, or serve until stopped. `npm test` builds dist/ first (pretest).
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const CLI = `${ROOT}dist/cli.js`;

/** A running process's command line (Linux's /proc): Node, Node's options, the script, its arguments. */
export function commandLineOf(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").slice(0, -1);
}

/** Whether this Node can start `preconf node` again with the compile queue's flag (src/cli/tierUp.ts). */
export const canRelaunch = process.platform === "linux" && typeof (process as { execve?: unknown }).execve === "function";

export function requireBuiltCli(): void {
  if (!existsSync(CLI)) throw new Error("dist/cli.js is missing: run `npm run build` first (npm test does it in pretest)");
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `preconf <args>` to completion. */
export function runCli(args: readonly string[], options: { cwd?: string } = {}): Promise<Finished> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd ?? ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
}

export interface Serving {
  url: string;
  port: number;
  pid: number;
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited (and its output is complete). */
  exited: Promise<Finished>;
  kill(signal: NodeJS.Signals): void;
  /** Sends `signal` and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<Finished>;
  /** Resolves once stdout holds `text` (or rejects after `ms`). */
  waitFor(text: string | RegExp, ms?: number): Promise<void>;
}

/** Starts `preconf node <args>` and resolves once it says where it listens. */
export async function startCli(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Serving> {
  const child = spawn(process.execPath, [CLI, "node", ...args], {
    cwd: options.cwd ?? ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...options.env },
  });
  let stdout = "";
  let stderr = "";
  const waiters = new Set<() => void>();
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const check of waiters) check();
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<Finished>((resolve) => child.once("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
  const waitFor = (text: string | RegExp, ms = 20_000) =>
    new Promise<void>((resolve, reject) => {
      const found = () => (typeof text === "string" ? stdout.includes(text) : text.test(stdout));
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no ${String(text)} in the output after ${ms} ms:\n${stdout}\n${stderr}`));
      }, ms);
      const check = () => {
        if (!found()) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
      check();
      void exited.then(() => {
        if (waiters.has(check)) {
          clearTimeout(timer);
          waiters.delete(check);
          reject(new Error(`exited before ${String(text)}:\n${stdout}\n${stderr}`));
        }
      });
    });
  // Text or JSON: `listening on http://…` or `"url":"http://…"`.
  await waitFor(/listening on http:\/\/\S+|"url":"http:\/\/[^"]+"/, 60_000);
  const url = (/listening on (http:\/\/\S+)/.exec(stdout)?.[1] ?? /"url":"(http:\/\/[^"]+)"/.exec(stdout)?.[1])!;
  return {
    url,
    port: Number(new URL(url).port),
    pid: child.pid!,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    kill: (signal) => child.kill(signal),
    async stop(signal = "SIGTERM") {
      child.kill(signal);
      return exited;
    },
    waitFor,
  };
}

/** One JSON-RPC call over HTTP; an error answer throws with its code and message. */
export async function rpc<T = unknown>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: { code: number; message: string } };
  if (body.error !== undefined) throw Object.assign(new Error(`${body.error.code} ${body.error.message}`), body.error);
  return body.result as T;
}
