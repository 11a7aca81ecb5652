/**
 * Every EVM of a chain keeps one hidden class (src/node/ethereumjs/evmFields.ts): the package's fields
 * and this package's own ones, given in one order when the EVM is made and never deleted. An EVM
 * that lost a field would be a dictionary with a map of its own, and the interpreter's optimized
 * code, compiled for one map, would be thrown away at every other.
 */
import { setFlagsFromString } from "node:v8";

import { expect } from "chai";
import { encodeFunctionData, parseEther } from "viem";

import { createTestChain, viemClients } from "./helpers/chain.ts";
import { Token } from "./helpers/contracts.ts";

import type { VM } from "@ethereumjs/vm";
import type { Address } from "viem";

// V8's own answers. The flag holds for the rest of this process (mocha's one process for every file): it only
// lets later code parse `%Name(...)` calls, a syntax error in plain JavaScript, so no other code changes meaning.
setFlagsFromString("--allow-natives-syntax");
const hasFastProperties = new Function("object", "return %HasFastProperties(object)") as (object: object) => boolean;
const haveSameMap = new Function("a", "b", "return %HaveSameMap(a, b)") as (a: object, b: object) => boolean;

describe("EVM fields (evmFields.ts)", () => {
  it("the live EVM and the views' EVMs keep one hidden class, and the views' journals fast properties, after blocks, eth_calls, estimates and dry runs through runTx", async () => {
    const { provider } = await createTestChain({ rpcEvmTimeoutMs: 5_000 });
    try {
      const clients = viemClients(provider);
      const hash = await clients.walletClient.deployContract({ abi: Token.abi, bytecode: Token.bytecode, args: ["Token", "TOK", parseEther("1000")] });
      await provider.preconf.advance();
      const token = (await clients.publicClient.getTransactionReceipt({ hash })).contractAddress as Address;
      const other = provider.accounts[1]!.address;
      const transfer = encodeFunctionData({ abi: Token.abi, functionName: "transfer", args: [other, 5n] });
      const balanceOf = encodeFunctionData({ abi: Token.abi, functionName: "balanceOf", args: [other] });
      const evms: object[] = [];
      const journals: object[] = [];
      const collect = async (tag: "latest" | "pending") => {
        const resolved = provider.chain.resolve({ kind: "tag", tag })!;
        await provider.chain.withState(resolved, async (vm: VM) => {
          evms.push(vm.evm);
          journals.push(vm.evm.journal);
        });
      };
      for (let round = 0; round < 3; round++) {
        // A dry run with a time budget, an estimate (its gas record), one through runTx (an access list), a block.
        await provider.request({ method: "eth_call", params: [{ to: token, data: balanceOf }, "latest"] });
        await provider.request({ method: "eth_estimateGas", params: [{ from: clients.account.address, to: token, data: transfer }, "latest"] });
        await provider.request({ method: "eth_createAccessList", params: [{ from: clients.account.address, to: token, data: transfer }, "latest"] });
        await provider.request({ method: "eth_call", params: [{ to: token, data: balanceOf }, "pending"] });
        await collect("latest");
        await collect("pending");
        await clients.walletClient.sendTransaction({ to: token, data: transfer });
        await provider.preconf.advance();
      }
      evms.push(provider.chain.vm.evm);
      expect(evms.length).to.equal(7);
      for (const evm of evms) expect(hasFastProperties(evm), "an EVM's properties in a dictionary").to.equal(true);
      for (const evm of evms) expect(haveSameMap(evm, evms[0]!), "EVMs of two hidden classes").to.equal(true);
      for (const journal of journals) expect(hasFastProperties(journal), "a journal's properties in a dictionary").to.equal(true);
    } finally {
      await provider.close();
    }
  });
});
