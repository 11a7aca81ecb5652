/**
 * keccak-256 per hash by input size: the chain's (WebAssembly, src/node/common/keccak.ts), the keccak
 * addon's raw sponge as the chain used it before (three N-API crossings and two Buffers a hash), and
 * noble's pure JS. One process, the three alternating; each figure the median of 5 timed runs after a
 * warm-up. Sizes: an address key (20), a word (32), two words (64), a trie branch (~532), a block of
 * calldata (2 KB), a contract's code (24 KB).
 *
 *   npx tsx bench/keccak.ts [sizes, comma-separated]
 */
import { createRequire } from "node:module";
import { dirname } from "node:path";

import { keccak_256 } from "@noble/hashes/sha3.js";

import { keccak256Wasm } from "../src/node/common/keccak.ts";

interface KeccakState {
  initialize(rate: number, capacity: number): void;
  absorb(data: Buffer): void;
  squeeze(length: number): Buffer;
}

const require = createRequire(import.meta.url);

/** The addon's sponge, one state reused (what src/node/common/crypto.ts did until the WebAssembly one). */
function addonKeccak256(): ((message: Uint8Array) => Uint8Array) | undefined {
  try {
    const State = (require("node-gyp-build") as (dir: string) => new () => KeccakState)(dirname(require.resolve("keccak/package.json")));
    const state = new State();
    return (message) => {
      state.initialize(1088, 512);
      state.absorb(Buffer.from(message.buffer, message.byteOffset, message.byteLength));
      const digest = state.squeeze(32);
      return new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength);
    };
  } catch {
    return undefined;
  }
}

const candidates: [string, (message: Uint8Array) => Uint8Array][] = [
  ["wasm", keccak256Wasm],
  ["noble", keccak_256],
];
const addon = addonKeccak256();
if (addon !== undefined) candidates.unshift(["addon", addon]);

const sizes = (process.argv[2] ?? "0,20,32,64,136,137,532,2048,24576").split(",").map(Number);
console.log(`| bytes | ${candidates.map(([name]) => `${name} µs`).join(" | ")} |\n|--:|${candidates.map(() => "--:").join("|")}|`);
for (const size of sizes) {
  const message = new Uint8Array(size).map((_, i) => (i * 7) & 0xff);
  const count = Math.max(2_000, Math.floor(20_000_000 / (size + 100)));
  const runs = new Map<string, number[]>();
  for (const [, hash] of candidates) for (let i = 0; i < count / 4; i++) hash(message);
  for (let run = 0; run < 5; run++) {
    for (const [name, hash] of candidates) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < count; i++) hash(message);
      const perHash = Number(process.hrtime.bigint() - start) / count / 1000;
      runs.set(name, [...(runs.get(name) ?? []), perHash]);
    }
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  console.log(`| ${size} | ${candidates.map(([name]) => median(runs.get(name)!).toFixed(2)).join(" | ")} |`);
}
