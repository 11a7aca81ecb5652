/**
 * eth_call's third parameter, in go-ethereum's shape (internal/ethapi/override StateOverride):
 * per address, `balance`, `nonce`, `code`, and either `state` (the whole storage replaced) or
 * `stateDiff` (slots changed), and `movePrecompileToAddress`: the precompile at that address serves
 * at another one from now on. Applied inside a state checkpoint that the caller reverts, with the
 * precompile moves undone by the function `applyStateOverrides` answers, so a call's overrides
 * never outlive it.
 */
import { Account, createAddressFromString, hexToBytes } from "@ethereumjs/util";
import { z } from "zod";

import { editPrecompiles } from "../ethereumjs/precompiles.ts";
import { StateOverrideError } from "../common/errors.ts";
import { address, bytes, hash, quantity, uint64 } from "../common/values.ts";

import type { VM } from "@ethereumjs/vm";
import type { Hex } from "../common/types.ts";

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
        movePrecompileToAddress: address.optional(),
      })
      .strict()
      // geth's wording (override.go).
      .refine((account) => account.state === undefined || account.stateDiff === undefined, "has both 'state' and 'stateDiff'"),
  )
  .optional();

export type StateOverrides = z.output<typeof stateOverrides>;

/**
 * Writes the overrides into `vm`'s state (call inside a checkpoint that is reverted afterwards) and
 * its precompile table, as go-ethereum's StateOverride.Apply (internal/ethapi/override/override.go):
 * accounts in address order; an overridden precompile address is a precompile no more; a precompile
 * moves only to an address no other entry overrides, and nothing may override an address a
 * precompile moved to. Answers what puts the precompile table back.
 */
export async function applyStateOverrides(vm: VM, overrides: NonNullable<StateOverrides>): Promise<() => void> {
  const addresses = Object.keys(overrides).sort() as Hex[];
  const moves = addresses.some((who) => overrides[who]?.movePrecompileToAddress !== undefined);
  const edit = moves || addresses.some((who) => vm.evm.precompiles.has(who.slice(2))) ? editPrecompiles(vm) : undefined;
  const movedTo = new Set<string>();
  try {
    for (const who of addresses) {
      const override = overrides[who];
      if (override === undefined) continue;
      if (movedTo.has(who)) throw new StateOverrideError(`account ${who} has already been overridden by a precompile`);
      const precompile = edit?.at(who);
      const to = override.movePrecompileToAddress;
      if (to !== undefined) {
        if (precompile === undefined) throw new StateOverrideError(`account ${who} is not a precompile`);
        if (addresses.includes(to)) throw new StateOverrideError(`account ${to} is already overridden`);
        edit!.set(to, precompile);
        movedTo.add(to);
      }
      if (precompile !== undefined) edit!.remove(who);
      await applyAccount(vm, who, override);
    }
  } catch (error) {
    edit?.restore();
    throw error;
  }
  return () => edit?.restore();
}

async function applyAccount(vm: VM, who: Hex, override: NonNullable<NonNullable<StateOverrides>[Hex]>): Promise<void> {
  const state = vm.stateManager;
  const where = createAddressFromString(who);
  // An override naming only a precompile move writes no account (go-ethereum's StateDB setters create one).
  const { movePrecompileToAddress: _move, ...fields } = override;
  if (Object.values(fields).every((value) => value === undefined)) return;
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
