/**
 * How long each server takes from its process being spawned to its first answer over HTTP
 * (`eth_chainId`, polled every 5 ms), the servers alternating within every round: `preconf node`
 * from dist (which starts itself again with V8's compile queue, docs/cli.md "The server's
 * process"), anvil, and `hardhat node` when asked for.
 *
 *   npx tsx bench/server-start.ts [rounds=7] [ours,anvil,hardhat]
 *
 * `BENCH_OURS_NODE_ARGS` and `BENCH_OURS_DIST` apply as in the bench (servers.ts): e.g.
 * `BENCH_OURS_NODE_ARGS=--concurrent-recompilation-queue-length=64` starts ours without the second start.
 */
import { SERVER_IDS, startServer } from "./servers.ts";
import { median } from "./workloads.ts";

import type { ServerId } from "./servers.ts";

const rounds = Number(process.argv[2] ?? 7);
const ids = (process.argv[3] ?? "ours,anvil").split(",") as ServerId[];
for (const id of ids) if (!SERVER_IDS.includes(id)) throw new Error(`unknown server ${id}: one of ${SERVER_IDS.join(", ")}`);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`rounds must be a positive integer, not ${process.argv[2]}`);

const samples = new Map<ServerId, number[]>(ids.map((id) => [id, []]));
for (let round = 0; round < rounds; round++) {
  for (const id of ids) {
    const server = await startServer(id);
    samples.get(id)!.push(server.firstAnswerMs);
    await server.close();
  }
}
for (const [id, values] of samples) {
  console.log(
    `${id.padEnd(7)} first answer after ${median(values).toFixed(0)} ms (median of ${values.length}: ${values.map((value) => value.toFixed(0)).join(", ")})`,
  );
}
