/**
 * The JSON-RPC server's transport alone: CPU of the server process per request, with a stub
 * provider (every call answers "0x1"), so that only HTTP parsing, the method table's envelope and
 * the answer are measured. The servers compared, each a child process of its own driven in turn
 * over one keep-alive `node:http` connection (`eth_blockNumber` bodies), repetitions alternating:
 *
 *   - `ours`: `startServer` of this checkout (src/server/http.ts), or of the file given with
 *     `--server <path>` (another checkout's src/server/http.ts, or a build's dist/server/http.js);
 *   - `echo`: a bare `node:http` server answering a fixed JSON-RPC body (what Node's HTTP stack costs);
 *   - `net`: a `net` server writing a fixed answer per read (the floor of a socket round trip).
 *
 *   npx tsx bench/transport.ts [requests=10000] [--reps 3] [--server path/to/server/http.ts]
 *
 * Not part of `npm run bench`: it isolates one layer, for figures such as docs/server.md's.
 */
import { fork } from "node:child_process";
import { Agent, createServer as createHttpServer, request } from "node:http";
import { createServer as createNetServer } from "node:net";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

import type { ChildProcess } from "node:child_process";
import type { ServedProvider } from "../src/server/http.ts";

const MODES = ["ours", "echo", "net"] as const;
type Mode = (typeof MODES)[number];
const ANSWER = '{"jsonrpc":"2.0","id":1,"result":"0x1"}';

function option(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
}

/** The child: serves one mode on a free port, reports its port, then its CPU time when asked. */
async function serve(mode: Mode, serverPath: string): Promise<void> {
  let port: number;
  if (mode === "ours") {
    const { startServer } = (await import(pathToFileURL(serverPath).href)) as typeof import("../src/server/http.ts");
    const provider: ServedProvider = { request: async () => "0x1", on: () => provider, off: () => provider } as unknown as ServedProvider;
    port = (await startServer(provider, { port: 0 })).port;
  } else {
    const server =
      mode === "echo"
        ? createHttpServer((req, res) => {
            req.resume();
            req.on("end", () => {
              res.writeHead(200, { "Content-Type": "application/json", "Content-Length": String(ANSWER.length) });
              res.end(ANSWER);
            });
          })
        : createNetServer({ noDelay: true }, (socket) => {
            const answer = `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${ANSWER.length}\r\n\r\n${ANSWER}`;
            socket.on("data", () => socket.write(answer));
          });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    port = (server.address() as { port: number }).port;
  }
  process.on("message", (message) => {
    if (message === "exit") process.exit(0);
    const usage = process.cpuUsage();
    process.send?.({ cpuMicros: usage.user + usage.system });
  });
  process.send?.({ port });
}

const nextMessage = <T>(child: ChildProcess) => new Promise<T>((done) => child.once("message", (message) => done(message as T)));

async function drive(requests: number, reps: number, serverPath: string): Promise<void> {
  const children = new Map<Mode, { child: ChildProcess; port: number }>();
  for (const mode of MODES) {
    const child = fork(import.meta.filename, ["--child", mode, "--server", serverPath], { execArgv: process.execArgv });
    children.set(mode, { child, port: (await nextMessage<{ port: number }>(child)).port });
  }
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] });
  const one = (port: number) =>
    new Promise<void>((done, fail) => {
      const headers = { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) };
      const req = request({ host: "127.0.0.1", port, method: "POST", path: "/", agent, headers }, (res) => {
        res.resume();
        res.on("end", done);
      });
      req.on("error", fail);
      req.end(body);
    });
  const samples = new Map<Mode, number[]>(MODES.map((mode) => [mode, []]));
  for (const { port } of children.values()) for (let i = 0; i < 2_000; i++) await one(port); // warm-up
  for (let rep = 0; rep < reps; rep++) {
    for (const [mode, { child, port }] of children) {
      child.send("cpu");
      const before = (await nextMessage<{ cpuMicros: number }>(child)).cpuMicros;
      for (let i = 0; i < requests; i++) await one(port);
      child.send("cpu");
      const after = (await nextMessage<{ cpuMicros: number }>(child)).cpuMicros;
      samples.get(mode)?.push((after - before) / requests);
    }
  }
  agent.destroy();
  for (const { child } of children.values()) child.send("exit");
  console.log(`server CPU per request, µs (${requests} requests × ${reps} reps, alternating; ours = ${serverPath})`);
  for (const [mode, values] of samples) {
    const sorted = [...values].sort((a, b) => a - b);
    console.log(`${mode.padEnd(5)} median ${sorted[Math.floor(sorted.length / 2)]?.toFixed(1)}  (${values.map((v) => v.toFixed(1)).join(", ")})`);
  }
}

const serverPath = resolve(option("--server") ?? new URL("../src/server/http.ts", import.meta.url).pathname);
if (process.argv.includes("--child")) await serve(option("--child") as Mode, serverPath);
else await drive(Number(process.argv[2]?.startsWith("--") ? 10_000 : (process.argv[2] ?? 10_000)), Number(option("--reps") ?? 3), serverPath);
