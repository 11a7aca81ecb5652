/**
 * Server rows (N1-N5): hardhat-preconf's `preconf node`, Hardhat 3's `hardhat node` and Foundry's
 * anvil, each started as a separate process on a free local port and driven over HTTP by one
 * keep-alive connection, with the same pre-signed txs, every request awaited as a test awaits it.
 * All three automine (ours through `evm_setAutomine`, as the Hardhat plugin's `mining: "auto"`).
 * Each sample reverts the server to a snapshot taken after its setup (the token deployed), so every
 * repetition sends the same txs with the same nonces; servers alternate within each repetition.
 *
 * Times: the client's wall time per workload, and the CPU time the server process spent over it
 * (from /proc, Linux, to the nanosecond: `timing.ts`), which is what the server itself did,
 * whatever the load.
 *
 * `BENCH_OURS_NODE_ARGS` adds Node options to ours' server process, e.g. to profile it, and
 * `BENCH_OURS_DIST` runs another build of ours (an earlier commit's `dist/`, for before/after rows):
 *   BENCH_OURS_NODE_ARGS="--cpu-prof --cpu-prof-dir=scratch/profiles/server" npm run bench -- --only N --servers ours
 * `BENCH_SERVER_OUTPUT=<path>` appends each server's stdout and stderr to `<path>.<server>`, e.g. V8's
 * traces (`BENCH_OURS_NODE_ARGS="--trace-opt --trace-deopt"`), with a line before each repetition
 * (`=== N1 rep 2`) that says which one the output after it belongs to.
 */
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { Agent } from "node:http";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { encodeDeployData, encodeFunctionData, getContractAddress } from "viem";

import { accountsFromMnemonic, DEFAULT_MNEMONIC } from "../src/node/common/accounts.ts";
import { check } from "./check.ts";
import { postJson } from "./httpPost.ts";
import { compileBenchContracts } from "./contracts.ts";
import { packageVersion } from "./peers.ts";
import { signTx } from "./sign.ts";
import { cpuMsBetween, readProcessCpu, stopwatch } from "./timing.ts";

import type { ChildProcess } from "node:child_process";
import type { CpuReading } from "./timing.ts";
import type { Hex } from "viem";
import type { Sample } from "./workloads.ts";

export type ServerId = "ours" | "hardhat" | "anvil";
export const SERVER_IDS: readonly ServerId[] = ["ours", "hardhat", "anvil"];

export interface Server {
  id: ServerId;
  label: string;
  version: string;
  /** The server's process id. */
  pid: number;
  request(method: string, params?: unknown[]): Promise<unknown>;
  /** CPU time the server process has used so far, where the OS tells (timing.ts). */
  cpu(): CpuReading | undefined;
  /** Milliseconds from spawning the process to its first answer (`eth_chainId`, polled every 5 ms). */
  firstAnswerMs: number;
  close(): Promise<void>;
}

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const require = createRequire(import.meta.url);

/** A free TCP port on 127.0.0.1 (the OS picks one; the server binds it right after). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** A JSON-RPC client over one keep-alive HTTP connection. */
function jsonRpcClient(port: number): { request(method: string, params?: unknown[]): Promise<unknown>; close(): void } {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let id = 0;
  const request = async (method: string, params: unknown[] = []) => {
    const { status, text } = await postJson(agent, port, JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }));
    let answer: { result?: unknown; error?: { code: number; message: string } };
    try {
      answer = JSON.parse(text) as typeof answer;
    } catch (error) {
      throw new Error(`${method}: HTTP ${status}, not JSON-RPC: ${text.slice(0, 200)} (${String(error)})`);
    }
    if (answer.error !== undefined) throw new Error(`${method}: ${answer.error.code} ${answer.error.message}`);
    return answer.result;
  };
  return { request, close: () => agent.destroy() };
}

interface Launch {
  label: string;
  version: string;
  command: string;
  args: (port: number) => string[];
  cwd: string;
  /** After the server answers: what makes it mine as the others (ours: automine). */
  prepare?: (request: (method: string, params?: unknown[]) => Promise<unknown>) => Promise<void>;
}

/** The anvil binary of @foundry-rs/anvil's package for this platform (its postinstall is not needed). */
function anvilBinary(): string {
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  const name = `@foundry-rs/anvil-${process.platform}-${arch}`;
  const binary = join(dirname(require.resolve(`${name}/package.json`)), "bin", process.platform === "win32" ? "anvil.exe" : "anvil");
  if (!existsSync(binary)) throw new Error(`no anvil binary at ${binary}`);
  return binary;
}

/** Hardhat's own CLI (its package `bin`; its `exports` do not list the file). */
function hardhatCli(): string {
  for (let dir = dirname(require.resolve("hardhat")); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (!existsSync(manifest)) continue;
    const json = JSON.parse(readFileSync(manifest, "utf8")) as { name?: string; bin?: Record<string, string> };
    if (json.name === "hardhat" && json.bin?.hardhat !== undefined) return join(dir, json.bin.hardhat);
  }
  throw new Error("hardhat's CLI not found");
}

function launchOf(id: ServerId): Launch {
  switch (id) {
    case "ours": {
      // What an installed package runs: the compiled CLI (`npm run build`), else the sources through tsx.
      const dist = join(process.env.BENCH_OURS_DIST ?? join(ROOT, "dist"), "cli.js");
      const version = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
      const fromDist = existsSync(dist);
      return {
        label: `preconf node (${fromDist ? "dist" : "src via tsx"})`,
        version,
        command: process.execPath,
        // No fragment timer, and automine (below): as the Hardhat plugin's `mining: "auto"`, and as
        // `hardhat node` and anvil run by default (no interval mining).
        args: (port) => [
          ...(process.env.BENCH_OURS_NODE_ARGS?.split(" ").filter((arg) => arg !== "") ?? []),
          ...(fromDist ? [dist] : ["--import", "tsx", join(ROOT, "src", "cli.ts")]),
          ...["node", "--port", String(port), "--mining", "manual"],
        ],
        cwd: ROOT,
        prepare: async (request) => {
          await request("evm_setAutomine", [true]);
        },
      };
    }
    case "hardhat":
      return {
        label: "hardhat node",
        version: `hardhat ${packageVersion("hardhat")}, edr ${packageVersion("@nomicfoundation/edr")}`,
        command: process.execPath,
        args: (port) => [hardhatCli(), "node", "--hostname", "127.0.0.1", "--port", String(port)],
        // A project with an empty config: Hardhat's default network (EDR, chain 31337, automine).
        cwd: fileURLToPath(new URL("./hardhat-node/", import.meta.url)),
      };
    case "anvil":
      return {
        label: "anvil",
        version: packageVersion("@foundry-rs/anvil"),
        command: anvilBinary(),
        args: (port) => ["--host", "127.0.0.1", "--port", String(port)],
        cwd: ROOT,
      };
  }
}

const SERVER_OUTPUT = process.env.BENCH_SERVER_OUTPUT;

/** With BENCH_SERVER_OUTPUT, a line between a server's outputs (which repetition comes next). */
export function markServerOutput(id: ServerId, line: string): void {
  if (SERVER_OUTPUT !== undefined) appendFileSync(`${SERVER_OUTPUT}.${id}`, `=== ${line}\n`);
}

/** Starts a server, waits until it answers, and makes it automine. */
export async function startServer(id: ServerId): Promise<Server> {
  const launch = launchOf(id);
  const port = await freePort();
  const spawned = performance.now();
  const child: ChildProcess = spawn(launch.command, launch.args(port), { cwd: launch.cwd, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  // Drained (a full pipe would stall the server's logging), kept short for error messages.
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-4000);
    if (SERVER_OUTPUT !== undefined) appendFileSync(`${SERVER_OUTPUT}.${id}`, chunk);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  let exited = false;
  child.on("exit", () => (exited = true));
  const client = jsonRpcClient(port);
  let firstAnswerMs = 0;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (exited) throw new Error(`${launch.label} exited before answering: ${output.slice(-1000)}`);
    try {
      await client.request("eth_chainId");
      firstAnswerMs = performance.now() - spawned;
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error(`${launch.label} did not answer within 120 s: ${output.slice(-1000)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
  await launch.prepare?.(client.request);
  const pid = child.pid!;
  return {
    id,
    label: launch.label,
    version: launch.version,
    pid,
    request: client.request,
    cpu: () => readProcessCpu(pid),
    firstAnswerMs,
    close: async () => {
      client.close();
      if (exited) return;
      const gone = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await gone;
      clearTimeout(timer);
    },
  };
}

// ── Workloads ───────────────────────────────────────────────────────────────────────────────────

const CHAIN_ID = 31337;
const TRANSFERS = 300;
const ESTIMATES = 300;
const CALLS = 1000;
const READS = 1000;

const accounts = accountsFromMnemonic(DEFAULT_MNEMONIC, 3);
const deployer = accounts[0]!;
const { Token } = compileBenchContracts();
const SUPPLY = 10n ** 24n;
/** The token, deployed by account 0 at nonce 0 in every server's setup. */
const token = getContractAddress({ from: deployer.address, nonce: 0n }).toLowerCase() as Hex;
const deployRaw = signTx(deployer.privateKey, {
  chainId: CHAIN_ID,
  nonce: 0,
  data: encodeDeployData({ abi: Token.abi, bytecode: Token.bytecode, args: ["Token", "TOK", SUPPLY] }),
  gas: 2_000_000n,
});
const balanceOf = (who: Hex) => encodeFunctionData({ abi: Token.abi, functionName: "balanceOf", args: [who] });
const transferData = (to: Hex, amount: bigint) => encodeFunctionData({ abi: Token.abi, functionName: "transfer", args: [to, amount] });

// After the setup the deployer's next nonce is 1 (every sample starts from that snapshot).
const transferRaws = Array.from({ length: TRANSFERS }, (_, i) =>
  signTx(deployer.privateKey, { chainId: CHAIN_ID, nonce: i + 1, to: accounts[1]!.address, value: 1n, gas: 21_000n }),
);
const tokenTransferRaws = Array.from({ length: TRANSFERS }, (_, i) =>
  signTx(deployer.privateKey, { chainId: CHAIN_ID, nonce: i + 1, to: token, data: transferData(accounts[2]!.address, 1n), gas: 60_000n }),
);

interface Receipt {
  status: string;
}

async function sendAndAwaitReceipt(server: Server, raw: Hex): Promise<void> {
  const hash = await server.request("eth_sendRawTransaction", [raw]);
  // Automining servers have the receipt at once; a server that had not would be polled.
  for (let polls = 0; ; polls++) {
    const receipt = (await server.request("eth_getTransactionReceipt", [hash])) as Receipt | null;
    if (receipt !== null) {
      check(receipt.status === "0x1", server.id, `tx ${String(hash)} failed`);
      return;
    }
    if (polls > 1000) throw new Error(`${server.id}: no receipt for ${String(hash)}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

export interface ServerWorkload {
  id: string;
  title: string;
  ops: number;
  opName: string;
  run(server: Server): Promise<Sample>;
}

/** Times `body` on the client's clock and the server's CPU. */
async function timed(server: Server, body: () => Promise<void>): Promise<Sample> {
  const cpuBefore = server.cpu();
  const elapsed = stopwatch();
  await body();
  const { ms } = elapsed();
  const cpuAfter = server.cpu();
  return { ms, ...(cpuBefore !== undefined && cpuAfter !== undefined && { cpuMs: cpuMsBetween(cpuBefore, cpuAfter) }) };
}

async function tokenBalance(server: Server, who: Hex): Promise<bigint> {
  return BigInt((await server.request("eth_call", [{ to: token, data: balanceOf(who) }, "latest"])) as string);
}

export const serverWorkloads: ServerWorkload[] = [
  {
    id: "N1",
    title: `${TRANSFERS} transfers over HTTP, each awaited to its receipt`,
    ops: TRANSFERS,
    opName: "tx",
    run: async (server) => {
      const recipient = accounts[1]!.address;
      const before = BigInt((await server.request("eth_getBalance", [recipient, "latest"])) as string);
      const sample = await timed(server, async () => {
        for (const raw of transferRaws) await sendAndAwaitReceipt(server, raw);
      });
      const after = BigInt((await server.request("eth_getBalance", [recipient, "latest"])) as string);
      check(after - before === BigInt(TRANSFERS), server.id, `N1 recipient received ${after - before} wei, expected ${TRANSFERS}`);
      return sample;
    },
  },
  {
    id: "N2",
    title: `${TRANSFERS} ERC-20 transfers over HTTP, each awaited to its receipt`,
    ops: TRANSFERS,
    opName: "tx",
    run: async (server) => {
      const sample = await timed(server, async () => {
        for (const raw of tokenTransferRaws) await sendAndAwaitReceipt(server, raw);
      });
      const received = await tokenBalance(server, accounts[2]!.address);
      check(received === BigInt(TRANSFERS), server.id, `N2 recipient holds ${received} tokens, expected ${TRANSFERS}`);
      return sample;
    },
  },
  {
    id: "N3",
    title: `${ESTIMATES} eth_estimateGas of an ERC-20 transfer over HTTP`,
    ops: ESTIMATES,
    opName: "estimate",
    run: async (server) => {
      const params = [{ from: deployer.address, to: token, data: transferData(accounts[1]!.address, 1n) }];
      const first = BigInt((await server.request("eth_estimateGas", params)) as string);
      // An ERC-20 transfer to an empty balance needs 51,608 gas at least (workloads.ts); peers answer within geth's 1.5 %.
      check(first >= 51_608n && first <= 70_000n, server.id, `N3 estimate ${first} is not an ERC-20 transfer's`);
      return timed(server, async () => {
        for (let i = 0; i < ESTIMATES; i++) await server.request("eth_estimateGas", params);
      });
    },
  },
  {
    id: "N4",
    title: `${CALLS.toLocaleString("en-US")} eth_call (ERC-20 balanceOf) over HTTP`,
    ops: CALLS,
    opName: "call",
    run: async (server) => {
      const params = [{ to: token, data: balanceOf(deployer.address) }, "latest"];
      check((await tokenBalance(server, deployer.address)) === SUPPLY, server.id, "N4 balanceOf(deployer) is not the supply");
      return timed(server, async () => {
        for (let i = 0; i < CALLS; i++) await server.request("eth_call", params);
      });
    },
  },
  {
    id: "N5",
    title: `${READS.toLocaleString("en-US")} eth_blockNumber over HTTP (the server path alone)`,
    ops: READS,
    opName: "read",
    run: (server) =>
      timed(server, async () => {
        for (let i = 0; i < READS; i++) await server.request("eth_blockNumber");
      }),
  },
];

/** A server with the token deployed, and the snapshot every sample starts from. */
export interface PreparedServer {
  server: Server;
  /** Back to the state right after setup (the snapshot is used up and taken again, as loadFixture does). */
  reset(): Promise<void>;
}

export async function prepareServer(id: ServerId): Promise<PreparedServer> {
  const server = await startServer(id);
  try {
    check(Number(await server.request("eth_chainId")) === CHAIN_ID, id, "chain id is not 31337");
    await sendAndAwaitReceipt(server, deployRaw);
    const code = (await server.request("eth_getCode", [token, "latest"])) as string;
    check(code.length > 2, id, `no token code at ${token} after setup`);
  } catch (error) {
    await server.close();
    throw error;
  }
  let snapshot = await server.request("evm_snapshot");
  return {
    server,
    reset: async () => {
      if ((await server.request("evm_revert", [snapshot])) !== true) throw new Error(`${id}: evm_revert failed`);
      snapshot = await server.request("evm_snapshot");
    },
  };
}
