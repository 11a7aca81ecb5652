// Typed artifacts (ArtifactMap) of the fixture contracts, for hardhat-viem's typed contracts.
/// <reference path="../../fixtures/hardhat-artifacts/contracts/Counter.sol/artifacts.d.ts" />
/// <reference path="../../fixtures/hardhat-artifacts/contracts/Gate.sol/artifacts.d.ts" />
/// <reference path="../../fixtures/hardhat-artifacts/contracts/Reverter.sol/artifacts.d.ts" />
/**
 * A preconf network as a drop-in for Hardhat's own: what Hardhat's plugin test suites use, through
 * hardhat-viem, hardhat-ethers, the chai matchers and the network helpers.
 */
import { expect } from "chai";
import { network } from "hardhat";
import { BaseError, ContractFunctionRevertedError } from "viem";

import type { NetworkConnection } from "hardhat/types/network";
import type { Hex } from "viem";

describe("a preconf network as a drop-in Hardhat network", () => {
  let connection: NetworkConnection;

  before(async () => {
    connection = await network.create("preconf");
  });
  after(() => connection.close());

  it("changeEtherBalance after setNextBlockBaseFeePerGas(0) counts the value only", async () => {
    const { ethers, networkHelpers } = connection;
    const [sender, receiver] = await ethers.getSigners();
    await networkHelpers.setNextBlockBaseFeePerGas(0);
    const tx = sender!.sendTransaction({ to: receiver!.address, value: 200n, maxPriorityFeePerGas: 0n });
    await expect(tx).to.changeEtherBalances(ethers, [sender!, receiver!], [-200n, 200n]);
    const block = await ethers.provider.getBlock("latest");
    expect(block!.baseFeePerGas).to.equal(0n);
  });

  it("setCoinbase, setPrevRandao and setBlockGasLimit shape the next block", async () => {
    const { networkHelpers, viem } = connection;
    const publicClient = await viem.getPublicClient();
    const coinbase = "0x000000000000000000000000000000000000c0de";
    const randao = `0x${"12".repeat(32)}` as const;
    await networkHelpers.setCoinbase(coinbase);
    await networkHelpers.setPrevRandao(randao);
    await networkHelpers.setBlockGasLimit(25_000_000);
    await networkHelpers.mine();
    const block = await publicClient.getBlock();
    expect(block.miner).to.equal(coinbase);
    expect(block.mixHash).to.equal(randao);
    expect(block.gasLimit).to.equal(25_000_000n);
  });

  it("two un-awaited sends from one account both land, through hardhat-viem and hardhat-ethers", async () => {
    const { viem, ethers } = connection;
    const counter = await viem.deployContract("Counter");
    const hashes = await Promise.all([counter.write.increment(), counter.write.increment()]);
    expect(hashes[0]).to.not.equal(hashes[1]);
    expect(await counter.read.count()).to.equal(2n);

    const ethersCounter = await ethers.getContractAt("Counter", counter.address);
    const [first, second] = [ethersCounter.getFunction("increment")(), ethersCounter.getFunction("increment")()];
    await expect(first).to.emit(ethersCounter, "Incremented");
    await expect(second).to.emit(ethersCounter, "Incremented");
    expect(await counter.read.count()).to.equal(4n);
  });

  it("networkHelpers.mine(1_000_000) mines a million blocks at once", async () => {
    const { networkHelpers, viem } = connection;
    const height = await networkHelpers.time.latestBlock();
    const latest = await networkHelpers.time.latest();
    await networkHelpers.mine(1_000_000, { interval: 12 });
    expect(await networkHelpers.time.latestBlock()).to.equal(height + 1_000_000);
    const publicClient = await viem.getPublicClient();
    const middle = await publicClient.getBlock({ blockNumber: BigInt(height + 500_000) });
    const head = await publicClient.getBlock();
    expect(Number(head.timestamp - middle.timestamp)).to.equal(12 * 500_000);
    expect(Number(head.timestamp)).to.be.greaterThan(latest + 12 * 999_998);
  });

  describe("revert reasons", () => {
    it("reach hardhat-viem's ContractFunctionExecutionError for reads (eth_call, code 3)", async () => {
      const reverter = await connection.viem.deployContract("Reverter");
      const error = await reverter.read.revertWithReason().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).to.be.instanceOf(BaseError);
      const reverted = (error as BaseError).walk((cause) => cause instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
      expect(reverted?.reason).to.equal("nope");
      expect((error as BaseError).name).to.equal("ContractFunctionExecutionError");
    });

    it("reach hardhat-viem for writes (the estimate of eth_sendTransaction)", async () => {
      const gate = await connection.viem.deployContract("Gate");
      const error = await gate.write.pass().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      const reverted = (error as BaseError).walk((cause) => cause instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
      expect(reverted?.reason).to.equal("Gate: closed");
    });

    it("reach ethers and the chai matchers, for calls and sends", async () => {
      const gate = await connection.ethers.deployContract("Gate");
      const reverter = await connection.ethers.deployContract("Reverter");
      await expect(reverter.getFunction("revertWithReason")()).to.be.revertedWith("nope");
      await expect(gate.getFunction("pass")()).to.be.revertedWith("Gate: closed");
      await expect(gate.getFunction("pass").staticCall()).to.be.revertedWith("Gate: closed");
      // Under automine a failed call or send is Hardhat's error, as `npx hardhat node` answers it
      // (throwOnCallFailures, throwOnTransactionFailures): -32603, its text, the revert bytes in data,
      // and for a send the hash of the tx, mined all the same.
      const catching = (promise: Promise<unknown>) =>
        promise.then(
          () => undefined,
          (caught: unknown) => caught as { code: number; message: string; data: { message: string; txHash?: string; data: string } },
        );
      const called = await catching(reverter.getFunction("revertWithReason")());
      const nope = "VM Exception while processing transaction: reverted with reason string 'nope'";
      expect(called).to.include({ code: -32603, message: nope });
      expect(called?.data).to.deep.equal({ message: nope, data: called!.data.data });
      expect(called!.data.data.startsWith("0x08c379a0")).to.equal(true);
      const sent = await catching(gate.getFunction("pass")());
      const closed = "VM Exception while processing transaction: reverted with reason string 'Gate: closed'";
      expect(sent).to.include({ code: -32603, message: closed });
      expect(sent!.data).to.include({ message: closed });
      const receipt = await connection.ethers.provider.getTransactionReceipt(sent!.data.txHash!);
      expect(receipt?.status).to.equal(0);
    });

    it("reach every chai matcher for sends that fail: revertedWith, revertedWithCustomError, revertedWithPanic, revert", async () => {
      const { ethers } = connection;
      const reverter = await ethers.deployContract("Reverter");
      const counter = await ethers.deployContract("Counter");
      const [signer] = await ethers.getSigners();
      await expect(reverter.getFunction("revertWithReason")()).to.be.revertedWith("nope");
      await expect(reverter.getFunction("revertWithCustomError")()).to.be.revertedWithCustomError(reverter, "Unauthorized").withArgs(signer!.address, 42n);
      await expect(reverter.getFunction("panic")()).to.be.revertedWithPanic(1n);
      await expect(reverter.getFunction("revertEmpty")()).to.be.revertedWithoutReason(ethers);
      await expect(reverter.getFunction("revertEmpty")()).to.revert(ethers);
      await (await counter.getFunction("set")(2n ** 256n - 1n)).wait();
      // Arithmetic overflow: Panic(0x11).
      await expect(counter.getFunction("increment")()).to.be.revertedWithPanic(0x11n);
    });

    it("hardhat-viem's writes reject with the revert reason, and the failed tx is mined", async () => {
      const { viem } = connection;
      const gate = await viem.deployContract("Gate");
      const publicClient = await viem.getPublicClient();
      const before = await publicClient.getBlockNumber();
      const error = await gate.write.pass({ gas: 100_000n }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      const reverted = (error as BaseError).walk((cause) => cause instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
      expect(reverted?.reason).to.equal("Gate: closed");
      expect(await publicClient.getBlockNumber()).to.equal(before + 1n);
    });
  });

  it("changeEtherBalance counts only the tx after an impersonated account is funded with setBalance", async () => {
    const { ethers, networkHelpers } = connection;
    const [receiver] = await ethers.getSigners();
    const whale = "0x00000000000000000000000000000000000a11ce";
    await networkHelpers.setBalance(whale, 10n ** 18n);
    const impersonated = await networkHelpers.impersonateAccount(whale).then(() => ethers.getSigner(whale));
    const tx = impersonated.sendTransaction({ to: receiver!.address, value: 1234n });
    await expect(tx).to.changeEtherBalance(ethers, receiver!, 1234n);
  });
});

describe("debug_traceTransaction through Hardhat's provider", () => {
  it("traces a reverted tx: struct logs end in REVERT, callTracer gives the reason", async () => {
    const connection = await network.create("preconf");
    try {
      const { viem, provider } = connection;
      const reverter = await viem.deployContract("Reverter");
      const [wallet] = await viem.getWalletClients();
      // Under automine the failed send is Hardhat's error, with the mined tx's hash in its data.
      const error = await wallet!.sendTransaction({ to: reverter.address, data: "0x5b2dd100" /* revertWithReason() */, gas: 100_000n }).then(
        () => undefined,
        (caught: unknown) => caught as BaseError,
      );
      const failure = error?.walk((cause) => typeof (cause as { data?: { txHash?: unknown } }).data?.txHash === "string") as { data: { txHash: Hex } } | null;
      const hash = failure!.data.txHash;
      const receipt = await (await viem.getPublicClient()).getTransactionReceipt({ hash });
      expect(receipt.status).to.equal("reverted");
      const trace = (await provider.request({ method: "debug_traceTransaction", params: [hash] })) as { failed: boolean; structLogs: { op: string }[] };
      expect(trace.failed).to.equal(true);
      expect(trace.structLogs.at(-1)!.op).to.equal("REVERT");
      const frame = (await provider.request({ method: "debug_traceTransaction", params: [hash, { tracer: "callTracer" }] })) as Record<string, unknown>;
      expect(frame).to.include({ type: "CALL", error: "execution reverted", revertReason: "nope" });
    } finally {
      await connection.close();
    }
  });
});

describe("the network's gas, gasPrice, gasMultiplier and from settings", () => {
  it("gasMultiplier multiplies the estimate of eth_sendTransaction", async () => {
    const connection = await network.create("preconfMultiplied");
    try {
      const counter = await connection.viem.deployContract("Counter");
      const publicClient = await connection.viem.getPublicClient();
      const [wallet] = await connection.viem.getWalletClients();
      const data = "0xd09de08a" as const; // increment()
      const estimate = await publicClient.estimateGas({ account: wallet!.account, to: counter.address, data });
      const hash = await wallet!.sendTransaction({ to: counter.address, data });
      const tx = await publicClient.getTransaction({ hash });
      expect(tx.gas).to.equal(estimate * 2n);
    } finally {
      await connection.close();
    }
  });

  it("a fixed gas, gasPrice and from are what txs are sent with", async () => {
    const connection = await network.create("preconfFixed");
    try {
      const { provider } = connection;
      const hash = (await provider.request({
        method: "eth_sendTransaction",
        params: [{ to: "0x000000000000000000000000000000000000dead", value: "0x1" }],
      })) as string;
      const tx = (await provider.request({ method: "eth_getTransactionByHash", params: [hash] })) as Record<string, string>;
      expect(tx.from).to.equal("0x70997970c51812dc3a010c7d01b50e0d17dc79c8");
      expect(BigInt(tx.gas!)).to.equal(200_000n);
      expect(BigInt(tx.gasPrice!)).to.equal(7_000_000_000n);
      expect(tx.type).to.equal("0x0");
    } finally {
      await connection.close();
    }
  });
});

describe("allowBlocksWithSameTimestamp", () => {
  it("time.increaseTo and setNextBlockTimestamp accept the latest block's own timestamp", async () => {
    const connection = await network.create("preconfSameTimestamp");
    try {
      const { time, mine } = connection.networkHelpers;
      const latest = await time.latest();
      await time.increaseTo(latest);
      expect(await time.latest()).to.equal(latest);
      await time.setNextBlockTimestamp(latest);
      await mine();
      expect(await time.latest()).to.equal(latest);
      const error = await time.setNextBlockTimestamp(latest - 1).then(
        () => undefined,
        (caught: unknown) => caught as Error,
      );
      expect(error?.message).to.include(`Timestamp ${latest - 1} is lower than the previous block's timestamp ${latest}`);
    } finally {
      await connection.close();
    }
  });
});
