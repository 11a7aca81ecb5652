/**
 * The chain's live state (src/node/state/liveState.ts) against the plain state layer
 * (plainState.ts, itself checked against @ethereumjs/statemanager on random transactions in
 * test/plainState.test.ts): random reads, writes, deletions, code, checkpoints, commits, reverts,
 * original values, dumps, state roots taken outside checkpoints (the overlay written into the
 * tries) and inside them (a reverted root), and snapshots moved back to, every answer and error
 * compared, each root also against tries built afresh from what the live state reads.
 */
import { Common, Mainnet } from "@ethereumjs/common";
import { Account, bytesToHex } from "@ethereumjs/util";
import { expect } from "chai";

import { createLiveState, isLiveState } from "../src/node/state/liveState.ts";
import { PlainStateManager } from "../src/node/state/plainState.ts";
import { ViewMemos, ViewStateManager } from "../src/node/state/viewState.ts";
import { seededDraws } from "./helpers/seeded.ts";
import { ADDRESSES, both, CODES, expectOracleDump, expectOracleRoot, slot, writeBase } from "./helpers/stateOracle.ts";

import type { StateManagerInterface } from "@ethereumjs/common";
import type { LiveStateManager } from "../src/node/state/liveState.ts";

async function run(seed: number, steps: number, maxEntries?: number): Promise<void> {
  const { next, pick } = seededDraws(seed);
  const common = new Common({ chain: Mainnet });
  let reference = new PlainStateManager({ common });
  const live = createLiveState(common, maxEntries);
  await writeBase([reference, live]);
  const log: string[] = [];
  let managers: [StateManagerInterface, StateManagerInterface] = [reference, live];
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
      if (depth === 0 && next() < 0.5) {
        const root = await live.getStateRoot();
        // evm_snapshot's: the memos under this root are copied, not moved, when the state moves on (ViewMemos.keep).
        if (next() < 0.5) live.keepMemos(root);
        snapshots.push({ root, state: reference.shallowCopy() });
      }
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

describe("live state (liveState.ts): one class with the views", () => {
  it("is a ViewStateManager itself, not a subclass, so the EVM's call sites see one shape; only it is live", async () => {
    const live = createLiveState(new Common({ chain: Mainnet }));
    const view = live.shallowCopy();
    expect(Object.getPrototypeOf(live)).to.equal(ViewStateManager.prototype);
    expect(Object.getPrototypeOf(view)).to.equal(ViewStateManager.prototype);
    expect([isLiveState(live), isLiveState(view), isLiveState(new PlainStateManager({ common: new Common({ chain: Mainnet }) }))]).to.deep.equal([
      true,
      false,
      false,
    ]);
    expect(live.nodeStore).to.not.equal(undefined);
    expect(view.nodeStore).to.equal(undefined);
  });
});

describe("live state (liveState.ts): a root asked for inside a checkpoint", () => {
  const address = ADDRESSES[0]!;

  it("is written into the tries when the outermost checkpoint commits (runBlock's order), and not when it is reverted", async () => {
    const common = new Common({ chain: Mainnet });
    const live = createLiveState(common);
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

describe("a view at the live state's last root reads through its memos (viewState.ts readThrough)", () => {
  const [address, contract] = [ADDRESSES[0]!, ADDRESSES[1]!];

  it("finds the accounts, slots and code the live state wrote without walking the tries", async () => {
    const common = new Common({ chain: Mainnet });
    const live = createLiveState(common);
    await live.putAccount(address, new Account(3n, 1000n));
    await live.putAccount(contract, new Account(1n, 0n));
    await live.putCode(contract, CODES[1]!);
    await live.putStorage(contract, slot(4), Uint8Array.of(7));
    const root = await live.getStateRoot();
    // Every node but the root's goes: a read that walks the tries fails from here on.
    const store = live.nodeStore!;
    const rootKey = bytesToHex(root).slice(2);
    for (const key of [...store.keys()]) if (key !== rootKey) store.delete(key);

    const view = new ViewStateManager({ common, trie: live.baseTries(), root, memos: new ViewMemos(16, 1024), readThrough: live.memos });
    const account = await view.getAccount(address);
    expect([account?.nonce, account?.balance]).to.deep.equal([3n, 1000n]);
    expect(bytesToHex(await view.getCode(contract))).to.equal(bytesToHex(CODES[1]!));
    expect(bytesToHex(await view.getStorage(contract, slot(4)))).to.equal("0x07");
    // Without the live memos the same read walks the tries, where the account's leaf is gone (read as no account).
    const alone = new ViewStateManager({ common, trie: live.baseTries(), root, memos: new ViewMemos(16, 1024) });
    expect(await alone.getAccount(address)).to.equal(undefined);
  });
});

describe("a snapshot's root keeps its memos when the live state moves on (ViewMemos.keep)", () => {
  const [address, contract, other] = [ADDRESSES[0]!, ADDRESSES[1]!, ADDRESSES[2]!];

  async function afterRevert(keep: boolean): Promise<{ live: LiveStateManager; root: Uint8Array }> {
    const common = new Common({ chain: Mainnet });
    const live = createLiveState(common);
    await live.putAccount(address, new Account(3n, 1000n));
    await live.putAccount(contract, new Account(1n, 0n));
    await live.putStorage(contract, slot(4), Uint8Array.of(7));
    const root = await live.getStateRoot();
    if (keep) live.keepMemos(root);
    // What a test reads at the snapshot, then a block that writes both accounts and the slot, then evm_revert.
    await live.getAccount(address);
    await live.getStorage(contract, slot(4));
    await live.putAccount(address, new Account(4n, 900n));
    await live.putStorage(contract, slot(4), Uint8Array.of(8));
    await live.putAccount(other, new Account(0n, 100n));
    await live.getStateRoot();
    await live.setStateRoot(root);
    // Every node but the snapshot root's goes: a read that walks the tries finds nothing from here on.
    const store = live.nodeStore!;
    const rootKey = bytesToHex(root).slice(2);
    for (const key of [...store.keys()]) if (key !== rootKey) store.delete(key);
    return { live, root };
  }

  it("reads the snapshot's accounts and slots from the memos after evm_revert, as they were", async () => {
    const { live } = await afterRevert(true);
    const account = await live.getAccount(address);
    expect([account?.nonce, account?.balance]).to.deep.equal([3n, 1000n]);
    expect(bytesToHex(await live.getStorage(contract, slot(4)))).to.equal("0x07");
    // The account the block created is not at the snapshot's root.
    expect(await live.getAccount(other)).to.equal(undefined);
  });

  it("without keep, the memos moved on with the state and the same reads walk the tries", async () => {
    const { live } = await afterRevert(false);
    // (With its leaf gone from the store, the account reads as none.)
    expect(await live.getAccount(address)).to.equal(undefined);
  });
});

describe("ViewMemos.keep's bounds (viewState.ts)", () => {
  const roots = ["0xa1", "0xa2", "0xa3", "0xa4", "0xa5"];
  const entries = (count: number) => Array.from({ length: count }, (_, i): [string, Uint8Array] => [`0x${i.toString(16)}`, Uint8Array.of(i)]);

  it("keeps the last 4 roots: an older kept root's memo moves on as any other", () => {
    const memos = new ViewMemos(1000, 1024);
    for (const root of roots) {
      memos.carry(memos.slots, "0x00", root, entries(2));
      memos.keep(root);
    }
    expect(roots.map((root) => memos.isKept(root))).to.deep.equal([false, true, true, true, true]);
    memos.carry(memos.slots, roots[0]!, "0xb1", [], memos.isKept(roots[0]!));
    memos.carry(memos.slots, roots[4]!, "0xb5", [], memos.isKept(roots[4]!));
    expect([memos.slots.has(roots[0]!), memos.slots.get("0xb1")?.size]).to.deep.equal([false, 2]);
    expect([memos.slots.get(roots[4]!)?.size, memos.slots.get("0xb5")?.size]).to.deep.equal([2, 2]);
  });

  it("counts a kept root's copy towards the memo's bound", () => {
    // 3 entries, then their copy: 6 > 5, and the memo starts over; moved instead, 3 stay within it.
    const kept = new ViewMemos(5, 1024);
    kept.carry(kept.slots, "0x00", roots[0]!, entries(3));
    kept.keep(roots[0]!);
    kept.carry(kept.slots, roots[0]!, roots[1]!, [], true);
    expect(kept.slots.size).to.equal(0);
    const moved = new ViewMemos(5, 1024);
    moved.carry(moved.slots, "0x00", roots[0]!, entries(3));
    moved.carry(moved.slots, roots[0]!, roots[1]!, [], false);
    expect(moved.slots.get(roots[1]!)?.size).to.equal(3);
  });
});
