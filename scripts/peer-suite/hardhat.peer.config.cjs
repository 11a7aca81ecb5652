// Hardhat 2 config for the peer-suite run (scripts/peer-suite/run.sh): OpenZeppelin Contracts' own
// config, plus
// - the compiler from the npm `solc` package (solcjs), where Hardhat would download a native build
//   (the TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD subtask, Hardhat 2's compiler lookup);
// - `localhost` at PEER_URL, and `estimate` at the same URL: a network name hardhat-ethers does not
//   take for Hardhat's, so that it estimates every transaction (hardhat-ethers' signers.js gives
//   `hardhat` and `localhost` a fixed gas limit instead);
// - a longer mocha timeout (every request crosses HTTP) and, with PEER_REPORT set, mocha's
//   `json-stream` reporter: one JSON line per test as it ends, on stdout, so that a run shows its
//   progress and a stopped run keeps what it did (results.mjs reads it).
// The run copies this file into the OpenZeppelin checkout, whose node_modules it resolves from.
const path = require("node:path");

const { subtask } = require("hardhat/config");
const { TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD } = require("hardhat/builtin-tasks/task-names");

const base = require("./hardhat.config.js");

const solcDir = process.env.PEER_SOLC_DIR;
subtask(TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD, async (args, _hre, runSuper) => {
  if (solcDir === undefined) return runSuper(args);
  const solc = require(path.join(solcDir, "node_modules", "solc"));
  const longVersion = solc.version().replace(/\.Emscripten\.clang$/, "");
  if (!longVersion.startsWith(`${args.solcVersion}+`)) throw new Error(`solc in ${solcDir} is ${longVersion}, the project asks for ${args.solcVersion}`);
  return { compilerPath: path.join(solcDir, "node_modules", "solc", "soljson.js"), isSolcJs: true, version: args.solcVersion, longVersion };
});

const url = process.env.PEER_URL ?? "http://127.0.0.1:8545";
module.exports = {
  ...base,
  networks: { ...base.networks, localhost: { url, timeout: 600_000 }, estimate: { url, timeout: 600_000 } },
  mocha: {
    ...(base.mocha ?? {}),
    timeout: 600_000,
    ...(process.env.PEER_REPORT !== undefined && { reporter: "json-stream" }),
  },
};
