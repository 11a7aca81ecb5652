/**
 * One-pass estimates (src/node/execution/estimate.ts, src/node/ethereumjs/gasRecord.ts): the run at the cap
 * records what each step needed of the gas, and the search asks that record instead of executing
 * at each limit wherever it can. The search and its answer must not change: every estimate here
 * is made twice on the same state, once answering from the record and once executing at every limit
 * the search tries (go-ethereum's bisection as before), and must agree exactly, on the fixture
 * contracts and on hand-made edge cases of EIP-150's 63/64 rule, the call stipend, EIP-2200's
 * SSTORE sentry, refunds, creations and callees that fail, then on random programs calling
 * random programs.
 */
import { bytesToHex } from "@ethereumjs/util";
import { expect } from "chai";
import fc from "fast-check";
import { encodeDeployData, encodeFunctionData, parseEther } from "viem";

import { callBlock } from "../src/node/execution/dryRun.ts";
import { estimateGas } from "../src/node/execution/estimate.ts";
import { createTestChain } from "./helpers/chain.ts";
import { GasForwarder, Refund, Token } from "./helpers/contracts.ts";

import type { Hex } from "viem";
import type { PreconfProvider } from "../src/index.ts";
import type { CallRequest } from "../src/node/common/types.ts";

const runs = (base: number) => (process.env.FC_RUNS === undefined ? base : Number(process.env.FC_RUNS));
const SEED = Number(process.env.FC_SEED ?? 20_261_125);

// ── Assembling small programs ───────────────────────────────────────────────────────────────────

const push = (value: bigint | number): number[] => {
  const big = BigInt(value);
  if (big === 0n) return [0x5f];
  const hex = big.toString(16);
  const bytes = [...Buffer.from(hex.length % 2 === 0 ? hex : `0${hex}`, "hex")];
  return [0x5f + bytes.length, ...bytes];
};
const code = (...parts: (number | number[])[]) => bytesToHex(Uint8Array.from(parts.flat())) as Hex;
const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}` as Hex;
/** CALL(gas, to, value, in 0..0, out 0..32); `gas` undefined forwards GAS. Leaves the success flag. */
const call = (to: Hex, gas?: bigint, value = 0n) => [
  ...push(32),
  ...push(0),
  ...push(0),
  ...push(0),
  ...push(value),
  ...push(BigInt(to)),
  ...(gas === undefined ? [0x5a] : push(gas)),
  0xf1,
];
/** The same CALL with GAS taken first and carried to the top by SWAP1 after each argument (as solc orders `call{gas: gasleft()}`). */
const gasFirstCall = (to: Hex) => [0x5a, ...[32n, 0n, 0n, 0n, 0n, BigInt(to)].flatMap((arg) => [...push(arg), 0x90]), 0xf1];
/** Burns gas: `n` SSTOREs of fresh slots 0 → non-zero (22,100 gas each, cold) starting at slot `from`. */
const sstores = (n: number, from = 0) => Array.from({ length: n }, (_, i) => [...push(i + 1), ...push(from + i), 0x55]).flat();
const STOP = 0x00;
const POP = 0x50;
const REVERT_EMPTY = [...push(0), ...push(0), 0xfd];
const INVALID = 0xfe;
/** `step`, then a revert unless it left a non-zero flag (Solidity's `require(ok)` after a call); `at` is where it starts. */
const orRevert = (step: number[], at: number) => {
  const end = at + step.length + 2 + 1 + REVERT_EMPTY.length;
  return [...step, ...push(end), 0x57, ...REVERT_EMPTY, 0x5b];
};
/** Programs of steps, each placed knowing where it starts (for jump destinations). */
const program = (...steps: ((at: number) => number[])[]) => {
  const bytes: number[] = [];
  for (const step of steps) bytes.push(...step(bytes.length));
  return code(bytes, STOP);
};
const plain = (step: number[]) => () => step;

describe("one-pass estimates: the same answers as executing at every limit", () => {
  let provider: PreconfProvider;
  const sender = () => provider.accounts[0]!.address;

  beforeEach(async () => {
    // Prague: a call may use the whole block's gas (Osaka's EIP-7825 caps a tx at 2^24), so the
    // searches span the block gas limit as they were written to.
    ({ provider } = await createTestChain({ rpcEvmTimeoutMs: 0, hardfork: "prague" }));
  });
  afterEach(() => provider.close());

  const request = (method: string, params: unknown[] = []) => provider.request({ method, params });

  /** Both estimates of `call` at latest, on the same state: the answers (or errors) and their executions. */
  async function both(callRequest: CallRequest, options: { ignoreBalance?: boolean } = {}): Promise<{ gas: bigint; onePass: number; search: number }> {
    const resolved = provider.chain.resolve({ kind: "tag", tag: "latest" })!;
    const outcome = (onePass: boolean) =>
      provider.chain.withState(resolved, async (vm) => {
        try {
          const block = callBlock(resolved.kind === "sealed" ? resolved.sealed.block : resolved.open.executionBlock, callRequest);
          return await estimateGas(vm, callRequest, block, { onePass, ...options });
        } catch (error) {
          return { error: (error as Error).message };
        }
      });
    const fast = await outcome(true);
    const slow = await outcome(false);
    if ("error" in slow) {
      expect(fast, "the same error").to.deep.equal(slow);
      return { gas: -1n, onePass: 0, search: 0 };
    }
    expect("error" in fast ? fast : fast.gas, "the same estimate").to.equal(slow.gas);
    if ("error" in fast) throw new Error("unreachable");
    expect(fast.executions).to.be.at.most(slow.executions);
    return { gas: fast.gas, onePass: fast.executions, search: slow.executions };
  }

  async function deploy(bytecode: Hex): Promise<Hex> {
    const hash = await request("eth_sendTransaction", [{ from: sender(), data: bytecode, gas: "0x1c9c380" }]);
    await provider.preconf.seal();
    return ((await request("eth_getTransactionReceipt", [hash])) as { contractAddress: Hex }).contractAddress;
  }

  async function setCode(at: Hex, runtime: Hex): Promise<void> {
    await request("hardhat_setCode", [at, runtime]);
    await provider.preconf.seal();
  }

  it("fixture contracts: an ERC-20 transfer, a deployment, a refund, a 63/64 forward, in one execution each where the record answers", async () => {
    const token = await deploy(encodeDeployData({ abi: Token.abi, bytecode: Token.bytecode, args: ["T", "T", parseEther("100")] }));
    const refund = await deploy(Refund.bytecode);
    const forwarder = await deploy(GasForwarder.bytecode);
    const transfer = encodeFunctionData({ abi: Token.abi, functionName: "transfer", args: [provider.accounts[1]!.address, 5n] });
    const from = sender();

    const erc20 = await both({ from, to: token, data: hexBytes(transfer) });
    expect(erc20.onePass, "an ERC-20 transfer: the run at the cap only").to.equal(1);
    expect(erc20.search).to.equal(2);
    const clear = await both({ from, to: refund, data: hexBytes(encodeFunctionData({ abi: Refund.abi, functionName: "clear" })) });
    expect(clear.onePass).to.equal(1);
    await both({ from, to: refund, data: hexBytes(encodeFunctionData({ abi: Refund.abi, functionName: "fill" })) });
    await both({ from, data: hexBytes(encodeDeployData({ abi: Token.abi, bytecode: Token.bytecode, args: ["T", "T", 1n] })) });
    for (const iterations of [0n, 1n, 3n, 20n]) {
      const burn = encodeFunctionData({ abi: GasForwarder.abi, functionName: "burn", args: [iterations] });
      await both({ from, to: forwarder, data: hexBytes(burn) });
      const forwarded = await both({
        from,
        to: forwarder,
        data: hexBytes(encodeFunctionData({ abi: GasForwarder.abi, functionName: "forward", args: [forwarder, burn] })),
      });
      // GAS CALL forwarding and a callee that bubbles its failure: the record answers some limits, the callee's starving ones run.
      expect(forwarded.onePass).to.be.below(forwarded.search);
    }
    // The token through the forwarder: two frames.
    await both({ from, to: forwarder, data: hexBytes(encodeFunctionData({ abi: GasForwarder.abi, functionName: "forward", args: [token, transfer] })) });
  });

  it("edge cases: constant and forwarded gas, stipends, the SSTORE sentry, caught failures, GAS read, creations, precompiles, depth", async () => {
    const from = sender();
    const [A, B, C, D, E] = [0xa1, 0xb1, 0xc1, 0xd1, 0xe1].map(address) as [Hex, Hex, Hex, Hex, Hex];
    const burner = code(...sstores(3), STOP);
    // GAS; PUSH3 100000; LT; PUSH1 10; JUMPI; STOP; JUMPDEST; SSTORE…: a path that depends on the gas left.
    const readsGas = code(0x5a, ...push(100_000), 0x10, ...push(10), 0x57, STOP, 0x5b, ...sstores(1), STOP);
    // Init code PUSH1 200; PUSH1 0; RETURN (200 zero bytes of code: a 40,000-gas deposit), stored at memory 0 and created.
    const creates = code(...push(BigInt(`0x${"60c86000f3".padEnd(64, "0")}`)), ...push(0), 0x52, ...push(5), ...push(0), ...push(0), 0xf0, POP, STOP);
    const cases: [string, Hex, Hex?][] = [
      ["forwards GAS to a burner, then STOP", code(...call(B), POP, STOP), burner],
      ["forwards GAS, then writes after the call", code(...call(B), POP, ...sstores(2, 100), STOP), burner],
      ["forwards GAS taken before the call's other arguments", code(...gasFirstCall(B), POP, STOP), burner],
      ["copies the GAS value (DUP1) before calling with it", code(0x5a, 0x80, POP, ...call(B), POP, STOP), burner],
      ["a constant 70,000 to a burner that needs ~66,000", code(...call(B, 70_000n), POP, STOP), burner],
      ["a constant gas too small: the callee fails at the cap, the caller goes on", code(...call(B, 30_000n), POP, ...sstores(1, 50), STOP), burner],
      ["a caught failure: the callee starves below some limit and the caller goes on", code(...call(B), POP, ...sstores(1, 60), STOP), burner],
      ["the caller bubbles a failed call", program((at) => orRevert(call(B), at)), burner],
      ["a callee that reverts", code(...call(B), POP, STOP), code(...sstores(1), ...REVERT_EMPTY)],
      ["a callee that halts (INVALID)", code(...call(B), POP, STOP), code(INVALID)],
      ["an SSTORE last, with little gas used after it (the sentry binds)", code(...push(1), ...push(7), 0x55, STOP)],
      ["a refund: clear slots set in the same call", code(...sstores(4), ...push(0), ...push(0), 0x55, ...push(0), ...push(1), 0x55, STOP)],
      ["a callee that reads GAS into a branch (the record steps aside)", code(...call(B), POP, STOP), readsGas],
      ["the top frame reads GAS into a branch", readsGas],
      ["a value call with the stipend to an account without code", code(...call(D, 0n, 1n), POP, STOP)],
      ["a value call with the stipend to a contract", code(...call(C, 0n, 1n), POP, STOP)],
      ["two levels of forwarding", code(...call(A), POP, STOP), burner],
      [
        "precompiles: identity and sha256 with forwarded and constant gas",
        code(...call(address(4)), POP, ...call(address(2), 100n), POP, ...call(address(2), 10n), POP, STOP),
      ],
      ["a call to itself until the gas or the depth runs out", code(...call(E), POP, STOP)],
      ["a CREATE whose init code returns 200 bytes (the code deposit)", creates],
      ["an infinite loop at the cap: gas required exceeds allowance", code(0x5b, ...push(0), 0x56)],
    ];
    await setCode(C, code(...sstores(1, 9), STOP));
    await setCode(A, code(...call(B), POP, STOP));
    await request("hardhat_setBalance", [E, "0x10000"]);
    for (const [name, caller, callee] of cases) {
      await setCode(E, caller);
      await setCode(B, callee ?? code(STOP));
      try {
        await both({ from, to: E });
      } catch (error) {
        throw new Error(`${name}: ${(error as Error).message}`);
      }
    }
  });

  it("a path that reads the sender's balance, which each limit's bought gas changes: executed at every limit as go-ethereum does", async () => {
    const from = sender();
    const GATE = address(0xba1);
    const price = 10n ** 10n;
    const balance = BigInt((await request("eth_getBalance", [from, "latest"])) as string);
    const cap = BigInt(((await request("eth_getBlockByNumber", ["latest", false])) as { gasLimit: Hex }).gasLimit);
    // require(balance(origin) < threshold): true at the cap (the most gas bought), false below half of it.
    const threshold = balance - (cap / 2n) * price;
    const LT = 0x10;
    const GT = 0x11;
    const gate = (reads: readonly number[], compare: number) => program((at) => orRevert([...push(threshold), ...reads, 0x31, compare], at));
    for (const [name, reads] of [
      ["BALANCE(ORIGIN)", [0x32]],
      ["BALANCE of the sender pushed with high bits set (BALANCE reads the low 20 bytes)", push((1n << 200n) | BigInt(from))],
    ] as const) {
      await setCode(GATE, gate(reads, LT));
      const paid = await both({ from, to: GATE, gasPrice: price });
      expect(paid.gas, `${name}: the least limit whose bought gas leaves the balance under the threshold`).to.be.above(cap / 2n);
      // Hardhat's dry runs (automine) skip the balance check, but the sender still buys its gas.
      const unchecked = await both({ from, to: GATE, gasPrice: price }, { ignoreBalance: true });
      expect(unchecked.gas, `${name}, without balance checks`).to.be.above(cap / 2n);
      // Without a fee the balance is the same at every limit (and above the threshold): the record answers.
      await setCode(GATE, gate(reads, GT));
      const free = await both({ from, to: GATE });
      expect(free.onePass, name).to.equal(1);
    }
  });

  it("random programs calling random programs, with and without fees", async () => {
    const from = sender();
    const [CALLER, CALLEE] = [address(0xca11), address(0xca1e)];
    const small = fc.integer({ min: 0, max: 40 });
    const callee = fc
      .array(
        fc.oneof(
          small.map((n) => sstores(1, n)),
          small.map((n) => [...push(n), 0x54, POP]), // SLOAD
          fc.constant<number[]>([0x5a, POP]), // GAS, unused
          fc.constant<number[]>([0x5a, ...push(100_000), 0x10, POP]), // GAS read by LT
          fc.constant<number[]>([...push(64), ...push(0), 0x20, POP]), // KECCAK256
          fc.integer({ min: 0, max: 3000 }).map((n) => [...push(n), ...push(0), 0x52]), // MSTORE at a growing offset
          fc.constant<number[]>(REVERT_EMPTY),
          fc.constant<number[]>([INVALID]),
        ),
        { maxLength: 8 },
      )
      .map((steps) => code(...steps, STOP));
    const caller = fc
      .array(
        fc.oneof(
          fc.constant(plain([...call(CALLEE), POP])),
          fc.integer({ min: 0, max: 120_000 }).map((gas) => plain([...call(CALLEE, BigInt(gas)), POP])),
          fc.constant(plain([...call(CALLEE, 0n, 1n), POP])),
          fc.constant(plain([...gasFirstCall(CALLEE), POP])),
          small.map((n) => plain(sstores(1, 100 + n))),
          fc.constant((at: number) => orRevert(call(CALLEE), at)),
        ),
        { minLength: 1, maxLength: 5 },
      )
      .map((steps) => program(...steps));
    await request("hardhat_setBalance", [CALLER, "0x100000"]);
    await fc.assert(
      fc.asyncProperty(caller, callee, fc.boolean(), async (callerCode, calleeCode, withFees) => {
        await request("hardhat_setCode", [CALLER, callerCode]);
        await request("hardhat_setCode", [CALLEE, calleeCode]);
        await provider.preconf.seal();
        await both({ from, to: CALLER, ...(withFees && { maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n }) });
      }),
      { numRuns: runs(60), seed: SEED },
    );
  });
});

function hexBytes(hex: Hex): Uint8Array {
  return Uint8Array.from(Buffer.from(hex.slice(2), "hex"));
}
