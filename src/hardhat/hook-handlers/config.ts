/** Config hooks: the `preconf` block is checked at load (path and reason) and resolved with defaults. */
import { resolvePreconfConfig, validatePreconfConfig } from "../config.ts";

import type { ConfigHooks } from "hardhat/types/hooks";

export default async (): Promise<Partial<ConfigHooks>> => ({
  async validateUserConfig(userConfig) {
    const errors: { path: (string | number)[]; message: string }[] = [];
    for (const [name, network] of Object.entries(userConfig.networks ?? {})) {
      // Read untyped: a JavaScript config may put the block on any network type.
      const block: unknown = Object.getOwnPropertyDescriptor(network, "preconf")?.value;
      if (block === undefined) continue;
      const path = ["networks", name, "preconf"];
      if (network.type !== "http") {
        errors.push({ path, message: `a preconf network must be declared with type: "http" (and a placeholder url), not "${network.type}"` });
        continue;
      }
      const problems = validatePreconfConfig(block);
      for (const problem of problems) errors.push({ path: [...path, ...problem.path], message: problem.message });
      if (problems.length > 0) continue;
      const { chainId } = network;
      const preconfChainId = network.preconf?.chainId;
      if (chainId !== undefined && preconfChainId !== undefined && chainId !== preconfChainId) {
        errors.push({ path: [...path, "chainId"], message: `is ${preconfChainId} but the network's chainId is ${chainId}` });
      }
      const profile = network.preconf?.profile;
      if (network.chainType === "op" && profile === "dev") {
        errors.push({
          path: [...path, "profile"],
          message: `is "dev" but the network's chainType is "op": use an OP-stack profile (base, base-sepolia, base-denim, optimism, unichain)`,
        });
      }
      if (network.chainType === "l1" && profile !== undefined && profile !== "dev") {
        errors.push({ path: [...path, "profile"], message: `is an OP-stack profile but the network's chainType is "l1": use chainType "op"` });
      }
      if (network.accounts !== undefined && network.accounts !== "remote") {
        errors.push({ path: ["networks", name, "accounts"], message: `a preconf network's keys live in the node: use preconf.accounts instead` });
      }
    }
    return errors;
  },

  async resolveUserConfig(userConfig, resolveConfigurationVariable, next) {
    const resolved = await next(userConfig, resolveConfigurationVariable);
    for (const [name, network] of Object.entries(userConfig.networks ?? {})) {
      const target = resolved.networks[name];
      if (network.type !== "http" || network.preconf === undefined || target?.type !== "http") continue;
      target.preconf = resolvePreconfConfig(network.preconf, network.chainId, network.chainType);
    }
    return resolved;
  },
});
