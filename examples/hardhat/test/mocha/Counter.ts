import { expect } from "chai";
import { network } from "hardhat";

describe("Counter", () => {
  it("counts, and a count is pre-confirmed before its block seals", async () => {
    const connection = await network.create("preconf");
    const counter = await connection.viem.deployContract("Counter");
    await counter.write.increment(); // automine: a fragment and a block at once
    expect(await counter.read.count()).to.equal(1n);

    await connection.provider.request({ method: "evm_setAutomine", params: [false] });
    await counter.write.increment(); // waits in the pool
    await connection.preconf.preconf.fragment(); // one fragment: pre-confirmed
    expect(await counter.read.count({ blockTag: "pending" })).to.equal(2n);
    expect(await counter.read.count({ blockTag: "latest" })).to.equal(1n);
    await connection.close();
  });
});
