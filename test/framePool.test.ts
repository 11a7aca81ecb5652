/**
 * Call frames on pooled memory (src/node/ethereumjs/framePool.ts) are a patch of @ethereumjs/evm
 * 10.1.3's `EVM.runInterpreter` that builds the `Interpreter` as its constructor does. These tests
 * fail when an upgrade changes either method, when a built Interpreter differs from a constructed
 * one, when a frame can see what an earlier frame left in its memory, and when any program (random
 * ones, and the repo's test contracts with nested calls, reverts, refunds and every gas limit around
 * where each call runs out) runs differently on pooled frames than on the package's own.
 */
import { createHash } from "node:crypto";
import { createRequire } from "node:module";

import { Common, Mainnet } from "@ethereumjs/common";
import { createEVM } from "@ethereumjs/evm";
import { MerkleStateManager } from "@ethereumjs/statemanager";
import { Account, bytesToHex, createAddressFromString, hexToBytes } from "@ethereumjs/util";
import { expect } from "chai";
import fc from "fast-check";
import { encodeDeployData, encodeFunctionData } from "viem";

import {
  buildInterpreter,
  evmFile,
  framePoolStats,
  installFramePool,
  lastFrameOf,
  originalRunInterpreter,
  withoutFramePool,
} from "../src/node/ethereumjs/framePool.ts";
import { installInterpreterLoop } from "../src/node/ethereumjs/interpreterLoop.ts";
import { interpreterModules } from "../src/node/ethereumjs/jumpAnalysis.ts";
import { Counter, GasForwarder, Gate, Refund, Reverter, Token, Vault } from "./helpers/contracts.ts";
// The engine's opcode hook (JUMP, JUMPI and the calls yield through it): frames must run with it.
import "../src/node/execution/evmBudget.ts";

import type { EVM } from "@ethereumjs/evm";
import type { Address } from "@ethereumjs/util";
import type { Abi, Hex } from "viem";

const runs = (base: number) => (process.env.FC_RUNS === undefined ? base : Number(process.env.FC_RUNS));
const SEED = Number(process.env.FC_SEED ?? 20_261_128);
const MAX_UINT256 = (1n << 256n) - 1n;
const require = createRequire(import.meta.url);
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

const CALLER = createAddressFromString("0x00000000000000000000000000000000000000c0");
const CONTRACT = createAddressFromString("0x00000000000000000000000000000000000000cc");

async function newEvm(pooled: boolean): Promise<EVM> {
  const common = new Common({ chain: Mainnet, hardfork: "osaka" });
  const evm = await createEVM({ common, stateManager: new MerkleStateManager({ common }) });
  if (!pooled) withoutFramePool(evm);
  await evm.stateManager.putAccount(CALLER, new Account(0n, 10n ** 24n));
  return evm;
}

/** What a call left: outcome, gas, refund, return data, logs, and the state root after it. */
async function outcome(evm: EVM, result: Awaited<ReturnType<EVM["runCall"]>>) {
  const exec = result.execResult;
  await evm.stateManager.checkpoint();
  await evm.stateManager.commit();
  return {
    error: exec.exceptionError?.error,
    gasUsed: exec.executionGasUsed,
    refund: exec.gasRefund,
    returned: bytesToHex(exec.returnValue),
    created: result.createdAddress?.toString(),
    logs: exec.logs?.map(([address, topics, data]) => [bytesToHex(address), topics.map((topic) => bytesToHex(topic)), bytesToHex(data)]),
    root: bytesToHex(await evm.stateManager.getStateRoot()),
  };
}

describe("call frames on pooled memory (src/node/ethereumjs/framePool.ts, @ethereumjs/evm 10.1.3)", () => {
  before(async () => {
    await installInterpreterLoop();
    await installFramePool();
  });

  it("replaces EVM.runInterpreter in both builds, whose source and the Interpreter constructor's are the ones it copies", async () => {
    type Module = { EVM: { prototype: object } };
    type InterpreterModule = { Interpreter: { toString(): string } };
    const builds = [
      // Re-read evm.js's runInterpreter and interpreter.js's constructor, and update framePool.ts, if these change.
      {
        evm: (await import(evmFile("esm", "evm.js"))) as Module,
        interpreter: (await import(interpreterModules().esm)) as InterpreterModule,
        pins: ["1f4905264075376daed820fac392b3d077c2aa2d3767bed3d5e25e50b360d4ca", "89a75ac50d78016b76884e1ad679fe53657d93e1274857d503bb643c02a9ec4e"],
      },
      {
        evm: require(evmFile("cjs", "evm.js")) as Module,
        interpreter: require(interpreterModules().cjs) as InterpreterModule,
        pins: ["e4735022de8ee460b4f351c04fc1c277455970c33558b2fec247324c8baf6ec4", "5e440b22dc13095d82630b3054f610761f2dfddb5b03690d50c05ebc2d340c4c"],
      },
    ];
    // A new chain installs again; by then the process has loaded the CommonJS build.
    await installFramePool();
    for (const { evm, interpreter, pins } of builds) {
      const patched = (evm.EVM.prototype as { runInterpreter: unknown }).runInterpreter;
      expect(patched).to.not.equal(originalRunInterpreter(evm.EVM));
      const source = interpreter.Interpreter.toString();
      const constructorSource = source.slice(source.indexOf("constructor("), source.indexOf("async run("));
      expect([sha256(originalRunInterpreter(evm.EVM).toString()), sha256(constructorSource)]).to.deep.equal(pins);
    }
  });

  it("builds an Interpreter with the constructor's fields, in its order, with its values (both builds)", async () => {
    type Ctor = new (...args: unknown[]) => Record<string, unknown>;
    type Classes = {
      Interpreter: Ctor & { prototype: object };
      Memory: new () => { _store: Uint8Array };
      Stack: new () => unknown;
      defaultBlock: () => unknown;
    };
    const load = async (build: "esm" | "cjs"): Promise<Classes> => {
      const get = async (file: string) =>
        (build === "esm" ? await import(evmFile(build, file)) : require(evmFile(build, file))) as Record<string, never> & Classes;
      return {
        Interpreter: (await get("interpreter.js")).Interpreter,
        Memory: (await get("memory.js")).Memory,
        Stack: (await get("stack.js")).Stack,
        defaultBlock: (await get("evm.js")).defaultBlock,
      };
    };
    for (const { Interpreter, Memory, Stack, defaultBlock } of [await load("esm"), await load("cjs")]) {
      const evm = (await newEvm(true)) as unknown as Record<string, unknown>;
      for (const initialLogs of [undefined, [["log"]]]) {
        const env = { address: CONTRACT, depth: 2, gasRefund: 7n, initialLogs };
        const profiler = { enabled: false };
        const constructed = new Interpreter(evm, evm.stateManager, evm.blockchain, env, 1234n, evm.journal, evm.performanceLogger, profiler);
        const classes = { Interpreter, Memory, Stack, defaultBlock };
        const internals = evm as unknown as Parameters<typeof buildInterpreter>[1];
        const built = buildInterpreter(
          classes,
          internals,
          evm.stateManager,
          evm.blockchain,
          env,
          1234n,
          evm.journal,
          evm.performanceLogger,
          profiler,
          new Memory(),
        );
        const builtFields = built as unknown as Record<string, unknown>;
        expect(Object.getPrototypeOf(built)).to.equal(Interpreter.prototype);
        expect(Object.keys(builtFields)).to.deep.equal(Object.keys(constructed));
        const runState = (interpreter: Record<string, unknown>) => interpreter._runState as Record<string, unknown>;
        expect(Object.keys(runState(builtFields))).to.deep.equal(Object.keys(runState(constructed)));
        const { interpreter: a, ...builtState } = runState(builtFields);
        const { interpreter: b, ...constructedState } = runState(constructed);
        expect(a).to.equal(built);
        expect(b).to.equal(constructed);
        expect(builtState).to.deep.equal(constructedState);
        const { _runState: c, ...builtRest } = builtFields;
        const { _runState: d, ...constructedRest } = constructed;
        expect(builtRest).to.deep.equal(constructedRest);
      }
    }
  });

  it("reuses memories, zeroed: a frame never sees what an earlier one wrote, and return data is a copy", async () => {
    const evm = await newEvm(true);
    // PUSH32 0xff..ff PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN: returns the word it wrote.
    const writer = Uint8Array.of(0x7f, ...new Array(32).fill(0xff), 0x60, 0x00, 0x52, 0x60, 0x20, 0x60, 0x00, 0xf3);
    // PUSH1 32 PUSH1 0 RETURN: returns memory it never wrote (zeros).
    const reader = Uint8Array.of(0x60, 0x20, 0x60, 0x00, 0xf3);
    const first = await evm.runCode({ code: writer, gasLimit: 100_000n });
    const before = { ...framePoolStats };
    const second = await evm.runCode({ code: reader, gasLimit: 100_000n });
    expect(framePoolStats.reused).to.equal(before.reused + 1);
    expect(framePoolStats.made).to.equal(before.made);
    expect(bytesToHex(second.returnValue)).to.equal(`0x${"00".repeat(32)}`);
    // The first frame's return data is its own, not the memory the second frame ran on.
    await evm.runCode({ code: writer.map((byte, at) => (at >= 1 && at <= 32 ? 0x11 : byte)), gasLimit: 100_000n });
    expect(bytesToHex(first.returnValue)).to.equal(`0x${"ff".repeat(32)}`);
  });

  it("keeps the EVM's last frame, and that one only, until the next replaces it (the frame objects' maps outlive a GC between calls)", async () => {
    const evm = await newEvm(true);
    expect(lastFrameOf(evm)).to.equal(undefined);
    // PUSH1 42 PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
    const first = Uint8Array.of(0x60, 0x2a, 0x60, 0x00, 0x52, 0x60, 0x20, 0x60, 0x00, 0xf3);
    const result = await evm.runCode({ code: first, gasLimit: 100_000n });
    const kept = lastFrameOf(evm);
    if (kept === undefined) throw new Error("no frame kept");
    expect(kept.message.code).to.equal(first);
    expect((kept.result as { returnValue: Uint8Array }).returnValue).to.deep.equal(result.returnValue);
    expect((kept.interpreter as { _evm: unknown })._evm).to.equal(evm);
    // A call that runs a child frame: the outer frame ends last and is the one kept.
    await evm.stateManager.putCode(CONTRACT, first);
    // PUSH1 0 (x4) PUSH20 <contract> GAS STATICCALL STOP
    const caller = Uint8Array.of(0x60, 0, 0x60, 0, 0x60, 0, 0x60, 0, 0x73, ...CONTRACT.bytes, 0x5a, 0xfa, 0x00);
    const framesBefore = framePoolStats.made + framePoolStats.reused;
    await evm.runCode({ code: caller, gasLimit: 100_000n });
    expect(framePoolStats.made + framePoolStats.reused - framesBefore).to.equal(2);
    expect(lastFrameOf(evm)?.message.code).to.equal(caller);
    // A frame whose memory grew past the pool's bound (32 KiB) is not kept. PUSH1 1 PUSH3 0x010000 MSTORE STOP
    await evm.runCode({ code: Uint8Array.of(0x60, 1, 0x62, 1, 0, 0, 0x52, 0x00), gasLimit: 1_000_000n });
    expect(lastFrameOf(evm)).to.equal(undefined);
    // The package's own frames (the pool off) keep nothing.
    const plain = await newEvm(false);
    await plain.runCode({ code: first, gasLimit: 100_000n });
    expect(lastFrameOf(plain)).to.equal(undefined);
  });

  describe("runs every program as the package's frames do", () => {
    const push = (value: bigint) => {
      const bytes = value === 0n ? [0] : [...Buffer.from(value.toString(16).padStart(Math.ceil(value.toString(16).length / 2) * 2, "0"), "hex")];
      return [0x5f + bytes.length, ...bytes];
    };
    const small = fc.bigInt({ min: 0n, max: 300n });
    const edge = fc.oneof(small, fc.constantFrom(31n, 32n, 33n, 8160n, 8191n, 8192n, 8193n, 8224n, 16_384n, 40_000n));
    const value = fc.oneof(small, fc.bigInt({ min: 0n, max: MAX_UINT256 }), fc.constantFrom(0n, 1n, MAX_UINT256));
    const op = (code: number, inputs: fc.Arbitrary<bigint>[]) => fc.tuple(...inputs).map((args) => [...args.toReversed().flatMap(push), code]);
    const instruction = fc.oneof(
      op(0x01, [value, value]),
      op(0x20, [edge, small]), // KECCAK256
      op(0x35, [small]), // CALLDATALOAD
      op(0x37, [edge, small, small]), // CALLDATACOPY
      op(0x3e, [small, small, small]), // RETURNDATACOPY
      op(0x51, [edge]), // MLOAD
      op(0x52, [edge, value]), // MSTORE
      op(0x53, [edge, value]), // MSTORE8
      op(0x54, [small]), // SLOAD
      op(0x55, [small, value]), // SSTORE
      op(0x5e, [edge, edge, small]), // MCOPY
      op(0x56, [small]), // JUMP
      op(0x57, [small, value]), // JUMPI
      op(0xa1, [small, small, value]), // LOG1
      // CALL / STATICCALL / DELEGATECALL to the identity precompile, to itself (nested frames) and to an empty account.
      fc
        .tuple(fc.constantFrom(0xf1, 0xfa, 0xf4), fc.constantFrom(4n, 0xccn, 0xccn, 0xddn), small, small, small, small, fc.oneof(small, fc.constant(-1n)))
        .map(([code, to, inOffset, inLength, outOffset, outLength, gas]) => [
          ...[outLength, outOffset, inLength, inOffset].flatMap(push),
          ...(code === 0xf1 ? push(0n) : []),
          ...push(to),
          ...(gas === -1n ? [0x5a] : push(gas)),
          code,
        ]),
      // CREATE of init code taken from memory.
      fc.tuple(small, small).map(([offset, length]) => [...push(length), ...push(offset), ...push(0n), 0xf0]),
      fc.constantFrom([0x5b], [0x59], [0x50], [0x80], [0x5f], [0xfe]),
    );
    const ending = fc.oneof(op(0xf3, [edge, small]), op(0xfd, [small, small]), fc.constant([0x00]), fc.constant<number[]>([]));
    const program = fc.tuple(fc.array(instruction, { minLength: 1, maxLength: 40 }), ending).map(([body, end]) => Uint8Array.from([...body.flat(), ...end]));

    async function execute(code: Uint8Array, gasLimit: bigint, calldata: Uint8Array, pooled: boolean) {
      const evm = await newEvm(pooled);
      await evm.stateManager.putAccount(CONTRACT, new Account(1n, 10n ** 18n));
      await evm.stateManager.putCode(CONTRACT, code);
      return outcome(evm, await evm.runCall({ caller: CALLER, to: CONTRACT, gasLimit, data: calldata }));
    }

    it("random programs (memory at the 8 KiB boundaries, nested calls to itself, creates, reverts, failures): same outcome, gas, refund, return, logs and state root", async () => {
      const before = { ...framePoolStats };
      await fc.assert(
        fc.asyncProperty(program, fc.bigInt({ min: 21_000n, max: 400_000n }), fc.uint8Array({ maxLength: 64 }), async (code, gasLimit, calldata) => {
          const pooled = await execute(code, gasLimit, calldata, true);
          const theirs = await execute(code, gasLimit, calldata, false);
          expect(pooled, bytesToHex(code)).to.deep.equal(theirs);
        }),
        { numRuns: runs(150), seed: SEED },
      );
      expect(framePoolStats.reused - before.reused, "frames on a reused memory").to.be.greaterThan(150);
    });

    it("the test contracts (deploys, token transfers through a vault, forwarded calls, refunds, reverts), at every gas limit around where each call runs out", async () => {
      const pooled = await newEvm(true);
      const theirs = await newEvm(false);
      let nonce = 0n;
      const run = async (evm: EVM, to: Address | undefined, data: Hex, gasLimit: bigint) => {
        if (to === undefined) await evm.stateManager.putAccount(CALLER, new Account(nonce, 10n ** 24n));
        return outcome(evm, await evm.runCall({ caller: CALLER, to, gasLimit, data: hexToBytes(data) }));
      };
      const both = async (to: Address | undefined, data: Hex, gasLimit: bigint) => {
        const ours = await run(pooled, to, data, gasLimit);
        expect(ours, `${to?.toString()} ${data.slice(0, 10)} at ${gasLimit}`).to.deep.equal(await run(theirs, to, data, gasLimit));
        return ours;
      };
      const deploy = async (abi: Abi, bytecode: Hex, args: unknown[] = []) => {
        nonce++;
        const result = await both(undefined, encodeDeployData({ abi, bytecode, args }), 5_000_000n);
        expect(result.error).to.equal(undefined);
        return createAddressFromString(result.created!);
      };
      const counter = await deploy(Counter.abi, Counter.bytecode);
      const forwarder = await deploy(GasForwarder.abi, GasForwarder.bytecode);
      const gate = await deploy(Gate.abi, Gate.bytecode);
      const refund = await deploy(Refund.abi, Refund.bytecode);
      const reverter = await deploy(Reverter.abi, Reverter.bytecode);
      const token = await deploy(Token.abi, Token.bytecode, ["Token", "TOK", 10n ** 24n]);
      const vault = await deploy(Vault.abi, Vault.bytecode);
      const call = (abi: Abi, functionName: string, args: unknown[] = []) => encodeFunctionData({ abi, functionName, args });
      const calls: [Address, Hex][] = [
        [counter, call(Counter.abi, "increment")],
        [counter, call(Counter.abi, "set", [7n])],
        [token, call(Token.abi, "transfer", [vault.toString(), 5n])],
        [token, call(Token.abi, "approve", [vault.toString(), 1000n])],
        [vault, call(Vault.abi, "deposit", [token.toString(), 50n])],
        [forwarder, call(GasForwarder.abi, "forward", [counter.toString(), call(Counter.abi, "increment")])],
        [forwarder, call(GasForwarder.abi, "forward", [reverter.toString(), call(Reverter.abi, "revertWithReason")])],
        [forwarder, call(GasForwarder.abi, "burn", [40n])],
        [gate, call(Gate.abi, "openGate")],
        [gate, call(Gate.abi, "pass")],
        [refund, call(Refund.abi, "clear")],
        [refund, call(Refund.abi, "fill")],
        [refund, call(Refund.abi, "clear")],
        [reverter, call(Reverter.abi, "revertWithReason")],
        [reverter, call(Reverter.abi, "revertWithCustomError")],
        [reverter, call(Reverter.abi, "panic")],
      ];
      for (const [to, data] of calls) {
        const { gasUsed } = await both(to, data, 3_000_000n);
        // Every limit around where it runs out (and, past the EIP-2200 sentry, where an SSTORE may not run).
        for (let gasLimit = gasUsed - 3n; gasLimit <= gasUsed + 3n; gasLimit++) await both(to, data, gasLimit);
        await both(to, data, gasUsed - 2400n > 0n ? gasUsed - 2400n : 1n);
        await both(to, data, gasUsed + 2400n);
      }
    });
  });
});
