/**
 * Forking cost: time to first answer, and the cost of cold and warm reads, on a fork of a local
 * upstream (a hardhat-preconf chain served on 127.0.0.1 with a token and `--holders` holders), for
 * hardhat-preconf and for Hardhat 3's EDR forking the same upstream (`edr-simulated` with
 * `forking: { url, blockNumber }`). Both go through one counting proxy, so the table also shows
 * HTTP requests made to the upstream.
 *
 *   npx tsx bench/fork.ts [--holders 200] [--reps 3] [--peers edr]
 *
 * A cold read is `balanceOf(holder)` on a holder not read before (an account, its code and a
 * storage slot from the upstream); a warm read repeats it. Medians over `--reps` fresh forks.
 */
import { createServer } from "node:http";

import FakeTimers from "@sinonjs/fake-timers";
import { encodeDeployData, encodeFunctionData } from "viem";
import { privateKeyToAccount } from "viem/accounts";

import { createPreconfProvider, startServer } from "../src/index.ts";
import TokenJson from "../fixtures/artifacts/Token.json" with { type: "json" };

import type { AddressInfo } from "node:net";
import type { Abi, Hex, TransactionSerializable } from "viem";

type Request = (method: string, params?: unknown[]) => Promise<unknown>;
interface Fork {
  request: Request;
  close(): Promise<void>;
}

function argument(name: string, fallback: string): string {
  const index = process.argv.indexOf(name);
  return index === -1 ? fallback : process.argv[index + 1]!;
}
const HOLDERS = Number(argument("--holders", "200"));
const REPS = Number(argument("--reps", "3"));
const PEERS = argument("--peers", "edr")
  .split(",")
  .filter((peer) => peer !== "");
const abi = TokenJson.abi as Abi;

async function upstreamChain(): Promise<{ url: string; token: Hex; holders: Hex[]; forkBlock: bigint; close(): Promise<void> }> {
  const provider = await createPreconfProvider({ clock: FakeTimers.createClock(1_700_000_000_000), mining: "manual", accounts: { count: 1 } });
  const request: Request = (method, params = []) => provider.request({ method, params });
  const key = privateKeyToAccount(provider.accounts[0]!.privateKey);
  const sign = (tx: Partial<TransactionSerializable> & { nonce: number }) =>
    key.signTransaction({ chainId: 31337, gas: 2_000_000n, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n, ...tx } as TransactionSerializable);
  const deploy = (await request("eth_sendRawTransaction", [
    await sign({ nonce: 0, data: encodeDeployData({ abi, bytecode: TokenJson.bytecode as Hex, args: ["T", "T", 10n ** 30n] }) }),
  ])) as Hex;
  await provider.preconf.seal();
  const token = ((await request("eth_getTransactionReceipt", [deploy])) as { contractAddress: Hex }).contractAddress;
  const holders: Hex[] = [];
  for (let i = 0; i < HOLDERS; i++) {
    const holder = `0x${(0x10000 + i).toString(16).padStart(40, "0")}` as Hex;
    holders.push(holder);
    await request("eth_sendRawTransaction", [
      await sign({ nonce: i + 1, to: token, data: encodeFunctionData({ abi, functionName: "transfer", args: [holder, BigInt(i + 1)] }) }),
    ]);
    if (i % 100 === 99) await provider.preconf.seal();
  }
  await provider.preconf.seal();
  const forkBlock = BigInt((await request("eth_blockNumber")) as string);
  const server = await startServer(provider, { port: 0 });
  return {
    url: server.url,
    token,
    holders,
    forkBlock,
    close: async () => {
      await server.close();
      await provider.close();
    },
  };
}

/** A proxy that counts HTTP requests on their way to the upstream. */
async function countingProxy(target: string): Promise<{ url: string; count: number; close(): void }> {
  const state = { url: "", count: 0, close: () => server.close() };
  const server = createServer((req, res) => {
    state.count++;
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      void fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body: Buffer.concat(chunks) }).then(async (answer) =>
        res.writeHead(answer.status, { "content-type": "application/json" }).end(await answer.text()),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

const peers: Record<string, (url: string, block: bigint) => Promise<Fork>> = {
  ours: async (url, block) => {
    const provider = await createPreconfProvider({ fork: { url, blockNumber: block }, mining: "manual", clock: FakeTimers.createClock(1_700_000_000_000) });
    return { request: (method, params = []) => provider.request({ method, params }), close: () => provider.close() };
  },
  edr: async (url, block) => {
    const { createHardhatRuntimeEnvironment } = await import("hardhat/hre");
    const hre = await createHardhatRuntimeEnvironment({
      // The upstream is a dev chain: Prague from block 0 (EDR needs a history to run at the fork block).
      chainDescriptors: { 31337: { name: "upstream", hardforkHistory: { prague: { blockNumber: 0 } } } },
      networks: { fork: { type: "edr-simulated", chainId: 31337, hardfork: "prague", forking: { url, blockNumber: Number(block) } } },
    });
    const connection = await hre.network.connect({ network: "fork" });
    return { request: (method, params = []) => connection.provider.request({ method, params }), close: () => connection.close() };
  },
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function measure(name: string, upstream: Awaited<ReturnType<typeof upstreamChain>>) {
  const rows: { first: number; cold: number; warm: number; requests: number }[] = [];
  for (let rep = 0; rep < REPS; rep++) {
    const proxy = await countingProxy(upstream.url);
    const start = performance.now();
    const fork = await peers[name]!(proxy.url, upstream.forkBlock);
    await fork.request("eth_getBalance", [upstream.holders[0], "latest"]);
    const first = performance.now() - start;
    const read = (holder: Hex) =>
      fork.request("eth_call", [{ to: upstream.token, data: encodeFunctionData({ abi, functionName: "balanceOf", args: [holder] }) }, "latest"]);
    const before = proxy.count;
    let t = performance.now();
    for (const holder of upstream.holders) await read(holder);
    const cold = (performance.now() - t) / upstream.holders.length;
    const requests = (proxy.count - before) / upstream.holders.length;
    t = performance.now();
    for (const holder of upstream.holders) await read(holder);
    const warm = (performance.now() - t) / upstream.holders.length;
    await fork.close();
    proxy.close();
    rows.push({ first, cold, warm, requests });
  }
  return {
    name,
    first: median(rows.map((row) => row.first)),
    cold: median(rows.map((row) => row.cold)),
    warm: median(rows.map((row) => row.warm)),
    requests: median(rows.map((row) => row.requests)),
  };
}

const upstream = await upstreamChain();
try {
  console.log(`upstream: ${HOLDERS} token holders, fork block ${upstream.forkBlock}; medians of ${REPS} forks`);
  console.log("peer   first answer (ms)   cold read (ms)   warm read (ms)   upstream HTTP requests per cold read");
  for (const name of ["ours", ...PEERS]) {
    const result = await measure(name, upstream);
    console.log(
      `${name.padEnd(6)} ${result.first.toFixed(1).padStart(17)} ${result.cold.toFixed(3).padStart(16)} ${result.warm.toFixed(3).padStart(16)} ${result.requests.toFixed(2).padStart(16)}`,
    );
  }
} finally {
  await upstream.close();
}
