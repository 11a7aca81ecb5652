/** Which accounts and storage slots exist, for a state dump. */
import { bigIntToHex, bytesToHex, createAddressFromString, hexToBytes, setLengthLeft } from "@ethereumjs/util";

import { watchStateWrites } from "../ethereumjs/stateWrites.ts";
import { flatHex } from "../common/hex.ts";

import type { StateManagerInterface } from "@ethereumjs/common";
import type { VM } from "@ethereumjs/vm";
import type { Hex } from "../common/types.ts";
import type { DumpAccount } from "./stateDump.ts";

/**
 * The state trie is keyed by hashes, so it cannot list its addresses or slots. This index records
 * every address and slot written through the live state manager (genesis, imports, txs, dev
 * edits); a dump reads exactly those, and checks the slot count against the trie so that nothing
 * is ever left out silently.
 */
export class AccountIndex {
  readonly #slots = new Map<Hex, Set<Hex>>();

  /** Sees every write of this state manager instance (src/node/ethereumjs/stateWrites.ts; views use their own copies). */
  static attach(stateManager: StateManagerInterface): AccountIndex {
    const index = new AccountIndex();
    watchStateWrites(stateManager, {
      account: (id) => index.#slotsOf(id),
      // One flat string per slot: ethereumjs' bytesToHex leaves a rope of ~33 pieces (hex.ts), kept as long as the slot is.
      slot: (id, key) => index.#slotsOf(id).add(flatHex(key)),
    });
    return index;
  }

  #slotsOf(who: Hex): Set<Hex> {
    let slots = this.#slots.get(who);
    if (slots === undefined) {
      slots = new Set();
      this.#slots.set(who, slots);
    }
    return slots;
  }

  /** Every account of the state `vm` is at, sorted by address. */
  async read(vm: VM): Promise<Map<Hex, DumpAccount>> {
    const stateManager = vm.stateManager;
    const accounts = new Map<Hex, DumpAccount>();
    for (const who of [...this.#slots.keys()].sort()) {
      const where = createAddressFromString(who);
      const account = await stateManager.getAccount(where);
      if (account === undefined) continue;
      const storage: Record<Hex, Hex> = {};
      let stored = 0;
      for (const slot of [...this.#slots.get(who)!].sort()) {
        const value = await stateManager.getStorage(where, hexToBytes(slot));
        if (value.length === 0) continue;
        storage[slot] = bytesToHex(setLengthLeft(value, 32));
        stored++;
      }
      const inTrie = Object.keys((await stateManager.dumpStorage?.(where)) ?? {}).length;
      if (inTrie !== stored) throw new Error(`state dump: account ${who} holds ${inTrie} storage slots, ${stored} of them known`);
      accounts.set(who, {
        balance: bigIntToHex(account.balance),
        nonce: bigIntToHex(account.nonce),
        code: bytesToHex(await stateManager.getCode(where)),
        storage,
      });
    }
    return accounts;
  }
}
