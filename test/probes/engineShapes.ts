/**
 * Run by test/engineShapes.test.ts as `node --allow-natives-syntax --import tsx` (V8's
 * `%HaveSameMap` tells whether two objects have one hidden class): a chain that has mined
 * contract calls, and then its first state view, a dry run on it and a shared tx Common. Prints
 * which pairs share a map, as JSON.
 */
import { encodeDeployData, encodeFunctionData } from "viem";

import { createTestChain } from "../helpers/chain.ts";
import { Token } from "../helpers/contracts.ts";
import { txCommonOf } from "../../src/node/pool/admission.ts";
import { emptyObjectArray } from "../../src/node/state/viewState.ts";

import type { Common } from "@ethereumjs/common";
import type { Hex } from "viem";

const sameMap = new Function("a", "b", "return %HaveSameMap(a, b)") as (a: unknown, b: unknown) => boolean;

const { provider } = await createTestChain({ mining: "manual" });
// Sent with a gas limit, so that no estimate runs: the chain's first state view is made below.
const call = (method: string, params: unknown[] = []) => provider.request({ method, params });
await call("evm_setAutomine", [true]);
const deployer = provider.accounts[0]!;
const holder = provider.accounts[1]!;
const deployHash = (await call("eth_sendTransaction", [
  { from: deployer.address, gas: "0x1e8480", data: encodeDeployData({ abi: Token.abi, bytecode: Token.bytecode, args: ["Token", "TOK", 10n ** 24n] }) },
])) as Hex;
const token = ((await call("eth_getTransactionReceipt", [deployHash])) as { contractAddress: Hex }).contractAddress;
const transfer = encodeFunctionData({ abi: Token.abi, functionName: "transfer", args: [holder.address, 1n] });
for (let i = 0; i < 3; i++) await call("eth_sendTransaction", [{ from: deployer.address, to: token, data: transfer, gas: "0x186a0" }]);

type Vm = { common: Common; evm: { common: Common; journal: object }; stateManager: object };
const chain = (
  provider as unknown as { chain: { vm: Vm; latest: unknown; withState(at: unknown, read: (vm: Vm) => Promise<void>, options: object): Promise<void> } }
).chain;
const live = chain.vm;
// The first view of the chain: its VM is made now, before any dry run has run on it.
let view: Vm | undefined;
await chain.withState({ kind: "sealed", sealed: chain.latest }, async (vm) => void (view = vm), { snapshot: true });
const fresh = view!;
const before = {
  vm: sameMap(live, fresh),
  evm: sameMap(live.evm, fresh.evm),
  state: sameMap(live.stateManager, fresh.stateManager),
  journal: sameMap(live.evm.journal, fresh.evm.journal),
};
await call("eth_call", [{ to: token, data: encodeFunctionData({ abi: Token.abi, functionName: "balanceOf", args: [holder.address] }) }, "latest"]);
const commons = [fresh.common, fresh.evm.common, txCommonOf(live.common)];

console.log(
  JSON.stringify({
    before,
    afterCall: { vm: sameMap(live, fresh), evm: sameMap(live.evm, fresh.evm) },
    commons: commons.map((common) => sameMap(live.common, common)),
    arrays: { objectArray: sameMap(emptyObjectArray(), [{}]), literal: sameMap([], [{}]) },
  }),
);
await provider.close();
