/**
 * What opening and sealing a block derives once instead of per block (chain/nextBlock.ts,
 * execution/openBlock.ts): each against the @ethereumjs computation it replaces.
 */
import { createBlockHeader, paramsBlock } from "@ethereumjs/block";
import { bytesToHex } from "@ethereumjs/util";
import { Bloom } from "@ethereumjs/vm";
import FakeTimers from "@sinonjs/fake-timers";
import { expect } from "chai";

import { createPreconfProvider } from "../src/index.ts";
import { requestQueueChecks } from "../src/node/execution/systemCalls.ts";
import { nextExcessBlobGas } from "../src/node/chain/nextBlock.ts";
import { orBlooms } from "../src/node/execution/openBlock.ts";
import { sharedCommon } from "../src/node/ethereumjs/sharedCommon.ts";
import { commonFromGenesis, devGethGenesis } from "../src/node/state/genesis.ts";

describe("opening a block", () => {
  for (const hardfork of ["cancun", "prague", "osaka"] as const) {
    it(`takes the next excess blob gas as the header computes it, looking the blob schedule up once (${hardfork})`, () => {
      // A Common with the block params (EIP-7918's blobBaseCost among them), as the chain's headers have.
      const common = sharedCommon(
        commonFromGenesis(devGethGenesis({ hardfork, chainId: 31337n, gasLimit: 30_000_000n, baseFeePerGas: 1n, timestamp: 0n, alloc: new Map() }), {}),
        paramsBlock,
      );
      const opts = { common, skipConsensusFormatValidation: true };
      let lookups = 0;
      const schedule = common.getBlobGasSchedule.bind(common);
      common.getBlobGasSchedule = () => {
        lookups++;
        return schedule();
      };
      const target = schedule().targetBlobGasPerBlock;
      const values = [0n, 1n, target - 131_072n, target - 1n, target, target + 1n, 2n * target, 10n * target];
      let checked = 0;
      for (const excessBlobGas of values) {
        for (const blobGasUsed of [0n, 131_072n, target, 2n * target]) {
          for (const baseFeePerGas of [1n, 7n, 10n ** 12n]) {
            const parent = createBlockHeader({ number: 1n, excessBlobGas, blobGasUsed, baseFeePerGas, gasLimit: 30_000_000n }, opts);
            const before = lookups;
            const expected = parent.calcNextExcessBlobGas(common);
            const packageLookups = lookups - before;
            expect(nextExcessBlobGas(parent, common), `excess ${excessBlobGas}, used ${blobGasUsed}`).to.equal(expected);
            // Below the target the schedule is not looked up again; above it the package computes it.
            if (excessBlobGas + blobGasUsed < target) expect(lookups - before - packageLookups).to.equal(checked === 0 ? 1 : 0);
            checked++;
          }
        }
      }
    });
  }
});

describe("sealing a block", () => {
  it("ORs the txs' logs blooms as @ethereumjs/vm's Bloom.or does", () => {
    let seed = 7;
    const random = () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return seed & 0xff;
    };
    for (const count of [0, 1, 2, 5, 40]) {
      const blooms = Array.from({ length: count }, (_, i) => Uint8Array.from({ length: 256 }, () => (i % 3 === 0 ? 0 : random() & random())));
      const expected = new Bloom();
      for (const bits of blooms) expected.or(new Bloom(bits));
      expect(bytesToHex(orBlooms(blooms)), `${count} blooms`).to.equal(bytesToHex(expected.bitvector));
    }
    expect(() => orBlooms([new Uint8Array(255)])).to.throw("bitvectors must be 2048 bits long");
  });
});

describe("evm_revert and the end-of-block request queues", () => {
  it("keeps what the reverted-to state is known to hold: the queues are not read again at the next block's end", async () => {
    const provider = await createPreconfProvider({ clock: FakeTimers.createClock(1_700_000_000_000), mining: "auto" });
    const request = (method: string, params: unknown[] = []) => provider.request({ method, params });
    // The queues are known idle from the second block on.
    await request("evm_mine");
    await request("evm_mine");
    const snapshot = await request("evm_snapshot");
    await request("evm_mine");
    const before = requestQueueChecks.count;
    await request("evm_revert", [snapshot]);
    await request("evm_mine");
    await request("evm_mine");
    expect(requestQueueChecks.count - before).to.equal(0);
    await provider.close();
  });
});
