/**
 * The state of a view (src/node/state/viewState.ts) against the plain state layer given the same
 * state (plainState.ts), and its roots and dumps against a state built afresh from what it reads: random reads, writes, deletions, code,
 * checkpoints, commits, reverts, original values, dumps and state roots, every answer and error
 * compared. And the VM a view runs on (copyVmOver) reads the view's state, not the live one.
 */
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { Caches, MerkleStateManager } from "@ethereumjs/statemanager";
import { createVM } from "@ethereumjs/vm";
import { Account, bytesToHex, setLengthLeft } from "@ethereumjs/util";
import { keccak_256 as keccak256 } from "@noble/hashes/sha3.js";
import { expect } from "chai";

import { createLiveState } from "../src/node/state/liveState.ts";
import type { LiveStateManager } from "../src/node/state/liveState.ts";
import { PlainStateManager } from "../src/node/state/plainState.ts";
import { copyVmOver } from "../src/node/ethereumjs/vmCopy.ts";
import { ViewMemos, ViewStateManager } from "../src/node/state/viewState.ts";
import { seededDraws } from "./helpers/seeded.ts";
import { ADDRESSES, both, CODES, expectOracleDump, expectOracleRoot, show, slot, writeBase } from "./helpers/stateOracle.ts";

import type { StateManagerInterface } from "@ethereumjs/common";
import type { Address } from "@ethereumjs/util";

/** A base state (stateOracle.ts) in the live state, and in `into` too. */
async function baseState(common: Common, into?: StateManagerInterface): Promise<{ live: LiveStateManager; root: Uint8Array }> {
  const live = createLiveState(common);
  await writeBase(into === undefined ? [live] : [live, into]);
  return { live, root: await live.getStateRoot() };
}

async function run(seed: number, steps: number): Promise<void> {
  const { next, pick } = seededDraws(seed);
  const common = new Common({ chain: Mainnet });
  // The reference: the plain state layer (plainState.ts, itself checked against MerkleStateManager
  // on random transactions) given the same base state. MerkleStateManager's own caches are no
  // reference here: after some sequences of clearStorage and reverts they keep a slot a revert dropped.
  const reference = new PlainStateManager({ common });
  const { live, root } = await baseState(common, reference);
  expect(bytesToHex(await reference.getStateRoot())).to.equal(bytesToHex(root));
  const ours = new ViewStateManager({ common, trie: live.baseTries(), root, memos: new ViewMemos(64, 1024) });
  const managers: [StateManagerInterface, StateManagerInterface] = [reference, ours];
  const log: string[] = [];
  // As a dry run runs on a view: inside a checkpoint, all of it reverted at the end. (The package's
  // flush at the outermost commit or revert writes its caches into the tries, and a view has no
  // such step: stateViews.ts never writes outside a checkpoint.)
  await both(log, "checkpoint", managers, (sm) => sm.checkpoint());
  let depth = 1;
  for (let step = 0; step < steps; step++) {
    const address = pick(ADDRESSES);
    const key = slot(Math.floor(next() * 6));
    const choice = Math.floor(next() * 100);
    if (choice < 8) {
      depth++;
      await both(log, "checkpoint", managers, (sm) => sm.checkpoint());
    } else if (choice < 14 && depth > 1) {
      depth--;
      await both(log, "commit", managers, (sm) => sm.commit());
    } else if (choice < 22 && depth > 1) {
      depth--;
      await both(log, "revert", managers, (sm) => sm.revert());
    } else if (choice < 36) {
      const value = next() < 0.25 ? new Uint8Array(0) : next() < 0.1 ? new Uint8Array(33) : Uint8Array.of(0, 1 + Math.floor(next() * 250));
      await both(log, `putStorage ${address} ${bytesToHex(key)} ${bytesToHex(value)}`, managers, (sm) => sm.putStorage(address, key, value));
    } else if (choice < 48) {
      await both(log, `getStorage ${address} ${bytesToHex(key)}`, managers, (sm) => sm.getStorage(address, key));
    } else if (choice < 52) {
      await both(log, `original ${address} ${bytesToHex(key)}`, managers, (sm) => sm.originalStorageCache.get(address, key));
    } else if (choice < 60) {
      // An account created, or its balance and nonce changed (its storage root kept, as the EVM's writes keep it).
      await both(log, `putAccount ${address}`, managers, async (sm) => {
        const account = (await sm.getAccount(address)) ?? new Account();
        account.balance += 1n;
        account.nonce += 1n;
        await sm.putAccount(address, account);
      });
    } else if (choice < 63) {
      await both(log, `modifyAccountFields ${address}`, managers, (sm) => sm.modifyAccountFields(address, { balance: 7n }));
    } else if (choice < 66) {
      await both(log, `deleteAccount ${address}`, managers, (sm) => sm.deleteAccount(address));
    } else if (choice < 71) {
      await both(log, `clearStorage ${address}`, managers, (sm) => sm.clearStorage(address));
    } else if (choice < 75) {
      const code = pick(CODES);
      await both(log, `putCode ${address} ${bytesToHex(code)}`, managers, (sm) => sm.putCode(address, code));
    } else if (choice < 81) {
      await both(log, `getCode ${address}`, managers, async (sm) => [await sm.getCode(address), await sm.getCodeSize(address)]);
    } else if (choice < 85) {
      await expectOracleRoot(log, ours);
      await both(log, "getStateRoot", managers, (sm) => sm.getStateRoot());
    } else if (choice < 88) {
      await expectOracleDump(log, ours, address);
    } else {
      await both(log, `getAccount ${address}`, managers, async (sm) => {
        const account = await sm.getAccount(address);
        if (account === undefined) return undefined;
        // (A storage root is reported as last computed by the plain layer, as put by a view: not compared.)
        return [account.nonce, account.balance, account.codeHash];
      });
    }
  }
  for (const address of ADDRESSES) await expectOracleDump(log, ours, address);
  await expectOracleRoot(log, ours);
  while (depth-- > 0) await both(log, "revert", managers, (sm) => sm.revert());
  // Every write undone: the base state (as a state manager just opened at the root reads it; the
  // package's own caches can keep a slot a revert should have dropped), and after a move to the root.
  const fresh = new MerkleStateManager({ common, caches: new Caches(), trie: live.baseTries() });
  await fresh.setStateRoot(root);
  expect(bytesToHex(await ours.getStateRoot())).to.equal(bytesToHex(root));
  for (const moved of [false, true]) {
    if (moved) await ours.setStateRoot(root);
    for (const address of ADDRESSES) {
      await both(log, `getAccount ${address}`, [fresh, ours], (sm) => sm.getAccount(address).then((account) => account?.serialize()));
      for (let n = 0; n < 6; n++) await both(log, `getStorage ${address} ${n}`, [fresh, ours], (sm) => sm.getStorage(address, slot(n)));
    }
  }
}

describe("view state (viewState.ts), randomised against the plain state layer and fresh tries", () => {
  for (let seed = 1; seed <= 30; seed++) {
    it(`seed ${seed}: the same reads, writes, errors, original values, dumps and roots`, async () => {
      await run(seed, 400);
    });
  }

  it("the memos start over at their bound, and reads after that walk the tries again with the same answers", async () => {
    const common = new Common({ chain: Mainnet });
    const { live, root } = await baseState(common);
    // Three accounts or slots, and 3 bytes of code: one of the base state's contracts (2 and 3 bytes).
    const memos = new ViewMemos(3, 3);
    const view = new ViewStateManager({ common, trie: live.baseTries(), root, memos });
    const read = async () => Promise.all(ADDRESSES.slice(0, 4).map(async (address) => [await view.getStorage(address, slot(0)), await view.getCode(address)]));
    const first = show(await read());
    const size = (memo: Map<string, Map<string, unknown>>) => [...memo.values()].reduce((sum, entries) => sum + entries.size, 0);
    expect(size(memos.accounts)).to.be.at.most(3);
    expect(size(memos.slots)).to.be.at.most(3);
    expect([...memos.code.values()].reduce((sum, code) => sum + code.length, 0)).to.be.at.most(3);
    expect(show(await read())).to.equal(first);
  });

  it("answers what its overlay or memos hold with a settled promise, waits only for the tries, and rejects as the package does", async () => {
    const common = new Common({ chain: Mainnet });
    const { live, root } = await baseState(common);
    const view = new ViewStateManager({ common, trie: live.baseTries(), root, memos: new ViewMemos(64, 1024) });
    // Settled: its reaction runs before that of a promise resolved one microtask after the call.
    const settled = (answer: Promise<unknown>) => Promise.race([answer.then(() => true), Promise.resolve().then(() => false)]);
    const [contract, , , plain, missing] = ADDRESSES as [Address, Address, Address, Address, Address];
    // First reads walk the tries: not settled when answered.
    expect(await settled(view.getStorage(contract, slot(0))), "a slot read from the trie").to.equal(false);
    expect(await settled(view.getCode(contract)), "code read from the store").to.equal(false);
    // What the memos now hold, and the overlay's writes: settled at once, with the same answers.
    expect(await settled(view.getAccount(contract)), "an account in the memo").to.equal(true);
    expect(await settled(view.getStorage(contract, slot(0))), "a slot in the memo").to.equal(true);
    expect(bytesToHex(await view.getStorage(contract, slot(0)))).to.equal("0x0100");
    expect(await settled(view.getCode(contract)), "code in the memo").to.equal(true);
    expect(bytesToHex(await view.getCode(contract))).to.equal(bytesToHex(CODES[0]!));
    await view.checkpoint();
    expect(await settled(view.putAccount(contract, new Account(7n, 1n))), "an account written").to.equal(true);
    expect(await settled(view.modifyAccountFields(contract, { nonce: 8n })), "fields of an account written").to.equal(true);
    expect(await settled(view.putStorage(contract, slot(1), Uint8Array.of(9))), "a slot written").to.equal(true);
    expect(bytesToHex(await view.getStorage(contract, slot(1)))).to.equal("0x09");
    expect((await view.getAccount(contract))?.nonce).to.equal(8n);
    await view.revert();
    expect((await view.getAccount(contract))?.nonce).to.equal(0n);
    // The errors the package raises: a rejected promise, never a throw at the call.
    const rejection = async (make: () => Promise<unknown>) => {
      let answer: Promise<unknown> | undefined;
      expect(() => (answer = make())).to.not.throw();
      return answer!.then(
        () => "resolved",
        (error: Error) => error.message,
      );
    };
    expect(await rejection(() => view.getStorage(plain, new Uint8Array(31)))).to.equal("Storage key must be 32 bytes long");
    expect(await rejection(() => view.putStorage(plain, slot(0), new Uint8Array(33)))).to.equal("Storage value cannot be longer than 32 bytes");
    expect(await rejection(() => view.putStorage(missing, slot(0), Uint8Array.of(1)))).to.equal("putStorage() called on non-existing account");
    await view.getAccount(missing);
    expect(await rejection(() => view.putStorage(missing, slot(0), Uint8Array.of(1))), "once the memo knows it is missing").to.equal(
      "putStorage() called on non-existing account",
    );
  });

  it("writes to many slots journal one entry each, and a revert takes them all back", async () => {
    const common = new Common({ chain: Mainnet });
    const { live, root } = await baseState(common);
    const view = new ViewStateManager({ common, trie: live.baseTries(), root, memos: new ViewMemos(64, 1024) });
    await view.checkpoint();
    for (let n = 0; n < 2_000; n++) await view.putStorage(ADDRESSES[1]!, setLengthLeft(Uint8Array.of(n >> 8, n & 0xff), 32), Uint8Array.of(1));
    // One for the account's map of written slots, then one per slot (a map copied per write held n²/2 entries).
    expect(view.journalLength).to.equal(2_001);
    expect(bytesToHex(await view.getStorage(ADDRESSES[1]!, slot(0)))).to.equal("0x01");
    await view.revert();
    expect(view.journalLength).to.equal(0);
    expect(bytesToHex(await view.getStorage(ADDRESSES[1]!, slot(0)))).to.equal("0x0101");
    expect(bytesToHex(await view.getStateRoot())).to.equal(bytesToHex(root));
  });

  it("code a reverted run put is gone with it: an account given its hash afterwards has no code, as the package answers", async () => {
    const common = new Common({ chain: Mainnet });
    const { live, root } = await baseState(common);
    const reference = new MerkleStateManager({ common, caches: new Caches(), trie: live.baseTries() });
    await reference.setStateRoot(root);
    const view = new ViewStateManager({ common, trie: live.baseTries(), root, memos: new ViewMemos(64, 1024) });
    const code = Uint8Array.of(0x60, 0x2a, 0x5f, 0x55);
    const answers: string[] = [];
    for (const sm of [reference, view] as StateManagerInterface[]) {
      await sm.checkpoint();
      await sm.putCode(ADDRESSES[4]!, code);
      expect(bytesToHex(await sm.getCode(ADDRESSES[4]!))).to.equal(bytesToHex(code));
      await sm.revert();
      await sm.putAccount(ADDRESSES[4]!, new Account(0n, 1n, undefined, keccak256(code)));
      answers.push(bytesToHex(await sm.getCode(ADDRESSES[4]!)));
    }
    expect(answers).to.deep.equal(["0x", "0x"]);
  });

  it("a state root computed mid-run gives written accounts their new storage roots (EIP-7610 reads them), unwritten slots still read, a revert takes the roots back", async () => {
    const common = new Common({ chain: Mainnet });
    const { live, root } = await baseState(common);
    const view = new ViewStateManager({ common, trie: live.baseTries(), root, memos: new ViewMemos(64, 1024) });
    const empty = ADDRESSES[4]!;
    const stored = ADDRESSES[2]!;
    const baseStorageRoot = (await view.getAccount(stored))!.storageRoot;
    await view.checkpoint();
    // A state override's stateDiff on an address without code or nonce, and a write beside a contract's slots.
    await view.putAccount(empty, new Account());
    await view.putStorage(empty, slot(0), Uint8Array.of(1));
    await view.putStorage(stored, slot(9), Uint8Array.of(9));
    const stateRoot = await view.getStateRoot();
    // What the package answers after its flush: the roots of the storage as it now is.
    const fresh = new PlainStateManager({ common: new Common({ chain: Mainnet }) });
    await fresh.putAccount(empty, new Account());
    await fresh.putStorage(empty, slot(0), Uint8Array.of(1));
    await fresh.getStateRoot();
    const expectedEmpty = (await fresh.getAccount(empty))!.storageRoot;
    expect(bytesToHex((await view.getAccount(empty))!.storageRoot)).to.equal(bytesToHex(expectedEmpty));
    expect(bytesToHex((await view.getAccount(stored))!.storageRoot)).to.not.equal(bytesToHex(baseStorageRoot));
    // Unwritten slots still come from the base trie (the new roots' nodes are not kept), written ones from the overlay.
    expect(bytesToHex(await view.getStorage(stored, slot(0)))).to.equal("0x0102");
    expect(bytesToHex(await view.getStorage(stored, slot(9)))).to.equal("0x09");
    expect(bytesToHex(await view.getStorage(empty, slot(1)))).to.equal("0x");
    // The account put back as the EVM reads it (its new root) still reads its base slots; the root is the same.
    const account = (await view.getAccount(stored))!;
    account.balance += 1n;
    await view.putAccount(stored, account);
    expect(bytesToHex(await view.getStorage(stored, slot(1)))).to.equal("0x0202");
    account.balance -= 1n;
    await view.putAccount(stored, account);
    expect(bytesToHex(await view.getStateRoot())).to.equal(bytesToHex(stateRoot));
    await view.revert();
    expect(bytesToHex((await view.getAccount(stored))!.storageRoot)).to.equal(bytesToHex(baseStorageRoot));
    expect(await view.getAccount(empty)).to.equal(undefined);
    expect(bytesToHex(await view.getStateRoot())).to.equal(bytesToHex(root));
  });

  it("computing a root leaves the shared node store as it was, and the view at its base reads the base state", async () => {
    const common = new Common({ chain: Mainnet });
    const { live, root } = await baseState(common);
    const store = live.nodeStore!;
    const before = store.size;
    const view = new ViewStateManager({ common, trie: live.baseTries(), root, memos: new ViewMemos(64, 1024) });
    await view.checkpoint();
    await view.putStorage(ADDRESSES[1]!, slot(9), Uint8Array.of(9));
    await view.putAccount(ADDRESSES[4]!, new Account(0n, 5n));
    expect(bytesToHex(await view.getStateRoot())).to.not.equal(bytesToHex(root));
    expect(store.size).to.equal(before);
    await view.revert();
    expect(bytesToHex(await view.getStateRoot())).to.equal(bytesToHex(root));
    expect(await view.getAccount(ADDRESSES[4]!)).to.equal(undefined);
  });

  it("a VM copied over a view (copyVmOver) and its EVM read the view's state, and the live VM keeps its own", async () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
    const { live: liveState, root } = await baseState(common);
    const live = await createVM({ common, stateManager: liveState });
    const view = new ViewStateManager({ common, trie: liveState.baseTries(), root, memos: new ViewMemos(64, 1024) });
    const copy = await copyVmOver(live, view);
    expect(copy.stateManager).to.equal(view);
    expect(copy.evm.stateManager).to.equal(view);
    expect(live.stateManager).to.equal(liveState);
    await liveState.putAccount(ADDRESSES[0]!, new Account(0n, 1n));
    expect((await copy.stateManager.getAccount(ADDRESSES[0]!))?.balance).to.equal(10n ** 18n);
  });
});
