/**
 * The interpreter loop without a promise per opcode (src/node/ethereumjs/interpreterLoop.ts) is a
 * patch of @ethereumjs/evm 10.1.3's `Interpreter.run`. These tests fail when an upgrade moves what it
 * patches, when one of its synchronous gas formulas stops matching the package's handler, or when
 * any program runs differently on it than on the package's own loop.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

import { Common, Mainnet } from "@ethereumjs/common";
import { createEVM } from "@ethereumjs/evm";
import { MerkleStateManager } from "@ethereumjs/statemanager";
import { Account, bytesToHex, createAddressFromString } from "@ethereumjs/util";
import { expect } from "chai";
import fc from "fast-check";

import { installInterpreterLoop, interpreterLoopStats, syncGasHandlers } from "../src/node/ethereumjs/interpreterLoop.ts";
import { interpreterModules } from "../src/node/ethereumjs/jumpAnalysis.ts";
// The engine's opcode hook (JUMP, JUMPI and the calls yield through it): the loop must run with it.
import "../src/node/execution/evmBudget.ts";

import type { EVM } from "@ethereumjs/evm";
import type { RunState } from "../src/node/ethereumjs/interpreterLoop.ts";

const runs = (base: number) => (process.env.FC_RUNS === undefined ? base : Number(process.env.FC_RUNS));
const SEED = Number(process.env.FC_SEED ?? 20_261_125);
const require = createRequire(import.meta.url);

/** dist/esm/<path> of @ethereumjs/evm (files its `exports` do not list). */
async function evmFile<T>(path: string): Promise<T> {
  const dist = dirname(dirname(interpreterModules().cjs));
  return (await import(pathToFileURL(join(dist, "esm", path)).href)) as T;
}

interface StackClass {
  new (): { push(value: bigint): void; length: number; peek(count?: number): bigint[] };
}
type PackageGasHandler = (runState: RunState, gas: bigint, common: Common) => Promise<bigint>;

const MAX_UINT256 = (1n << 256n) - 1n;

describe("the interpreter loop (src/node/ethereumjs/interpreterLoop.ts, @ethereumjs/evm 10.1.3)", () => {
  before(() => installInterpreterLoop());

  it("patches Interpreter.run in both builds, beside their opcodes/util.js helpers (the CommonJS one once loaded)", async () => {
    const { esm, cjs } = interpreterModules();
    type Module = { Interpreter: { prototype: { run: { name: string } } } };
    const commonJs = require(cjs) as Module;
    // A new chain installs again; by then the process has loaded the CommonJS build.
    await installInterpreterLoop();
    for (const { Interpreter } of [(await import(esm)) as Module, commonJs]) {
      // The package's method is named; the patch is an anonymous function.
      expect(Interpreter.prototype.run.name).to.equal("");
    }
    const util = await evmFile<Record<string, unknown>>("opcodes/util.js");
    for (const name of ["subMemUsage", "divCeil", "trap"]) expect(util[name], name).to.be.a("function");
  });

  it("computes every synchronous dynamic gas exactly as the package's handler, memory bookkeeping and errors included", async () => {
    const { dynamicGasHandlers } = await evmFile<{ dynamicGasHandlers: Map<number, PackageGasHandler> }>("opcodes/gas.js");
    const { Stack } = await evmFile<{ Stack: StackClass }>("stack.js");
    const util = await evmFile<Parameters<typeof syncGasHandlers>[0]>("opcodes/util.js");
    const ours = syncGasHandlers(util);
    const common = new Common({ chain: Mainnet, hardfork: "osaka" });
    expect([...ours.keys()].every((op) => dynamicGasHandlers.has(op))).to.equal(true);

    // Offsets and lengths from empty to huge: memory growth, no growth, and costs beyond any gas.
    const word = fc.oneof(
      fc.constantFrom(0n, 1n, 31n, 32n, 33n, 64n, 1024n, 2n ** 32n, 2n ** 64n, MAX_UINT256),
      fc.bigInt({ min: 0n, max: 20_000n }),
      fc.bigInt({ min: 0n, max: MAX_UINT256 }),
    );
    const state = fc.record({
      op: fc.constantFrom(...ours.keys()),
      stack: fc.array(word, { minLength: 0, maxLength: 8 }),
      memoryWords: fc.bigInt({ min: 0n, max: 2000n }),
      isStatic: fc.boolean(),
      returnDataSize: fc.bigInt({ min: 0n, max: 300n }),
      baseGas: fc.bigInt({ min: 0n, max: 100n }),
    });
    const runStateOf = (input: { op: number; stack: bigint[]; memoryWords: bigint; isStatic: boolean; returnDataSize: bigint }) => {
      const stack = new Stack();
      for (const value of input.stack) stack.push(value);
      const words = input.memoryWords;
      return {
        opCode: input.op,
        stack,
        memoryWordCount: words,
        highestMemCost: words * 3n + (words * words) / 512n,
        env: { eof: undefined },
        interpreter: { isStatic: () => input.isStatic, getReturnDataSize: () => input.returnDataSize },
      } as unknown as RunState;
    };
    const outcome = async (compute: () => Promise<bigint> | bigint, runState: RunState) => {
      try {
        return { gas: await compute(), words: runState.memoryWordCount, highest: runState.highestMemCost };
      } catch (error) {
        return { error: (error as { error?: string; message: string }).error ?? (error as Error).message };
      }
    };
    await fc.assert(
      fc.asyncProperty(state, async (input) => {
        const theirs = runStateOf(input);
        const mine = runStateOf(input);
        const expected = await outcome(() => dynamicGasHandlers.get(input.op)!(theirs, input.baseGas, common), theirs);
        const actual = await outcome(() => ours.get(input.op)!(mine, input.baseGas, common), mine);
        expect(actual, `opcode 0x${input.op.toString(16)}`).to.deep.equal(expected);
      }),
      { numRuns: runs(3000), seed: SEED },
    );
  });

  describe("runs every program as the package's loop does", () => {
    const CALLER = createAddressFromString("0x00000000000000000000000000000000000000c0");
    const CONTRACT = createAddressFromString("0x00000000000000000000000000000000000000cc");

    /** A program that does something before it fails: each instruction's inputs are pushed right before it. */
    const push = (value: bigint) => {
      const bytes = value === 0n ? [0] : [...Buffer.from(value.toString(16).padStart(Math.ceil(value.toString(16).length / 2) * 2, "0"), "hex")];
      return [0x5f + bytes.length, ...bytes];
    };
    const small = fc.bigInt({ min: 0n, max: 300n });
    const value = fc.oneof(small, fc.bigInt({ min: 0n, max: MAX_UINT256 }), fc.constantFrom(0n, 1n, 32n, 2n ** 255n, MAX_UINT256));
    const op = (code: number, inputs: fc.Arbitrary<bigint>[]) => fc.tuple(...inputs).map((args) => [...args.toReversed().flatMap(push), code]);
    const instruction = fc.oneof(
      ...[0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x0b, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16, 0x17, 0x18, 0x1a, 0x1b, 0x1c, 0x1d].map((code) =>
        op(code, [value, value]),
      ),
      op(0x0a, [value, fc.oneof(small, value)]), // EXP
      op(0x08, [value, value, value]), // ADDMOD
      op(0x15, [value]), // ISZERO
      op(0x19, [value]), // NOT
      op(0x20, [small, small]), // KECCAK256
      op(0x35, [small]), // CALLDATALOAD
      op(0x37, [small, small, small]), // CALLDATACOPY
      op(0x39, [small, small, small]), // CODECOPY
      op(0x3e, [small, small, small]), // RETURNDATACOPY
      op(0x51, [small]), // MLOAD
      op(0x52, [small, value]), // MSTORE
      op(0x53, [small, value]), // MSTORE8
      op(0x54, [small]), // SLOAD
      op(0x55, [small, value]), // SSTORE
      op(0x5e, [small, small, small]), // MCOPY
      op(0x5c, [small]), // TLOAD
      op(0x5d, [small, value]), // TSTORE
      op(0x56, [small]), // JUMP
      op(0x57, [small, value]), // JUMPI
      ...[0xa0, 0xa1, 0xa2, 0xa3, 0xa4].map((code) => op(code, [small, small, ...Array.from({ length: code - 0xa0 }, () => value)])), // LOG0-4
      // CALL / STATICCALL to the identity precompile, to itself and to an empty account, with GAS or a constant as gas.
      fc
        .tuple(fc.constantFrom(0xf1, 0xfa), fc.constantFrom(4n, 0xccn, 0xddn), small, small, small, small, fc.oneof(small, fc.constant(-1n)))
        .map(([code, to, inOffset, inLength, outOffset, outLength, gas]) => [
          ...[outLength, outOffset, inLength, inOffset].flatMap(push),
          ...(code === 0xf1 ? push(0n) : []),
          ...push(to),
          ...(gas === -1n ? [0x5a] : push(gas)),
          code,
        ]),
      fc.constantFrom([0x5b], [0x5a], [0x58], [0x59], [0x30], [0x33], [0x34], [0x36], [0x38], [0x3d], [0x50], [0x80], [0x90], [0x91], [0x5f], [0xfe], [0x0c]),
    );
    const ending = fc.oneof(op(0xf3, [small, small]), op(0xfd, [small, small]), fc.constant([0x00]), fc.constant<number[]>([]));
    const program = fc.tuple(fc.array(instruction, { minLength: 1, maxLength: 40 }), ending).map(([body, end]) => Uint8Array.from([...body.flat(), ...end]));

    async function execute(code: Uint8Array, gasLimit: bigint, calldata: Uint8Array, packageLoop: boolean) {
      const common = new Common({ chain: Mainnet, hardfork: "osaka" });
      const evm: EVM = await createEVM({ common, stateManager: new MerkleStateManager({ common }) });
      await evm.stateManager.putAccount(CALLER, new Account(0n, 10n ** 18n));
      await evm.stateManager.putAccount(CONTRACT, new Account(1n, 10n ** 18n));
      await evm.stateManager.putCode(CONTRACT, code);
      // A `step` listener makes the package's loop run (it emits the events); the patch steps aside.
      const listener = () => {};
      if (packageLoop) evm.events!.on("step", listener);
      const before = { ...interpreterLoopStats };
      const result = await evm.runCall({ caller: CALLER, to: CONTRACT, gasLimit, data: calldata });
      expect(interpreterLoopStats.fast > before.fast, "which loop ran").to.equal(!packageLoop);
      const exec = result.execResult;
      await evm.stateManager.checkpoint();
      await evm.stateManager.commit();
      return {
        error: exec.exceptionError?.error,
        gasUsed: exec.executionGasUsed,
        refund: exec.gasRefund,
        returned: bytesToHex(exec.returnValue),
        logs: exec.logs?.map(([address, topics, data]) => [bytesToHex(address), topics.map((topic) => bytesToHex(topic)), bytesToHex(data)]),
        root: bytesToHex(await evm.stateManager.getStateRoot()),
      };
    }

    it("random programs (arithmetic, memory, storage, jumps, logs, calls, GAS, failures): same outcome, gas, refund, return, logs and state root", async () => {
      await fc.assert(
        fc.asyncProperty(program, fc.bigInt({ min: 21_000n, max: 400_000n }), fc.uint8Array({ maxLength: 64 }), async (code, gasLimit, calldata) => {
          const ours = await execute(code, gasLimit, calldata, false);
          const theirs = await execute(code, gasLimit, calldata, true);
          expect(ours, bytesToHex(code)).to.deep.equal(theirs);
        }),
        { numRuns: runs(120), seed: SEED },
      );
    });

    it("ends frames at STOP, RETURN and REVERT without the package's throw, as the package's loop ends them", async () => {
      const before = interpreterLoopStats.halts;
      // MSTORE(0, 0xab); then STOP, RETURN(31, 2) or REVERT(30, 2); and the same with too little gas, and with RETURN on an empty stack.
      const store = [0x60, 0xab, 0x5f, 0x52];
      for (const end of [[0x00], [0x60, 0x02, 0x60, 0x1f, 0xf3], [0x60, 0x02, 0x60, 0x1e, 0xfd], [0xf3], [0x60, 0x00, 0x60, 0x00, 0xf3]]) {
        const code = Uint8Array.from([...store, ...end]);
        for (const gasLimit of [21_000n, 21_015n, 21_020n]) {
          expect(await execute(code, gasLimit, new Uint8Array(), false), bytesToHex(code)).to.deep.equal(await execute(code, gasLimit, new Uint8Array(), true));
        }
      }
      expect(interpreterLoopStats.halts - before).to.be.greaterThan(6);
    });

    it("counts gas in a number below 2^53 and in a bigint from there, with the same outcomes", async () => {
      // GAS, stored; a memory expansion far past any gas (MLOAD at 2^60); a CALL of the identity precompile with all its gas
      // (GAS as the call's gas), then GAS returned.
      const programs = [
        Uint8Array.of(0x5a, 0x5f, 0x55, 0x5a, 0x5f, 0x52, 0x60, 0x20, 0x5f, 0xf3),
        Uint8Array.of(0x67, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x51, 0x00),
        Uint8Array.of(0x5f, 0x5f, 0x5f, 0x5f, 0x5f, 0x60, 0x04, 0x5a, 0xf1, 0x5a, 0x5f, 0x52, 0x60, 0x20, 0x5f, 0xf3),
      ];
      for (const code of programs) {
        for (const gasLimit of [21_100n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 21_000n, 2n ** 64n]) {
          const before = interpreterLoopStats.numericGas;
          const ours = await execute(code, gasLimit, new Uint8Array(), false);
          expect(interpreterLoopStats.numericGas > before, `numeric at ${gasLimit}`).to.equal(gasLimit < 2n ** 53n);
          expect(ours, `${bytesToHex(code)} at ${gasLimit}`).to.deep.equal(await execute(code, gasLimit, new Uint8Array(), true));
        }
      }
    });

    it("CREATE and CREATE2 with the gas counted in a number: the child's gas charged to the frame, GAS after it", async () => {
      // Init code GAS PUSH0 SSTORE STOP (4 bytes, stored at 28..31), created by CREATE or CREATE2 (salt 0); then GAS returned.
      const programs = [
        Uint8Array.of(0x63, 0x5a, 0x5f, 0x55, 0x00, 0x5f, 0x52, 0x60, 0x04, 0x60, 0x1c, 0x5f, 0xf0, 0x5a, 0x5f, 0x52, 0x60, 0x20, 0x5f, 0xf3),
        Uint8Array.of(0x63, 0x5a, 0x5f, 0x55, 0x00, 0x5f, 0x52, 0x5f, 0x60, 0x04, 0x60, 0x1c, 0x5f, 0xf5, 0x5a, 0x5f, 0x52, 0x60, 0x20, 0x5f, 0xf3),
      ];
      for (const code of programs) {
        for (const gasLimit of [60_000n, 100_000n, 1_000_000n]) {
          const before = interpreterLoopStats.numericGas;
          const ours = await execute(code, gasLimit, new Uint8Array(), false);
          expect(interpreterLoopStats.numericGas - before, "both frames").to.equal(2);
          expect(ours, `${bytesToHex(code)} at ${gasLimit}`).to.deep.equal(await execute(code, gasLimit, new Uint8Array(), true));
        }
      }
    });

    it("a loop that runs until its gas is gone, and one that jumps into push data", async () => {
      // JUMPDEST; PUSH1 0; JUMP: forever.
      const forever = Uint8Array.of(0x5b, 0x60, 0x00, 0x56);
      expect(await execute(forever, 1_000_000n, new Uint8Array(), false)).to.deep.equal(await execute(forever, 1_000_000n, new Uint8Array(), true));
      // PUSH1 3; JUMP; PUSH1 0x5b (a JUMPDEST byte inside push data).
      const intoPushData = Uint8Array.of(0x60, 0x04, 0x56, 0x60, 0x5b);
      const outcome = await execute(intoPushData, 100_000n, new Uint8Array(), false);
      expect(outcome.error).to.match(/^invalid JUMP at /);
      expect(outcome).to.deep.equal(await execute(intoPushData, 100_000n, new Uint8Array(), true));
    });
  });
});
