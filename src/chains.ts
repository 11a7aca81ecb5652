/**
 * viem chain definitions for preconf nodes. Each has `experimental_preconfirmationTime` (the
 * fragment interval), so a viem client made with it reads `pending` by default (getBalance,
 * readContract, getTransactionCount...) and polls receipts at the fragment interval, as viem's own
 * `basePreconf` does for Base's pre-confirmation RPC (viem src/chains/definitions/base.ts;
 * src/clients/createClient.ts picks `experimental_blockTag: "pending"` from it).
 */
import { viem } from "./lazyViem.ts";
import { PROFILE_NAMES, PROFILES } from "./node/profiles.ts";

import type { Chain } from "viem";
import type { ProfileName } from "./node/profiles.ts";
import type { PreconfProvider } from "./provider.ts";

export interface PreconfChainParameters {
  chainId: number | bigint;
  /** Milliseconds between fragments: viem's `experimental_preconfirmationTime`. */
  fragmentIntervalMs: number;
  fragmentsPerBlock: number;
  /** The node's URL (default: the CLI's http://127.0.0.1:8545); its WebSocket URL is derived from it. */
  rpcUrl?: string;
  name?: string;
}

export type PreconfChain = Chain & { experimental_preconfirmationTime: number; blockTime: number };

export function preconfChain({
  chainId,
  fragmentIntervalMs,
  fragmentsPerBlock,
  rpcUrl = "http://127.0.0.1:8545",
  name = "hardhat-preconf",
}: PreconfChainParameters): PreconfChain {
  // viem loads on first use (lazyViem.ts): importing the package must not load it for a provider that never asks.
  return viem().defineChain({
    id: Number(chainId),
    name,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl], webSocket: [rpcUrl.replace(/^http/, "ws")] } },
    blockTime: fragmentIntervalMs * fragmentsPerBlock,
    experimental_preconfirmationTime: fragmentIntervalMs,
    testnet: true,
  }) as PreconfChain;
}

/** The chain of a running provider (its chain id and cadence, whatever options made it). */
export function preconfChainOf(provider: PreconfProvider, rpcUrl?: string): PreconfChain {
  const { chainId, fragmentIntervalMs, fragmentsPerBlock } = provider.options;
  return preconfChain({ chainId, fragmentIntervalMs, fragmentsPerBlock, ...(rpcUrl !== undefined && { rpcUrl }) });
}

/**
 * One definition per profile (`preconfChains.dev`, `.base`, `["base-sepolia"]`, `["base-denim"]`, `.optimism`,
 * `.unichain`), with the profile's chain id and fragment cadence, for a node on the default URL.
 */
export const preconfChains = Object.defineProperties(
  {},
  Object.fromEntries(
    PROFILE_NAMES.map((name) => {
      let chain: PreconfChain | undefined;
      const { chainId, fragmentIntervalMs, fragmentsPerBlock } = PROFILES[name];
      // Made on first read, so that importing the package does not load viem.
      const get = () => (chain ??= preconfChain({ chainId, fragmentIntervalMs, fragmentsPerBlock, name: `hardhat-preconf (${name})` }));
      return [name, { enumerable: true, get }];
    }),
  ),
) as Readonly<Record<ProfileName, PreconfChain>>;
