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
