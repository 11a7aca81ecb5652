/**
 * KECCAK256, SLOAD, SSTORE and LOG0–LOG4's handlers and SLOAD and SSTORE's gas (src/node/ethereumjs/wordOpcodes.ts) replace
 * @ethereumjs/evm 10.1.3's in each EVM's opcode table. These tests fail when the entries stop being
 * ours, when a word's bytes or a hash's number differ from @ethereumjs/util's, and when any program
 * runs differently on them than on the package's handlers.
 */
import { createRequire } from "node:module";

import { Common, Mainnet } from "@ethereumjs/common";
import { createEVM, EVM } from "@ethereumjs/evm";
import { MerkleStateManager } from "@ethereumjs/statemanager";
import { Account, bigIntToBytes, bytesToBigInt, bytesToHex, createAddressFromString, equalsBytes, setLengthLeft } from "@ethereumjs/util";
import { expect } from "chai";
import fc from "fast-check";

import { evmFile } from "../src/node/ethereumjs/framePool.ts";
import { installInterpreterLoop } from "../src/node/ethereumjs/interpreterLoop.ts";
import { opcodeTableOf } from "../src/node/ethereumjs/opcodeHooks.ts";
import {
  calldataloadOpcode,
  callerOpcode,
  keccak256Opcode,
  logOpcode,
  mloadOpcode,
  numberOf,
  pushOpcode,
  sloadOpcode,
  shortestBytes,
  sstoreOpcode,
  storageWord,
  wordBytes,
  wordOf,
} from "../src/node/ethereumjs/wordOpcodes.ts";
// The engine's opcode hook (JUMP, JUMPI and the calls yield through it): the handlers must run with it.
import "../src/node/execution/evmBudget.ts";

const runs = (base: number) => (process.env.FC_RUNS === undefined ? base : Number(process.env.FC_RUNS));
const SEED = Number(process.env.FC_SEED ?? 20_261_128);
const require = createRequire(import.meta.url);
const MAX_UINT256 = (1n << 256n) - 1n;
// Its leading byte is not zero: CALLER must read all 20.
const CALLER = createAddressFromString("0xc0000000000000000000000000000000000000c0");
const CONTRACT = createAddressFromString("0x00000000000000000000000000000000000000cc");

type Entry = { opHandler: unknown; gasHandler?: unknown };

/** The package's own handlers, of the build `EVM` (this test's import) comes from. */
async function packageHandlers(): Promise<{ handlers: Map<number, unknown>; dynamicGasHandlers: Map<number, unknown> }> {
  const cjs = require(evmFile("cjs", "evm.js")) as { EVM: unknown };
  const load = async (file: string) =>
    (cjs.EVM === EVM ? require(evmFile("cjs", file)) : await import(evmFile("esm", file))) as Record<string, Map<number, unknown>>;
  return { handlers: (await load("opcodes/functions.js")).handlers!, dynamicGasHandlers: (await load("opcodes/gas.js")).dynamicGasHandlers! };
}

const word = fc.oneof(
  fc.constantFrom(0n, 1n, 255n, 256n, MAX_UINT256 >> 192n, (MAX_UINT256 >> 192n) + 1n, 2n ** 128n, 2n ** 255n, MAX_UINT256),
  fc.bigInt({ min: 0n, max: MAX_UINT256 }),
);

describe("KECCAK256 and SLOAD without byte↔bigint round trips (src/node/ethereumjs/wordOpcodes.ts, @ethereumjs/evm 10.1.3)", () => {
  before(() => installInterpreterLoop());

  it("a word's 32 bytes and a hash's number are @ethereumjs/util's", () => {
    fc.assert(
      fc.property(word, (value) => {
        const bytes = wordBytes(value);
        expect(bytesToHex(bytes)).to.equal(bytesToHex(setLengthLeft(bigIntToBytes(value), 32)));
        expect(wordOf(bytes)).to.equal(BigInt(bytesToHex(bytes)));
        // A view into a larger buffer, as a hash may be.
        const larger = new Uint8Array(40);
        larger.set(bytes, 5);
        expect(wordOf(larger.subarray(5, 37))).to.equal(value);
        // The first 32 of more; a number read before leaves nothing behind in the next.
        expect(wordOf(larger.subarray(5))).to.equal(value);
        expect(wordOf(new Uint8Array(32))).to.equal(0n);
      }),
      { numRuns: runs(500), seed: SEED },
    );
    expect(() => wordOf(new Uint8Array(20))).to.throw(RangeError, "wordOf: 20 bytes, not 32");
    // opcodes/util.js's setLengthLeftStorage: empty for zero (of any length), else 32 bytes.
    const setLengthLeftStorage = (value: Uint8Array) => (equalsBytes(value, new Uint8Array(value.length)) ? new Uint8Array(0) : setLengthLeft(value, 32));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 32 }),
          fc.integer({ min: 0, max: 32 }).map((length) => new Uint8Array(length)),
        ),
        (value) => {
          expect(bytesToHex(storageWord(value))).to.equal(bytesToHex(setLengthLeftStorage(value)));
        },
      ),
      { numRuns: runs(500), seed: SEED },
    );
    // A stored value's shortest bytes, as util's bigIntToBytes writes them.
    fc.assert(
      fc.property(
        word.filter((value) => value > 0n),
        (value) => {
          expect(bytesToHex(shortestBytes(value))).to.equal(bytesToHex(bigIntToBytes(value)));
        },
      ),
      { numRuns: runs(500), seed: SEED },
    );
    // Any 0 to 32 bytes (a stored value, an address) as util's bytesToBigInt reads them.
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 32 }), (value) => {
        expect(numberOf(value)).to.equal(bytesToBigInt(value));
      }),
      { numRuns: runs(500), seed: SEED },
    );
  });

  it("every EVM's table holds them (SLOAD's gas too, where EIP-6800 and EIP-7864 are off)", async () => {
    const { dynamicGasHandlers } = await packageHandlers();
    const common = new Common({ chain: Mainnet, hardfork: "osaka" });
    const table = opcodeTableOf(await createEVM({ common })) as unknown as Entry[];
    expect(table[0x20]!.opHandler).to.equal(keccak256Opcode);
    expect(table[0x54]!.opHandler).to.equal(sloadOpcode);
    expect(table[0x54]!.gasHandler).to.not.equal(dynamicGasHandlers.get(0x54));
    expect(table[0x55]!.opHandler).to.equal(sstoreOpcode);
    expect(table[0x55]!.gasHandler).to.not.equal(dynamicGasHandlers.get(0x55));
    expect(table[0x51]!.opHandler).to.equal(mloadOpcode);
    expect(table[0x35]!.opHandler).to.equal(calldataloadOpcode);
    expect(table[0x33]!.opHandler).to.equal(callerOpcode);
    for (let code = 0x60; code <= 0x7f; code++) expect(table[code]!.opHandler).to.equal(pushOpcode);
    for (let code = 0xa0; code <= 0xa4; code++) {
      expect(table[code]!.opHandler).to.equal(logOpcode);
      expect(table[code]!.gasHandler).to.equal(dynamicGasHandlers.get(code));
    }
    const binaryTrees = new Common({ chain: Mainnet, hardfork: "osaka", eips: [7864] });
    // The EVM asks such a state manager for code-chunk witnesses; this one is never run.
    const stateManager = Object.assign(new MerkleStateManager({ common: binaryTrees }), { checkChunkWitnessPresent: async () => true });
    const verkle = opcodeTableOf(await createEVM({ common: binaryTrees, stateManager })) as unknown as Entry[];
    expect(verkle[0x54]!.gasHandler).to.equal(dynamicGasHandlers.get(0x54));
    // PUSH charges code-chunk witness gas there: the package's handler stays.
    expect(verkle[0x60]!.opHandler).to.not.equal(pushOpcode);
    expect(verkle[0x55]!.gasHandler).to.equal(dynamicGasHandlers.get(0x55));
  });

  describe("runs every program as the package's handlers do", () => {
    /** PUSH1 0 for zero rather than PUSH0, which hardforks before Shanghai do not have. */
    const push = (value: bigint) => {
      if (value === 0n) return [0x60, 0x00];
      const bytes = [...Buffer.from(value.toString(16).padStart(Math.ceil(value.toString(16).length / 2) * 2, "0"), "hex")];
      return [0x5f + bytes.length, ...bytes];
    };
    const small = fc.bigInt({ min: 0n, max: 300n });
    const edge = fc.oneof(small, fc.constantFrom(8160n, 8192n, 8193n, 40_000n, 2n ** 32n, MAX_UINT256));
    const key = fc.oneof(fc.bigInt({ min: 0n, max: 4n }), word);
    const op = (code: number, inputs: fc.Arbitrary<bigint>[]) => fc.tuple(...inputs).map((args) => [...args.toReversed().flatMap(push), code]);
    /** Then stores what it pushed in a slot of its own, so that the state root shows it. */
    const kept = (code: number[], slot: bigint) => [...code, ...push(slot), 0x55];
    const slot = fc.bigInt({ min: 100n, max: 120n });
    const instruction = fc.oneof(
      fc.tuple(op(0x20, [edge, edge]), slot).map(([code, at]) => kept(code, at)), // KECCAK256 (from empty to past any gas)
      fc.tuple(op(0x20, [small, small]), slot).map(([code, at]) => kept(code, at)),
      op(0x52, [small, word]), // MSTORE
      fc.tuple(op(0x54, [key]), slot).map(([code, at]) => kept(code, at)), // SLOAD (cold, then warm)
      op(0x55, [key, word]), // SSTORE
      op(0x01, [word, word]),
      fc.tuple(op(0x51, [edge]), slot).map(([code, at]) => kept(code, at)), // MLOAD (at and past the end of memory)
      fc.tuple(op(0x35, [fc.oneof(small, edge)]), slot).map(([code, at]) => kept(code, at)), // CALLDATALOAD (whole, partial and past the calldata)
      slot.map((at) => kept([0x33], at)), // CALLER (the contract calling itself, below, or the caller)
      // LOG0–LOG4 of memory at and past its end, with word topics (and in the static frame below, refused).
      fc.integer({ min: 0, max: 4 }).chain((count) => op(0xa0 + count, [small, edge, ...Array.from({ length: count }, () => word)])),
      // STATICCALL to itself with some or all of its gas (GAS): SLOAD in a nested frame, and SSTORE where it may not write.
      fc
        .tuple(small, fc.oneof(small, fc.constant(-1n)))
        .map(([inLength, gas]) => [...[0n, 0n, inLength, 0n, 0xccn].flatMap(push), ...(gas === -1n ? [0x5a] : push(gas)), 0xfa]),
      fc.constantFrom([0x5a], [0x50], [0x80]),
    );
    const program = fc
      .array(instruction, { minLength: 1, maxLength: 40 })
      .map((body) => Uint8Array.from([...body.flat(), 0x59, 0x60, 0x00, 0x52, 0x59, 0x60, 0x00, 0xf3]));

    /** 45 bytes: a load at 0 is whole, at 13 partial, at 45 and beyond zero. */
    const CALLDATA = Uint8Array.from({ length: 45 }, (_, i) => (i * 37 + 11) & 0xff);
    const hardforks = ["constantinople", "petersburg", "istanbul", "berlin", "london", "cancun", "osaka"] as const;

    async function execute(code: Uint8Array, gasLimit: bigint, ours: boolean, hardfork: (typeof hardforks)[number] = "osaka") {
      const common = new Common({ chain: Mainnet, hardfork });
      const evm = await createEVM({ common, stateManager: new MerkleStateManager({ common }) });
      if (!ours) {
        const { handlers, dynamicGasHandlers } = await packageHandlers();
        const table = opcodeTableOf(evm) as unknown as Entry[];
        for (const op of [0x20, 0x33, 0x35, 0x51, 0x54, 0x55, 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, ...Array.from({ length: 32 }, (_, i) => 0x60 + i)]) {
          table[op]!.opHandler = handlers.get(op);
          table[op]!.gasHandler = dynamicGasHandlers.get(op);
        }
      }
      await evm.stateManager.putAccount(CALLER, new Account(0n, 10n ** 18n));
      await evm.stateManager.putAccount(CONTRACT, new Account(1n, 10n ** 18n));
      await evm.stateManager.putCode(CONTRACT, code);
      for (let slot = 0n; slot < 3n; slot++) await evm.stateManager.putStorage(CONTRACT, wordBytes(slot), bigIntToBytes(slot * 1000n + 7n));
      const result = await evm.runCall({ caller: CALLER, to: CONTRACT, gasLimit, data: CALLDATA });
      const exec = result.execResult;
      await evm.stateManager.checkpoint();
      await evm.stateManager.commit();
      return {
        error: exec.exceptionError?.error,
        gasUsed: exec.executionGasUsed,
        refund: exec.gasRefund,
        returned: bytesToHex(exec.returnValue),
        logs: (exec.logs ?? []).map((log) => log.map((part) => (part instanceof Uint8Array ? bytesToHex(part) : part.map((topic) => bytesToHex(topic))))),
        root: bytesToHex(await evm.stateManager.getStateRoot()),
      };
    }

    it("random programs (hashes of memory at and past its end, logs, memory and calldata loads, the caller, cold and warm loads, stores that set, reset, clear and restore slots, nested frames, out of gas), under every hardfork from Constantinople: same outcome, gas, refund, return and state root", async () => {
      await fc.assert(
        fc.asyncProperty(program, fc.bigInt({ min: 21_000n, max: 300_000n }), fc.constantFrom(...hardforks), async (code, gasLimit, hardfork) => {
          expect(await execute(code, gasLimit, true, hardfork), `${hardfork} ${bytesToHex(code)}`).to.deep.equal(
            await execute(code, gasLimit, false, hardfork),
          );
        }),
        { numRuns: runs(200), seed: SEED },
      );
    });

    it("calldata loads whole, partial, at and past the end, and the caller: the package's words", async () => {
      const offsets = [0n, 1n, 13n, 31n, 44n, 45n, 46n, 1000n, MAX_UINT256];
      const code = Uint8Array.from([
        ...offsets.flatMap((offset, i) => [...push(offset), 0x35, ...push(200n + BigInt(i)), 0x55]),
        0x33,
        ...push(250n),
        0x55,
        0x00,
      ]);
      const ours = await execute(code, 1_000_000n, true);
      expect(ours.error).to.equal(undefined);
      expect(ours).to.deep.equal(await execute(code, 1_000_000n, false));
    });

    it("pushes of every width, read from the code and from the analysis a jump makes: the package's words", async () => {
      const pushes = (salt: number) =>
        Array.from({ length: 32 }, (_, i) => [
          0x60 + i,
          ...Array.from({ length: i + 1 }, (_, j) => (j * 53 + i * 7 + salt) & 0xff),
          ...push(300n + BigInt(i)),
          0x55,
        ]).flat();
      // Before any jump the immediates are read from the code; after the first, from the analysis.
      const before = pushes(1);
      const target = before.length + 4;
      const code = Uint8Array.from([...before, 0x61, target >> 8, target & 0xff, 0x56, 0x5b, ...pushes(2), 0x00]);
      expect(code[target]).to.equal(0x5b);
      const ours = await execute(code, 3_000_000n, true);
      expect(ours.error).to.equal(undefined);
      expect(ours).to.deep.equal(await execute(code, 3_000_000n, false));
    });

    it("stores at every gas limit around EIP-2200's sentry and around where they run out, under every hardfork", async () => {
      // SSTORE(1, 5); SSTORE(1, 0); SSTORE(0, 0); SSTORE(2, 2) (slots 0-2 hold 7, 1007, 2007): set, clear back, clear, reset.
      const code = Uint8Array.from([...[5n, 1n, 0n, 1n, 0n, 0n, 2n, 2n].flatMap((value, at) => [...push(value), ...(at % 2 === 1 ? [0x55] : [])])]);
      for (const hardfork of hardforks) {
        const { gasUsed } = await execute(code, 1_000_000n, false, hardfork);
        const limits = [...Array.from({ length: 24 }, (_, at) => 2290n + BigInt(at)), ...Array.from({ length: 11 }, (_, at) => gasUsed - 5n + BigInt(at))];
        for (const gasLimit of limits) {
          expect(await execute(code, gasLimit, true, hardfork), `${hardfork} at ${gasLimit}`).to.deep.equal(await execute(code, gasLimit, false, hardfork));
        }
      }
    });
  });
});
