/**
 * Network hooks: a connection to a preconf network gets its own provider in `newConnection`,
 * every request is answered by it in `onRequest` (never `next`: the placeholder url is never
 * contacted), and `closeConnection` closes it.
 */
import { HardhatPluginError } from "hardhat/plugins";

import { toJsonRpcError } from "../../server/jsonrpc.ts";
import { ConnectionProviders } from "../connections.ts";

import type { NetworkHooks } from "hardhat/types/hooks";
import type { NetworkConnection } from "hardhat/types/network";
import type { JsonRpcResponse } from "hardhat/types/providers";

/** On other networks `connection.preconf` says why it is missing instead of being undefined. */
function refusePreconf(connection: NetworkConnection<string>): void {
  Object.defineProperty(connection, "preconf", {
    configurable: true,
    get() {
      throw new HardhatPluginError(
        "hardhat-preconf",
        `connection.preconf is only available on hardhat-preconf networks, and "${connection.networkName}" has no preconf block`,
      );
    },
  });
}

export default async (): Promise<Partial<NetworkHooks>> => {
  const providers = new ConnectionProviders();
  return {
    async newConnection(context, next) {
      const connection = await next(context);
      const pending = providers.of(connection);
      if (pending === undefined) refusePreconf(connection);
      else connection.preconf = await pending;
      return connection;
    },

    async onRequest(context, connection, request, next) {
      const pending = providers.of(connection);
      if (pending === undefined) return next(context, connection, request);
      const provider = await pending;
      let response: JsonRpcResponse;
      try {
        const result = await provider.request({ method: request.method, params: request.params ?? [] });
        response = { jsonrpc: "2.0", id: request.id, result: result ?? null };
      } catch (error) {
        response = { jsonrpc: "2.0", id: request.id, error: toJsonRpcError(error) };
      }
      return response;
    },

    async closeConnection(context, connection, next) {
      await providers.close(connection);
      return next(context, connection);
    },
  };
};
