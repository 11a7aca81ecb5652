/**
 * The Hardhat 3 plugin: an http network with a `preconf: { ... }` block is served in process by a
 * hardhat-preconf chain, one per connection. This module only declares the plugin; the hook
 * handlers and the task load lazily.
 *
 * @example
 * ```ts
 * import hardhatPreconf from "hardhat-preconf/hardhat";
 * export default defineConfig({
 *   plugins: [hardhatPreconf],
 *   networks: { preconf: { type: "http", url: "http://preconf.invalid", preconf: { clock: "fake" } } },
 * });
 * ```
 */
import { emptyTask, task } from "hardhat/config";
import { definePlugin } from "hardhat/plugins";
import { ArgumentType } from "hardhat/types/arguments";

import type { HardhatPlugin } from "hardhat/types/plugins";

export type * from "./type-extensions.ts";
export type { PreconfMiningMode, PreconfNetworkConfig, PreconfNetworkUserConfig } from "./config.ts";

const hardhatPreconfPlugin: HardhatPlugin = definePlugin({
  id: "hardhat-preconf",
  hookHandlers: {
    config: () => import("./hook-handlers/config.ts"),
    network: () => import("./hook-handlers/network.ts"),
  },
  tasks: [
    emptyTask("preconf", "hardhat-preconf: pre-confirming dev chain").build(),
    task(["preconf", "node"], "Serve a preconf network over HTTP and WebSocket")
      .addOption({ name: "host", description: "Interface to bind", type: ArgumentType.STRING, defaultValue: "127.0.0.1" })
      .addOption({ name: "port", description: "Port to listen on (0 picks a free one)", type: ArgumentType.INT, defaultValue: 8545 })
      .addOption({ name: "cors", description: "Browser origins allowed: comma-separated, or * (none by default)", type: ArgumentType.STRING, defaultValue: "" })
      .setAction(() => import("./tasks/node.ts"))
      .build(),
  ],
  npmPackage: "hardhat-preconf",
});

export default hardhatPreconfPlugin;
