/**
 * eth_estimateGas (docs/behaviour.md): go-ethereum's algorithm on latest and pre-confirmed state.
 * Each estimate of a real workload is checked against real txs: it succeeds as the gas limit,
 * and 1.5 % less fails, so it is tight and never an underestimate.
 */
import { expect } from "chai";
import { BrowserProvider, Contract } from "ethers";
import {
  BaseError,
  ContractFunctionRevertedError,
  decodeErrorResult,
  encodeDeployData,
  encodeErrorResult,
  encodeFunctionData,
  parseEther,
  parseGwei,
  toHex,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

import { estimateStats, mayReadGas } from "../src/node/execution/estimate.ts";
import { createTestChain, rpcError, viemClients } from "./helpers/chain.ts";
import { Counter, GasForwarder, Gate, Refund, Reverter, Token } from "./helpers/contracts.ts";

import type { Abi, Address, Hex } from "viem";
import type { PreconfProvider } from "../src/index.ts";
import type { ContractArtifact } from "./helpers/contracts.ts";

const ZERO_HASH = `0x${"00".repeat(32)}`;
const GATE_CLOSED = encodeErrorResult({
  abi: [{ type: "error", name: "Error", inputs: [{ name: "message", type: "string" }] }],
  errorName: "Error",
  args: ["Gate: closed"],
});

interface CallTx {
  from?: Address;
  to?: Address;
  data?: Hex;
  value?: Hex;
  gas?: Hex;
  gasPrice?: Hex;
  maxFeePerGas?: Hex;
  maxPriorityFeePerGas?: Hex;
}

describe("eth_estimateGas", () => {
  let provider: PreconfProvider;
  let clients: ReturnType<typeof viemClients>;
  let sender: Address;

  beforeEach(async () => {
    // Gas semantics only: a 30M-gas loop may take more than the 5 s time budget on a busy machine
    // (that budget is tested in budgets.test.ts).
    ({ provider } = await createTestChain({ rpcEvmTimeoutMs: 0 }));
    clients = viemClients(provider);
    sender = clients.account.address;
  });
  afterEach(() => provider.close());

  // ── helpers ────────────────────────────────────────────────────────────────────────────────

  async function estimate(tx: CallTx, block: unknown = "pending"): Promise<bigint> {
    return BigInt((await provider.request({ method: "eth_estimateGas", params: [tx, block] })) as string);
  }

  /** Estimates and returns how many EVM executions that took. */
  async function estimateCounted(tx: CallTx, block: unknown = "pending"): Promise<{ gas: bigint; executions: number }> {
    const before = estimateStats.executions;
    const gas = await estimate(tx, block);
    return { gas, executions: estimateStats.executions - before };
  }

  /** Pre-confirms whatever is pooled and returns the receipt of `hash`. */
  async function preconfirm(hash: Hex) {
    await provider.preconf.advance();
    return clients.publicClient.getTransactionReceipt({ hash });
  }

  async function deploy(artifact: ContractArtifact, args: unknown[] = []): Promise<Address> {
    const hash = await clients.walletClient.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args });
    const receipt = await preconfirm(hash);
    expect(receipt.status).to.equal("success");
    return receipt.contractAddress!;
  }

  /** Sends `tx` for real with `gas` as its limit and pre-confirms it. */
  async function sendWithGas(tx: CallTx, gas: bigint) {
    const hash = await clients.walletClient.sendTransaction({ to: tx.to ?? null, data: tx.data, gas });
    return preconfirm(hash);
  }

  /**
   * The estimate is tight and safe: 1.5 % less fails (first, so that the state stays the same:
   * a failed tx leaves the contract's storage untouched), the estimate itself succeeds.
   */
  async function expectTightEstimate(tx: CallTx): Promise<{ gas: bigint; executions: number; gasUsed: bigint }> {
    const counted = await estimateCounted({ from: sender, ...tx });
    const below = (counted.gas * 985n) / 1000n;
    expect((await sendWithGas(tx, below)).status, `${below} (estimate - 1.5 %)`).to.equal("reverted");
    const receipt = await sendWithGas(tx, counted.gas);
    expect(receipt.status, `${counted.gas} (the estimate)`).to.equal("success");
    return { ...counted, gasUsed: receipt.gasUsed };
  }

  /** Advances the clock through the open block's remaining fragments: `latest` catches up. */
  async function sealOpenBlock(): Promise<void> {
    const open = await clients.publicClient.getBlockNumber();
    while ((await clients.publicClient.getBlockNumber()) === open) await provider.preconf.advance();
  }

  /** The error of an eth_estimateGas call, compared whole (`data` only where there is one). */
  async function expectEstimateError(params: unknown[], expected: { code: number; message: string; data?: unknown }): Promise<void> {
    const { code, message, data } = await rpcError(provider, "eth_estimateGas", params);
    expect(data === undefined ? { code, message } : { code, message, data }).to.deep.equal(expected);
  }

  const call = (abi: Abi, functionName: string, args: unknown[] = []) => encodeFunctionData({ abi, functionName, args });

  // ── real workloads: tight and never under ─────────────────────────────────────────────────

  describe("real workloads", () => {
    it("a plain transfer is exactly 21000, in one execution", async () => {
      const { gas, executions } = await estimateCounted({ from: sender, to: provider.accounts[3]!.address, value: toHex(parseEther("1")) });
      expect(gas).to.equal(21000n);
      expect(executions).to.equal(1);
    });

    it("a plain transfer from nobody (no from, no value) is 21000 too", async () => {
      expect(await estimate({ to: provider.accounts[3]!.address }, "latest")).to.equal(21000n);
    });

    it("a storage write (Counter.increment)", async () => {
      const counter = await deploy(Counter);
      const { executions } = await expectTightEstimate({ to: counter, data: call(Counter.abi, "increment") });
      expect(executions).to.be.at.most(6);
    });

    it("an ERC-20 transfer (Token.transfer)", async () => {
      const token = await deploy(Token, ["Token", "TOK", parseEther("1000")]);
      const data = call(Token.abi, "transfer", [provider.accounts[4]!.address, parseEther("1")]);
      const { executions } = await expectTightEstimate({ to: token, data });
      expect(executions).to.be.at.most(6);
    });

    it("a contract creation (deploy Token)", async () => {
      const data = encodeDeployData({ abi: Token.abi, bytecode: Token.bytecode, args: ["Token", "TOK", parseEther("1000")] });
      await expectTightEstimate({ data });
    });

    it("a call that forwards gas() to a sub-call (GasForwarder.forward → burn), 63/64 rule", async () => {
      const forwarder = await deploy(GasForwarder);
      const data = call(GasForwarder.abi, "forward", [forwarder, call(GasForwarder.abi, "burn", [20n])]);
      const { gas } = await expectTightEstimate({ to: forwarder, data });
      // Twenty fresh slots: far more than the optimistic guess needs to cover the 1/64 held back.
      expect(gas > 20n * 22_100n).to.equal(true);
    });

    it("a call with an SSTORE refund (Refund.clear): the limit covers gas before the refund", async () => {
      const refund = await deploy(Refund);
      const data = call(Refund.abi, "clear");
      const { gas, gasUsed } = await expectTightEstimate({ to: refund, data });
      // What the tx is charged (after the refund, at most a fifth of it) is far below the limit it needs.
      expect(gasUsed * 100n < gas * 90n, `${gasUsed} charged, ${gas} estimated`).to.equal(true);
    });

    it("leaves no trace in the state it ran on", async () => {
      const counter = await deploy(Counter);
      const before = await provider.request({ method: "eth_getTransactionCount", params: [sender, "pending"] });
      await estimate({ from: sender, to: counter, data: call(Counter.abi, "increment") });
      expect(await provider.request({ method: "eth_getTransactionCount", params: [sender, "pending"] })).to.equal(before);
      const count = await provider.request({ method: "eth_call", params: [{ to: counter, data: call(Counter.abi, "count") }, "pending"] });
      expect(BigInt(count as string)).to.equal(0n);
    });
  });

  // ── the exact path: one frame, no GAS opcode ───────────────────────────────────────────────

  describe("one call frame without a GAS opcode: the peak, exact, in one execution (the run at the cap's record answers the peak)", () => {
    /** The least gas at which eth_call succeeds, by bisection over eth_call's `gas` (one run per step). */
    async function minimumByBisection(tx: CallTx, block = "pending"): Promise<bigint> {
      let lo = 21_000n;
      let hi = 1_000_000n;
      while (lo + 1n < hi) {
        const mid = (lo + hi) / 2n;
        try {
          await provider.request({ method: "eth_call", params: [{ from: sender, ...tx, gas: toHex(mid) }, block] });
          hi = mid;
        } catch {
          lo = mid;
        }
      }
      return hi;
    }

    const cases: [string, () => Promise<CallTx>][] = [
      ["Counter.increment", async () => ({ to: await deploy(Counter), data: call(Counter.abi, "increment") })],
      [
        "Token.transfer",
        async () => ({ to: await deploy(Token, ["Token", "TOK", parseEther("1000")]), data: call(Token.abi, "transfer", [provider.accounts[4]!.address, 1n]) }),
      ],
      ["Refund.clear (refund; SSTOREs before it)", async () => ({ to: await deploy(Refund), data: call(Refund.abi, "clear") })],
      [
        "a contract creation (deploy Token)",
        async () => ({ data: encodeDeployData({ abi: Token.abi, bytecode: Token.bytecode, args: ["Token", "TOK", parseEther("1000")] }) }),
      ],
    ];
    for (const [name, make] of cases) {
      it(`${name}: the least gas limit that succeeds, as the bisection finds it`, async () => {
        const tx = await make();
        const { gas, executions } = await estimateCounted({ from: sender, ...tx });
        expect(executions).to.equal(1);
        expect(gas).to.equal(await minimumByBisection(tx));
        // A real tx at the estimate succeeds; one gas less fails (nothing is left of the 1.5 % margin).
        expect((await sendWithGas(tx, gas - 1n)).status, `${gas - 1n}`).to.equal("reverted");
        expect((await sendWithGas(tx, gas)).status, `${gas}`).to.equal("success");
      });
    }

    it("a frame that reads its gas or calls out (GasForwarder) takes the bisection, within 1.5 % above the least", async () => {
      const forwarder = await deploy(GasForwarder);
      const tx = { to: forwarder, data: call(GasForwarder.abi, "forward", [forwarder, call(GasForwarder.abi, "burn", [5n])]) };
      const { gas } = await estimateCounted({ from: sender, ...tx });
      const least = await minimumByBisection(tx);
      expect(gas >= least, `${gas} ≥ ${least}`).to.equal(true);
      expect((gas - least) * 1000n <= least * 15n, `${gas} within 1.5 % of ${least}`).to.equal(true);
    });

    it("mayReadGas: a GAS opcode counts, a 0x5a byte inside PUSH data does not, EOF and non-bytes code count", () => {
      expect(mayReadGas(Uint8Array.of(0x60, 0x5a, 0x00))).to.equal(false); // PUSH1 0x5a STOP
      expect(mayReadGas(Uint8Array.of(0x7f, ...new Array<number>(32).fill(0x5a), 0x00))).to.equal(false); // PUSH32
      expect(mayReadGas(Uint8Array.of(0x60, 0x01, 0x5a))).to.equal(true); // PUSH1 1 GAS
      expect(mayReadGas(Uint8Array.of(0xef, 0x00, 0x01))).to.equal(true);
      expect(mayReadGas(undefined)).to.equal(true);
      expect(mayReadGas(new Uint8Array())).to.equal(false);
    });
  });

  // ── latest and pre-confirmed state ─────────────────────────────────────────────────────────

  describe("the motivating use case: a tx that depends on a pre-confirmed one (Gate)", () => {
    let gate: Address;
    const pass = () => ({ from: sender, to: gate, data: call(Gate.abi, "pass") });

    beforeEach(async () => {
      gate = await deploy(Gate);
      await provider.preconf.advance(provider.preconf.fragmentsPerBlock - 1); // seal the deployment
      const hash = await clients.walletClient.sendTransaction({ to: gate, data: call(Gate.abi, "openGate") });
      const receipt = await preconfirm(hash);
      expect(receipt.status).to.equal("success");
      expect(receipt.blockHash).to.equal(ZERO_HASH); // pre-confirmed, not sealed
    });

    it('"pending" succeeds while "latest" (the default) reverts with Error("Gate: closed")', async () => {
      expectAbove(await estimate(pass(), "pending"), 21000n);
      for (const params of [[pass(), "latest"], [pass()]]) {
        await expectEstimateError(params, { code: -32000, message: "execution reverted", data: GATE_CLOSED });
      }
    });

    it("eth_call takes the same state and gives the same revert error", async () => {
      const passes = await provider.request({ method: "eth_call", params: [pass(), "pending"] });
      expect(BigInt(passes as string)).to.equal(1n);
      expect(await rpcError(provider, "eth_call", [pass(), "latest"])).to.deep.equal({
        code: 3,
        message: "execution reverted: Gate: closed",
        data: GATE_CLOSED,
      });
    });

    it("numbers and hashes (EIP-1898) select blocks; the open block's number is pre-confirmed state", async () => {
      const latest = await clients.publicClient.getBlock({ blockTag: "latest" });
      const pendingGas = await estimate(pass(), "pending");
      expect(await estimate(pass(), toHex(latest.number + 1n))).to.equal(pendingGas);
      for (const block of [toHex(latest.number), latest.hash, { blockHash: latest.hash }, { blockNumber: toHex(latest.number) }]) {
        expect((await rpcError(provider, "eth_estimateGas", [pass(), block])).message).to.equal("execution reverted");
      }
      expect(await rpcError(provider, "eth_estimateGas", [pass(), toHex(99n)])).to.include({ code: -32000, message: "header not found" });
    });

    it("after the block is sealed, latest and pending agree", async () => {
      const pendingGas = await estimate(pass(), "pending");
      await provider.preconf.advance(provider.preconf.fragmentsPerBlock - 1);
      const sealed = await clients.publicClient.getBlock({ blockTag: "latest" });
      expect(sealed.transactions).to.have.length(1);
      expect(await estimate(pass(), "latest")).to.equal(pendingGas);
      expect(await estimate(pass(), "pending")).to.equal(pendingGas);
      expect(await estimate(pass(), sealed.hash)).to.equal(pendingGas);
    });
  });

  // ── client libraries surface the revert reason ─────────────────────────────────────────────

  describe("clients", () => {
    it("viem estimateContractGas: ContractFunctionRevertedError with reason and custom errors", async () => {
      const gate = await deploy(Gate);
      const reverter = await deploy(Reverter);
      await sealOpenBlock();
      const { publicClient, account } = clients;

      const closed = await publicClient.estimateContractGas({ address: gate, abi: Gate.abi, functionName: "pass", account }).catch((error: unknown) => error);
      const reverted = revertedError(closed);
      expect(reverted.reason).to.equal("Gate: closed");

      const custom = await publicClient
        .estimateContractGas({ address: reverter, abi: Reverter.abi, functionName: "revertWithCustomError", account, blockTag: "pending" })
        .catch((error: unknown) => error);
      const unauthorized = revertedError(custom);
      expect(unauthorized.data?.errorName).to.equal("Unauthorized");
      expect(unauthorized.data?.args).to.deep.equal([account.address, 42n]);
    });

    it("viem estimateGas: the revert data reaches the caller", async () => {
      const gate = await deploy(Gate);
      await sealOpenBlock();
      const error = await clients.publicClient
        .estimateGas({ account: clients.account, to: gate, data: call(Gate.abi, "pass") })
        .catch((caught: unknown) => caught);
      expect(error).to.be.instanceOf(BaseError);
      const data = revertData((error as BaseError).walk((cause) => revertData(cause) !== undefined));
      expect(data).to.equal(GATE_CLOSED);
      expect(decodeErrorResult({ abi: Gate.abi, data: GATE_CLOSED }).args).to.deep.equal(["Gate: closed"]);
    });

    it("ethers v6 (BrowserProvider): CALL_EXCEPTION with reason and revert data", async () => {
      const gate = await deploy(Gate);
      await sealOpenBlock();
      const ethersProvider = new BrowserProvider(provider);
      const signer = await ethersProvider.getSigner(sender);

      const raw = await ethersProvider.estimateGas({ from: sender, to: gate, data: call(Gate.abi, "pass") }).catch((error: unknown) => error);
      expect(raw).to.include({ code: "CALL_EXCEPTION", reason: "Gate: closed", data: GATE_CLOSED });

      const contract = new Contract(gate, Gate.abi as unknown as string[], signer);
      const viaContract = await contract
        .getFunction("pass")
        .estimateGas()
        .catch((error: unknown) => error);
      expect(viaContract).to.include({ code: "CALL_EXCEPTION", reason: "Gate: closed" });

      await contract.getFunction("openGate").send();
      await provider.preconf.advance(provider.preconf.fragmentsPerBlock); // sealed: latest sees it
      // A fresh provider: ethers reuses an identical request's answer for 250 ms of real time.
      const fresh = new Contract(gate, Gate.abi as unknown as string[], await new BrowserProvider(provider).getSigner(sender));
      expectAbove(await fresh.getFunction("pass").estimateGas(), 21000n);
    });
  });

  // ── fields of the transaction object ───────────────────────────────────────────────────────

  describe("transaction fields", () => {
    it("`input` is an alias of `data`; nonce, type and accessList are accepted", async () => {
      const counter = await deploy(Counter);
      const data = call(Counter.abi, "increment");
      const viaData = await estimate({ from: sender, to: counter, data });
      const viaInput = await provider.request({ method: "eth_estimateGas", params: [{ from: sender, to: counter, input: data }, "pending"] });
      expect(BigInt(viaInput as string)).to.equal(viaData);
      const withExtras = await provider.request({
        method: "eth_estimateGas",
        params: [
          { from: sender, to: counter, input: data, data, nonce: "0x7", type: "0x1", accessList: [{ address: counter, storageKeys: [ZERO_HASH] }] },
          "pending",
        ],
      });
      expectAbove(BigInt(withExtras as string), 21000n);
    });

    it("an EIP-7702 authorizationList: the delegated code runs, each authorization costs 25000 more", async () => {
      const counter = await deploy(Counter);
      const delegator = privateKeyToAccount(provider.accounts[7]!.privateKey);
      const authorization = await clients.walletClient.signAuthorization({ account: delegator, contractAddress: counter, chainId: 31337, nonce: 0 });
      const increment = call(Counter.abi, "increment");
      const gas = await clients.publicClient.estimateGas({
        account: clients.account,
        to: delegator.address,
        data: increment,
        authorizationList: [authorization],
        blockTag: "pending",
      });
      const plain = await estimate({ from: sender, to: counter, data: increment });
      expect(gas > plain + 20_000n, `${gas} with an authorization, ${plain} without`).to.equal(true);
      // Without the authorization the delegator has no code: only calldata to pay for.
      expectAbove(plain, await estimate({ from: sender, to: delegator.address, data: increment }));
    });

    it("without fee fields: base fee 0 and no balance needed", async () => {
      const counter = await deploy(Counter);
      const pauper = privateKeyToAccount(generatePrivateKey()).address;
      const gas = await estimate({ from: pauper, to: counter, data: call(Counter.abi, "increment") });
      expectAbove(gas, 21000n);
      expect(await estimate({ to: counter, data: call(Counter.abi, "increment"), gasPrice: "0x0" })).to.equal(gas);
    });

    it("with fee fields the cap is what the balance can buy: (balance - value) / feeCap", async () => {
      const forwarder = await deploy(GasForwarder);
      const poor = privateKeyToAccount(generatePrivateKey()).address;
      const feeCap = parseGwei("10");
      const funding = await clients.walletClient.sendTransaction({ to: poor, value: 30_000n * feeCap });
      await preconfirm(funding);
      const burn = call(GasForwarder.abi, "burn", [3n]);
      const maxFeePerGas = toHex(feeCap);
      await expectEstimateError([{ from: poor, to: forwarder, data: burn, maxFeePerGas }, "pending"], {
        code: -32000,
        message: "gas required exceeds allowance (30000)",
      });
      const value = toHex(10_000n * feeCap);
      await expectEstimateError([{ from: poor, to: provider.accounts[2]!.address, value, maxFeePerGas }, "pending"], {
        code: -32000,
        message: "gas required exceeds allowance (20000)",
      });
      // Without fees the same account may estimate anything.
      expectAbove(await estimate({ from: poor, to: forwarder, data: burn }), 30_000n);
      // A plain transfer it can pay for is still 21000.
      expect(await estimate({ from: poor, to: provider.accounts[2]!.address, value: toHex(feeCap), gasPrice: toHex(feeCap) })).to.equal(21000n);
    });
  });

  // ── errors, exactly ────────────────────────────────────────────────────────────────────────

  describe("errors", () => {
    it('a revert with empty data answers data "0x"; custom errors and panics keep their bytes', async () => {
      const reverter = await deploy(Reverter);
      const revert = (name: string) => rpcError(provider, "eth_estimateGas", [{ from: sender, to: reverter, data: call(Reverter.abi, name) }, "pending"]);
      expect(await revert("revertEmpty")).to.deep.equal({ code: -32000, message: "execution reverted", data: "0x" });
      const custom = await revert("revertWithCustomError");
      expect(decodeErrorResult({ abi: Reverter.abi, data: custom.data as Hex })).to.deep.include({ errorName: "Unauthorized", args: [sender, 42n] });
      const panic = await revert("panic");
      expect(decodeErrorResult({ abi: Reverter.abi, data: panic.data as Hex })).to.deep.include({ errorName: "Panic", args: [1n] });
    });

    it("out of gas at the cap: gas required exceeds allowance (N)", async () => {
      const forwarder = await deploy(GasForwarder);
      const burn = call(GasForwarder.abi, "burn", [5n]);
      await expectEstimateError([{ from: sender, to: forwarder, data: burn, gas: toHex(50_000) }, "pending"], {
        code: -32000,
        message: "gas required exceeds allowance (50000)",
      });
      // Through the forwarder the sub-call runs out and `forward` reverts with empty data.
      const forward = call(GasForwarder.abi, "forward", [forwarder, burn]);
      await expectEstimateError([{ from: sender, to: forwarder, data: forward, gas: toHex(50_000) }, "pending"], {
        code: -32000,
        message: "execution reverted",
        data: "0x",
      });
      // A cap below the intrinsic gas.
      await expectEstimateError([{ from: sender, to: forwarder, data: burn, gas: toHex(21_000) }, "pending"], {
        code: -32000,
        message: "gas required exceeds allowance (21000)",
      });
      // More than a tx may have: EIP-7825's 2^24 cap (Osaka), below the block's 60,000,000 (geth's DoEstimateGas caps its search there).
      const huge = call(GasForwarder.abi, "burn", [2_000n]);
      await expectEstimateError([{ from: sender, to: forwarder, data: huge }, "pending"], {
        code: -32000,
        message: "gas required exceeds allowance (16777216)",
      });
    });

    it("insufficient funds for transfer: value above the balance, with or without fees", async () => {
      const pauper = privateKeyToAccount(generatePrivateKey()).address;
      const to = provider.accounts[1]!.address;
      const expected = { code: -32000, message: "insufficient funds for transfer" };
      await expectEstimateError([{ from: pauper, to, value: "0x1" }], expected);
      await expectEstimateError([{ from: pauper, to, value: "0x1", maxFeePerGas: toHex(parseGwei("2")) }], expected);
      await expectEstimateError([{ from: pauper, to, value: "0x1", gasPrice: toHex(parseGwei("2")) }], expected);
      await expectEstimateError([{ to, value: "0x1" }], expected);
    });

    it("malformed params are -32602 Invalid params with { field, reason }", async () => {
      const to = provider.accounts[1]!.address;
      const invalid = async (params: unknown[], field: string) => {
        const error = await rpcError(provider, "eth_estimateGas", params);
        expect(error.code, field).to.equal(-32602);
        expect(error.message).to.equal("Invalid params");
        expect(error.data).to.have.property("field", field);
        expect(error.data).to.have.property("reason").that.is.a("string");
      };
      await invalid([{ to, gasPrice: "0x1", maxFeePerGas: "0x1" }], "params[0].gasPrice");
      await invalid([{ to, gasPrice: "0x1", maxPriorityFeePerGas: "0x1" }], "params[0].gasPrice");
      await invalid([{ to, value: "100" }], "params[0].value");
      await invalid([{ to, value: "0xzz" }], "params[0].value");
      await invalid([{ to, value: 100 }], "params[0].value");
      await invalid([{ to, gas: "0x01" }], "params[0].gas");
      await invalid([{ to, data: "0x123" }], "params[0].data");
      await invalid([{ to: "0x1234" }], "params[0].to");
      await invalid([{ from: "me", to }], "params[0].from");
      await invalid([{ to, data: "0x12", input: "0x34" }], "params[0].input");
      await invalid([{ to, maxFeePerGas: "0x1", maxPriorityFeePerGas: "0x2" }], "params[0].maxPriorityFeePerGas");
      await invalid([{ to }, "next"], "params[1]");
      await invalid([{ to }, "latest", "extra"], "params");
      await invalid([], "params[0]");
    });
  });
});

/** chai's above() is typed for numbers only. */
function expectAbove(actual: bigint, floor: bigint): void {
  expect(actual > floor, `${actual} > ${floor}`).to.equal(true);
}

/** The hex `data` an error carries, if any. */
function revertData(error: unknown): Hex | undefined {
  if (typeof error !== "object" || error === null || !("data" in error)) return undefined;
  return typeof error.data === "string" && error.data.startsWith("0x") ? (error.data as Hex) : undefined;
}

/** The ContractFunctionRevertedError inside a viem error. */
function revertedError(error: unknown): ContractFunctionRevertedError {
  expect(error).to.be.instanceOf(BaseError);
  const reverted = (error as BaseError).walk((cause) => cause instanceof ContractFunctionRevertedError);
  expect(reverted).to.be.instanceOf(ContractFunctionRevertedError);
  return reverted as ContractFunctionRevertedError;
}
