/** Hardhat networks with chainType "op" (or a preconf profile) run OP-stack execution; hardhat-viem's OP actions work. */
import { expect } from "chai";

import type { HardhatUserConfig } from "hardhat/config";

// Loaded with import(), as in hardhat-plugin.test.ts: one copy of Hardhat's modules.
const { createHardhatRuntimeEnvironment } = await import("hardhat/hre");
const { default: hardhatPreconf } = await import("../src/hardhat/index.ts");
const { default: hardhatViem } = await import("@nomicfoundation/hardhat-viem");

function config(network: Record<string, unknown>): HardhatUserConfig {
  return {
    plugins: [hardhatPreconf, hardhatViem],
    networks: { chain: { type: "http", url: "http://preconf.invalid", ...network } as never },
  };
}

describe("Hardhat: OP-stack networks", function () {
  this.timeout(30_000);

  it("chainType op gets the optimism profile; hardhat-viem's L2 actions read the L1 fee", async () => {
    const hre = await createHardhatRuntimeEnvironment(config({ chainType: "op", preconf: { clock: "fake", mining: "auto" } }));
    const resolved = hre.config.networks.chain;
    // The cadence is the fork's unless the block names one (OP Mainnet: 8 fragments of 250 ms).
    expect(resolved?.type === "http" && resolved.preconf).to.deep.include({
      profile: "optimism",
      chainId: 10,
      fragmentIntervalMs: 250,
      fragmentsPerBlock: undefined,
    });
    const connection = await hre.network.create({ network: "chain", chainType: "op" });
    try {
      expect(connection.preconf.options.profile).to.equal("optimism");
      expect(connection.preconf.preconf.fragmentsPerBlock).to.equal(8);
      const publicClient = await connection.viem.getPublicClient();
      const [wallet] = await connection.viem.getWalletClients();
      const hash = await wallet!.sendTransaction({ to: wallet!.account.address, value: 1n });
      const receipt = (await connection.provider.request({ method: "eth_getTransactionReceipt", params: [hash] })) as Record<string, string>;
      expect(BigInt(receipt.l1Fee!)).to.be.greaterThan(0n);
      const l1Fee = await publicClient.estimateL1Fee({ account: wallet!.account.address, to: wallet!.account.address, value: 1n });
      expect(l1Fee).to.be.greaterThan(0n);
      expect(await publicClient.getL1BaseFee()).to.be.greaterThan(0n);
    } finally {
      await connection.close();
    }
  });

  it("a preconf profile picks the chain and its fork; a dev profile on an op network is refused", async () => {
    const hre = await createHardhatRuntimeEnvironment(config({ chainType: "op", preconf: { profile: "base", hardfork: "cobalt", clock: "fake" } }));
    const resolved = hre.config.networks.chain;
    expect(resolved?.type === "http" && resolved.preconf).to.deep.include({ profile: "base", chainId: 8453, hardfork: "cobalt" });
    const connection = await hre.network.create({ network: "chain", chainType: "op" });
    try {
      expect([connection.preconf.options.hardfork, connection.preconf.preconf.fragmentsPerBlock]).to.deep.equal(["cobalt", 10]);
    } finally {
      await connection.close();
    }
    let message = "";
    try {
      await createHardhatRuntimeEnvironment(config({ chainType: "op", preconf: { profile: "dev" } }));
    } catch (error) {
      message = error instanceof Error ? error.message : String(error);
    }
    expect(message).to.include("networks.chain.preconf.profile");
  });
});
