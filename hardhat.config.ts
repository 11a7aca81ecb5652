/**
 * Example Hardhat 3 project on hardhat-preconf: the fixture contracts' committed artifacts, tests in
 * test/hardhat/, run with `npx hardhat test mocha --no-compile` (npm run test:hardhat).
 */
import hardhatEthers from "@nomicfoundation/hardhat-ethers";
import hardhatEthersChaiMatchers from "@nomicfoundation/hardhat-ethers-chai-matchers";
import hardhatMocha from "@nomicfoundation/hardhat-mocha";
import hardhatNetworkHelpers from "@nomicfoundation/hardhat-network-helpers";
import hardhatViem from "@nomicfoundation/hardhat-viem";
import { defineConfig } from "hardhat/config";

// In your own project: import hardhatPreconf from "hardhat-preconf/hardhat";
import hardhatPreconf from "./src/hardhat/index.ts";

export default defineConfig({
  plugins: [hardhatPreconf, hardhatViem, hardhatEthers, hardhatNetworkHelpers, hardhatEthersChaiMatchers, hardhatMocha],
  solidity: "0.8.30",
  paths: {
    sources: "fixtures/contracts",
    artifacts: "fixtures/hardhat-artifacts",
    tests: { mocha: "test/hardhat" },
  },
  networks: {
    preconf: {
      type: "http",
      // Never contacted: the plugin answers every request in process.
      url: "http://preconf.invalid",
      preconf: {
        // Time moves only when a test advances it: pre-confirmations are deterministic.
        clock: "fake",
        // Hardhat-style automine: every tx gets a fragment and a block at once.
        mining: "auto",
      },
    },
    // The network settings Hardhat's request handlers apply (test/hardhat/drop-in.test.ts).
    preconfMultiplied: {
      type: "http",
      url: "http://preconf.invalid",
      gasMultiplier: 2,
      preconf: { clock: "fake", mining: "auto" },
    },
    preconfFixed: {
      type: "http",
      url: "http://preconf.invalid",
      chainId: 31337,
      gas: 200_000,
      gasPrice: 7_000_000_000,
      from: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
      preconf: { clock: "fake", mining: "auto" },
    },
    preconfSameTimestamp: {
      type: "http",
      url: "http://preconf.invalid",
      preconf: { clock: "fake", mining: "auto", allowBlocksWithSameTimestamp: true },
    },
  },
});
