/** One hardhat-preconf provider per Hardhat network connection, made from its resolved `preconf` block. */
import FakeTimers from "@sinonjs/fake-timers";

import { createPreconfProvider } from "../provider.ts";
import { providerOptionsOf } from "./config.ts";

import type { NetworkConnection } from "hardhat/types/network";
import type { PreconfProvider } from "../provider.ts";
import type { PreconfNetworkConfig } from "./config.ts";

/** The connection's `preconf` block; undefined for networks the plugin does not serve. */
export function preconfConfigOf(connection: NetworkConnection<string>): PreconfNetworkConfig | undefined {
  const config = connection.networkConfig;
  return config.type === "http" ? config.preconf : undefined;
}

export async function createConnectionProvider(config: PreconfNetworkConfig, chainType?: string): Promise<PreconfProvider> {
  // A fake clock starts at the real time (contracts compare against it) and moves only when told.
  const clock = config.clock === "fake" ? FakeTimers.createClock(Date.now()) : undefined;
  return createPreconfProvider({ ...providerOptionsOf(config, chainType), ...(clock !== undefined && { clock }) });
}

/**
 * Providers by connection. Created on first need, which is `newConnection` unless a plugin
 * earlier in the chain sends requests before it returns: plugin order does not matter.
 */
export class ConnectionProviders {
  readonly #providers = new WeakMap<NetworkConnection<string>, Promise<PreconfProvider>>();

  of(connection: NetworkConnection<string>): Promise<PreconfProvider> | undefined {
    const existing = this.#providers.get(connection);
    if (existing !== undefined) return existing;
    const config = preconfConfigOf(connection);
    if (config === undefined) return undefined;
    const created = createConnectionProvider(config, connection.chainType);
    this.#providers.set(connection, created);
    return created;
  }

  async close(connection: NetworkConnection<string>): Promise<void> {
    const pending = this.#providers.get(connection);
    this.#providers.delete(connection);
    if (pending !== undefined) await (await pending).close();
  }
}
