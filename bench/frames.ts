/**
 * Same-process A/B of the interpreter's per-frame and per-opcode patches: the bench's ERC-20
 * (`balanceOf`, `transfer`), 200 call frames in a loop, and 200 KECCAK256 + SLOAD in a loop, run by `EVM.runCall`
 * on EVMs that differ only in the patch under test, in alternating rounds; prints the median µs of
 * CPU per call of each. Variants: `package` (the package's frames and handlers), `pool` (frames on
 * pooled memory, ethereumjs/framePool.ts), `pool+words` (and KECCAK256/SLOAD's handlers,
 * ethereumjs/wordOpcodes.ts).
 *   npx tsx bench/frames.ts [rounds=9] [calls=400]
 */
import { Common, Mainnet } from "@ethereumjs/common";
import { createEVM } from "@ethereumjs/evm";
import { MerkleStateManager } from "@ethereumjs/statemanager";
import { Account, createAddressFromString, hexToBytes } from "@ethereumjs/util";
import { encodeDeployData, encodeFunctionData } from "viem";

import { evmFile, withoutFramePool } from "../src/node/ethereumjs/framePool.ts";
import { installInterpreterLoop } from "../src/node/ethereumjs/interpreterLoop.ts";
import { opcodeTableOf } from "../src/node/ethereumjs/opcodeHooks.ts";
import { compileBenchContracts } from "./contracts.ts";

import type { EVM } from "@ethereumjs/evm";
import type { Address } from "@ethereumjs/util";
import type { Hex } from "viem";

const [roundsArg = "9", callsArg = "400"] = process.argv.slice(2);
const rounds = Number(roundsArg);
const calls = Number(callsArg);
await installInterpreterLoop();
const { Token } = compileBenchContracts();
const CALLER = createAddressFromString("0x00000000000000000000000000000000000000c0");
const { handlers } = (await import(evmFile("esm", "opcodes/functions.js"))) as { handlers: Map<number, unknown> };
const { dynamicGasHandlers } = (await import(evmFile("esm", "opcodes/gas.js"))) as { dynamicGasHandlers: Map<number, unknown> };

type Variant = "package" | "pool" | "pool+words";

async function setUp(variant: Variant): Promise<{ evm: EVM; token: Address }> {
  const common = new Common({ chain: Mainnet, hardfork: "prague" });
  const evm = await createEVM({ common, stateManager: new MerkleStateManager({ common }) });
  if (variant === "package") withoutFramePool(evm);
  if (variant !== "pool+words") {
    const table = opcodeTableOf(evm) as unknown as { opHandler: unknown; gasHandler?: unknown }[];
    for (const op of [0x20, 0x54]) table[op]!.opHandler = handlers.get(op);
    table[0x54]!.gasHandler = dynamicGasHandlers.get(0x54);
  }
  await evm.stateManager.putAccount(CALLER, new Account(0n, 10n ** 24n));
  const deployed = await evm.runCall({
    caller: CALLER,
    gasLimit: 5_000_000n,
    data: hexToBytes(encodeDeployData({ abi: Token.abi, bytecode: Token.bytecode, args: ["Bench", "B", 10n ** 30n] })),
  });
  return { evm, token: deployed.createdAddress! };
}

const data = (functionName: string, args: unknown[]): Uint8Array => hexToBytes(encodeFunctionData({ abi: Token.abi, functionName, args }) as Hex);
const balanceOf = data("balanceOf", [CALLER.toString()]);

const cpu = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

const variants: Variant[] = ["package", "pool", "pool+words"];
const setups = new Map<Variant, { evm: EVM; token: Address }>();
for (const variant of variants) setups.set(variant, await setUp(variant));
const samples = new Map<string, number[]>();

async function measure(variant: Variant, name: string, call: (evm: EVM, token: Address, i: number) => Promise<unknown>) {
  const { evm, token } = setups.get(variant)!;
  const start = cpu();
  for (let i = 0; i < calls; i++) await call(evm, token, i);
  const key = `${name} ${variant}`;
  samples.set(key, [...(samples.get(key) ?? []), ((cpu() - start) * 1000) / calls]);
}

const LOOPER = createAddressFromString("0x00000000000000000000000000000000000000c2");
const CALLEE = createAddressFromString("0x00000000000000000000000000000000000000c3");
const HASHER = createAddressFromString("0x00000000000000000000000000000000000000c4");
/** `body` 200 times: PUSH2 200; JUMPDEST; body; PUSH1 1; SWAP1; SUB; DUP1; PUSH1 3; JUMPI. */
const loop = (body: number[]) => Uint8Array.from([0x61, 0x00, 0xc8, 0x5b, ...body, 0x60, 0x01, 0x90, 0x03, 0x80, 0x60, 0x03, 0x57]);
// A frame per iteration: STATICCALL(GAS, callee, 0, 0, 0, 32) of a callee that stores a word and returns it.
const frames = loop([0x60, 0x20, 0x5f, 0x5f, 0x5f, 0x73, ...CALLEE.bytes, 0x5a, 0xfa, 0x50]);
const callee = Uint8Array.of(0x60, 0x01, 0x5f, 0x52, 0x60, 0x20, 0x5f, 0xf3);
// KECCAK256 of the counter, then SLOAD of the hash: MSTORE(0, n); SLOAD(KECCAK256(0, 32)); POP.
const hashes = loop([0x80, 0x5f, 0x52, 0x60, 0x20, 0x5f, 0x20, 0x54, 0x50]);
for (const variant of variants) {
  const { stateManager } = setups.get(variant)!.evm;
  await stateManager.putCode(LOOPER, frames);
  await stateManager.putCode(CALLEE, callee);
  await stateManager.putCode(HASHER, hashes);
}

const workloads: [string, (evm: EVM, token: Address, i: number) => Promise<unknown>][] = [
  ["balanceOf", (evm, token) => evm.runCall({ caller: CALLER, to: token, gasLimit: 100_000n, data: balanceOf })],
  [
    "transfer",
    (evm, token, i) =>
      evm.runCall({ caller: CALLER, to: token, gasLimit: 100_000n, data: data("transfer", [`0x${(0xd000 + (i % 50)).toString(16).padStart(40, "0")}`, 1n]) }),
  ],
  ["200 frames", (evm) => evm.runCall({ caller: CALLER, to: LOOPER, gasLimit: 5_000_000n })],
  ["200 hash+load", (evm) => evm.runCall({ caller: CALLER, to: HASHER, gasLimit: 5_000_000n })],
];

for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? variants : variants.toReversed();
  for (const [name, call] of workloads) for (const variant of order) await measure(variant, name, call);
}
const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]!;
for (const [name] of workloads) {
  const base = median(samples.get(`${name} package`)!);
  console.log(
    `${name.padEnd(10)} ${variants.map((variant) => `${variant} ${median(samples.get(`${name} ${variant}`)!).toFixed(1)} µs (${((median(samples.get(`${name} ${variant}`)!) / base - 1) * 100).toFixed(1)} %)`).join("  ")}`,
  );
}
