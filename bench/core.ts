/**
 * Core hot paths: admission (eth_sendRawTransaction) per tx and fragment execution per tx, for
 * 10 … 5,000 transfers in one block. Per-tx cost must stay flat as the block grows.
 * Run: npm run bench:core
 */
import FakeTimers from "@sinonjs/fake-timers";

import { createPreconfProvider } from "../src/index.ts";
import { nativeCrypto } from "../src/node/common/crypto.ts";
import { measureBlock as measure } from "./scaling.ts";

const SIZES = [10, 100, 1000, 5000];

async function providerCreation() {
  const times: number[] = [];
  for (let i = 0; i < 20; i++) {
    const start = performance.now();
    const provider = await createPreconfProvider({ clock: FakeTimers.createClock(0), mining: "manual" });
    times.push(performance.now() - start);
    await provider.close();
  }
  return { cold: times[0]!, warmMedian: times.slice(1).sort((a, b) => a - b)[9]! };
}

const crypto = nativeCrypto();
console.log(`native secp256k1: ${crypto.ecrecover !== undefined}, native keccak: ${crypto.keccak256 !== undefined}`);
const creation = await providerCreation();
console.log(`provider creation: cold ${creation.cold.toFixed(1)} ms, warm median ${creation.warmMedian.toFixed(2)} ms`);
await measure(100); // warm-up
console.log("txs in block | admission µs/tx | fragment µs/tx | seal ms");
for (const size of SIZES) {
  const { admitMs, fragmentMs, sealMs } = await measure(size);
  console.log(
    `${String(size).padStart(12)} | ${((admitMs * 1000) / size).toFixed(0).padStart(15)} | ${((fragmentMs * 1000) / size).toFixed(0).padStart(14)} | ${sealMs.toFixed(1).padStart(7)}`,
  );
}
