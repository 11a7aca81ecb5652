/** Signs txs with the dev keys via viem, as a wallet library would (the dev accounts of docs/options.md). */
import { parseGwei } from "viem";
import { privateKeyToAccount } from "viem/accounts";

import type { PreconfProvider } from "../../src/index.ts";
import type { Hex, TransactionSerializable } from "viem";

export const TIP = parseGwei("1");
export const FEE_CAP = parseGwei("10");

/** A signed EIP-1559 transfer (defaults: 1 wei to account 1, tip 1 gwei, cap 10 gwei, 21000 gas). */
export async function signTx(provider: PreconfProvider, from: number, tx: Partial<TransactionSerializable> & { nonce: number }): Promise<Hex> {
  const account = privateKeyToAccount(provider.accounts[from]!.privateKey);
  const defaults = {
    chainId: 31337,
    to: provider.accounts[1]!.address,
    value: 1n,
    gas: 21000n,
    ...(tx.gasPrice === undefined && { maxFeePerGas: FEE_CAP, maxPriorityFeePerGas: TIP }),
  };
  return account.signTransaction({ ...defaults, ...tx } as TransactionSerializable);
}

export async function send(provider: PreconfProvider, raw: Hex): Promise<Hex> {
  return (await provider.request({ method: "eth_sendRawTransaction", params: [raw] })) as Hex;
}

/** Seals blocks `from..to` of a manual chain, each with one 1-wei transfer from account 0 to `recipient` (nonce = number - 1); the txs' hashes. */
export async function sealTransfers(provider: PreconfProvider, from: number, to: number, recipient: Hex): Promise<Hex[]> {
  const hashes: Hex[] = [];
  for (let number = from; number <= to; number++) {
    hashes.push(await send(provider, await signTx(provider, 0, { nonce: number - 1, to: recipient })));
    await provider.preconf.seal();
  }
  return hashes;
}
