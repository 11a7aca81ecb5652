// Typed artifacts (ArtifactMap) of the fixture contracts, for hardhat-viem's typed contracts.
/// <reference path="../../fixtures/hardhat-artifacts/contracts/Counter.sol/artifacts.d.ts" />
/// <reference path="../../fixtures/hardhat-artifacts/contracts/Gate.sol/artifacts.d.ts" />
/// <reference path="../../fixtures/hardhat-artifacts/contracts/Reverter.sol/artifacts.d.ts" />
/**
 * A Hardhat 3 project's tests on a preconf network (hardhat.config.ts): hardhat-viem,
 * hardhat-ethers, hardhat-network-helpers and the chai matchers, unchanged.
 */
import { expect } from "chai";
import { network } from "hardhat";

import type { NetworkConnection } from "hardhat/types/network";

describe("Counter on a preconf network", () => {
  let connection: NetworkConnection;

  before(async () => {
    connection = await network.create("preconf");
  });
  after(() => connection.close());

  it("deploys and calls with hardhat-viem", async () => {
    const counter = await connection.viem.deployContract("Counter");
    await counter.write.increment();
    expect(await counter.read.count()).to.equal(1n);
  });

  it("deploys and calls with hardhat-ethers", async () => {
    const counter = await connection.ethers.deployContract("Counter");
    await (await counter.getFunction("increment")()).wait();
    await (await counter.getFunction("set")(41n)).wait();
    await (await counter.getFunction("increment")()).wait();
    expect(await counter.getFunction("count")()).to.equal(42n);
  });

  it("asserts revert reasons and custom errors with the chai matchers", async () => {
    const gate = await connection.ethers.deployContract("Gate");
    await expect(gate.getFunction("pass")()).to.be.revertedWith("Gate: closed");
    await (await gate.getFunction("openGate")()).wait();
    await expect(gate.getFunction("pass")()).to.not.be.revert(connection.ethers);

    const reverter = await connection.ethers.deployContract("Reverter");
    const [signer] = await connection.ethers.getSigners();
    await expect(reverter.getFunction("revertWithCustomError")()).to.be.revertedWithCustomError(reverter, "Unauthorized").withArgs(signer!.address, 42n);
  });

  it("emits events the matchers see", async () => {
    const counter = await connection.ethers.deployContract("Counter");
    const [signer] = await connection.ethers.getSigners();
    await expect(counter.getFunction("increment")()).to.emit(counter, "Incremented").withArgs(signer!.address, 1n);
  });
});
