/**
 * What the randomised state-layer tests share (test/viewState.test.ts, test/liveState.test.ts): five
 * addresses, a base state over four of them, a step run on two state managers with their answers
 * compared, and oracles for a dump and a state root built afresh from what a state manager reads.
 */
import { Common, Mainnet } from "@ethereumjs/common";
import { RLP } from "@ethereumjs/rlp";
import { Account, bytesToHex, createAddressFromString, setLengthLeft } from "@ethereumjs/util";
import { keccak_256 as keccak256 } from "@noble/hashes/sha3.js";
import { expect } from "chai";

import { PlainStateManager } from "../../src/node/state/plainState.ts";

import type { StateManagerInterface, StorageDump } from "@ethereumjs/common";
import type { Address } from "@ethereumjs/util";

export const ADDRESSES = ["0xaa", "0xbb", "0xcc", "0xdd", "0xee"].map((a) => createAddressFromString(`0x${a.slice(2).padStart(40, "0")}`));
export const slot = (n: number) => setLengthLeft(Uint8Array.of(n), 32);
export const CODES = [Uint8Array.of(0x60, 0x00), Uint8Array.of(0x5f, 0x5f, 0xf3), new Uint8Array(0)];

export const show = (value: unknown) => JSON.stringify(value, (_k, v) => (v instanceof Uint8Array ? bytesToHex(v) : typeof v === "bigint" ? v.toString() : v));

/** Writes the base state into each of `states`: some accounts with storage and code, some without, one missing (0xee). */
export async function writeBase(states: StateManagerInterface[]): Promise<void> {
  for (const state of states) {
    for (const [i, address] of ADDRESSES.slice(0, 4).entries()) {
      await state.putAccount(address, new Account(BigInt(i), 10n ** 18n * BigInt(i + 1)));
      if (i % 2 === 0) await state.putCode(address, CODES[i >> 1]!);
      for (let s = 0; s < i + 1; s++) await state.putStorage(address, slot(s), Uint8Array.of(s + 1, i));
    }
  }
}

/** Runs `op` on both (the reference first), comparing what each answers or throws; `log` keeps the steps for the failure's message. */
export async function both(
  log: string[],
  name: string,
  managers: readonly [StateManagerInterface, StateManagerInterface],
  op: (sm: StateManagerInterface) => Promise<unknown>,
): Promise<void> {
  const answers: string[] = [];
  for (const sm of managers) {
    try {
      answers.push(`ok ${show(await op(sm))}`);
    } catch (error) {
      answers.push(`error ${(error as Error).message}`);
    }
  }
  log.push(`${name}: ${answers[1]}`);
  expect(answers[1], `${name} after:\n${log.slice(-15).join("\n")}`).to.equal(answers[0]);
}

/** The state's dump of an account's storage holds exactly the slots it reads (keccak(slot) → RLP(value), in key order), or refuses a missing account. */
export async function expectOracleDump(
  log: string[],
  state: StateManagerInterface & { dumpStorage(address: Address): Promise<StorageDump> },
  address: Address,
): Promise<void> {
  log.push(`dumpStorage ${address}`);
  if ((await state.getAccount(address)) === undefined) {
    const error = await state.dumpStorage(address).then(
      () => undefined,
      (caught: Error) => caught.message,
    );
    expect(error, log.slice(-15).join("\n")).to.equal("dumpStorage f() can only be called for an existing account");
    return;
  }
  const entries: [string, string][] = [];
  for (let n = 0; n < 6; n++) {
    const value = await state.getStorage(address, slot(n));
    if (value.length > 0) entries.push([bytesToHex(keccak256(slot(n))), bytesToHex(RLP.encode(value))]);
  }
  const expected: Record<string, string> = {};
  for (const [hashed, value] of entries.sort(([a], [b]) => (a < b ? -1 : 1))) expected[hashed] = value;
  expect(show(await state.dumpStorage(address)), log.slice(-15).join("\n")).to.equal(show(expected));
}

/**
 * The state's root is the root of its state built afresh in a new plain state layer, given every
 * account, code and slot the state reads. MerkleStateManager's own root is no oracle here: after a
 * flush inside a checkpoint it answers the root it had (10.1.3).
 */
export async function expectOracleRoot(log: string[], state: StateManagerInterface): Promise<void> {
  const fresh = new PlainStateManager({ common: new Common({ chain: Mainnet }) });
  for (const address of ADDRESSES) {
    const account = await state.getAccount(address);
    if (account === undefined) continue;
    await fresh.putAccount(address, new Account(account.nonce, account.balance, undefined, account.codeHash));
    const code = await state.getCode(address);
    if (code.length > 0) await fresh.putCode(address, code);
    for (let n = 0; n < 6; n++) {
      const value = await state.getStorage(address, slot(n));
      if (value.length > 0) await fresh.putStorage(address, slot(n), value);
    }
  }
  const expected = bytesToHex(await fresh.getStateRoot());
  log.push(`oracle root: ${expected}`);
  expect(bytesToHex(await state.getStateRoot()), `getStateRoot after:\n${log.slice(-15).join("\n")}`).to.equal(expected);
}
