/**
 * Dry runs without runTx's bookkeeping (src/node/ethereumjs/leanDryRun.ts) must answer exactly as
 * runTx does: every call here runs three times on the same state (lean, through runTx, lean
 * again) and the return data, error, gas used before and after the refund, refund, amount spent,
 * created address and logs must agree, as must any error thrown. Random programs cover transfers,
 * reverts, INVALID, out of gas at many limits, SSTORE refunds, CREATE, nested calls with value,
 * precompiles, logs, and reads of what runTx sets up (the sender's balance after the gas is bought,
 * GASPRICE, ORIGIN, warm and cold accounts); requests vary the sender (funded, empty, a contract),
 * gas limit (below the intrinsic gas too), fee fields (none, legacy, EIP-1559, below the base
 * fee), value (above the balance too), access lists, calldata and `ignoreBalance`.
 */
import { createBlock } from "@ethereumjs/block";
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { bytesToHex } from "@ethereumjs/util";
import { createVM } from "@ethereumjs/vm";
import { expect } from "chai";
import fc from "fast-check";

import { callBlock, dryRun } from "../src/node/execution/dryRun.ts";
import { leanDryRunStats } from "../src/node/ethereumjs/leanDryRun.ts";
import { createTestChain } from "./helpers/chain.ts";

import type { Hex } from "viem";
import type { PreconfProvider } from "../src/index.ts";
import type { CallRequest } from "../src/node/common/types.ts";
import type { DryRun } from "../src/node/execution/dryRun.ts";

const runs = (base: number) => (process.env.FC_RUNS === undefined ? base : Number(process.env.FC_RUNS));
const SEED = Number(process.env.FC_SEED ?? 20_261_128);

const push = (value: bigint | number): number[] => {
  const big = BigInt(value);
  if (big === 0n) return [0x5f];
  const hex = big.toString(16);
  const bytes = [...Buffer.from(hex.length % 2 === 0 ? hex : `0${hex}`, "hex")];
  return [0x5f + bytes.length, ...bytes];
};
const code = (...parts: (number | number[])[]) => bytesToHex(Uint8Array.from(parts.flat())) as Hex;
const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}` as Hex;
/** CALL(gas, to, value, in 0..32, out 0..32), the success flag dropped; `gas` undefined forwards GAS. */
const call = (to: Hex | bigint, gas?: bigint, value = 0n) => [
  ...push(32),
  ...push(0),
  ...push(32),
  ...push(0),
  ...push(value),
  ...push(BigInt(to)),
  ...(gas === undefined ? [0x5a] : push(gas)),
  0xf1,
  0x50,
];
const POP = 0x50;
/** Pushes a word and stores it at memory 0, so a revert or return has data that depends on it. */
const remember = (op: number[]) => [...op, ...push(0), 0x52];
const RETURN_WORD = [...push(32), ...push(0), 0xf3];
const REVERT_WORD = [...push(32), ...push(0), 0xfd];

/** The outcome of one dry run: every figure a caller reads, or the error thrown. */
function outcome(run: DryRun) {
  const { result } = run;
  const exec = result.execResult;
  return {
    returnValue: bytesToHex(exec.returnValue),
    error: exec.exceptionError?.error,
    executionGasUsed: exec.executionGasUsed,
    execRefund: exec.gasRefund,
    gasRefund: result.gasRefund,
    totalGasSpent: result.totalGasSpent,
    amountSpent: result.amountSpent,
    peakGasUsed: run.peakGasUsed,
    gasLimit: run.gasLimit,
    createdAddress: result.createdAddress?.toString(),
    logs: (exec.logs ?? []).map(([at, topics, data]) => [bytesToHex(at), topics.map((topic) => bytesToHex(topic)), bytesToHex(data)]),
  };
}

describe("lean dry runs: the same answers as runTx", () => {
  let provider: PreconfProvider;
  const request = (method: string, params: unknown[] = []) => provider.request({ method, params });

  afterEach(() => provider.close());

  /** The call run lean, through runTx, and lean again on the same state: the three outcomes. */
  async function threeWays(callRequest: CallRequest, gasLimit: bigint, ignoreBalance: boolean) {
    const resolved = provider.chain.resolve({ kind: "tag", tag: "latest" })!;
    return provider.chain.withState(resolved, async (vm) => {
      const block = callBlock(resolved.kind === "sealed" ? resolved.sealed.block : resolved.open.executionBlock, callRequest);
      const once = async (viaRunTx: boolean) => {
        try {
          return outcome(await dryRun(vm, callRequest, block, gasLimit, { ignoreBalance, viaRunTx }));
        } catch (error) {
          const { name, message, data } = error as Error & { data?: unknown };
          return { thrown: { name, message, data } };
        }
      };
      return [await once(false), await once(true), await once(false)];
    });
  }

  for (const hardfork of ["osaka", "prague", "cancun", "shanghai", "paris"] as const) {
    it(`random calls on ${hardfork}: return data, gas, refunds, logs and errors agree`, async () => {
      ({ provider } = await createTestChain({ rpcEvmTimeoutMs: 0, hardfork }));
      const funded = provider.accounts[0]!.address.toLowerCase() as Hex;
      const poor = address(0xbeef01);
      const [TARGET, CALLEE] = [address(0xca11), address(0xca1e)];
      await request("hardhat_setBalance", [poor, "0x3b9aca00"]); // 1 gwei × 1e9: short of most upfront costs
      await request("hardhat_setBalance", [TARGET, "0x100000"]);
      await request("hardhat_setCode", [CALLEE, code(...push(1), ...push(7), 0x55, ...push(9), 0x54, ...push(0), 0x52, ...RETURN_WORD)]);

      const slot = fc.integer({ min: 0, max: 6 });
      const step = fc.oneof<fc.Arbitrary<number[]>[]>(
        fc.tuple(slot, fc.integer({ min: 0, max: 2 })).map(([at, value]) => [...push(value), ...push(at), 0x55]), // SSTORE (0: a refund)
        slot.map((at) => [...push(at), 0x54, POP]), // SLOAD
        fc.constant([...push(64), ...push(0), 0xa0]), // LOG0
        fc.constant([...push(0x1234), ...push(32), ...push(0), 0xa1]), // LOG1
        fc.constant(remember([0x32, 0x31])), // BALANCE(ORIGIN): the sender after the gas is bought
        fc.constant(remember([0x3a])), // GASPRICE
        fc.constant(remember([0x47])), // SELFBALANCE
        fc.constant(remember([0x5a])), // GAS
        fc.constant(remember([0x41, 0x31])), // BALANCE(COINBASE): warm from Shanghai (EIP-3651)
        fc.constant(remember([...push(0xdead), 0x3b])), // EXTCODESIZE of a cold account
        fc.constant(call(CALLEE)),
        fc.constant(call(CALLEE, 5000n, 1n)), // with value: the stipend
        fc.integer({ min: 1, max: 9 }).map((precompile) => call(BigInt(precompile), 3000n)),
        fc.constant([...push(BigInt("0x6001600055600060005360016000f3")), ...push(0), 0x52, ...push(15), ...push(17), ...push(0), 0xf0, POP]), // CREATE
        fc.constant(REVERT_WORD),
        fc.constant([0xfe]), // INVALID
      );
      const program = fc.array(step, { maxLength: 7 }).map((steps) => code(...steps, ...RETURN_WORD));
      const accessList = fc.constantFrom<CallRequest["accessList"]>(
        undefined,
        [],
        [{ address: CALLEE, storageKeys: [`0x${"0".repeat(63)}9` as Hex] }],
        [{ address: TARGET, storageKeys: [] }],
        // A precompile with a slot: an always-warm slot at an address the lean path also warms as a precompile.
        [{ address: "0x0000000000000000000000000000000000000001", storageKeys: [`0x${"0".repeat(63)}7` as Hex] }],
      );
      const fees = fc.constantFrom<Partial<CallRequest>>(
        {},
        { gasPrice: 1n },
        { gasPrice: 2_000_000_000n },
        { maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 1n },
        { maxFeePerGas: 1n }, // below the base fee
        { maxPriorityFeePerGas: 5n },
      );
      const calldata = fc.uint8Array({ maxLength: 40 });
      const from = fc.constantFrom<Hex | undefined>(funded, funded, poor, TARGET, undefined);
      const value = fc.constantFrom(0n, 0n, 0n, 1n, 10n ** 30n);
      const gasLimit = fc.oneof(fc.integer({ min: 20_000, max: 60_000 }), fc.integer({ min: 60_000, max: 400_000 }), fc.constant(1_000_000)).map(BigInt);
      const create = fc.boolean();

      const before = { ...leanDryRunStats };
      await fc.assert(
        fc.asyncProperty(
          program,
          fc.record({ accessList, fees, calldata, from, value, gasLimit, create, ignoreBalance: fc.boolean() }),
          async (runtime, pick) => {
            await request("hardhat_setCode", [TARGET, runtime]);
            const callRequest: CallRequest = {
              ...(pick.from !== undefined && { from: pick.from }),
              ...(pick.create ? {} : { to: TARGET }),
              data: pick.create ? Buffer.from(runtime.slice(2), "hex") : pick.calldata,
              value: pick.value,
              ...pick.fees,
              ...(pick.accessList !== undefined && { accessList: pick.accessList }),
            };
            const [lean, full, again] = await threeWays(callRequest, pick.gasLimit, pick.ignoreBalance);
            expect(lean, "lean against runTx").to.deep.equal(full);
            expect(again, "lean again, after both").to.deep.equal(full);
          },
        ),
        { numRuns: runs(120), seed: SEED },
      );
      // Many runs take the lean path (the rest are runTx's rejections, answered by runTx, or fail before it).
      expect(leanDryRunStats.lean - before.lean).to.be.greaterThan(80);
    });
  }

  it("self-transfers, value to a precompile, SELFDESTRUCT, the coinbase and 7702-delegated accounts as sender or target: same answers, nothing left behind", async () => {
    ({ provider } = await createTestChain({ rpcEvmTimeoutMs: 0, hardfork: "prague" }));
    const from = provider.accounts[0]!.address.toLowerCase() as Hex;
    const coinbase = ((await request("eth_coinbase")) as Hex).toLowerCase() as Hex;
    const [TARGET, CALLEE, DELEGATED, DESTROY] = [address(0xca11), address(0xca1e), address(0xde1e), address(0xde57)];
    await request("hardhat_setBalance", [coinbase, "0x1000000000000000000"]);
    await request("hardhat_setBalance", [DESTROY, "0x1000"]);
    await request("hardhat_setCode", [CALLEE, code(...push(1), ...push(7), 0x55, ...remember([0x32, 0x31]), ...RETURN_WORD)]);
    await request("hardhat_setCode", [DELEGATED, `0xef0100${CALLEE.slice(2)}`]);
    await request("hardhat_setCode", [DESTROY, code(...push(BigInt(coinbase)), 0xff)]);
    await request("hardhat_setCode", [TARGET, code(...call(DESTROY), ...call(DELEGATED, undefined, 1n), ...remember([0x41, 0x31]), ...RETURN_WORD)]);
    const watched = [from, coinbase, TARGET, CALLEE, DELEGATED, DESTROY, address(4)];
    const state = () =>
      Promise.all(
        watched.flatMap((at) => [
          request("eth_getBalance", [at, "latest"]),
          request("eth_getTransactionCount", [at, "latest"]),
          request("eth_getCode", [at, "latest"]),
          request("eth_getStorageAt", [at, "0x7", "latest"]),
        ]),
      );
    const before = await state();
    const stats = { ...leanDryRunStats };
    const requests: CallRequest[] = [
      { from, to: from, value: 1n },
      { from, to: address(4), value: 5n, data: Uint8Array.of(1, 2, 3) },
      { from, to: DESTROY },
      { from, to: TARGET, value: 3n },
      { from: coinbase, to: TARGET, gasPrice: 2_000_000_000n },
      { from, to: DELEGATED, value: 1n, maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 2n },
      { from: DELEGATED, to: TARGET, value: 10n ** 30n },
      { from: DELEGATED, data: Buffer.from(code(...push(0), ...push(0), 0xf3).slice(2), "hex") },
    ];
    for (const callRequest of requests) {
      for (const ignoreBalance of [false, true]) {
        for (const gas of [21_000n, 21_100n, 60_000n, 200_000n]) {
          const [lean, full, again] = await threeWays(callRequest, gas, ignoreBalance);
          expect(lean, `${JSON.stringify(callRequest, (_, v) => (typeof v === "bigint" ? v.toString() : v))} at ${gas}`).to.deep.equal(full);
          expect(again).to.deep.equal(full);
        }
      }
    }
    expect(await state(), "every write reverted").to.deep.equal(before);
    expect(leanDryRunStats.lean - stats.lean, "most runs lean").to.be.greaterThan(40);
  });

  it("a fork scheduled at a timestamp: the lean path follows the Common's new EIPs (EIP-7623's floor from Prague)", async () => {
    ({ provider } = await createTestChain({ rpcEvmTimeoutMs: 0, hardfork: "cancun", forkSchedule: { prague: { timestamp: 4_000_000_000 } } }));
    const from = provider.accounts[0]!.address.toLowerCase() as Hex;
    const callRequest: CallRequest = { from, to: address(0xca11), data: new Uint8Array(400).fill(7) };
    const [cancun, cancunFull] = await threeWays(callRequest, 100_000n, false);
    expect(cancun).to.deep.equal(cancunFull);
    await request("evm_setNextBlockTimestamp", [4_000_000_000]);
    await request("evm_mine");
    const [prague, pragueFull] = await threeWays(callRequest, 100_000n, false);
    expect(prague).to.deep.equal(pragueFull);
    expect((prague as { totalGasSpent: bigint }).totalGasSpent, "the calldata floor applies").to.be.greaterThan(
      (cancun as { totalGasSpent: bigint }).totalGasSpent,
    );
  });

  it("out of gas at every limit around an ERC-20-like path, and an EIP-7702 call through runTx", async () => {
    ({ provider } = await createTestChain({ rpcEvmTimeoutMs: 0 }));
    const TARGET = address(0xca11);
    const from = provider.accounts[0]!.address.toLowerCase() as Hex;
    await request("hardhat_setCode", [TARGET, code(...push(1), ...push(3), 0x55, ...push(0), ...push(3), 0x55, ...push(64), ...push(0), 0xa0, ...RETURN_WORD)]);
    for (let gas = 21_000n; gas < 80_000n; gas += 997n) {
      const [lean, full] = await threeWays({ from, to: TARGET, data: Uint8Array.of(1, 0, 2) }, gas, false);
      expect(lean, `gas ${gas}`).to.deep.equal(full);
    }
    const before = { ...leanDryRunStats };
    const authorization = { chainId: 1n, address: TARGET, nonce: 0n, yParity: 0n, r: 1n, s: 1n };
    const [lean, full] = await threeWays({ from, to: TARGET, authorizationList: [authorization] }, 100_000n, false);
    expect(lean).to.deep.equal(full);
    expect(leanDryRunStats.lean, "a 7702 tx takes runTx").to.equal(before.lean);
  });
});

describe("lean dry runs before Berlin", () => {
  // Reachable on a fork of a pre-Berlin block. runTx's closing cleanup empties the journal's
  // `touched`; the dry run's revert alone would leave RIPEMD160 in it (journal.js keeps it touched),
  // for the next block's runTx to delete at its start if empty.
  it("before Berlin (no EIP-2929): a call to RIPEMD160 leaves the journal's touched set empty, as runTx does", async () => {
    const ripemd = address(3);
    const leftTouched: Record<string, string[]> = {};
    const answers: Record<string, unknown> = {};
    for (const viaRunTx of [true, false]) {
      const common = new Common({ chain: Mainnet, hardfork: Hardfork.Istanbul });
      const vm = await createVM({ common });
      const block = createBlock({ header: { number: 1n, gasLimit: 30_000_000n } }, { common });
      const stats = { ...leanDryRunStats };
      const run = await dryRun(vm, { from: address(0x5e4d), to: ripemd, data: Uint8Array.of(1, 2, 3) }, block, 100_000n, { ignoreBalance: true, viaRunTx });
      expect(leanDryRunStats.lean - stats.lean).to.equal(viaRunTx ? 0 : 1);
      const way = viaRunTx ? "runTx" : "lean";
      answers[way] = outcome(run);
      // The Journal's `touched` is public in journal.js, absent from the EVM interface's type.
      leftTouched[way] = [...(vm.evm.journal as unknown as { touched: Set<string> }).touched];
    }
    expect(answers.lean).to.deep.equal(answers.runTx);
    expect(leftTouched).to.deep.equal({ runTx: [], lean: [] });
  });
});
