/**
 * Where a dev state edit lands (src/node/state/stateEdits.ts, docs/dev-methods.md#state-edits), pinned
 * whatever the state layer underneath: Hardhat's "irregular state" under automine (an edit made
 * after block N is N's state for every read, and N + 1's pre-state; older blocks never change),
 * compared side by side with `npx hardhat node` (Hardhat 2.28.5, read 2026-11-25), and the open
 * block under interval mining once it pre-confirmed something. Replays run on the state each tx
 * ran on: a trace of a tx after an edit.
 */
import { expect } from "chai";
import { encodeFunctionData, getContractAddress } from "viem";

import { createTestChain } from "./helpers/chain.ts";
import { Counter } from "./helpers/contracts.ts";

import type { Hex } from "viem";
import type { PreconfProvider } from "../src/index.ts";

const WHO = "0x1111111111111111111111111111111111111111";
const OTHER = "0x2222222222222222222222222222222222222222";

async function call<T = unknown>(provider: PreconfProvider, method: string, params: unknown[] = []): Promise<T> {
  return (await provider.request({ method, params })) as T;
}

const hex = (value: bigint) => `0x${value.toString(16)}`;

describe("dev state edits, as Hardhat attributes them (irregular state)", () => {
  let provider: PreconfProvider;

  afterEach(() => provider.close());

  describe("under automine", () => {
    beforeEach(async () => {
      provider = (await createTestChain({ mining: "manual" })).provider;
      await call(provider, "evm_setAutomine", [true]);
    });

    it("an edit after block N is N's state by number, by hash and as latest; N - 1 never changes (Hardhat's answers)", async () => {
      await call(provider, "eth_sendTransaction", [{ from: provider.accounts[0]!.address, to: OTHER, value: "0x1" }]);
      await call(provider, "eth_sendTransaction", [{ from: provider.accounts[0]!.address, to: OTHER, value: "0x1" }]);
      const n = await call<string>(provider, "eth_blockNumber");
      const block = await call<{ hash: string; stateRoot: string }>(provider, "eth_getBlockByNumber", [n, false]);
      await call(provider, "hardhat_setBalance", [WHO, "0x1234"]);
      await call(provider, "hardhat_setNonce", [WHO, "0x7"]);
      await call(provider, "hardhat_setCode", [WHO, "0x6001"]);
      await call(provider, "hardhat_setStorageAt", [WHO, "0x1", `0x${"ab".repeat(32)}`]);
      for (const at of [n, "latest", { blockHash: block.hash }]) {
        expect(await call(provider, "eth_getBalance", [WHO, at])).to.equal("0x1234");
        expect(await call(provider, "eth_getTransactionCount", [WHO, at])).to.equal("0x7");
        expect(await call(provider, "eth_getCode", [WHO, at])).to.equal("0x6001");
        expect(await call(provider, "eth_getStorageAt", [WHO, "0x1", at])).to.equal(`0x${"ab".repeat(32)}`);
      }
      const before = hex(BigInt(n) - 1n);
      expect(await call(provider, "eth_getBalance", [WHO, before])).to.equal("0x0");
      expect(await call(provider, "eth_getCode", [WHO, before])).to.equal("0x");
      // The block itself is unchanged: its header and hash are those its txs produced.
      expect(await call(provider, "eth_getBlockByNumber", [n, false])).to.deep.include({ hash: block.hash, stateRoot: block.stateRoot });
    });

    it("block N + 1 runs on the edited state, and a balance at N vs N + 1 counts only the tx (changeEtherBalance)", async () => {
      const [sender] = provider.accounts;
      await call(provider, "hardhat_impersonateAccount", [WHO]);
      await call(provider, "hardhat_setBalance", [WHO, hex(10n ** 18n)]);
      const n = BigInt(await call<string>(provider, "eth_blockNumber"));
      // No fee: the balance moves by the value alone.
      await call(provider, "hardhat_setNextBlockBaseFeePerGas", ["0x0"]);
      const hash = await call<string>(provider, "eth_sendTransaction", [{ from: WHO, to: sender!.address, value: hex(1000n), gasPrice: "0x0" }]);
      const receipt = await call<{ blockNumber: string; status: string }>(provider, "eth_getTransactionReceipt", [hash]);
      expect(receipt).to.include({ blockNumber: hex(n + 1n), status: "0x1" });
      const at = async (number: bigint) => BigInt(await call<string>(provider, "eth_getBalance", [WHO, hex(number)]));
      expect(await at(n)).to.equal(10n ** 18n);
      expect((await at(n)) - (await at(n + 1n))).to.equal(1000n);
    });

    it("debug_traceTransaction of a tx after an edit replays on the edited state", async () => {
      const [sender] = provider.accounts;
      const deployHash = await call<string>(provider, "eth_sendTransaction", [{ from: sender!.address, data: Counter.bytecode }]);
      const counter = (await call<{ contractAddress: string }>(provider, "eth_getTransactionReceipt", [deployHash])).contractAddress;
      // An account that has nothing but what the edit gave it pays for the traced tx.
      await call(provider, "hardhat_impersonateAccount", [WHO]);
      await call(provider, "hardhat_setBalance", [WHO, hex(10n ** 18n)]);
      // count = 41 written by hand: the traced increment reads it (SLOAD) and writes 42.
      await call(provider, "hardhat_setStorageAt", [counter, "0x0", `0x${41n.toString(16).padStart(64, "0")}`]);
      const hash = await call<string>(provider, "eth_sendTransaction", [
        { from: WHO, to: counter, data: encodeFunctionData({ abi: Counter.abi, functionName: "increment" }) },
      ]);
      const trace = await call<{ failed: boolean; structLogs: { op: string; storage?: Record<string, string> }[] }>(provider, "debug_traceTransaction", [hash]);
      expect(trace.failed).to.equal(false);
      const store = trace.structLogs.find((log) => log.op === "SSTORE");
      expect(store?.storage?.[`0x${"0".repeat(64)}`]).to.equal(`0x${42n.toString(16).padStart(64, "0")}`);
      const frame = await call<Record<string, unknown>>(provider, "debug_traceTransaction", [hash, { tracer: "callTracer" }]);
      expect(frame).to.include({ from: WHO, to: counter });
      expect(frame).to.not.have.property("error");
    });

    it("evm_revert takes the head's state back to what it was at the snapshot, edits included", async () => {
      await call(provider, "hardhat_setBalance", [WHO, "0x1"]);
      const n = await call<string>(provider, "eth_blockNumber");
      const id = await call<string>(provider, "evm_snapshot");
      await call(provider, "hardhat_setBalance", [WHO, "0x2"]);
      expect(await call(provider, "eth_getBalance", [WHO, n])).to.equal("0x2");
      await call(provider, "evm_revert", [id]);
      expect(await call(provider, "eth_getBalance", [WHO, n])).to.equal("0x1");
      expect(await call(provider, "eth_getBalance", [WHO, "latest"])).to.equal("0x1");
    });

    it("a block mined again after a revert does not inherit the edits of the block it replaces", async () => {
      const id = await call<string>(provider, "evm_snapshot");
      await call(provider, "evm_mine");
      const mined = await call<{ hash: string; number: string }>(provider, "eth_getBlockByNumber", ["latest", false]);
      await call(provider, "hardhat_setBalance", [WHO, "0x5"]);
      await call(provider, "evm_revert", [id]);
      await call(provider, "evm_mine");
      const again = await call<{ hash: string; number: string }>(provider, "eth_getBlockByNumber", ["latest", false]);
      expect(again.number).to.equal(mined.number);
      expect(await call(provider, "eth_getBalance", [WHO, again.number])).to.equal("0x0");
    });
  });

  describe("under interval mining", () => {
    beforeEach(async () => {
      provider = (await createTestChain({ mining: "manual" })).provider;
    });

    it("before the open block's first fragment, an edit lands on the head block, as under automine", async () => {
      await call(provider, "evm_mine");
      const n = await call<string>(provider, "eth_blockNumber");
      await call(provider, "hardhat_setBalance", [WHO, "0x9"]);
      expect(await call(provider, "eth_getBalance", [WHO, n])).to.equal("0x9");
      expect(await call(provider, "eth_getBalance", [WHO, "pending"])).to.equal("0x9");
    });

    it("once the open block pre-confirmed something, an edit lands in it: pending sees it, latest does not, the sealed block has it, and replays apply it where it happened", async () => {
      const [sender] = provider.accounts;
      const deployHash = await call<string>(provider, "eth_sendTransaction", [{ from: sender!.address, data: Counter.bytecode }]);
      await call(provider, "evm_mine");
      const counter = (await call<{ contractAddress: string }>(provider, "eth_getTransactionReceipt", [deployHash])).contractAddress;
      const increment = encodeFunctionData({ abi: Counter.abi, functionName: "increment" });
      await call(provider, "eth_sendTransaction", [{ from: sender!.address, to: counter, data: increment }]);
      await provider.preconf.fragment();
      const n = await call<string>(provider, "eth_blockNumber");
      // Between the block's two increments: count 1 becomes 100.
      await call(provider, "hardhat_setStorageAt", [counter, "0x0", `0x${100n.toString(16).padStart(64, "0")}`]);
      const count = `0x${"0".repeat(64)}`;
      expect(BigInt(await call<string>(provider, "eth_getStorageAt", [counter, count, "pending"]))).to.equal(100n);
      expect(BigInt(await call<string>(provider, "eth_getStorageAt", [counter, count, "latest"]))).to.equal(0n);
      const second = await call<string>(provider, "eth_sendTransaction", [{ from: sender!.address, to: counter, data: increment }]);
      await provider.preconf.fragment();
      await call(provider, "evm_mine");
      expect(BigInt(await call<string>(provider, "eth_getStorageAt", [counter, count, hex(BigInt(n) + 1n)]))).to.equal(101n);
      expect(BigInt(await call<string>(provider, "eth_getStorageAt", [counter, count, n]))).to.equal(0n);
      const trace = await call<{ failed: boolean; structLogs: { op: string; storage?: Record<string, string> }[] }>(provider, "debug_traceTransaction", [
        second,
      ]);
      expect(trace.structLogs.find((log) => log.op === "SSTORE")?.storage?.[`0x${"0".repeat(64)}`]).to.equal(`0x${101n.toString(16).padStart(64, "0")}`);
    });

    it("storage an edit gives an empty address in the open block makes a later CREATE2 there collide (EIP-7610), and its replay too", async () => {
      const [sender] = provider.accounts;
      const from = sender!.address;
      // Runtime: CREATE2(0, calldata, salt 0), the address (0: failed) into slot 0.
      const factoryInit = `0x600c600a5f39600c5ff3${"365f5f37"}${"5f365f5ff5"}${"5f55"}00`;
      const childInit = "0x600160015500"; // SSTORE(1, 1), no code
      const deploy = await call<string>(provider, "eth_sendTransaction", [{ from, data: factoryInit, gas: "0x100000" }]);
      await call(provider, "evm_mine");
      const factory = (await call<{ contractAddress: Hex }>(provider, "eth_getTransactionReceipt", [deploy])).contractAddress;
      const child = getContractAddress({ opcode: "CREATE2", from: factory, salt: `0x${"00".repeat(32)}`, bytecode: childInit });
      for (const between of [false, true]) {
        await call(provider, "eth_sendTransaction", [{ from, to: OTHER, value: "0x1" }]);
        await provider.preconf.fragment();
        await call(provider, "hardhat_setStorageAt", [child, "0x5", `0x${"7".padStart(64, "0")}`]);
        if (between) {
          await call(provider, "eth_sendTransaction", [{ from, to: OTHER, value: "0x2" }]);
          await provider.preconf.fragment();
        }
        const create = await call<string>(provider, "eth_sendTransaction", [{ from, to: factory, data: childInit, gas: "0x100000" }]);
        await provider.preconf.fragment();
        await call(provider, "evm_mine");
        expect(BigInt(await call<string>(provider, "eth_getStorageAt", [factory, "0x0", "latest"])), `tx between: ${between}`).to.equal(0n);
        expect(BigInt(await call<string>(provider, "eth_getStorageAt", [child, "0x5", "latest"]))).to.equal(7n);
        const trace = await call<{ calls?: { error?: string }[] }>(provider, "debug_traceTransaction", [create, { tracer: "callTracer" }]);
        expect(trace.calls?.[0]?.error).to.equal("contract address collision");
        await call(provider, "hardhat_setStorageAt", [child, "0x5", `0x${"0".repeat(64)}`]);
        await call(provider, "evm_mine");
      }
    });
  });
});
