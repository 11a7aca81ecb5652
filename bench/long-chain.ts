/**
 * A long-running chain's cost per block: CPU per `evm_mine` (an empty block: only the system
 * contracts' ring buffers change) or per automined ERC-20 transfer, once the chain is past a number
 * of blocks, and the pruning pass's share of a CPU profile of the same operations after that (the
 * pass runs every few hundred seals: src/node/state/stateHistory.ts `passInterval`). Ours only, with
 * the default `stateHistory`, on this checkout's sources: for a before/after, run it from a worktree
 * of the earlier commit too, one after the other.
 *
 *   npx tsx bench/long-chain.ts [mine|erc20] [operations before measuring=10000] [operations timed, then as many profiled=2000]
 *
 * Each operation seals a block (erc20 also deploys the token first). With the default
 * `stateHistory` a pass runs every 512 seals: measure at least that many for a share that means
 * something.
 */
import { Session } from "node:inspector/promises";

import FakeTimers from "@sinonjs/fake-timers";
import { encodeDeployData, encodeFunctionData, getContractAddress } from "viem";

import { createPreconfProvider } from "../src/index.ts";
import { accountsFromMnemonic, DEFAULT_MNEMONIC } from "../src/node/common/accounts.ts";
import { compileBenchContracts } from "./contracts.ts";
import { summarizeProfile } from "./profile-summary.ts";
import { signTx } from "./sign.ts";

import type { Hex } from "viem";
import type { Profile } from "./profile-summary.ts";

const [kind = "mine", warmArg = "10000", measuredArg = "2000"] = process.argv.slice(2);
if (kind !== "mine" && kind !== "erc20") throw new Error(`unknown kind ${kind} (mine or erc20)`);
const warm = Number(warmArg);
const measured = Number(measuredArg);
if (!Number.isInteger(warm) || warm < 0 || !Number.isInteger(measured) || measured < 1) {
  throw new Error(`operations must be whole numbers (before measuring ≥ 0, measured ≥ 1): ${warmArg}, ${measuredArg}`);
}
const CHAIN_ID = 31337;

const provider = await createPreconfProvider({ clock: FakeTimers.createClock(1_700_000_000_000), mining: "auto" });
const request = (method: string, params: unknown[] = []) => provider.request({ method, params });

let operation: () => Promise<unknown>;
if (kind === "mine") {
  operation = () => request("evm_mine");
} else {
  const [sender, recipient] = accountsFromMnemonic(DEFAULT_MNEMONIC, 2) as [{ address: Hex; privateKey: Hex }, { address: Hex }];
  const { Token } = compileBenchContracts();
  const token = getContractAddress({ from: sender.address, nonce: 0n });
  const deploy = encodeDeployData({ abi: Token.abi, bytecode: Token.bytecode, args: ["T", "T", 10n ** 24n] });
  await request("eth_sendRawTransaction", [signTx(sender.privateKey, { chainId: CHAIN_ID, nonce: 0, data: deploy, gas: 2_000_000n })]);
  // Signed before anything is timed: signing is the bench's work, not the chain's.
  const data = encodeFunctionData({ abi: Token.abi, functionName: "transfer", args: [recipient.address, 1n] });
  const raws = Array.from({ length: warm + 2 * measured }, (_, i) =>
    signTx(sender.privateKey, { chainId: CHAIN_ID, nonce: i + 1, to: token, data, gas: 60_000n }),
  );
  let sent = 0;
  operation = () => request("eth_sendRawTransaction", [raws[sent++]]);
}

for (let i = 0; i < warm; i++) await operation();

const before = process.cpuUsage();
for (let i = 0; i < measured; i++) await operation();
const spent = process.cpuUsage(before);
const perOperation = (spent.user + spent.system) / measured;

const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.setSamplingInterval", { interval: 50 });
await session.post("Profiler.start");
for (let i = 0; i < measured; i++) await operation();
const { profile } = await session.post("Profiler.stop");
const summary = summarizeProfile(profile as unknown as Profile);
const pruning = summary.inclusive.find(([name]) => name.startsWith("pruneStore "))?.[1] ?? 0;

const block = BigInt((await request("eth_blockNumber")) as string);
console.log(`${kind}: ${measured} operations after ${warm} (head ${block})`);
console.log(`  CPU per operation: ${perOperation.toFixed(0)} µs`);
console.log(`  the pruning pass's share of a profile of ${measured} more: ${((100 * pruning) / summary.totalMs).toFixed(1)} %`);
await provider.close();
