/**
 * The interpreter's per-frame and per-opcode patches, part by part, in one process: a frame's
 * `Interpreter` (the package's constructor, with its 8 KiB `new Memory()`, against one built on a
 * pooled memory zeroed when given back: ethereumjs/framePool.ts), a storage key's 32 bytes (and its
 * hex, as the journal and the storage cache then key it), and a hash's number (ethereumjs/wordOpcodes.ts,
 * against @ethereumjs/util's `setLengthLeft(bigIntToBytes(key), 32)` and `BigInt(bytesToHex(hash))`).
 * and a frame's end at STOP (the package's throw and catch, against the loop's break: interpreterLoop.ts).
 * Prints the median ns of each over the rounds.
 *   npx tsx bench/frames.ts [rounds=9] [iterations=20000]
 */
import { Common, Mainnet } from "@ethereumjs/common";
import { createEVM } from "@ethereumjs/evm";
import { bigIntToBytes, bytesToHex, createAddressFromString, hexToBytes, setLengthLeft } from "@ethereumjs/util";

import { buildInterpreter, evmFile } from "../src/node/ethereumjs/framePool.ts";
import { interpreterModules } from "../src/node/ethereumjs/jumpAnalysis.ts";
import { wordBytes, wordOf } from "../src/node/ethereumjs/wordOpcodes.ts";

const [roundsArg = "9", iterationsArg = "20000"] = process.argv.slice(2);
const rounds = Number(roundsArg);
const iterations = Number(iterationsArg);

type Ctor = new (...args: unknown[]) => unknown;
const { Interpreter } = (await import(interpreterModules().esm)) as { Interpreter: Ctor & { prototype: object } };
const { Memory } = (await import(evmFile("esm", "memory.js"))) as { Memory: new () => { _store: Uint8Array } };
const { Stack } = (await import(evmFile("esm", "stack.js"))) as { Stack: new () => unknown };
const { defaultBlock } = (await import(evmFile("esm", "evm.js"))) as { defaultBlock: () => unknown };
const evm = (await createEVM({ common: new Common({ chain: Mainnet, hardfork: "prague" }) })) as unknown as Parameters<typeof buildInterpreter>[1] &
  Record<"stateManager" | "blockchain" | "journal" | "performanceLogger", unknown>;
const env = { address: createAddressFromString("0x00000000000000000000000000000000000000c0"), depth: 1, gasRefund: 0n };
const pooled = new Memory();
const key = 0x1234_5678_9abc_def0_1234n;
const hash = hexToBytes("0x8a35acfbc15ff81a39ae7d344fd709f28e8600b4aa8c65c6b64bfe7fe36bd19b");

/** A frame's end as the package's STOP ends it (a thrown EVMError, caught by the loop's async function), and as the loop now ends it. */
const halt = { error: "stop", errorType: "EVMError" };
async function endByThrow(): Promise<unknown> {
  try {
    for (let step = 0; ; step++) if (step === 3) throw { ...halt };
  } catch (caught) {
    if ((caught as typeof halt).errorType !== "EVMError") throw caught;
    return undefined;
  }
}
async function endByBreak(): Promise<unknown> {
  try {
    for (let step = 0; ; step++) if (step === 3) break;
  } catch (caught) {
    if ((caught as typeof halt).errorType !== "EVMError") throw caught;
  }
  return undefined;
}

const parts: [string, () => unknown][] = [
  ["frame end, package (throw)", endByThrow],
  ["frame end, ours (break)", endByBreak],
  ["Interpreter, package", () => new Interpreter(evm, evm.stateManager, evm.blockchain, env, 100n, evm.journal, evm.performanceLogger, undefined)],
  [
    "Interpreter, pooled",
    () => {
      const classes = { Interpreter, Memory, Stack, defaultBlock };
      const built = buildInterpreter(classes, evm, evm.stateManager, evm.blockchain, env, 100n, evm.journal, evm.performanceLogger, undefined, pooled);
      pooled._store.fill(0);
      return built;
    },
  ],
  ["key bytes, package", () => setLengthLeft(bigIntToBytes(key), 32)],
  ["key bytes, ours", () => wordBytes(key)],
  ["key bytes → hex, package", () => bytesToHex(setLengthLeft(bigIntToBytes(key), 32))],
  ["key bytes → hex, ours", () => bytesToHex(wordBytes(key))],
  ["hash number, package", () => BigInt(bytesToHex(hash))],
  ["hash number, ours", () => wordOf(hash)],
];

const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]!;
const times = new Map<string, number[]>();
for (let round = 0; round < rounds; round++) {
  for (const [name, part] of round % 2 === 0 ? parts : parts.toReversed()) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) part();
    times.set(name, [...(times.get(name) ?? []), Number(process.hrtime.bigint() - start) / iterations]);
  }
}
for (const [name] of parts) console.log(`${name.padEnd(28)} ${median(times.get(name)!).toFixed(0)} ns`);
