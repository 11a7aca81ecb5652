/**
 * One hidden class per kind of engine object (ethereumjs/commonShape.ts, evmFields.ts, vmCopy.ts,
 * state/viewState.ts `emptyObjectArray`): a state view's VM, EVM, state and Commons have the live
 * chain's maps from the moment they are made, so the code V8 optimized for the block path is not
 * thrown away when the first eth_call runs on a view (bench/benchmarks-notes.md, "Nineteenth round").
 * What a map does not show is not checked here: the fields written twice so that V8 marks them
 * mutable up front (a field's constness changes inside its map), and the view state's private
 * journal and watcher arrays (their helper is checked instead).
 */
import { setFlagsFromString } from "node:v8";

import { expect } from "chai";
import { encodeDeployData, encodeFunctionData } from "viem";

import { txCommonOf } from "../src/node/pool/admission.ts";
import { emptyObjectArray } from "../src/node/state/viewState.ts";
import { createTestChain } from "./helpers/chain.ts";
import { Token } from "./helpers/contracts.ts";

import type { Common } from "@ethereumjs/common";
import type { Hex } from "viem";

// V8's own answer, as test/evmFields.test.ts reads it: the flag only lets later code parse `%Name(...)` calls.
setFlagsFromString("--allow-natives-syntax");
const haveSameMap = new Function("a", "b", "return %HaveSameMap(a, b)") as (a: unknown, b: unknown) => boolean;

type Vm = { common: Common; evm: { common: Common; journal: object }; stateManager: object };
type ChainInternals = { vm: Vm; latest: unknown; withState(at: unknown, read: (vm: Vm) => Promise<void>, options: object): Promise<void> };

describe("engine objects share hidden classes", () => {
  it("a state view's VM, EVM, state, EVM journal and Commons have the live chain's maps, before and after its first dry run", async () => {
    const { provider } = await createTestChain({ mining: "manual" });
    try {
      const call = (method: string, params: unknown[] = []) => provider.request({ method, params });
      await call("evm_setAutomine", [true]);
      const deployer = provider.accounts[0]!.address;
      const holder = provider.accounts[1]!.address;
      // With gas limits, so that no estimate runs: the chain's first state view is made below.
      const data = encodeDeployData({ abi: Token.abi, bytecode: Token.bytecode, args: ["Token", "TOK", 10n ** 24n] });
      const deployHash = (await call("eth_sendTransaction", [{ from: deployer, data, gas: "0x1e8480" }])) as Hex;
      const token = ((await call("eth_getTransactionReceipt", [deployHash])) as { contractAddress: Hex }).contractAddress;
      const transfer = encodeFunctionData({ abi: Token.abi, functionName: "transfer", args: [holder, 1n] });
      for (let i = 0; i < 3; i++) await call("eth_sendTransaction", [{ from: deployer, to: token, data: transfer, gas: "0x186a0" }]);

      const chain = (provider as unknown as { chain: ChainInternals }).chain;
      const live = chain.vm;
      let view: Vm | undefined;
      await chain.withState({ kind: "sealed", sealed: chain.latest }, async (vm) => void (view = vm), { snapshot: true });
      const fresh = view!;
      const pairs = () => ({
        vm: haveSameMap(live, fresh),
        evm: haveSameMap(live.evm, fresh.evm),
        state: haveSameMap(live.stateManager, fresh.stateManager),
        journal: haveSameMap(live.evm.journal, fresh.evm.journal),
      });
      expect(pairs(), "before the view's first dry run").to.deep.equal({ vm: true, evm: true, state: true, journal: true });
      await call("eth_call", [{ to: token, data: encodeFunctionData({ abi: Token.abi, functionName: "balanceOf", args: [holder] }) }, "latest"]);
      expect(pairs(), "after it").to.deep.equal({ vm: true, evm: true, state: true, journal: true });
      // The view VM's Common, its EVM's, and the shared Common admission builds txs on.
      expect([fresh.common, fresh.evm.common, txCommonOf(live.common)].map((common) => haveSameMap(live.common, common))).to.deep.equal([true, true, true]);
    } finally {
      await provider.close();
    }
  });

  it("an empty array made for objects has the map of an array of objects; a `[]` has not", () => {
    expect(haveSameMap(emptyObjectArray(), [{}])).to.equal(true);
    expect(haveSameMap([], [{}])).to.equal(false);
  });
});
