/**
 * eth_estimateGas through the in-process provider: median time and EVM executions per estimate
 * for a plain transfer, an ERC-20 transfer and an SSTORE-refund call, on `latest` and `pending`.
 * Targets: 1 execution for a transfer, at most 6 typical, an ERC-20 transfer well under 20 ms.
 * Run: npm run bench:estimate (or npx tsx bench/estimate.ts [runs])
 */
import FakeTimers from "@sinonjs/fake-timers";
import { encodeDeployData, encodeFunctionData, parseEther } from "viem";

import { createPreconfProvider } from "../src/index.ts";
import { estimateStats } from "../src/node/execution/estimate.ts";
import { Refund, Token } from "../test/helpers/contracts.ts";

import type { PreconfProvider } from "../src/index.ts";
import type { ContractArtifact } from "../test/helpers/contracts.ts";

const RUNS = Number(process.argv[2] ?? 200);
const WARMUP = 20;

interface Case {
  name: string;
  tx: Record<string, string>;
}

async function deploy(provider: PreconfProvider, artifact: ContractArtifact, args: unknown[] = []): Promise<string> {
  const from = provider.accounts[0]!.address;
  const data = encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode, args });
  const hash = await provider.request({ method: "eth_sendTransaction", params: [{ from, data }] });
  await provider.preconf.fragment();
  const receipt = (await provider.request({ method: "eth_getTransactionReceipt", params: [hash] })) as { contractAddress: string; status: string };
  if (receipt.status !== "0x1") throw new Error(`deploying ${artifact.contractName} failed`);
  return receipt.contractAddress;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))]!;

async function measure(provider: PreconfProvider, { tx }: Case, block: string) {
  const estimate = () => provider.request({ method: "eth_estimateGas", params: [tx, block] }) as Promise<string>;
  for (let i = 0; i < WARMUP; i++) await estimate();
  const times: number[] = [];
  const executions: number[] = [];
  let gas = "";
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    gas = await estimate();
    times.push(performance.now() - start);
    executions.push(estimateStats.lastExecutions);
  }
  return {
    gas: BigInt(gas),
    "median ms": Number(median(times).toFixed(3)),
    "p95 ms": Number(percentile(times, 95).toFixed(3)),
    executions: median(executions),
    "max executions": Math.max(...executions),
  };
}

async function main() {
  const provider = await createPreconfProvider({ clock: FakeTimers.createClock(1_700_000_000_000), mining: "manual" });
  const [from, to] = [provider.accounts[0]!.address, provider.accounts[1]!.address];
  const token = await deploy(provider, Token, ["Token", "TOK", parseEther("1000")]);
  const refund = await deploy(provider, Refund);
  await provider.preconf.seal();

  const cases: Case[] = [
    { name: "transfer", tx: { from, to, value: "0x1" } },
    { name: "ERC-20 transfer", tx: { from, to: token, data: encodeFunctionData({ abi: Token.abi, functionName: "transfer", args: [to, 1n] }) } },
    { name: "SSTORE refund (Refund.clear)", tx: { from, to: refund, data: encodeFunctionData({ abi: Refund.abi, functionName: "clear" }) } },
  ];
  // One pre-confirmed fragment so that `pending` is the open block, not `latest` again.
  await provider.request({ method: "eth_sendTransaction", params: [{ from: provider.accounts[2]!.address, to, value: "0x1" }] });
  await provider.preconf.fragment();

  const rows: Record<string, unknown>[] = [];
  for (const block of ["latest", "pending"]) {
    for (const workload of cases) rows.push({ case: workload.name, block, ...(await measure(provider, workload, block)) });
  }
  console.log(`eth_estimateGas, ${RUNS} runs per case after ${WARMUP} warm-up runs, node ${process.version}`);
  console.table(rows);
  await provider.close();
}

await main();
