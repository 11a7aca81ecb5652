/**
 * The simulated wallet's EIP-7702 delegate in the genesis: our own ERC-7821 executor
 * (contracts/wallet/BatchExecutor.sol, compiled into walletDelegateCode.ts) at a fixed address on
 * every chain this package creates, so that the wallet can upgrade an account with one
 * authorization and run its atomic batches (docs/wallet.md, "EIP-7702"). A separate genesis entry:
 * the alloc of a chain built from a given genesis, a dump or a fork is that chain's own, and there
 * the wallet reports batches unsupported unless the code is at the address.
 */
import { WALLET_DELEGATE_CODE } from "./walletDelegateCode.ts";

import type { GenesisAccount } from "./genesis.ts";
import type { Hex } from "../common/types.ts";

/** Where the executor lives: an address no deployment or predeploy uses, readable as "7702 … 7821". */
export const WALLET_DELEGATE_ADDRESS: Hex = "0x7702000000000000000000000000000000007821";

/** EIP-7702's delegation designator: an account delegated to `address` has this as its code. */
export const delegationCode = (address: Hex): Hex => `0xef0100${address.slice(2).toLowerCase()}`;

/** The genesis entry: the executor's code, no balance. */
export function walletDelegateAlloc(): [Hex, GenesisAccount] {
  return [WALLET_DELEGATE_ADDRESS, { balance: 0n, code: WALLET_DELEGATE_CODE as Hex }];
}

export { WALLET_DELEGATE_ABI, WALLET_DELEGATE_CODE } from "./walletDelegateCode.ts";
