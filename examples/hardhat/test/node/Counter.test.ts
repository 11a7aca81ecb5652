import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { network } from "hardhat";

describe("Counter", () => {
  it("counts", async () => {
    const connection = await network.create("preconf");
    const counter = await connection.viem.deployContract("Counter");
    await counter.write.increment();
    assert.equal(await counter.read.count(), 1n);
    await connection.close();
  });
});
