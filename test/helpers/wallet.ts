/** Wallet test helpers: a viem wallet client whose account lives in the provider (prompts). */
import { expect } from "chai";
import { BaseError, createWalletClient, custom, defineChain } from "viem";

import { devChain } from "./chain.ts";

import type { Address, Chain } from "viem";
import type { PreconfProvider } from "../../src/index.ts";

export const base = defineChain({
  id: 8453,
  name: "Base",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: ["https://mainnet.base.org"] } },
  blockExplorers: { default: { name: "Basescan", url: "https://basescan.org" } },
});

export const optimism = defineChain({
  id: 10,
  name: "OP Mainnet",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: ["https://mainnet.optimism.io"] } },
});

export const USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";

/**
 * A dapp's wallet client: a JSON-RPC account (the wallet holds the key), so sends and signatures
 * are prompts. Cross-chain tests pass `chain: null` to sendTransaction to skip viem's chain check.
 */
export function dappWallet(provider: PreconfProvider, chain: Chain = devChain) {
  const account = provider.accounts[0]!.address as Address;
  return { account, walletClient: createWalletClient({ account, chain, transport: custom(provider) }) };
}

/** The viem error of class `type` somewhere in the cause chain of what `promise` rejects with. */
export async function rejectsWith<T extends Error>(promise: Promise<unknown>, type: abstract new (...args: never[]) => T): Promise<T> {
  const error = await promise.then(
    () => expect.fail(`expected a ${type.name}`),
    (caught: unknown) => caught,
  );
  expect(error).to.be.instanceOf(BaseError);
  const found = (error as BaseError).walk((cause) => cause instanceof type);
  expect(found, `a ${type.name} in ${String(error)}`).to.be.instanceOf(type);
  return found as T;
}
