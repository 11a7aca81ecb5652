/**
 * A block's hardfork, remembered per class of (number, timestamp) (ethereumjs/hardforkAt.ts): for
 * any block it answers what @ethereumjs' getHardforkBy answers and sets what setHardforkBy sets, on a schedule with block- and
 * time-activated forks, including blocks exactly at, just before and just after each activation.
 */
import { createCommonFromGethGenesis } from "@ethereumjs/common";
import { expect } from "chai";
import fc from "fast-check";

import { hardforkAt, setHardforkAt } from "../src/node/ethereumjs/hardforkAt.ts";

import type { GethGenesis } from "@ethereumjs/common";

const activations = { shanghaiTime: 100, cancunTime: 200, pragueTime: 300, osakaTime: 1_000_000 };

function genesis(): GethGenesis {
  const london = { homesteadBlock: 0, eip150Block: 0, eip155Block: 0, eip158Block: 0, byzantiumBlock: 0, constantinopleBlock: 0, petersburgBlock: 0 };
  return {
    config: {
      chainId: 31337,
      ...london,
      istanbulBlock: 0,
      berlinBlock: 5,
      londonBlock: 10,
      mergeNetsplitBlock: 10,
      terminalTotalDifficulty: 0,
      terminalTotalDifficultyPassed: true,
      ...activations,
    },
    difficulty: "0x0",
    gasLimit: "0x1c9c380",
    extraData: "0x",
    alloc: {},
    timestamp: "0x0",
    nonce: "0x0",
    mixHash: `0x${"00".repeat(32)}`,
    coinbase: `0x${"00".repeat(20)}`,
  } as unknown as GethGenesis;
}

const near = (points: number[]) =>
  fc.oneof(fc.constantFrom(...points.flatMap((point) => [point - 1, point, point + 1]).filter((value) => value >= 0)), fc.nat({ max: 2_000_000 }));

describe("a block's hardfork, remembered per class", () => {
  it("is the hardfork setHardforkBy sets, for any number and timestamp", () => {
    const remembered = createCommonFromGethGenesis(genesis(), { chain: "dev" });
    const direct = createCommonFromGethGenesis(genesis(), { chain: "dev" });
    fc.assert(
      fc.property(near([0, 5, 10]), near([0, ...Object.values(activations)]), (number, timestamp) => {
        let expected: string | Error;
        try {
          expected = direct.setHardforkBy({ blockNumber: BigInt(number), timestamp: BigInt(timestamp) });
        } catch (error) {
          expected = error as Error;
        }
        if (expected instanceof Error) {
          expect(() => setHardforkAt(remembered, BigInt(number), BigInt(timestamp))).to.throw(expected.message);
          expect(() => hardforkAt(remembered, BigInt(number), BigInt(timestamp))).to.throw(expected.message);
        } else {
          expect(hardforkAt(remembered, BigInt(number), BigInt(timestamp))).to.equal(expected, `block ${number} at ${timestamp}`);
          setHardforkAt(remembered, BigInt(number), BigInt(timestamp));
          expect(remembered.hardfork()).to.equal(expected, `block ${number} at ${timestamp}`);
        }
      }),
      { seed: 27, numRuns: 2000 },
    );
  });
});
