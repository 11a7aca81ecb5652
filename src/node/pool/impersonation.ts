/**
 * Impersonation (hardhat_impersonateAccount, anvil_impersonateAccount): txs "from" an account whose
 * key nobody holds. As EDR does, such a tx carries a fake signature derived from the sender, so it
 * has a hash, serializes and flows through the pool like any other; only its sender is asserted
 * instead of recovered; admission is the common path (`admitWithSender`).
 */
import { createTx } from "@ethereumjs/tx";
import { createAddressFromString } from "@ethereumjs/util";

import { assertSender } from "../ethereumjs/assertedSender.ts";

import type { Common } from "@ethereumjs/common";
import type { TypedTransaction, TypedTxData } from "@ethereumjs/tx";
import type { Chain } from "../chain/chain.ts";
import type { Hex } from "../common/types.ts";

// The impersonated addresses are the chain's own (`Chain.impersonated`): hardhat_reset starts them over.

export function impersonate(chain: Chain, address: Hex): void {
  chain.impersonated.add(address.toLowerCase() as Hex);
}

/** False when the address was not impersonated. */
export function stopImpersonating(chain: Chain, address: Hex): boolean {
  return chain.impersonated.delete(address.toLowerCase() as Hex);
}

export function isImpersonated(chain: Chain, address: string): boolean {
  return chain.impersonated.has(address.toLowerCase() as Hex);
}

/**
 * Builds `data` as a tx of `type` sent by `sender`: a fake but well-formed signature (r = the
 * sender, s = 1) gives it a unique hash; the sender is asserted, never recovered.
 */
export function impersonatedTransaction(common: Common, type: number, data: TypedTxData, sender: Hex): TypedTransaction {
  const r = BigInt(sender) === 0n ? 1n : BigInt(sender);
  const signature = type === 0 ? { v: common.chainId() * 2n + 35n, r, s: 1n } : { v: 0n, r, s: 1n };
  const tx = createTx({ ...data, ...signature, type }, { common, freeze: false });
  return assertSender(tx, createAddressFromString(sender));
}
