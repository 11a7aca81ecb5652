/**
 * The jump-destination analysis cache (src/node/ethereumjs/jumpAnalysis.ts) relies on @ethereumjs/evm
 * internals: these tests fail when an upgrade moves or renames them, or when the cache stops
 * serving repeated calls.
 */
import { expect } from "chai";
import { encodeDeployData, encodeFunctionData, parseEther } from "viem";

import { createRequire } from "node:module";

import { Common, Mainnet } from "@ethereumjs/common";
import { createEVM } from "@ethereumjs/evm";
import { hexToBytes } from "@ethereumjs/util";

import { installJumpAnalysisCache, interpreterModules, jumpAnalysisStats } from "../src/node/ethereumjs/jumpAnalysis.ts";
import { createTestChain } from "./helpers/chain.ts";
import { Token } from "./helpers/contracts.ts";

import type { Hex } from "viem";

describe("jump-destination analysis cache (@ethereumjs/evm 10.1.3 internals)", () => {
  it("finds Interpreter._getValidJumpDestinations beside both builds' entry points, and wraps both", async () => {
    const { esm, cjs } = interpreterModules();
    type Module = { Interpreter: { prototype: Record<string, unknown> } };
    const builds = [(await import(esm)) as Module, createRequire(import.meta.url)(cjs) as Module];
    for (const { Interpreter } of builds) {
      expect(Interpreter.prototype.lookupOpInfo).to.be.a("function");
      expect(Interpreter.prototype._getValidJumpDestinations).to.be.a("function");
    }
    await installJumpAnalysisCache();
    // The package's function is named; the wrapper is anonymous.
    for (const { Interpreter } of builds) expect(Interpreter.prototype._getValidJumpDestinations).to.have.property("name", "");
  });

  it("analyses a contract's code once for many calls, with the same answers", async () => {
    const { provider } = await createTestChain({ mining: "manual" });
    try {
      const [owner, holder] = provider.accounts;
      const hash = await provider.request({
        method: "eth_sendTransaction",
        params: [{ from: owner!.address, data: encodeDeployData({ abi: Token.abi, bytecode: Token.bytecode, args: ["Token", "TOK", parseEther("5")] }) }],
      });
      await provider.preconf.seal();
      const { contractAddress } = (await provider.request({ method: "eth_getTransactionReceipt", params: [hash] })) as { contractAddress: Hex };
      const balanceOf = (who: Hex) => ({ to: contractAddress, data: encodeFunctionData({ abi: Token.abi, functionName: "balanceOf", args: [who] }) });
      const call = async (who: Hex) => BigInt((await provider.request({ method: "eth_call", params: [balanceOf(who), "latest"] })) as string);

      const first = jumpAnalysisStats.computed;
      expect(await call(owner!.address)).to.equal(parseEther("5"));
      // The token's code was analysed once by this call (whichever build the process runs)...
      expect(jumpAnalysisStats.computed - first).to.equal(1);
      const before = jumpAnalysisStats.computed;
      for (let i = 0; i < 10; i++) {
        expect(await call(owner!.address)).to.equal(parseEther("5"));
        expect(await call(holder!.address)).to.equal(0n);
      }
      // ...and never again.
      expect(jumpAnalysisStats.computed - before).to.equal(0);
    } finally {
      await provider.close();
    }
  });

  it("analyses the same code once per EVM when it comes in another array (the same contract deployed again)", async () => {
    await installJumpAnalysisCache();
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: "prague" }) });
    const runtime = hexToBytes(Token.deployedBytecode);
    const first = jumpAnalysisStats.computed;
    await evm.runCode({ code: runtime.slice(), gasLimit: 100_000n });
    expect(jumpAnalysisStats.computed - first).to.equal(1);
    // Other arrays of the same bytes: found by their hash.
    await evm.runCode({ code: runtime.slice(), gasLimit: 100_000n });
    await evm.runCode({ code: Uint8Array.from(runtime), gasLimit: 100_000n });
    expect(jumpAnalysisStats.computed - first).to.equal(1);
    // Other code is analysed.
    await evm.runCode({ code: hexToBytes(Token.bytecode), gasLimit: 100_000n });
    expect(jumpAnalysisStats.computed - first).to.equal(2);
  });
});
