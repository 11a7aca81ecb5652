import hardhatMocha from "@nomicfoundation/hardhat-mocha";
import hardhatNodeTestRunner from "@nomicfoundation/hardhat-node-test-runner";
import hardhatViem from "@nomicfoundation/hardhat-viem";
import { defineConfig } from "hardhat/config";
import hardhatPreconf from "hardhat-preconf/hardhat";

export default defineConfig({
  plugins: [hardhatPreconf, hardhatViem, hardhatMocha, hardhatNodeTestRunner],
  solidity: "0.8.30",
  paths: { tests: { mocha: "test/mocha", nodejs: "test/node" } },
  networks: {
    preconf: {
      type: "http",
      url: "http://preconf.invalid", // never contacted: the plugin answers in process
      preconf: { clock: "fake", mining: "auto" },
    },
  },
});
