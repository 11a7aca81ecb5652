// Serves a hardhat-preconf chain with Hardhat's semantics (automine) over HTTP, for the peer-suite
// run (scripts/peer-suite/run.sh) or a side-by-side comparison with `npx hardhat node`.
//
//   npx tsx scripts/peer-suite/node.ts [--port 8545] [--hardfork osaka] [--allow-unlimited-contract-size]
import { parseArgs } from "node:util";

import { createPreconfProvider, startServer } from "../../src/index.ts";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "8545" },
    hardfork: { type: "string", default: "osaka" },
    "allow-unlimited-contract-size": { type: "boolean", default: false },
    "block-gas-limit": { type: "string", default: "60000000" },
  },
});

const provider = await createPreconfProvider({
  hardfork: values.hardfork,
  blockGasLimit: BigInt(values["block-gas-limit"]),
  // Hardhat's automine: each tx gets a block of its own, and nothing is mined in between.
  mining: "manual",
  allowUnlimitedContractSize: values["allow-unlimited-contract-size"],
  // Hardhat's node keeps every block's state.
  stateHistory: "all",
});
await provider.request({ method: "evm_setAutomine", params: [true] });
const server = await startServer(provider, { port: Number(values.port) });
process.stdout.write(`hardhat-preconf (automine) at ${server.url}\n`);
const stop = async () => {
  await server.close();
  await provider.close();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
