/**
 * What an `eth_call` costs when the CPU's caches were just filled with something else, as between
 * two requests over HTTP (the kernel's network path, the event loop, the client's process): the
 * same call of ERC-20 `balanceOf` on ours, in rounds of 1,000, alone and each after a walk over a
 * 16 MiB buffer (one byte per 64-byte line), printing CPU µs per call. The walk's own cost is
 * measured apart and taken out.
 *
 *   npx tsx bench/cold-cache.ts [rounds=6]
 *
 * Used in bench/benchmarks-notes.md ("What is left") to explain why a server's `eth_call` costs
 * more than the in-process call plus the server path.
 */
import { createPreconfProvider } from "../src/index.ts";
import { stopwatch } from "./timing.ts";
import { testFileReads, testFileTxs } from "./workloads.ts";

const rounds = Number(process.argv[2] ?? 6);
const CALLS = 1_000;

const provider = await createPreconfProvider({ mining: "manual" });
await provider.request({ method: "evm_setAutomine", params: [true] });
const hash = await provider.request({
  method: "eth_sendRawTransaction",
  params: [testFileTxs(Number(await provider.request({ method: "eth_chainId" })), 1)[0]],
});
const receipt = (await provider.request({ method: "eth_getTransactionReceipt", params: [hash] })) as { contractAddress: `0x${string}` };
const call = testFileReads(receipt.contractAddress).call;
// A fresh params object per call, as a client's JSON would be.
const text = JSON.stringify(call);
const ethCall = () => provider.request({ method: "eth_call", params: JSON.parse(text) as unknown[] });

const buffer = new Uint8Array(16 * 1024 * 1024);
let sink = 0;
const walk = () => {
  for (let i = 0; i < buffer.length; i += 64) sink += buffer[i]!;
};
const perCall = async (body: () => unknown) => {
  const elapsed = stopwatch();
  for (let i = 0; i < CALLS; i++) await body();
  return (elapsed().cpuMs * 1000) / CALLS;
};

console.log("CPU µs per eth_call: hot (back to back), and after the caches were filled with something else");
for (let round = 0; round < rounds; round++) {
  const hot = await perCall(ethCall);
  const walkAlone = await perCall(walk);
  const both = await perCall(async () => {
    walk();
    await ethCall();
  });
  console.log(
    `${String(round).padStart(3)}  hot ${hot.toFixed(0).padStart(4)}  after the walk ${(both - walkAlone).toFixed(0).padStart(4)}  (the walk alone ${walkAlone.toFixed(0)})`,
  );
}
if (sink !== 0) console.log(sink);
await provider.close();
process.exit(0);
