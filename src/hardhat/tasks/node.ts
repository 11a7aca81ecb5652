/**
 * `npx hardhat preconf node [--network name] [--host h] [--port p]`: serves a preconf network over
 * HTTP and WebSocket until interrupted. Without --network it serves the first network that has a
 * `preconf` block.
 */
import { HardhatPluginError } from "hardhat/plugins";

import { startServer } from "../../server/http.ts";
import { parseOrigins } from "../../server/origins.ts";

import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";
import type { NewTaskActionFunction } from "hardhat/types/tasks";

interface NodeTaskArguments {
  host: string;
  port: number;
  /** Comma-separated origins or "*"; empty: no browser origin is allowed (the server's default). */
  cors: string;
}

function preconfNetworkName(hre: HardhatRuntimeEnvironment): string {
  const chosen = hre.globalOptions.network;
  const names = Object.entries(hre.config.networks)
    .filter(([, config]) => config.type === "http" && config.preconf !== undefined)
    .map(([name]) => name);
  if (chosen !== undefined && chosen !== "") {
    if (!names.includes(chosen)) {
      throw new HardhatPluginError("hardhat-preconf", `network "${chosen}" has no preconf block (preconf networks: ${names.join(", ") || "none"})`);
    }
    return chosen;
  }
  const [first] = names;
  if (first === undefined) throw new HardhatPluginError("hardhat-preconf", "no network has a preconf block: add one to hardhat.config.ts");
  return first;
}

function allowedOrigins(cors: string): "*" | string[] | undefined {
  if (cors === "") return undefined;
  try {
    return parseOrigins(cors);
  } catch (error) {
    throw new HardhatPluginError("hardhat-preconf", `--cors: ${error instanceof Error ? error.message : String(error)}`);
  }
}

const nodeTask: NewTaskActionFunction<NodeTaskArguments> = async ({ host, port, cors }, hre) => {
  const origins = allowedOrigins(cors);
  const network = preconfNetworkName(hre);
  // A served chain runs on real time: no test is there to advance a fake clock.
  const connection = await hre.network.create({ network, override: { preconf: { clock: "real" } } });
  const provider = connection.preconf;
  const server = await startServer(provider, { host, port, ...(origins !== undefined && { allowedOrigins: origins }) });
  console.log(`hardhat-preconf: network "${network}" (chain ${provider.options.chainId}) on ${server.url} and ${server.wsUrl}`);
  const automine = provider.chain.automine ? ", automine" : "";
  console.log(
    `fragments every ${provider.preconf.fragmentIntervalMs} ms (${provider.preconf.mining}${automine}), ${provider.preconf.fragmentsPerBlock} per block, real clock; accounts:`,
  );
  for (const account of provider.accounts) console.log(`  ${account.address}  ${account.privateKey}`);

  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  await server.close();
  await connection.close();
};

export default nodeTask;
