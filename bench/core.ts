/**
 * Core hot paths: admission (eth_sendRawTransaction) per tx and fragment execution per tx, for
 * 10 … 5,000 transfers in one block. Per-tx cost must stay flat as the block grows.
 * Run: npm run bench:core
 */
import FakeTimers from "@sinonjs/fake-timers";
import { createTx } from "@ethereumjs/tx";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";

import { createPreconfProvider } from "../src/index.ts";
import { nativeCrypto } from "../src/node/crypto.ts";

const SIZES = [10, 100, 1000, 5000];
const SENDERS = 10;

async function measure(size: number) {
  const provider = await createPreconfProvider({
    clock: FakeTimers.createClock(1_700_000_000_000),
    mining: "manual",
    blockGasLimit: 21000n * BigInt(size) + 1_000_000n,
  });
  const raws: string[] = [];
  for (let i = 0; i < size; i++) {
    const sender = provider.accounts[i % SENDERS]!;
    const tx = createTx(
      { type: 2, chainId: 31337n, nonce: BigInt(Math.floor(i / SENDERS)), gasLimit: 21000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n, to: provider.accounts[SENDERS]!.address, value: 1n },
      { common: provider.chain.common },
    ).sign(hexToBytes(sender.privateKey));
    raws.push(bytesToHex(tx.serialize()));
  }
  const admitStart = performance.now();
  for (const raw of raws) await provider.request({ method: "eth_sendRawTransaction", params: [raw] });
  const admitMs = performance.now() - admitStart;
  const fragmentStart = performance.now();
  const fragment = await provider.preconf.fragment();
  const fragmentMs = performance.now() - fragmentStart;
  const sealStart = performance.now();
  await provider.preconf.seal();
  const sealMs = performance.now() - sealStart;
  if (fragment.transactions.length !== size) throw new Error(`only ${fragment.transactions.length} of ${size} executed`);
  await provider.close();
  return { size, admitMs, fragmentMs, sealMs };
}

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
