/** Shared test setup: a provider on a fake clock, and viem clients talking to it in process. */
import FakeTimers from "@sinonjs/fake-timers";
import { createPublicClient, createWalletClient, custom, defineChain } from "viem";
import { privateKeyToAccount } from "viem/accounts";

import { createPreconfProvider, startServer } from "../../src/index.ts";

import type { PreconfProviderOptions, PreconfProvider, RunningServer } from "../../src/index.ts";

/** A fixed start time, so that block timestamps and hashes are reproducible. */
export const START_MS = 1_700_000_000_000;

export const devChain = defineChain({
  id: 31337,
  name: "hardhat-preconf",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: ["http://127.0.0.1:8545"] } },
});

export interface TestChain {
  clock: ReturnType<typeof FakeTimers.createClock>;
  provider: PreconfProvider;
}

export async function createTestChain(options: PreconfProviderOptions = {}): Promise<TestChain> {
  const clock = FakeTimers.createClock(START_MS);
  const provider = await createPreconfProvider({ clock, ...options });
  return { clock, provider };
}

/**
 * Serves a fresh provider (a fake-clock test chain unless `create` says otherwise) on a free port
 * to each test of the enclosing describe, hands both to `use`, and closes them after the test.
 */
export function serveEachTest(
  use: (provider: PreconfProvider, server: RunningServer) => void,
  create: () => Promise<PreconfProvider> = async () => (await createTestChain()).provider,
): void {
  let served: { provider: PreconfProvider; server: RunningServer } | undefined;
  beforeEach(async () => {
    const provider = await create();
    served = { provider, server: await startServer(provider, { port: 0 }) };
    use(served.provider, served.server);
  });
  afterEach(async () => {
    await served?.server.close();
    await served?.provider.close();
  });
}

export function viemClients(provider: PreconfProvider, accountIndex = 0) {
  const account = privateKeyToAccount(provider.accounts[accountIndex]!.privateKey);
  const transport = custom(provider);
  return {
    account,
    publicClient: createPublicClient({ chain: devChain, transport, cacheTime: 0 }),
    walletClient: createWalletClient({ account, chain: devChain, transport }),
  };
}

/** Sends a JSON-RPC request and returns the error it must fail with. */
export async function rpcError(provider: PreconfProvider, method: string, params?: unknown): Promise<{ code: number; message: string; data?: unknown }> {
  try {
    await provider.request({ method, params: params as unknown[] });
  } catch (error) {
    const { code, message, data } = error as { code: number; message: string; data?: unknown };
    return { code, message, data };
  }
  throw new Error(`${method} was expected to fail`);
}
