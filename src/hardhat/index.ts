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

import { TASK_FLAGS, taskOptionName } from "../cli/flags.ts";

import type { HardhatPlugin } from "hardhat/types/plugins";

export type * from "./type-extensions.ts";
export type { PreconfMiningMode, PreconfNetworkConfig, PreconfNetworkUserConfig } from "./config.ts";

/** `preconf node`: every setting of the CLI's (src/cli/flags.ts) is an option of the task too. */
function nodeTaskDefinition() {
  let builder = task(["preconf", "node"], "Serve a preconf network over HTTP and WebSocket (settings as `npx preconf node`; docs/cli.md)");
  for (const spec of TASK_FLAGS) {
    const name = taskOptionName(spec);
    const description = `${spec.description}${spec.defaultText === undefined ? "" : ` (${spec.defaultText})`}`;
    builder =
      spec.value === undefined
        ? builder.addFlag({ name, description })
        : builder.addOption({ name, description, type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined });
  }
  return builder.setAction(() => import("./tasks/node.ts")).build();
}

const hardhatPreconfPlugin: HardhatPlugin = definePlugin({
  id: "hardhat-preconf",
  hookHandlers: {
    config: () => import("./hook-handlers/config.ts"),
    network: () => import("./hook-handlers/network.ts"),
  },
  tasks: [emptyTask("preconf", "hardhat-preconf: pre-confirming dev chain").build(), nodeTaskDefinition()],
  npmPackage: "hardhat-preconf",
});

export default hardhatPreconfPlugin;
