/**
 * Side-by-side answers of hardhat-preconf, Hardhat 3's EDR network (in process) and anvil to the
 * requests docs/behaviour.md compares: block tags as JSON numbers, eth_feeHistory's edge cases,
 * eth_getLogs' errors, decoded panics, the INVALID opcode, a tx signed for another chain,
 * eth_getProof, eth_createAccessList and the tracers. Every peer runs the Hardhat mnemonic's
 * accounts with automine on, so the same requests reach the same chain shape.
 *
 * Usage: npx tsx scripts/compare-peers.ts [--hardfork prague] [scenario...]
 * anvil runs from $ANVIL (a binary, e.g. from `npm i @foundry-rs/anvil@1.7.1`); without it the
 * anvil column is left out. Differences are marked `≠`; the output is for reading, nothing fails.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { isDeepStrictEqual } from "node:util";

import FakeTimers from "@sinonjs/fake-timers";
import { privateKeyToAccount } from "viem/accounts";

import { createPreconfProvider } from "../src/index.ts";
import {
  ACCESS_RUNTIME,
  INVALID_RUNTIME,
  initCodeFor,
  PANIC_RUNTIME,
  panicCode,
  SELFDESTRUCT_RUNTIME,
  UNPAYABLE_CALL_RUNTIME,
} from "../test/helpers/bytecode.ts";

import type { Hex } from "viem";

type Request = (method: string, params?: unknown[]) => Promise<unknown>;
interface Peer {
  name: string;
  request: Request;
  close(): Promise<void>;
}

const DEV_KEY: Hex = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcac784d613b9e4e2f";
const DEV: Hex = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const OTHER: Hex = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";

const args = process.argv.slice(2);
const hardforkAt = args.indexOf("--hardfork");
const hardfork = hardforkAt >= 0 ? args.splice(hardforkAt, 2)[1]! : "prague";
const wanted = new Set(args);

/** An answer or an error, as JSON shows it. */
async function answer(request: Request, method: string, params: unknown[] = []): Promise<unknown> {
  try {
    return await request(method, params);
  } catch (error) {
    const { code, message, data } = error as { code?: number; message?: string; data?: unknown };
    return { error: { code, message, ...(data !== undefined && { data }) } };
  }
}

/** The receipt of a sent tx; automine may answer the hash a moment before the block is there (anvil). */
async function receiptOf(request: Request, hash: unknown): Promise<{ contractAddress: Hex; status: string }> {
  for (let attempt = 0; ; attempt++) {
    const receipt = (await request("eth_getTransactionReceipt", [hash])) as { contractAddress: Hex; status: string } | null;
    if (receipt !== null) return receipt;
    if (attempt > 50) throw new Error(`no receipt for ${String(hash)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function deploy(request: Request, runtime: Hex, value = "0x0"): Promise<Hex> {
  const hash = await request("eth_sendTransaction", [{ from: DEV, data: initCodeFor(runtime), value }]);
  return (await receiptOf(request, hash)).contractAddress;
}

async function send(request: Request, tx: Record<string, unknown>): Promise<{ hash: Hex; status: unknown }> {
  const hash = (await request("eth_sendTransaction", [{ from: DEV, ...tx }])) as Hex;
  return { hash, status: (await receiptOf(request, hash)).status };
}

/** Each scenario answers a map of labels to what a peer said. */
const scenarios: Record<string, (request: Request) => Promise<Record<string, unknown>>> = {
  async blockTags(request) {
    await request("evm_mine");
    return {
      "eth_getBalance(dev, 0)": await answer(request, "eth_getBalance", [DEV, 0]),
      "eth_getBalance(dev, 1)": await answer(request, "eth_getBalance", [DEV, 1]),
      "eth_getBalance(dev, '0x0')": await answer(request, "eth_getBalance", [DEV, "0x0"]),
      "eth_getBalance(dev, { blockNumber: 0 })": await answer(request, "eth_getBalance", [DEV, { blockNumber: 0 }]),
      "eth_getBlockByNumber(1).number": ((await answer(request, "eth_getBlockByNumber", [1, false])) as { number?: string }).number,
      "eth_call at 0": await answer(request, "eth_call", [{ to: OTHER }, 0]),
      "eth_getLogs({ fromBlock: 0, toBlock: 1 })": await answer(request, "eth_getLogs", [{ fromBlock: 0, toBlock: 1 }]),
      "eth_getBalance(dev, -1)": await answer(request, "eth_getBalance", [DEV, -1]),
      "eth_getBalance(dev, 1.5)": await answer(request, "eth_getBalance", [DEV, 1.5]),
      "eth_getBalance(dev, '1')": await answer(request, "eth_getBalance", [DEV, "1"]),
    };
  },

  async feeHistory(request) {
    await send(request, { to: OTHER, value: "0x1" });
    await request("evm_mine");
    return {
      "count 0": await answer(request, "eth_feeHistory", ["0x0", "latest", []]),
      "count 2, latest, [10, 90]": await answer(request, "eth_feeHistory", ["0x2", "latest", [10, 90]]),
      "count as number 2": await answer(request, "eth_feeHistory", [2, "latest", []]),
      "count as decimal string '2'": await answer(request, "eth_feeHistory", ["2", "latest"]),
      "newest beyond head": await answer(request, "eth_feeHistory", ["0x2", "0x100", []]),
      "percentiles descending": await answer(request, "eth_feeHistory", ["0x1", "latest", [50, 10]]),
      "percentiles equal": await answer(request, "eth_feeHistory", ["0x1", "latest", [50, 50]]),
      "percentile 101": await answer(request, "eth_feeHistory", ["0x1", "latest", [101]]),
      "percentile -1": await answer(request, "eth_feeHistory", ["0x1", "latest", [-1]]),
      "more blocks than the chain": await answer(request, "eth_feeHistory", ["0x64", "latest", []]),
      pending: await answer(request, "eth_feeHistory", ["0x2", "pending", []]),
      earliest: await answer(request, "eth_feeHistory", ["0x2", "earliest", []]),
    };
  },

  async getLogs(request) {
    await request("evm_mine");
    return {
      "unknown blockHash": await answer(request, "eth_getLogs", [{ blockHash: `0x${"11".repeat(32)}` }]),
      "range past head": await answer(request, "eth_getLogs", [{ fromBlock: "0x10", toBlock: "0x20" }]),
      "toBlock past head": await answer(request, "eth_getLogs", [{ fromBlock: "0x0", toBlock: "0x20" }]),
      "fromBlock past head, toBlock latest": await answer(request, "eth_getLogs", [{ fromBlock: "0x20" }]),
      "from > to": await answer(request, "eth_getLogs", [{ fromBlock: "0x1", toBlock: "0x0" }]),
      "blockHash with fromBlock": await answer(request, "eth_getLogs", [{ blockHash: `0x${"11".repeat(32)}`, fromBlock: "0x0" }]),
      "five topics": await answer(request, "eth_getLogs", [{ topics: [null, null, null, null, null] }]),
      "pending range": await answer(request, "eth_getLogs", [{ fromBlock: "latest", toBlock: "pending" }]),
    };
  },

  async panics(request) {
    const to = await deploy(request, PANIC_RUNTIME);
    const out: Record<string, unknown> = {};
    for (const value of [0x00, 0x01, 0x11, 0x12, 0x21, 0x22, 0x31, 0x32, 0x41, 0x51, 0x99]) {
      out[`eth_call Panic(0x${value.toString(16)})`] = await answer(request, "eth_call", [{ to, data: panicCode(value) }]);
    }
    out["eth_estimateGas Panic(0x11)"] = await answer(request, "eth_estimateGas", [{ from: DEV, to, data: panicCode(0x11) }]);
    out["eth_sendTransaction Panic(0x11)"] = await answer(request, "eth_sendTransaction", [{ from: DEV, to, data: panicCode(0x11), gas: "0x10000" }]);
    return out;
  },

  async invalidOpcode(request) {
    const to = await deploy(request, INVALID_RUNTIME);
    return {
      eth_call: await answer(request, "eth_call", [{ to }]),
      eth_estimateGas: await answer(request, "eth_estimateGas", [{ from: DEV, to }]),
      "eth_sendTransaction (gas given)": await answer(request, "eth_sendTransaction", [{ from: DEV, to, gas: "0x10000" }]),
      "eth_sendTransaction (estimated)": await answer(request, "eth_sendTransaction", [{ from: DEV, to }]),
    };
  },

  async wrongChain(request) {
    const account = privateKeyToAccount(DEV_KEY);
    const nonce = Number(await request("eth_getTransactionCount", [DEV, "latest"]));
    const legacy = await account.signTransaction({ chainId: 1, to: OTHER, value: 1n, gas: 21000n, gasPrice: 10_000_000_000n, nonce });
    const eip1559 = await account.signTransaction({
      chainId: 1,
      to: OTHER,
      value: 1n,
      gas: 21000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1n,
      nonce,
    });
    return {
      "legacy, chain 1": await answer(request, "eth_sendRawTransaction", [legacy]),
      "1559, chain 1": await answer(request, "eth_sendRawTransaction", [eip1559]),
    };
  },

  async getProof(request) {
    const to = await deploy(request, ACCESS_RUNTIME);
    await send(request, { to });
    const slot2 = `0x${"0".repeat(63)}2`;
    return {
      "contract, slots 2 and 7": await answer(request, "eth_getProof", [to, [slot2, "0x7"], "latest"]),
      "absent account": await answer(request, "eth_getProof", ["0x00000000000000000000000000000000000000aa", [], "latest"]),
      "block 0": await answer(request, "eth_getProof", [DEV, [], "0x0"]),
      "bad slot": await answer(request, "eth_getProof", [to, ["0xzz"], "latest"]),
      "slot too long": await answer(request, "eth_getProof", [to, [`0x${"1".repeat(66)}`], "latest"]),
    };
  },

  async accessList(request) {
    const to = await deploy(request, ACCESS_RUNTIME);
    const panics = await deploy(request, PANIC_RUNTIME);
    return {
      "contract touching slots, an address and a precompile": await answer(request, "eth_createAccessList", [{ from: DEV, to }]),
      "at latest": await answer(request, "eth_createAccessList", [{ from: DEV, to }, "latest"]),
      transfer: await answer(request, "eth_createAccessList", [{ from: DEV, to: OTHER, value: "0x1" }]),
      reverting: await answer(request, "eth_createAccessList", [{ from: DEV, to: panics, data: panicCode(1) }]),
      "no from": await answer(request, "eth_createAccessList", [{ to }]),
    };
  },

  async traces(request) {
    const to = await deploy(request, ACCESS_RUNTIME);
    const { hash } = await send(request, { to });
    const trace = (await answer(request, "debug_traceTransaction", [hash, { enableMemory: true }])) as { structLogs?: unknown[] };
    const doomed = await deploy(request, SELFDESTRUCT_RUNTIME, "0x5");
    const { hash: destructed } = await send(request, { to: doomed });
    const unpayable = await deploy(request, UNPAYABLE_CALL_RUNTIME);
    const { hash: failedCall } = await send(request, { to: unpayable });
    const invalid = await deploy(request, INVALID_RUNTIME);
    return {
      "struct logs (first 3 and the SSTORE)": {
        ...trace,
        structLogs: [...(trace.structLogs ?? []).slice(0, 3), (trace.structLogs ?? []).find((log) => (log as { op: string }).op === "SSTORE")],
      },
      "callTracer: SELFDESTRUCT": await answer(request, "debug_traceTransaction", [destructed, { tracer: "callTracer" }]),
      "callTracer: CALL without the balance": await answer(request, "debug_traceTransaction", [failedCall, { tracer: "callTracer" }]),
      "struct logs: INVALID": await answer(request, "debug_traceCall", [{ from: DEV, to: invalid }, "latest"]),
    };
  },
};

async function ours(): Promise<Peer> {
  const provider = await createPreconfProvider({ clock: FakeTimers.createClock(1_700_000_000_000), mining: "manual" });
  const request: Request = (method, params = []) => provider.request({ method, params });
  await request("evm_setAutomine", [true]);
  return { name: "hardhat-preconf", request, close: () => provider.close() };
}

async function edr(): Promise<Peer> {
  const { createHardhatRuntimeEnvironment } = await import("hardhat/hre");
  const hre = await createHardhatRuntimeEnvironment({ networks: { compare: { type: "edr-simulated", chainId: 31337, hardfork } } });
  const connection = await hre.network.connect({ network: "compare" });
  return { name: "hardhat (EDR)", request: (method, params = []) => connection.provider.request({ method, params }), close: () => connection.close() };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

async function anvil(binary: string): Promise<Peer> {
  const port = await freePort();
  const child = spawn(binary, ["--port", String(port), "--hardfork", hardfork, "--silent"], { stdio: "ignore" });
  let id = 0;
  const request: Request = async (method, params = []) => {
    const response = await fetch(`http://127.0.0.1:${port}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
    });
    const body = (await response.json()) as { result?: unknown; error?: { code: number; message: string; data?: unknown } };
    if (body.error !== undefined) throw Object.assign(new Error(body.error.message), body.error);
    return body.result;
  };
  for (let attempt = 0; ; attempt++) {
    try {
      await request("eth_chainId");
      break;
    } catch (error) {
      if (attempt > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    name: "anvil",
    request,
    close: async () => {
      child.kill();
    },
  };
}

async function main(): Promise<void> {
  const makers: (() => Promise<Peer>)[] = [ours, edr];
  if (process.env.ANVIL !== undefined) makers.push(() => anvil(process.env.ANVIL!));
  else console.log("(no $ANVIL: anvil left out)\n");
  for (const [name, scenario] of Object.entries(scenarios)) {
    if (wanted.size > 0 && !wanted.has(name)) continue;
    const results: { peer: string; answers: Record<string, unknown> }[] = [];
    for (const make of makers) {
      const peer = await make();
      try {
        results.push({ peer: peer.name, answers: await scenario(peer.request) });
      } catch (error) {
        results.push({ peer: peer.name, answers: { "scenario failed": String(error) } });
      } finally {
        await peer.close();
      }
    }
    console.log(`## ${name}`);
    const labels = [...new Set(results.flatMap((result) => Object.keys(result.answers)))];
    for (const label of labels) {
      const first = results[0]!.answers[label];
      const same = results.every((result) => isDeepStrictEqual(result.answers[label], first));
      console.log(`${same ? " " : "≠"} ${label}`);
      for (const { peer, answers } of results) console.log(`    ${peer.padEnd(16)} ${JSON.stringify(answers[label])}`);
    }
    console.log();
  }
}

await main();
