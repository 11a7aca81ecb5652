/**
 * viem chain definitions for preconf nodes, and `preconfActions`, the client actions that see
 * pre-confirmation.
 *
 * A chain that pre-confirms (fragments within a block) has `experimental_preconfirmationTime`, the
 * fragment interval, as viem's own `basePreconf` does for Base's flashblocks RPC (viem
 * src/chains/definitions/base.ts): a viem client made with it reads `pending` by default
 * (getBalance, readContract, getTransactionCount…; src/clients/createClient.ts) and polls at the
 * fragment interval. A chain whose every fragment is a block (Base since Denim) has none: its
 * `blockTime` is the fragment interval and `latest` is as fresh as it gets.
 */
import { viem, viemActions } from "./lazyViem.ts";
import { PROFILE_NAMES, PROFILES } from "./node/profiles/profiles.ts";

import type { Chain, Client, TransactionReceipt, Transport, WaitForTransactionReceiptParameters } from "viem";
import type { ProfileName } from "./node/profiles/profiles.ts";
import type { PreconfProvider } from "./provider.ts";

export interface PreconfChainParameters {
  chainId: number | bigint;
  /** Milliseconds between fragments: viem's `experimental_preconfirmationTime` when blocks have several. */
  fragmentIntervalMs: number;
  fragmentsPerBlock: number;
  /** The node's URL (default: the CLI's http://127.0.0.1:8545); its WebSocket URL is derived from it. */
  rpcUrl?: string;
  name?: string;
}

/** A preconf node's chain: `experimental_preconfirmationTime` only where blocks have several fragments. */
export type PreconfChain = Chain & { experimental_preconfirmationTime?: number; blockTime: number };

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
    ...(fragmentsPerBlock > 1 && { experimental_preconfirmationTime: fragmentIntervalMs }),
    testnet: true,
  }) as PreconfChain;
}

/** The chain of a running provider (its chain id and cadence now, whatever options made it). */
export function preconfChainOf(provider: PreconfProvider, rpcUrl?: string): PreconfChain {
  const { chainId, fragmentIntervalMs } = provider.options;
  return preconfChain({ chainId, fragmentIntervalMs, fragmentsPerBlock: provider.preconf.fragmentsPerBlock, ...(rpcUrl !== undefined && { rpcUrl }) });
}

/**
 * One definition per profile (`preconfChains.dev`, `.base`, `["base-sepolia"]`, `["base-denim"]`, `.optimism`,
 * `.unichain`), with the profile's chain id and cadence as it runs today, for a node on the default URL.
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

/** Receipt polls per fragment (or block) interval. */
const POLLS_PER_FRAGMENT = 4;

/**
 * viem's `waitForTransactionReceipt` checks for the receipt when it is called and then once per new
 * block number (viem src/actions/public/waitForTransactionReceipt.ts: `watchBlockNumber`, polled
 * with `eth_blockNumber` every `experimental_preconfirmationTime`, else every client polling
 * interval: at least 500 ms, src/clients/createClient.ts), so on a chain that pre-confirms it
 * returns with the sealed block, up to a block time after the receipt exists, and on 200 ms blocks
 * up to 500 ms after. This one asks for the receipt four times per fragment (the pre-confirmation
 * interval, else the block time: our choice, a quarter of it) and returns the first receipt there is:
 * the pre-confirmed one (block hash 32 zero bytes until the block seals) on a pre-confirming chain.
 * With `confirmations` above 1 or an `onReplaced` callback it is viem's own.
 *
 * @example
 * ```ts
 * const client = createPublicClient({ chain: preconfChains.dev, transport: http() }).extend(preconfActions());
 * const receipt = await client.waitForTransactionReceipt({ hash }); // ~one fragment after the send
 * ```
 */
export function preconfActions() {
  return <chain extends Chain | undefined>(client: Client<Transport, chain>) => ({
    waitForTransactionReceipt: (parameters: WaitForTransactionReceiptParameters<chain>): Promise<TransactionReceipt> =>
      waitForPreconfirmedReceipt(client, parameters),
  });
}

async function waitForPreconfirmedReceipt<chain extends Chain | undefined>(
  client: Client<Transport, chain>,
  parameters: WaitForTransactionReceiptParameters<chain>,
): Promise<TransactionReceipt> {
  const chain = client.chain as { experimental_preconfirmationTime?: number; blockTime?: number } | undefined;
  const cadence = chain?.experimental_preconfirmationTime ?? chain?.blockTime;
  const { hash, confirmations = 1, onReplaced, timeout = 180_000 } = parameters;
  const { getTransactionReceipt, waitForTransactionReceipt } = viemActions();
  if (cadence === undefined || confirmations > 1 || onReplaced !== undefined) return waitForTransactionReceipt(client, parameters);
  const pollingInterval = parameters.pollingInterval ?? Math.max(Math.floor(cadence / POLLS_PER_FRAGMENT), 1);
  const deadline = timeout > 0 ? Date.now() + timeout : Number.POSITIVE_INFINITY;
  for (;;) {
    try {
      return await getTransactionReceipt(client, { hash });
    } catch (error) {
      if (!(error instanceof viem().TransactionReceiptNotFoundError)) throw error;
    }
    if (Date.now() + pollingInterval > deadline) throw new (viem().WaitForTransactionReceiptTimeoutError)({ hash });
    await new Promise((resolve) => setTimeout(resolve, pollingInterval));
  }
}
