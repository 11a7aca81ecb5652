/**
 * `updateParams` without its idle deep copies (src/node/ethereumjs/paramsMerge.ts) leaves a Common
 * exactly as the package's `updateParams` does: the same params and the same params cache after
 * every merge, on the param sets the VM, EVM, txs and blocks merge, merged again, and with values
 * that change what is held.
 */
import { Common, Mainnet } from "@ethereumjs/common";
import { paramsBlock } from "@ethereumjs/block";
import { paramsEVM } from "@ethereumjs/evm";
import { paramsTx } from "@ethereumjs/tx";
import { paramsVM } from "@ethereumjs/vm";
import { expect } from "chai";

import { updateParamsHeld } from "../src/node/ethereumjs/paramsMerge.ts";

import type { ParamsDict } from "@ethereumjs/common";

type Internals = { _params: ParamsDict; _paramsCache: Record<string, unknown> };
const internals = (common: Common) => common as unknown as Internals;

describe("params merge (paramsMerge.ts)", () => {
  it("gives the package's params and params cache after every merge, for every fork from Chainstart to Osaka", () => {
    const merges: ParamsDict[] = [
      paramsVM,
      paramsEVM,
      paramsVM,
      paramsEVM,
      paramsTx,
      paramsBlock,
      // A value held changes: that EIP is merged as the package merges it.
      { 2929: { coldsloadGas: 2101 } },
      paramsEVM,
      // An EIP not held yet, and a value that is no JSON primitive.
      { 999999: { someGas: 1 } },
      { 1: { nested: { a: 1 } } as never },
      { 1: { nested: { a: 1 } } as never },
    ];
    for (const hardfork of ["chainstart", "berlin", "cancun", "prague", "osaka"]) {
      const theirs = new Common({ chain: Mainnet, hardfork, params: { 7: { seven: 7 } } as never });
      const ours = new Common({ chain: Mainnet, hardfork, params: { 7: { seven: 7 } } as never });
      for (const [step, params] of merges.entries()) {
        theirs.updateParams(params);
        updateParamsHeld.call(ours, params);
        expect(internals(ours)._params, `${hardfork}, merge ${step}: params`).to.deep.equal(internals(theirs)._params);
        expect(internals(ours)._paramsCache, `${hardfork}, merge ${step}: params cache`).to.deep.equal(internals(theirs)._paramsCache);
      }
    }
  });

  it("leaves an EIP whose params already hold the values merged as it is, and still rebuilds the cache", () => {
    const common = new Common({ chain: Mainnet, hardfork: "prague" });
    updateParamsHeld.call(common, paramsEVM);
    const held = internals(common)._params[2929];
    const cache = internals(common)._paramsCache;
    updateParamsHeld.call(common, paramsEVM);
    expect(internals(common)._params[2929], "the same object: no JSON copy").to.equal(held);
    expect(internals(common)._paramsCache, "a cache built again").to.not.equal(cache);
    expect(internals(common)._paramsCache).to.deep.equal(cache);
    updateParamsHeld.call(common, { 2929: { coldsloadGas: 2101 } });
    expect(internals(common)._params[2929], "a changed value: merged as the package merges").to.not.equal(held);
    expect(common.param("coldsloadGas")).to.equal(2101n);
  });

  it("gives a second chain's Common the params the first one's merges made, frozen, and the package's answer still", () => {
    const [first, second, theirs] = [0, 1, 2].map(() => new Common({ chain: Mainnet, hardfork: "osaka" }));
    for (const params of [paramsBlock, paramsVM, paramsEVM, paramsTx]) {
      updateParamsHeld.call(first!, params);
      updateParamsHeld.call(second!, params);
      theirs!.updateParams(params);
    }
    // EIP 1's params come in every set: merged over each other, once per process.
    expect(internals(second!)._params[1]).to.equal(internals(first!)._params[1]);
    expect(Object.isFrozen(internals(second!)._params[1])).to.equal(true);
    expect(internals(second!)._params).to.deep.equal(internals(theirs!)._params);
    expect(internals(second!)._paramsCache).to.deep.equal(internals(theirs!)._paramsCache);
    // A later merge replaces the frozen params, as the package replaces them.
    updateParamsHeld.call(second!, { 1: { txGas: 21_001 } });
    theirs!.updateParams({ 1: { txGas: 21_001 } });
    expect(second!.param("txGas")).to.equal(21_001n);
    expect(first!.param("txGas"), "the first chain's params are its own").to.equal(21_000n);
    expect(internals(second!)._paramsCache).to.deep.equal(internals(theirs!)._paramsCache);
  });

  it("comes back to the same objects when the VM's and the EVM's sets flip EIP-2935's window, however many VMs are made", () => {
    const common = new Common({ chain: Mainnet, hardfork: "prague" });
    const theirs = new Common({ chain: Mainnet, hardfork: "prague" });
    const seen = new Set<unknown>();
    for (let vm = 0; vm < 200; vm++) {
      // A VM's construction: its EVM's merge, then its own (@ethereumjs/vm 10.1.3 shallowCopy).
      updateParamsHeld.call(common, paramsEVM);
      updateParamsHeld.call(common, paramsVM);
      if (vm >= 2) seen.add(internals(common)._params[2935]);
    }
    theirs.updateParams(paramsEVM);
    theirs.updateParams(paramsVM);
    expect(seen.size, "one object per content of EIP-2935's params").to.be.at.most(2);
    expect(common.param("historyServeWindow")).to.equal(8191n);
    expect(internals(common)._params).to.deep.equal(internals(theirs)._params);
    expect(internals(common)._paramsCache).to.deep.equal(internals(theirs)._paramsCache);
  });

  it("merges params that are not the package's as the package does, even when they changed since an earlier merge", () => {
    const params = { 1559: { fooGas: 1 } };
    const [first, second, theirs] = [0, 1, 2].map(() => new Common({ chain: Mainnet, hardfork: "prague" }));
    updateParamsHeld.call(first!, params);
    params[1559].fooGas = 2;
    updateParamsHeld.call(second!, params);
    theirs!.updateParams(params);
    expect(first!.param("fooGas")).to.equal(1n);
    expect(second!.param("fooGas")).to.equal(2n);
    expect(internals(second!)._params).to.deep.equal(internals(theirs!)._params);
  });
});
