/**
 * `npx hardhat preconf node [--network name] [settings]`: serves a preconf network over HTTP and
 * WebSocket until interrupted, as `npx preconf node` does (the same settings, banner, log and
 * state files: src/cli/). The network's `preconf` block is the starting point; the task's
 * settings override it. Without --network it serves the first network that has a `preconf` block.
 */
import { readFileSync } from "node:fs";

import { HardhatPluginError } from "hardhat/plugins";

import { parseNodeArgs, UsageError } from "../../cli/args.ts";
import { asUsageError, settleCommand } from "../../cli/settle.ts";
import { taskArgumentsToArgv } from "../../cli/flags.ts";
import { runNode } from "../../cli/node.ts";
import { InvalidOptionsError } from "../../options.ts";
import { providerOptionsOf } from "../config.ts";

import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";
import type { NewTaskActionFunction } from "hardhat/types/tasks";
import type { NodeCommand } from "../../cli/flags.ts";
import type { MnemonicAccounts, PreconfProviderOptions } from "../../options.ts";

/** Hardhat's default `--verbosity` (its constants.ts): each -v above it is one level of ours. */
const HARDHAT_DEFAULT_VERBOSITY = 2;

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

/** The network's provider options, with what the task's settings change on top. */
function merged(base: Omit<PreconfProviderOptions, "clock">, given: NodeCommand["provider"]): NodeCommand["provider"] {
  const { accounts: givenAccounts, ...rest } = given;
  const touched = !Array.isArray(givenAccounts) && Object.keys(givenAccounts).length > 0;
  if (touched && Array.isArray(base.accounts)) {
    throw new HardhatPluginError(
      "hardhat-preconf",
      "the network's preconf.accounts are explicit keys: --accounts, --balance, --mnemonic and --derivation-path do not apply",
    );
  }
  const accounts = touched ? { ...(base.accounts as MnemonicAccounts | undefined), ...givenAccounts } : (base.accounts ?? givenAccounts);
  // A fork given to the task replaces the network's chain id (the upstream's).
  const chain = rest.fork !== undefined ? (({ chainId: _chainId, ...other }) => other)(base) : base;
  return { ...chain, ...rest, accounts };
}

const packageVersion = (): string => (JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string }).version;

const nodeTask: NewTaskActionFunction<Record<string, unknown>> = async (args, hre) => {
  let command: NodeCommand | "help";
  try {
    command = parseNodeArgs(taskArgumentsToArgv(args));
  } catch (error) {
    throw error instanceof UsageError ? new HardhatPluginError("hardhat-preconf", error.message) : error;
  }
  if (command === "help") throw new HardhatPluginError("hardhat-preconf", "run `npx hardhat preconf node --help` for the settings");
  const network = preconfNetworkName(hre);
  const config = hre.config.networks[network];
  if (config?.type !== "http" || config.preconf === undefined) throw new HardhatPluginError("hardhat-preconf", `network "${network}" has no preconf block`);
  // A served chain runs on real time: no test is there to advance a fake clock (providerOptionsOf leaves the clock out).
  command.provider = merged(providerOptionsOf(config.preconf, config.chainType), command.provider);
  try {
    settleCommand(command);
  } catch (error) {
    throw error instanceof UsageError ? new HardhatPluginError("hardhat-preconf", error.message) : error;
  }
  const verbosity = hre.globalOptions.verbosity;
  if (command.log.level >= 0 && typeof verbosity === "number") command.log.level = Math.max(command.log.level, verbosity - HARDHAT_DEFAULT_VERBOSITY);
  let code: number;
  try {
    code = await runNode(command, packageVersion());
  } catch (error) {
    if (error instanceof InvalidOptionsError) throw new HardhatPluginError("hardhat-preconf", asUsageError(error, command).message);
    throw error;
  }
  if (code !== 0) process.exitCode = code;
};

export default nodeTask;
