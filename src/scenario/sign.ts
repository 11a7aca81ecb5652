/**
 * A fixture's tx description, signed with the sender's dev key by viem (as a wallet library
 * would), so fixtures read as intent instead of opaque RLP.
 */
import { viemAccounts } from "../lazyViem.ts";
import { GWEI } from "../node/common/defaults.ts";
import { parseAmount } from "./amounts.ts";
import { ADDRESS_PATTERN, BYTES_PATTERN } from "../node/common/hex.ts";

import type { Hex, TransactionSerializable } from "viem";
import type { PreconfProvider } from "../provider.ts";
import type { Scope } from "./references.ts";
import type { TxDescription } from "./schema.ts";

/** 10 gwei and 1 gwei. */
export const DEFAULT_MAX_FEE_PER_GAS = 10n * GWEI;
export const DEFAULT_MAX_PRIORITY_FEE_PER_GAS = GWEI;
const TRANSFER_GAS = 21000n;

/** A dev account's address by index, with a clear error past the end. */
export function accountAddress(provider: PreconfProvider, index: number): Hex {
  const account = provider.accounts[index];
  if (account === undefined) throw new Error(`no dev account ${index} (the chain has ${provider.accounts.length})`);
  return account.address;
}

/** An address field: a dev account index, or an address / reference. */
export function addressOf(provider: PreconfProvider, scope: Scope, value: string | number): Hex {
  const resolved = typeof value === "number" ? accountAddress(provider, value) : scope.resolve(value);
  if (typeof resolved !== "string" || !ADDRESS_PATTERN.test(resolved))
    throw new Error(`${String(value)} is not an address (it is ${JSON.stringify(resolved)})`);
  return resolved as Hex;
}

const amountOf = (scope: Scope, value: string | number | undefined): bigint | undefined =>
  value === undefined ? undefined : parseAmount(scope.resolve(value));

export async function signDescribedTx(provider: PreconfProvider, scope: Scope, tx: TxDescription): Promise<Hex> {
  const from = accountAddress(provider, tx.from);
  const to = tx.to === undefined || tx.to === null ? undefined : addressOf(provider, scope, tx.to);
  const value = amountOf(scope, tx.value) ?? 0n;
  const data = tx.data === undefined ? undefined : scope.resolve(tx.data);
  if (data !== undefined && (typeof data !== "string" || !BYTES_PATTERN.test(data))) throw new Error(`tx data is not 0x-hex bytes: ${JSON.stringify(data)}`);

  const nonce = amountOf(scope, tx.nonce) ?? BigInt((await provider.request({ method: "eth_getTransactionCount", params: [from, "pending"] })) as string);
  const gas = amountOf(scope, tx.gas) ?? (await defaultGas(provider, { from, to, value, data: data as Hex | undefined }));

  const fees = tx.fees ?? {};
  const legacyFees = fees.gasPrice !== undefined || tx.type === "legacy" || tx.type === "eip2930";
  const feeFields = legacyFees
    ? { gasPrice: amountOf(scope, fees.gasPrice) ?? DEFAULT_MAX_FEE_PER_GAS }
    : {
        maxFeePerGas: amountOf(scope, fees.maxFeePerGas) ?? DEFAULT_MAX_FEE_PER_GAS,
        maxPriorityFeePerGas: amountOf(scope, fees.maxPriorityFeePerGas) ?? DEFAULT_MAX_PRIORITY_FEE_PER_GAS,
      };
  const type = tx.type ?? (legacyFees ? "legacy" : "eip1559");

  const account = viemAccounts().privateKeyToAccount(provider.accounts[tx.from]!.privateKey);
  const serializable = {
    type,
    chainId: tx.chainId ?? Number(provider.chain.chainId),
    nonce: Number(nonce),
    to,
    value,
    data,
    gas,
    ...feeFields,
    ...(type === "eip2930" && { accessList: [] }),
  };
  // The fields above always form one of viem's serializable shapes (type and fee fields agree).
  return account.signTransaction(serializable as TransactionSerializable);
}

/** 21000 for a plain transfer; otherwise what the chain estimates on `pending` (as a wallet estimates). */
async function defaultGas(provider: PreconfProvider, call: { from: Hex; to: Hex | undefined; value: bigint; data: Hex | undefined }): Promise<bigint> {
  if (call.to !== undefined && (call.data === undefined || call.data === "0x")) return TRANSFER_GAS;
  const request = {
    from: call.from,
    ...(call.to !== undefined && { to: call.to }),
    value: `0x${call.value.toString(16)}`,
    ...(call.data !== undefined && { data: call.data }),
  };
  try {
    return BigInt((await provider.request({ method: "eth_estimateGas", params: [request, "pending"] })) as string);
  } catch (error) {
    throw new Error(`no "gas" given and eth_estimateGas on pending failed: ${(error as Error).message}; give the tx a "gas"`);
  }
}
