/**
 * The chain's live state (src/node/state/liveState.ts) against the plain state layer
 * (plainState.ts, itself checked against @ethereumjs/statemanager on random transactions in
 * test/plainState.test.ts): random reads, writes, deletions, code, checkpoints, commits, reverts,
 * original values, dumps, state roots taken outside checkpoints (the overlay written into the
 * tries) and inside them (a reverted root), and snapshots moved back to, every answer and error
 * compared, each root also against tries built afresh from what the live state reads.
 */
import { Common, Mainnet } from "@ethereumjs/common";
import { RLP } from "@ethereumjs/rlp";
import { Account, bytesToHex, createAddressFromString, setLengthLeft } from "@ethereumjs/util";
import { keccak_256 as keccak256 } from "@noble/hashes/sha3.js";
import { expect } from "chai";

import { LiveStateManager } from "../src/node/state/liveState.ts";
import { PlainStateManager } from "../src/node/state/plainState.ts";
import { ViewMemos, ViewStateManager } from "../src/node/state/viewState.ts";
import { seededDraws } from "./helpers/seeded.ts";

import type { StateManagerInterface } from "@ethereumjs/common";
import type { Address } from "@ethereumjs/util";

const ADDRESSES = ["0xaa", "0xbb", "0xcc", "0xdd", "0xee"].map((a) => createAddressFromString(`0x${a.slice(2).padStart(40, "0")}`));
const slot = (n: number) => setLengthLeft(Uint8Array.of(n), 32);
const CODES = [Uint8Array.of(0x60, 0x00), Uint8Array.of(0x5f, 0x5f, 0xf3), new Uint8Array(0)];

const show = (value: unknown) => JSON.stringify(value, (_k, v) => (v instanceof Uint8Array ? bytesToHex(v) : typeof v === "bigint" ? v.toString() : v));

/** Runs `op` on both, comparing what each answers or throws. */
async function both(log: string[], name: string, managers: StateManagerInterface[], op: (sm: StateManagerInterface) => Promise<unknown>) {
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

/** A base state written into both: some accounts with storage and code, some without, one missing (0xee). */
async function writeBase(states: StateManagerInterface[]): Promise<void> {
  for (const state of states) {
    for (const [i, address] of ADDRESSES.slice(0, 4).entries()) {
      await state.putAccount(address, new Account(BigInt(i), 10n ** 18n * BigInt(i + 1)));
      if (i % 2 === 0) await state.putCode(address, CODES[i >> 1]!);
      for (let s = 0; s < i + 1; s++) await state.putStorage(address, slot(s), Uint8Array.of(s + 1, i));
    }
  }
}

async function run(seed: number, steps: number, maxEntries?: number): Promise<void> {
  const { next, pick } = seededDraws(seed);
  const common = new Common({ chain: Mainnet });
  let reference = new PlainStateManager({ common });
  const live = new LiveStateManager(common, maxEntries);
  await writeBase([reference, live]);
  const log: string[] = [];
  let managers: StateManagerInterface[] = [reference, live];
  await both(log, "getStateRoot", managers, (sm) => sm.getStateRoot());
  /** Roots taken outside checkpoints, each with a copy of the reference's state then. */
  const snapshots: { root: Uint8Array; state: PlainStateManager }[] = [];
  let depth = 0;
  for (let step = 0; step < steps; step++) {
    const address = pick(ADDRESSES);
    const key = slot(Math.floor(next() * 6));
    const choice = Math.floor(next() * 100);
    if (choice < 9) {
      depth++;
      await both(log, "checkpoint", managers, (sm) => sm.checkpoint());
    } else if (choice < 15 && depth > 0) {
      depth--;
      await both(log, "commit", managers, (sm) => sm.commit());
    } else if (choice < 21 && depth > 0) {
      depth--;
      await both(log, "revert", managers, (sm) => sm.revert());
    } else if (choice < 34) {
      const value = next() < 0.25 ? new Uint8Array(0) : next() < 0.1 ? new Uint8Array(33) : Uint8Array.of(0, 1 + Math.floor(next() * 250));
      await both(log, `putStorage ${address} ${bytesToHex(key)} ${bytesToHex(value)}`, managers, (sm) => sm.putStorage(address, key, value));
    } else if (choice < 45) {
      await both(log, `getStorage ${address} ${bytesToHex(key)}`, managers, (sm) => sm.getStorage(address, key));
    } else if (choice < 48) {
      await both(log, `original ${address} ${bytesToHex(key)}`, managers, (sm) => sm.originalStorageCache.get(address, key));
    } else if (choice < 56) {
      await both(log, `putAccount ${address}`, managers, async (sm) => {
        const account = (await sm.getAccount(address)) ?? new Account();
        account.balance += 1n;
        account.nonce += 1n;
        await sm.putAccount(address, account);
      });
    } else if (choice < 59) {
      await both(log, `modifyAccountFields ${address}`, managers, (sm) => sm.modifyAccountFields(address, { balance: 7n }));
    } else if (choice < 62) {
      await both(log, `deleteAccount ${address}`, managers, (sm) => sm.deleteAccount(address));
    } else if (choice < 66) {
      await both(log, `clearStorage ${address}`, managers, (sm) => sm.clearStorage(address));
    } else if (choice < 70) {
      const code = pick(CODES);
      await both(log, `putCode ${address} ${bytesToHex(code)}`, managers, (sm) => sm.putCode(address, code));
    } else if (choice < 75) {
      await both(log, `getCode ${address}`, managers, async (sm) => [await sm.getCode(address), await sm.getCodeSize(address)]);
    } else if (choice < 83) {
      // Outside checkpoints the live state writes its overlay into the tries; inside, the root is computed and reverted with them.
      await expectOracleRoot(log, live);
      await both(log, `getStateRoot at depth ${depth}`, managers, (sm) => sm.getStateRoot());
      if (depth === 0 && next() < 0.5) snapshots.push({ root: await live.getStateRoot(), state: reference.shallowCopy() });
    } else if (choice < 86 && depth === 0 && snapshots.length > 0) {
      // evm_revert: the live state moves back to a root it wrote; the reference to its copy of that state.
      const { root, state } = pick(snapshots);
      log.push(`setStateRoot ${bytesToHex(root)}`);
      await live.setStateRoot(root);
      reference = state.shallowCopy();
      managers = [reference, live];
    } else if (choice < 89) {
      await expectOracleDump(log, live, address);
    } else {
      await both(log, `getAccount ${address}`, managers, async (sm) => {
        const account = await sm.getAccount(address);
        if (account === undefined) return undefined;
        // (A storage root is reported as last computed by the plain layer, as last put or computed by the live state: not compared.)
        return [account.nonce, account.balance, account.codeHash];
      });
    }
  }
  while (depth-- > 0) await both(log, "revert", managers, (sm) => sm.revert());
  for (const address of ADDRESSES) await expectOracleDump(log, live, address);
  await expectOracleRoot(log, live);
  await both(log, "getStateRoot", managers, (sm) => sm.getStateRoot());
  for (const address of ADDRESSES) {
    await both(log, `getAccount ${address}`, managers, (sm) => sm.getAccount(address).then((account) => account?.serialize()));
    for (let n = 0; n < 6; n++) await both(log, `getStorage ${address} ${n}`, managers, (sm) => sm.getStorage(address, slot(n)));
  }
}

/** The live state's dump of an account's storage holds exactly the slots it reads (keccak(slot) → RLP(value), in key order), or refuses a missing account. */
async function expectOracleDump(log: string[], live: LiveStateManager, address: Address): Promise<void> {
  log.push(`dumpStorage ${address}`);
  if ((await live.getAccount(address)) === undefined) {
    const error = await live.dumpStorage(address).then(
      () => undefined,
      (caught: Error) => caught.message,
    );
    expect(error, log.slice(-15).join("\n")).to.equal("dumpStorage f() can only be called for an existing account");
    return;
  }
  const entries: [string, string][] = [];
  for (let n = 0; n < 6; n++) {
    const value = await live.getStorage(address, slot(n));
    if (value.length > 0) entries.push([bytesToHex(keccak256(slot(n))), bytesToHex(RLP.encode(value))]);
  }
  const expected: Record<string, string> = {};
  for (const [hashed, value] of entries.sort(([a], [b]) => (a < b ? -1 : 1))) expected[hashed] = value;
  expect(show(await live.dumpStorage(address)), log.slice(-15).join("\n")).to.equal(show(expected));
}

/** The live state's root is the root of its state built afresh in a new plain state layer, given every account, code and slot the live state reads. */
async function expectOracleRoot(log: string[], live: LiveStateManager): Promise<void> {
  const fresh = new PlainStateManager({ common: new Common({ chain: Mainnet }) });
  for (const address of ADDRESSES) {
    const account = await live.getAccount(address);
    if (account === undefined) continue;
    await fresh.putAccount(address, new Account(account.nonce, account.balance, undefined, account.codeHash));
    const code = await live.getCode(address);
    if (code.length > 0) await fresh.putCode(address, code);
    for (let n = 0; n < 6; n++) {
      const value = await live.getStorage(address, slot(n));
      if (value.length > 0) await fresh.putStorage(address, slot(n), value);
    }
  }
  const expected = bytesToHex(await fresh.getStateRoot());
  log.push(`oracle root: ${expected}`);
  expect(bytesToHex(await live.getStateRoot()), `getStateRoot after:\n${log.slice(-15).join("\n")}`).to.equal(expected);
}

describe("live state (liveState.ts), randomised against the plain state layer and fresh tries", () => {
  for (let seed = 1; seed <= 24; seed++) {
    it(`seed ${seed}: the same reads, writes, errors, original values, dumps, roots and snapshots`, async () => {
      await run(seed, 500);
    });
  }

  it("memos that start over every few entries change no answer", async () => {
    for (let seed = 101; seed <= 106; seed++) await run(seed, 400, 8);
  });
});

describe("live state (liveState.ts): a root asked for inside a checkpoint", () => {
  const address = ADDRESSES[0]!;

  it("is written into the tries when the outermost checkpoint commits (runBlock's order), and not when it is reverted", async () => {
    const common = new Common({ chain: Mainnet });
    const live = new LiveStateManager(common);
    await writeBase([live]);
    const base = await live.getStateRoot();

    await live.checkpoint();
    await live.putStorage(address, slot(9), Uint8Array.of(42));
    await live.checkpoint();
    const inside = await live.getStateRoot();
    await live.commit();
    expect(await live.hasStateRoot(inside), "before the outermost commit").to.equal(false);
    await live.commit();
    expect(await live.hasStateRoot(inside), "after it").to.equal(true);
    expect(bytesToHex(live.baseRoot)).to.equal(bytesToHex(inside));
    const view = new ViewStateManager({ common, trie: live.baseTries(), root: inside, memos: new ViewMemos(16, 1024) });
    expect(bytesToHex(await view.getStorage(address, slot(9)))).to.equal("0x2a");

    await live.checkpoint();
    await live.putStorage(address, slot(9), Uint8Array.of(43));
    const reverted = await live.getStateRoot();
    await live.revert();
    expect(await live.hasStateRoot(reverted)).to.equal(false);
    expect(bytesToHex(await live.getStateRoot())).to.equal(bytesToHex(inside));
    expect(await live.hasStateRoot(base)).to.equal(true);
  });
});
