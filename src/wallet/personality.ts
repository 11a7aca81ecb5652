/**
 * Where real wallets answer differently, and which answer each personality gives
 * (docs/wallet-personalities.md cites the source of each):
 *
 * - an unknown chain: MetaMask and the EIPs 4902; MetaMask mobile nests the 4902 in
 *   `data.originalError` under -32603; Coinbase Wallet -32603;
 * - `wallet_watchAsset`: answered after the user decides (MetaMask, Coinbase) or `true` at once,
 *   before the user is asked (EIP-747's letter);
 * - `wallet_addEthereumChain`: MetaMask asks the rpcUrl for `eth_chainId` (here: when it is a node
 *   this process serves); EIP-3085's letter wants a 2–6 character symbol and 18 decimals.
 */
import { ErrorCode, invalidParams, RpcError } from "../protocol/errors.ts";
import { unrecognizedChain } from "./errors.ts";

import type { WalletPersonality } from "../options.ts";

/** The answer to a switch to (or a decision naming) a chain the wallet does not know. */
export function unknownChainError(personality: WalletPersonality, chainId: string): RpcError {
  const standard = unrecognizedChain(chainId);
  switch (personality) {
    case "metamask-mobile":
      // wagmi unwraps `error.data.originalError.code === 4902` for MetaMask mobile.
      return new RpcError(ErrorCode.internalError, standard.message, { originalError: standard.toJSON() });
    case "coinbase":
      return new RpcError(ErrorCode.internalError, standard.message, { chainId });
    default:
      return standard;
  }
}

/** MetaMask's extension and its mobile app: MetaMask's own answers (permitted chains, onboarding, its eth_sendTransaction checks). */
export const followsMetaMask = (personality: WalletPersonality): boolean => personality === "metamask" || personality === "metamask-mobile";

/** EIP-747: "returns true ... before the user is asked"; wallets answer once the user decided. */
export const watchAssetAnswersBeforeDecision = (personality: WalletPersonality): boolean => personality === "eip";

/** MetaMask (extension and mobile) asks an added chain's rpcUrl for its chain id before prompting. */
export const checksRpcUrlChainId = (personality: WalletPersonality): boolean => followsMetaMask(personality);

/** EIP-3085's letter for nativeCurrency (wallets accept 1–6 character symbols and other decimals). */
export function checkNativeCurrency(personality: WalletPersonality, currency: { symbol: string; decimals: number }): void {
  if (personality !== "eip") return;
  if (currency.symbol.length < 2) throw invalidParams("params[0].nativeCurrency.symbol", "currency symbol must be 2-6 characters (EIP-3085)");
  if (currency.decimals !== 18) throw invalidParams("params[0].nativeCurrency.decimals", "decimals must be 18 (EIP-3085)");
}

// ── The rpcUrl check against nodes this process serves ─────────────────────────────────────────

/** eth_chainId of each node this process serves, by URL origin. */
const servedNodes = new Map<string, () => Promise<unknown>>();

/** `http://localhost:8545/` and `ws://127.0.0.1:8545` name the same node. */
function nodeKey(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    const host = parsed.hostname === "localhost" ? "127.0.0.1" : parsed.hostname;
    return `${host}:${parsed.port || (parsed.protocol === "https:" || parsed.protocol === "wss:" ? "443" : "80")}`;
  } catch {
    return undefined;
  }
}

/** The server registers each node it serves while it listens; returns the unregistering function. */
export function registerServedNode(url: string, chainId: () => Promise<unknown>): () => void {
  const key = nodeKey(url);
  if (key === undefined) return () => undefined;
  servedNodes.set(key, chainId);
  return () => {
    if (servedNodes.get(key) === chainId) servedNodes.delete(key);
  };
}

/**
 * MetaMask's check of an added chain (metamask-mobile app/core/RPCMethods/lib/ethereum-chain-utils,
 * validateRpcEndpoint): the rpcUrl must answer `eth_chainId` (else -32603) with the chain's id
 * (else -32602). Only URLs of nodes this process serves are asked: anything else is not reachable
 * from a test, and is taken as it is.
 */
export async function checkRpcUrl(rpcUrl: string, chainId: string): Promise<void> {
  const key = nodeKey(rpcUrl);
  const ask = key === undefined ? undefined : servedNodes.get(key);
  if (ask === undefined) return;
  let answered: unknown;
  try {
    answered = await ask();
  } catch {
    throw new RpcError(ErrorCode.internalError, `Request for method 'eth_chainId on ${rpcUrl} failed`);
  }
  if (answered !== chainId) {
    throw new RpcError(ErrorCode.invalidParams, `Chain ID returned by RPC URL ${rpcUrl} does not match ${chainId}`, { chainId: answered });
  }
}
