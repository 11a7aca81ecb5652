/**
 * A long-lived provider, as a test suite keeps one: rounds of W5's test iteration (revert to a
 * snapshot, deploy an ERC-20, 5 transfers, 3 reads) on one automining chain of ours, printing the
 * CPU time of each round. With --gc-between-rounds a full GC runs before each round, between two
 * requests: what it costs the requests after it (bench/benchmarks-notes.md, "Ninth round"). Add
 * `node --trace-gc --import tsx bench/one-provider.ts` to see when V8 collects on its own.
 *
 *   npx tsx bench/one-provider.ts [rounds=14] [iterations per round=20] [--gc-between-rounds]
 */
import v8 from "node:v8";
import vm from "node:vm";

import { loadPeer } from "./peers.ts";
import { stopwatch } from "./timing.ts";
import { testFileIteration, testFileTxs } from "./workloads.ts";

const args = process.argv.slice(2);
const gcBetweenRounds = args.includes("--gc-between-rounds");
const [roundsArg = "14", iterationsArg = "20"] = args.filter((arg) => !arg.startsWith("--"));
v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

const { peer } = await loadPeer("ours");
const instance = await peer.create({ automine: true });
// One iteration's txs: the token's deployment (nonce 0) and 5 transfers; each iteration reverts to before them.
const raws = testFileTxs(peer.chainId, 1);
let snapshot = await instance.snapshot!();

console.log(`one provider of ours, ${roundsArg} rounds of ${iterationsArg} test iterations${gcBetweenRounds ? ", a full GC before each round" : ""}: CPU ms`);
for (let round = 0; round < Number(roundsArg); round++) {
  if (gcBetweenRounds) gc();
  const elapsed = stopwatch();
  for (let iteration = 0; iteration < Number(iterationsArg); iteration++) {
    await instance.revert!(snapshot);
    snapshot = await instance.snapshot!();
    const balance = await testFileIteration(instance, raws);
    if (balance !== 10n) throw new Error(`round ${round}: token balance ${balance} after the transfer, expected 10`);
  }
  console.log(`${String(round).padStart(3)}  ${elapsed().cpuMs.toFixed(0).padStart(6)}`);
}
await instance.close();
process.exit(0);
