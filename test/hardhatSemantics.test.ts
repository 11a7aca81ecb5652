/**
 * Hardhat's semantics under automine (docs/behaviour.md#hardhats-semantics): each answer here is
 * the one `npx hardhat node` (Hardhat 2.28.5, EDR inside) gave to the same request, compared side
 * by side on 2026-11-25, unless a test says otherwise. Under interval or manual mining the chain
 * answers as a pre-confirming chain (geth's answers), and those are pinned here too.
 */
import { expect } from "chai";
import { type BaseError, ContractFunctionRevertedError, encodeFunctionData } from "viem";

import { createTestChain, rpcError, viemClients } from "./helpers/chain.ts";
import { Counter, Gate, Reverter } from "./helpers/contracts.ts";

import type { Hex } from "viem";
import type { PreconfProvider, PreconfProviderOptions } from "../src/index.ts";

async function call<T = unknown>(provider: PreconfProvider, method: string, params: unknown[] = []): Promise<T> {
  return (await provider.request({ method, params })) as T;
}

const hex = (value: bigint) => `0x${value.toString(16)}`;
const word = (value: bigint) => value.toString(16).padStart(64, "0");
const VM_EXCEPTION = "VM Exception while processing transaction:";
const NOPE = `0x08c379a0${word(32n)}${word(4n)}${"6e6f7065".padEnd(64, "0")}`;

async function automined(options: PreconfProviderOptions = {}): Promise<PreconfProvider> {
  const { provider } = await createTestChain({ mining: "manual", ...options });
  await call(provider, "evm_setAutomine", [true]);
  return provider;
}

async function deploy(provider: PreconfProvider, bytecode: Hex): Promise<Hex> {
  const hash = await call<Hex>(provider, "eth_sendTransaction", [{ from: provider.accounts[0]!.address, data: bytecode }]);
  return (await call<{ contractAddress: Hex }>(provider, "eth_getTransactionReceipt", [hash])).contractAddress;
}

describe("Hardhat's semantics under automine", () => {
  let provider: PreconfProvider;
  let from: Hex;

  afterEach(() => provider.close());

  describe("a send whose tx fails throws Hardhat's error, its block mined (throwOnTransactionFailures)", () => {
    let reverter: Hex;
    let counter: Hex;

    beforeEach(async () => {
      provider = await automined();
      from = provider.accounts[0]!.address;
      reverter = await deploy(provider, Reverter.bytecode);
      counter = await deploy(provider, Counter.bytecode);
    });

    const reverterCall = (functionName: "revertWithReason" | "revertWithCustomError" | "revertEmpty" | "panic") =>
      encodeFunctionData({ abi: Reverter.abi, functionName });

    it("each kind of revert: its message, -32603, and { message, txHash, data } with the revert bytes", async () => {
      const custom = `0xda472023${from.slice(2).padStart(64, "0")}${word(42n)}`;
      const cases: [ReturnType<typeof reverterCall>, string, string][] = [
        [reverterCall("revertWithReason"), `${VM_EXCEPTION} reverted with reason string 'nope'`, NOPE],
        [reverterCall("revertWithCustomError"), `${VM_EXCEPTION} reverted with an unrecognized custom error (return data: ${custom})`, custom],
        [reverterCall("revertEmpty"), "Transaction reverted without a reason string", "0x"],
        [reverterCall("panic"), `${VM_EXCEPTION} reverted with panic code 0x1 (Assertion error)`, `0x4e487b71${word(1n)}`],
      ];
      for (const [data, message, revert] of cases) {
        for (const gas of [{ gas: "0x100000" }, {}]) {
          const before = BigInt(await call<string>(provider, "eth_blockNumber"));
          const error = await rpcError(provider, "eth_sendTransaction", [{ from, to: reverter, data, ...gas }]);
          const txHash = (error.data as { txHash: Hex }).txHash;
          expect(error).to.deep.equal({ code: -32603, message, data: { message, txHash, data: revert } });
          const receipt = await call<{ status: string; blockNumber: string }>(provider, "eth_getTransactionReceipt", [txHash]);
          expect(receipt).to.include({ status: "0x0", blockNumber: hex(before + 1n) });
        }
      }
    });

    it("an arithmetic overflow (Panic 0x11), an INVALID opcode and running out of gas", async () => {
      await call(provider, "eth_sendTransaction", [
        { from, to: counter, data: encodeFunctionData({ abi: Counter.abi, functionName: "set", args: [2n ** 256n - 1n] }) },
      ]);
      const increment = encodeFunctionData({ abi: Counter.abi, functionName: "increment" });
      const overflow = await rpcError(provider, "eth_sendTransaction", [{ from, to: counter, data: increment }]);
      const panic = `${VM_EXCEPTION} reverted with panic code 0x11 (Arithmetic operation overflowed outside of an unchecked block)`;
      expect(overflow).to.deep.include({ code: -32603, message: panic });
      const invalid = "0x000000000000000000000000000000000000fe00";
      await call(provider, "hardhat_setCode", [invalid, "0xfe"]);
      const halted = await rpcError(provider, "eth_sendTransaction", [{ from, to: invalid, gas: "0x100000" }]);
      expect(halted).to.deep.include({ code: -32603, message: `${VM_EXCEPTION} invalid opcode` });
      expect(halted.data).to.include({ data: "0x" });
      const starved = await rpcError(provider, "eth_sendTransaction", [{ from, to: counter, data: increment, gas: "0x5300" }]);
      expect(starved).to.deep.include({ code: -32000, message: "Transaction ran out of gas" });
    });

    it("eth_sendRawTransaction too, and a viem write rejects with the decoded reason", async () => {
      const { walletClient, publicClient, account } = viemClients(provider);
      const gate = await deploy(provider, Gate.bytecode);
      const signed = await walletClient.signTransaction({
        to: reverter,
        data: reverterCall("revertWithReason"),
        gas: 100_000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 1n,
        nonce: await publicClient.getTransactionCount({ address: account.address }),
      });
      const error = await rpcError(provider, "eth_sendRawTransaction", [signed]);
      expect(error).to.deep.include({ code: -32603, message: `${VM_EXCEPTION} reverted with reason string 'nope'` });
      const caught = await walletClient.writeContract({ address: gate, abi: Gate.abi, functionName: "pass", gas: 100_000n }).then(
        () => undefined,
        (failure: unknown) => failure as BaseError,
      );
      const reverted = caught?.walk((cause) => cause instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
      expect(reverted?.reason).to.equal("Gate: closed");
    });

    it("eth_call failures are Hardhat's too (throwOnCallFailures), without a tx hash", async () => {
      const error = await rpcError(provider, "eth_call", [{ from, to: reverter, data: reverterCall("revertWithReason") }]);
      const message = `${VM_EXCEPTION} reverted with reason string 'nope'`;
      expect(error).to.deep.equal({ code: -32603, message, data: { message, data: NOPE } });
      // The estimate keeps the interface's answer (-32000 `execution reverted`, the revert bytes as data).
      expect(await rpcError(provider, "eth_estimateGas", [{ from, to: reverter, data: reverterCall("revertWithReason") }])).to.deep.equal({
        code: -32000,
        message: "execution reverted",
        data: NOPE,
      });
    });
  });

  describe("the options, and mining other than automine", () => {
    it("throwOnTransactionFailures: false answers the hash; throwOnCallFailures: false answers geth's code 3", async () => {
      provider = await automined({ throwOnTransactionFailures: false, throwOnCallFailures: false });
      const reverter = await deploy(provider, Reverter.bytecode);
      const data = encodeFunctionData({ abi: Reverter.abi, functionName: "revertWithReason" });
      const hash = await call<Hex>(provider, "eth_sendTransaction", [{ from: provider.accounts[0]!.address, to: reverter, data, gas: "0x100000" }]);
      expect(await call(provider, "eth_getTransactionReceipt", [hash])).to.include({ status: "0x0" });
      expect(await rpcError(provider, "eth_call", [{ to: reverter, data }])).to.deep.equal({ code: 3, message: "execution reverted: nope", data: NOPE });
    });

    it("under interval or manual mining a send answers its hash, as a pre-confirming chain does", async () => {
      ({ provider } = await createTestChain({ mining: "manual" }));
      from = provider.accounts[0]!.address;
      const deployment = await call<Hex>(provider, "eth_sendTransaction", [{ from, data: Reverter.bytecode }]);
      await provider.preconf.seal();
      const reverter = (await call<{ contractAddress: Hex }>(provider, "eth_getTransactionReceipt", [deployment])).contractAddress;
      const data = encodeFunctionData({ abi: Reverter.abi, functionName: "revertWithReason" });
      const hash = await call<Hex>(provider, "eth_sendTransaction", [{ from, to: reverter, data, gas: "0x100000" }]);
      expect(hash).to.match(/^0x[0-9a-f]{64}$/);
      await provider.preconf.fragment();
      expect(await call(provider, "eth_getTransactionReceipt", [hash])).to.include({ status: "0x0" });
      // And eth_call answers geth's code 3.
      expect(await rpcError(provider, "eth_call", [{ to: reverter, data }])).to.deep.equal({ code: 3, message: "execution reverted: nope", data: NOPE });
    });
  });

  describe("refusals of txs that automine cannot mine at once", () => {
    beforeEach(async () => {
      provider = await automined();
      from = provider.accounts[0]!.address;
    });

    it("a nonce gap is refused with Hardhat's text (EDR's AutoMineNonceTooHigh), not queued", async () => {
      const nonce = BigInt(await call<string>(provider, "eth_getTransactionCount", [from, "latest"]));
      const error = await rpcError(provider, "eth_sendTransaction", [{ from, to: from, nonce: hex(nonce + 5n) }]);
      expect(error).to.deep.equal({
        code: -32000,
        message: `Nonce too high. Expected nonce to be ${nonce} but got ${nonce + 5n}. Note that transactions can't be queued when automining.`,
        data: { expectedNonce: hex(nonce), txNonce: hex(nonce + 5n) },
      });
      expect(await call(provider, "txpool_status")).to.deep.equal({ pending: "0x0", queued: "0x0" });
    });

    it("a fee cap below the next block's base fee is refused with Hardhat's text (EDR's AutoMineMaxFeePerGasTooLow)", async () => {
      const error = await rpcError(provider, "eth_sendTransaction", [{ from, to: from, maxFeePerGas: "0x7", maxPriorityFeePerGas: "0x1" }]);
      const baseFee = BigInt((await call<{ baseFeePerGas: string }>(provider, "eth_getBlockByNumber", ["pending", false])).baseFeePerGas);
      expect(error).to.deep.include({
        code: -32000,
        message: `Transaction maxFeePerGas (7) is too low for the next block, which has a baseFeePerGas of ${baseFee}`,
      });
    });
  });

  describe("dry runs in the next block's context", () => {
    // Reverts unless block.timestamp >= T: PUSH4 T, TIMESTAMP, LT, PUSH1 0x0b, JUMPI, STOP, JUMPDEST, REVERT(0, 0).
    const notBefore = (t: bigint): Hex => `0x63${t.toString(16).padStart(8, "0")}4210600b57005b60006000fd`;
    const WAITER = "0x000000000000000000000000000000000000a177";

    it("eth_estimateGas runs in the next block, at the time evm_setNextBlockTimestamp set; eth_call on latest does not", async () => {
      provider = await automined();
      const latest = BigInt((await call<{ timestamp: string }>(provider, "eth_getBlockByNumber", ["latest", false])).timestamp);
      await call(provider, "hardhat_setCode", [WAITER, notBefore(latest + 100n)]);
      await call(provider, "evm_setNextBlockTimestamp", [hex(latest + 100n)]);
      const estimate = await call<string>(provider, "eth_estimateGas", [{ to: WAITER }]);
      expect(BigInt(estimate) > 21_000n).to.equal(true);
      expect(await call(provider, "eth_estimateGas", [{ to: WAITER }, "pending"])).to.equal(estimate);
      expect((await rpcError(provider, "eth_call", [{ to: WAITER }, "latest"])).message).to.equal("Transaction reverted without a reason string");
      expect(await call(provider, "eth_call", [{ to: WAITER }, "pending"])).to.equal("0x");
    });

    it("without automine, the estimate's default block is the interface's `latest`", async () => {
      ({ provider } = await createTestChain({ mining: "manual" }));
      const latest = BigInt((await call<{ timestamp: string }>(provider, "eth_getBlockByNumber", ["latest", false])).timestamp);
      await call(provider, "hardhat_setCode", [WAITER, notBefore(latest + 100n)]);
      await call(provider, "evm_setNextBlockTimestamp", [hex(latest + 100n)]);
      expect(await rpcError(provider, "eth_estimateGas", [{ to: WAITER }])).to.deep.equal({ code: -32000, message: "execution reverted", data: "0x" });
    });

    it("the pending block is the next block Hardhat would mine: number + 1 and the pinned timestamp", async () => {
      provider = await automined();
      const latest = await call<{ number: string; timestamp: string }>(provider, "eth_getBlockByNumber", ["latest", false]);
      const pinned = BigInt(latest.timestamp) + 5000n;
      await call(provider, "evm_setNextBlockTimestamp", [hex(pinned)]);
      const pending = await call<{ number: string; timestamp: string }>(provider, "eth_getBlockByNumber", ["pending", false]);
      expect(pending).to.include({ number: hex(BigInt(latest.number) + 1n), timestamp: hex(pinned) });
    });

    it("an estimate or call from an account that cannot pay its value succeeds, as Hardhat runs them (no balance check)", async () => {
      provider = await automined();
      const poor = "0x3333333333333333333333333333333333333333";
      const to = "0x4444444444444444444444444444444444444444";
      expect(await call(provider, "eth_estimateGas", [{ from: poor, to, value: "0x1000" }])).to.equal("0x5208");
      expect(await call(provider, "eth_estimateGas", [{ from: poor, to, value: "0x1000", maxFeePerGas: "0x3b9aca00" }])).to.equal("0x5208");
      expect(await call(provider, "eth_call", [{ from: poor, to, value: "0x1000" }])).to.equal("0x");
      // Without automine, geth's answer.
      await call(provider, "evm_setAutomine", [false]);
      expect(await rpcError(provider, "eth_estimateGas", [{ from: poor, to, value: "0x1000" }])).to.include({
        code: -32000,
        message: "insufficient funds for transfer",
      });
    });
  });

  describe("time", () => {
    it("evm_increaseTime after evm_setNextBlockTimestamp: the block takes the set time, and later blocks follow it", async () => {
      provider = await automined();
      const latest = BigInt((await call<{ timestamp: string }>(provider, "eth_getBlockByNumber", ["latest", false])).timestamp);
      await call(provider, "evm_setNextBlockTimestamp", [hex(latest + 10n)]);
      await call(provider, "evm_increaseTime", [1000]);
      await call(provider, "evm_mine");
      await call(provider, "evm_mine");
      const stamps = await Promise.all(
        ["latest", hex(BigInt(await call<string>(provider, "eth_blockNumber")) - 1n)].map(async (tag) =>
          BigInt((await call<{ timestamp: string }>(provider, "eth_getBlockByNumber", [tag, false])).timestamp),
        ),
      );
      // The clock does not move (a fake clock): the set block at latest + 10, the next one second later.
      expect(stamps).to.deep.equal([latest + 11n, latest + 10n]);
    });
  });

  describe("code size limits", () => {
    // Initcode that returns `size` zero bytes: PUSH3 size, PUSH1 0, RETURN.
    const returning = (size: number): Hex => `0x62${size.toString(16).padStart(6, "0")}6000f3`;

    async function deployedSize(size: number, gas = "0x1000000"): Promise<{ status: string; size: number }> {
      const hash = await call<Hex>(provider, "eth_sendTransaction", [{ from: provider.accounts[0]!.address, data: returning(size), gas }]);
      const receipt = await call<{ status: string; contractAddress: Hex }>(provider, "eth_getTransactionReceipt", [hash]);
      const code = await call<Hex>(provider, "eth_getCode", [receipt.contractAddress]);
      return { status: receipt.status, size: (code.length - 2) / 2 };
    }

    it("EIP-170 by default: 24,577 bytes of code do not deploy", async () => {
      provider = await automined({ throwOnTransactionFailures: false });
      expect(await deployedSize(24_576)).to.deep.equal({ status: "0x1", size: 24_576 });
      expect(await deployedSize(24_577)).to.deep.equal({ status: "0x0", size: 0 });
    });

    it("allowUnlimitedContractSize lifts EIP-170 and EIP-3860 (Hardhat's option)", async () => {
      provider = await automined({ allowUnlimitedContractSize: true });
      expect(await deployedSize(30_000)).to.deep.equal({ status: "0x1", size: 30_000 });
      // Dry runs (on state views, with copies of the chain's Common) apply the same limit.
      const estimate = await call<string>(provider, "eth_estimateGas", [{ from: provider.accounts[0]!.address, data: returning(30_000) }]);
      expect(BigInt(estimate) > 6_000_000n).to.equal(true);
      const bigInitcode = `0x${"00".repeat(60_000)}` as Hex;
      const hash = await call<Hex>(provider, "eth_sendTransaction", [{ from: provider.accounts[0]!.address, data: bigInitcode, gas: "0x1000000" }]);
      expect(await call(provider, "eth_getTransactionReceipt", [hash])).to.include({ status: "0x1" });
    });

    it("codeSizeLimit sets the code limit and twice it for initcode (anvil's --code-size-limit)", async () => {
      provider = await automined({ codeSizeLimit: 100, throwOnTransactionFailures: false });
      expect(await deployedSize(100)).to.deep.equal({ status: "0x1", size: 100 });
      expect(await deployedSize(101)).to.deep.equal({ status: "0x0", size: 0 });
      const error = await rpcError(provider, "eth_sendTransaction", [{ from: provider.accounts[0]!.address, data: `0x${"00".repeat(201)}`, gas: "0x100000" }]);
      expect(error).to.include({ code: -32000, message: "max initcode size exceeded" });
    });
  });
});
