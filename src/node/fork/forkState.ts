/**
 * The state of a forked chain: a local Merkle trie over the upstream's state at the fork block.
 *
 * The trie holds only what the fork has written; everything else is read from the upstream (and
 * its caches, source.ts). Reads never write the trie, so the state roots the fork computes depend
 * only on the txs and dev edits it ran, never on which reads happened before. What the trie cannot
 * say by itself is whether an absent key means "never written here: ask the upstream" or "written
 * here and deleted" (a slot set to zero, an account EIP-161 removed). So each write also sets a
 * marker in the storage of one reserved account, `FILLED_MARKERS`:
 *
 * - slot keccak(address) = 1: the account is local (the trie's answer is the truth, absent = none);
 *   = 2: and so is its whole storage (created or deleted here: the upstream's slots no longer apply);
 * - slot keccak(address ‖ key) = 1: that storage slot is local.
 *
 * The markers are state like any other: they live under the same root, so state views of older
 * blocks, snapshots and reverts, and reverted txs see exactly the markers of their own state.
 * The roots are the fork's own, not the upstream's (docs/forking.md).
 */
import { Account, bytesToHex, concatBytes, createAddressFromString, hexToBytes, KECCAK256_NULL } from "@ethereumjs/util";
import { MerkleStateManager } from "@ethereumjs/statemanager";

import { withoutLeadingZeros } from "../common/bytes.ts";
import { keccak256 } from "../common/crypto.ts";
import { copyOptionsOf } from "../ethereumjs/internals.ts";
import { dropStorageTrie } from "../ethereumjs/stateManager.ts";

import type { MerkleStateManagerOpts } from "@ethereumjs/statemanager";
import type { Address } from "@ethereumjs/util";
import type { VM } from "@ethereumjs/vm";
import type { ForkSource } from "./source.ts";

/** Where the markers live: an address no key controls (the first 20 bytes of a hash). */
export const FILLED_MARKERS = createAddressFromString(bytesToHex(keccak256(new TextEncoder().encode("hardhat-preconf fork markers")).subarray(0, 20)));

const LOCAL = Uint8Array.of(1);
const LOCAL_WITH_STORAGE = Uint8Array.of(2);

export class ForkStateManager extends MerkleStateManager {
  readonly source: ForkSource;
  /**
   * The trie alone, as a plain state: writes go to it as they are (markers included) and reads
   * never ask the upstream. Set while a dump of a fork is restored (its accounts and its markers
   * account are written as dumped).
   */
  raw = false;

  constructor(opts: MerkleStateManagerOpts, source: ForkSource) {
    super(opts);
    this.source = source;
  }

  /** Writes the markers' account: the first state of a fork (its root is the fork block's, locally). */
  async initialize(): Promise<Uint8Array> {
    // Nonce 1: never empty, so never removed by EIP-161 when something touches it. Through the
    // instance's own putAccount, so that a state dump's account index sees it (stateDump.ts).
    await this.putAccount(FILLED_MARKERS, new Account(1n));
    await this.flush();
    return this.getStateRoot();
  }

  override shallowCopy(downlevelCaches = true): ForkStateManager {
    return new ForkStateManager(copyOptionsOf(super.shallowCopy(downlevelCaches)), this.source);
  }

  // ── Reads: the trie for what is local, the upstream for the rest ──────────────────────────────

  override async getAccount(address: Address): Promise<Account | undefined> {
    if (this.raw || address.equals(FILLED_MARKERS) || (await this.#accountMarker(address)) !== undefined) return super.getAccount(address);
    const upstream = await this.source.account(address.toString());
    if (upstream.nonce === 0n && upstream.balance === 0n && upstream.code === "0x") return undefined;
    const codeHash = upstream.code === "0x" ? KECCAK256_NULL : keccak256(hexToBytes(upstream.code));
    // The storage root is the local storage trie's (empty until a slot is written here).
    return new Account(upstream.nonce, upstream.balance, undefined, codeHash);
  }

  override async getCode(address: Address): Promise<Uint8Array> {
    if (this.raw || (await this.#accountMarker(address)) !== undefined) return super.getCode(address);
    return hexToBytes((await this.source.account(address.toString())).code);
  }

  override async getCodeSize(address: Address): Promise<number> {
    return (await this.getCode(address)).length;
  }

  override async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    if (this.raw || address.equals(FILLED_MARKERS) || (await this.#slotIsLocal(address, key))) return super.getStorage(address, key);
    return withoutLeadingZeros(hexToBytes(await this.source.storage(address.toString(), bytesToHex(key))));
  }

  // ── Writes: the account (and slot) become local first ─────────────────────────────────────────

  override async putAccount(address: Address, account: Account | undefined): Promise<void> {
    if (!this.raw) await this.#makeLocal(address);
    return super.putAccount(address, account);
  }

  override async deleteAccount(address: Address): Promise<void> {
    if (!this.raw) {
      await this.#makeLocal(address);
      await this.#mark(accountMarkerKey(address), LOCAL_WITH_STORAGE);
    }
    await super.deleteAccount(address);
    dropStorageTrie(this, address);
  }

  override async putCode(address: Address, value: Uint8Array): Promise<void> {
    if (!this.raw) await this.#makeLocal(address);
    return super.putCode(address, value);
  }

  override async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    if (address.equals(FILLED_MARKERS) || this.raw) return super.putStorage(address, key, value);
    await this.#makeLocal(address);
    if (!(await this.#slotIsLocal(address, key))) await this.#mark(slotMarkerKey(address, key), LOCAL);
    return super.putStorage(address, key, value);
  }

  override async clearStorage(address: Address): Promise<void> {
    if (!this.raw) {
      await this.#makeLocal(address);
      await this.#mark(accountMarkerKey(address), LOCAL_WITH_STORAGE);
    }
    return super.clearStorage(address);
  }

  /** Copies the upstream account into the trie (balance, nonce, code) and marks it local. */
  async #makeLocal(address: Address): Promise<void> {
    if (address.equals(FILLED_MARKERS) || (await this.#accountMarker(address)) !== undefined) return;
    const upstream = await this.getAccount(address);
    const code = upstream?.isContract() ? await this.getCode(address) : undefined;
    await this.#mark(accountMarkerKey(address), LOCAL);
    if (upstream === undefined) return;
    await super.putAccount(address, new Account(upstream.nonce, upstream.balance));
    if (code !== undefined) await super.putCode(address, code);
  }

  async #accountMarker(address: Address): Promise<Uint8Array | undefined> {
    const marker = await super.getStorage(FILLED_MARKERS, accountMarkerKey(address));
    return marker.length === 0 ? undefined : marker;
  }

  async #slotIsLocal(address: Address, key: Uint8Array): Promise<boolean> {
    const account = await this.#accountMarker(address);
    if (account === undefined) return false;
    if (account[0] === LOCAL_WITH_STORAGE[0]) return true;
    return (await super.getStorage(FILLED_MARKERS, slotMarkerKey(address, key))).length > 0;
  }

  /** Through the instance's putStorage, so that a state dump's account index knows every marker. */
  #mark(key: Uint8Array, value: Uint8Array): Promise<void> {
    return this.putStorage(FILLED_MARKERS, key, value);
  }
}

const accountMarkerKey = (address: Address) => keccak256(address.bytes);
const slotMarkerKey = (address: Address, key: Uint8Array) => keccak256(concatBytes(address.bytes, key));

/** Runs `read` on `vm`'s trie alone when its state is a fork's (a state dump reads what the fork wrote). */
export async function trieOnly<T>(vm: VM, read: () => Promise<T>): Promise<T> {
  const stateManager = vm.stateManager;
  if (!(stateManager instanceof ForkStateManager) || stateManager.raw) return read();
  stateManager.raw = true;
  try {
    return await read();
  } finally {
    stateManager.raw = false;
  }
}
