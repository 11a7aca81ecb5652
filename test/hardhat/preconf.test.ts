// Typed artifacts (ArtifactMap) of the fixture contracts, for hardhat-viem's typed contracts.
/// <reference path="../../fixtures/hardhat-artifacts/contracts/Counter.sol/artifacts.d.ts" />
/// <reference path="../../fixtures/hardhat-artifacts/contracts/Gate.sol/artifacts.d.ts" />
/// <reference path="../../fixtures/hardhat-artifacts/contracts/Reverter.sol/artifacts.d.ts" />
/**
 * What a preconf network adds to a Hardhat project: network helpers on fragments and blocks,
 * pre-confirmations on a fake clock, and the scripted wallet, all through `connection.preconf`.
 */
import { expect } from "chai";
import { network } from "hardhat";
import { zeroHash } from "viem";

import type { NetworkConnection } from "hardhat/types/network";

describe("hardhat-preconf in a Hardhat project", () => {
  let connection: NetworkConnection;

  before(async () => {
    connection = await network.create("preconf");
  });
  after(() => connection.close());

  describe("network helpers", () => {
    async function deployCounterFixture({ viem }: NetworkConnection) {
      const counter = await viem.deployContract("Counter");
      await counter.write.set([7n]);
      return { counter };
    }

    it("time.increase and mine move the chain", async () => {
      const { networkHelpers } = connection;
      const before = await networkHelpers.time.latest();
      const height = await networkHelpers.time.latestBlock();
      await networkHelpers.time.increase(3600);
      expect(await networkHelpers.time.latest()).to.equal(before + 3600);
      await networkHelpers.mine(5);
      expect(await networkHelpers.time.latestBlock()).to.equal(height + 6);
    });

    it("takeSnapshot and restore undo state and blocks", async () => {
      const { networkHelpers, viem } = connection;
      const counter = await viem.deployContract("Counter");
      const snapshot = await networkHelpers.takeSnapshot();
      const height = await networkHelpers.time.latestBlock();
      await counter.write.increment();
      expect(await counter.read.count()).to.equal(1n);
      await snapshot.restore();
      expect(await counter.read.count()).to.equal(0n);
      expect(await networkHelpers.time.latestBlock()).to.equal(height);
    });

    it("loadFixture deploys once and restores afterwards", async () => {
      const { networkHelpers } = connection;
      const { counter } = await networkHelpers.loadFixture(deployCounterFixture);
      await counter.write.increment();
      expect(await counter.read.count()).to.equal(8n);
      const again = await networkHelpers.loadFixture(deployCounterFixture);
      expect(again.counter.address).to.equal(counter.address);
      expect(await again.counter.read.count()).to.equal(7n);
    });

    it("setBalance and impersonation work through hardhat-ethers", async () => {
      const { networkHelpers, ethers } = connection;
      const whale = "0xab5801a7d398351b8be11c439e05c5b3259aec9b";
      await networkHelpers.setBalance(whale, 10n ** 18n);
      expect(await ethers.provider.getBalance(whale)).to.equal(10n ** 18n);
      const signer = await ethers.getImpersonatedSigner(whale);
      const counter = await ethers.deployContract("Counter", signer);
      await (await counter.getFunction("increment")()).wait();
      expect(await counter.getFunction("count")()).to.equal(1n);
    });
  });

  describe("pre-confirmation on the fake clock", () => {
    it("a tx is pre-confirmed by the next fragment, before its block seals", async () => {
      const { preconf } = connection;
      const { viem } = connection;
      const counter = await viem.deployContract("Counter");
      const publicClient = await viem.getPublicClient();

      // Leave automine for the fragment schedule: nothing happens until the clock moves.
      await connection.provider.request({ method: "evm_setAutomine", params: [false] });
      preconf.preconf.setMining("interval");
      try {
        const hash = await counter.write.increment();
        expect(await publicClient.getTransactionReceipt({ hash }).catch(() => null)).to.equal(null);

        await preconf.preconf.advance(); // one fragment interval (200 ms of fake time)
        const receipt = await publicClient.getTransactionReceipt({ hash });
        expect(receipt.status).to.equal("success");
        expect(receipt.blockHash).to.equal(zeroHash); // pre-confirmed: its block is still open
        expect(await counter.read.count({ blockTag: "pending" })).to.equal(1n);
        expect(await counter.read.count()).to.equal(0n); // latest: the sealed chain

        await preconf.preconf.advance(preconf.preconf.fragmentsPerBlock);
        expect((await publicClient.getTransactionReceipt({ hash })).blockHash).to.not.equal(zeroHash);
        expect(await counter.read.count()).to.equal(1n);
      } finally {
        preconf.preconf.setMining("manual");
        await connection.provider.request({ method: "evm_setAutomine", params: [true] });
      }
    });
  });

  describe("the scripted wallet", () => {
    it("a user rejecting eth_sendTransaction is a 4001 error", async () => {
      const { preconf } = connection;
      const [from] = preconf.accounts;
      preconf.wallet.policy.queue("eth_sendTransaction", "reject");
      const error = await preconf.request({ method: "eth_sendTransaction", params: [{ from: from!.address, to: from!.address, value: "0x1" }] }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).to.include({ code: 4001, message: "User rejected the request" });
      expect(preconf.wallet.requests.at(-1)).to.deep.include({ method: "eth_sendTransaction", decision: "reject" });
    });

    it("a user rejecting wallet_addEthereumChain is a 4001 error, through Hardhat's provider too", async () => {
      const { preconf } = connection;
      preconf.wallet.policy.queue("wallet_addEthereumChain", "reject");
      const chain = {
        chainId: "0x2105",
        chainName: "Base",
        nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
        rpcUrls: ["https://mainnet.base.org"],
      };
      const error = await connection.provider.request({ method: "wallet_addEthereumChain", params: [chain] }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).to.include({ code: 4001 });
      expect(await connection.provider.request({ method: "wallet_addEthereumChain", params: [chain] })).to.equal(null);
    });
  });
});
