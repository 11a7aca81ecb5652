/**
 * Network hooks: a connection to a preconf network gets its own provider in `newConnection`,
 * every request is answered by it in `onRequest` (never `next`: the placeholder url is never
 * contacted) after the network's `from`, `gas`, `gasPrice` and `gasMultiplier` were applied as
 * Hardhat's own handlers apply them (requestHandlers.ts), and `closeConnection` closes it.
 */
import { HardhatPluginError } from "hardhat/plugins";

import { asRevertError } from "../../rpc/errors.ts";
import { IN_PROCESS_ORIGIN } from "../../wallet/wallet.ts";
import { toJsonRpcError } from "../../server/jsonrpc.ts";
import { ConnectionProviders } from "../connections.ts";
import { NetworkRequestHandlers } from "../requestHandlers.ts";

import type { NetworkHooks } from "hardhat/types/hooks";
import type { NetworkConnection } from "hardhat/types/network";
import type { JsonRpcResponse } from "hardhat/types/providers";
import type { PreconfProvider, WalletSession } from "../../provider.ts";

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
  const handlers = new WeakMap<NetworkConnection<string>, NetworkRequestHandlers>();
  /**
   * Hardhat's requests are a script's, not a dapp's: they share the provider's own origin (its
   * selected chain, its permissions) but sign typed data for any domain, as Hardhat's node does
   * (suites sign for another chain on purpose to see a contract refuse it; docs/hardhat.md).
   */
  const sessions = new WeakMap<NetworkConnection<string>, WalletSession>();
  const sessionOf = (connection: NetworkConnection<string>, provider: PreconfProvider) => {
    let session = sessions.get(connection);
    if (session === undefined) {
      session = provider.openWalletSession({ origin: IN_PROCESS_ORIGIN, emit: () => undefined, trusted: true, signsAnyDomain: true });
      sessions.set(connection, session);
    }
    return session;
  };
  const handlersOf = (connection: NetworkConnection<string>, provider: PreconfProvider) => {
    let existing = handlers.get(connection);
    if (existing === undefined) {
      const config = connection.networkConfig;
      existing = new NetworkRequestHandlers({ gas: config.gas, gasPrice: config.gasPrice, gasMultiplier: config.gasMultiplier, from: config.from }, provider);
      handlers.set(connection, existing);
    }
    return existing;
  };
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
        const params = await handlersOf(connection, provider).apply(request.method, request.params ?? []);
        const result = await sessionOf(connection, provider).request({ method: request.method, params: params as unknown[] });
        response = { jsonrpc: "2.0", id: request.id, result: result ?? null };
      } catch (error) {
        // A revert of eth_sendTransaction's or eth_estimateGas' estimate in geth's code-3 shape:
        // hardhat-viem decodes the reason from code 3 only (Hardhat's ProviderError has no `details`).
        response = { jsonrpc: "2.0", id: request.id, error: toJsonRpcError(asRevertError(error)) };
      }
      return response;
    },

    async closeConnection(context, connection, next) {
      sessions.get(connection)?.end();
      await providers.close(connection);
      return next(context, connection);
    },
  };
};
