/**
 * eth_call's third parameter, in go-ethereum's shape (internal/ethapi/override StateOverride):
 * per address, `balance`, `nonce`, `code`, and either `state` (the whole storage replaced) or
 * `stateDiff` (slots changed). Applied inside a state checkpoint that the caller reverts, so a
 * call's overrides never outlive it. geth's `movePrecompileToAddress` is not supported (-32602).
 */
import { Account, createAddressFromString, hexToBytes } from "@ethereumjs/util";
import { z } from "zod";

import { address, bytes, hash, quantity, uint64 } from "./values.ts";

import type { VM } from "@ethereumjs/vm";
import type { Hex } from "./types.ts";

const storage = z.record(hash, hash);

export const stateOverrides = z
  .record(
    address,
    z
      .object({
        balance: quantity.optional(),
        nonce: uint64.optional(),
        code: bytes.optional(),
        state: storage.optional(),
        stateDiff: storage.optional(),
      })
      .strict()
      // geth's wording (override.go).
      .refine((account) => account.state === undefined || account.stateDiff === undefined, "has both 'state' and 'stateDiff'"),
  )
  .optional();

export type StateOverrides = z.output<typeof stateOverrides>;

/** Writes the overrides into `vm`'s state: call inside a checkpoint that is reverted afterwards. */
export async function applyStateOverrides(vm: VM, overrides: NonNullable<StateOverrides>): Promise<void> {
  const state = vm.stateManager;
  for (const [who, override] of Object.entries(overrides)) {
    if (override === undefined) continue;
    const where = createAddressFromString(who);
    const account = (await state.getAccount(where)) ?? new Account();
    if (override.balance !== undefined) account.balance = override.balance;
    if (override.nonce !== undefined) account.nonce = override.nonce;
    await state.putAccount(where, account);
    if (override.code !== undefined) await state.putCode(where, override.code);
    if (override.state !== undefined) await state.clearStorage(where);
    for (const [slot, value] of Object.entries(override.state ?? override.stateDiff ?? {})) {
      if (value !== undefined) await state.putStorage(where, hexToBytes(slot as Hex), hexToBytes(value));
    }
  }
}
