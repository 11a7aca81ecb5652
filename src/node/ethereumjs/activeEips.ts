/**
 * Patch (@ethereumjs/common 10.1.3, `Common.prototype.isActivatedEIP`): whether an EIP is active,
 * read from a table indexed by EIP number instead of `Array.prototype.includes` over the list of
 * the EIPs the hardfork activates (`_activatedEIPsCache`: 48 numbers under Mainnet's Osaka, the
 * largest 7951). The EVM, the VM and the tx classes ask it at every step, call and tx, most often
 * for an EIP that is not active (a full scan each time).
 *
 * The table is built from the list itself and kept on the Common with the list it was built from:
 * the package builds a new array whenever the set of active EIPs changes (`_buildActivatedEIPsCache`,
 * on `setHardfork` and `setEIPs`) and never changes one in place, so a table is right for as long as
 * its list is the Common's (a copy, `Common.copy`'s Object.assign, starts with its original's).
 * The answers are the package's (`includes`, SameValueZero): the package's callers pass EIP numbers,
 * and anything else (a fraction, a negative, a number past MAX_TABLED_EIP) is answered by the
 * package's own method. test/engineInternals.test.ts compares them on every hardfork of Mainnet, on
 * a copy moved to another hardfork, and with EIPs given to the constructor.
 */
import { Common, Mainnet } from "@ethereumjs/common";

interface ActiveEipCache {
  _activatedEIPsCache: number[];
  /** The table of `_activeEipList` (set here). */
  _activeEipTable?: Uint8Array;
  _activeEipList?: number[];
}

/** EIP numbers up to this one are tabled (a byte each); a list with a larger one is answered by the package. */
const MAX_TABLED_EIP = 65_535;
/** The table of a list with an EIP past MAX_TABLED_EIP: every answer is the package's. */
const UNTABLED = new Uint8Array(0);

/** One byte per EIP number up to the largest active one: 1 when active. */
function tableOf(active: number[]): Uint8Array {
  let largest = 0;
  for (const eip of active) if (Number.isInteger(eip) && eip > largest) largest = eip;
  if (largest > MAX_TABLED_EIP) return UNTABLED;
  const table = new Uint8Array(largest + 1);
  for (const eip of active) if (Number.isInteger(eip) && eip >= 0) table[eip] = 1;
  return table;
}

/** (Re)builds `common`'s table from its current list and keeps both on it; answers the table. */
export function tableActiveEips(common: Common): Uint8Array {
  const cache = common as unknown as ActiveEipCache;
  const table = tableOf(cache._activatedEIPsCache);
  cache._activeEipTable = table;
  cache._activeEipList = cache._activatedEIPsCache;
  return table;
}

let installed = false;

/** Installs the table lookup on the package's Common (the ES module build the chain runs on), once per process. */
export function installActiveEips(): void {
  if (installed) return;
  if (!Array.isArray((new Common({ chain: Mainnet }) as unknown as ActiveEipCache)._activatedEIPsCache)) {
    throw new Error("@ethereumjs/common: Common._activatedEIPsCache is gone; update src/node/ethereumjs/activeEips.ts");
  }
  installed = true;
  const upstream = Common.prototype.isActivatedEIP;
  Common.prototype.isActivatedEIP = function (this: Common, eip: number): boolean {
    const common = this as unknown as ActiveEipCache;
    let table = common._activeEipTable;
    if (table === undefined || common._activeEipList !== common._activatedEIPsCache) table = tableActiveEips(this);
    // A number past the table (the largest active EIP) is inactive; anything but a non-negative integer is the package's to answer.
    if (table === UNTABLED || !Number.isInteger(eip) || eip < 0) return upstream.call(this, eip);
    return eip < table.length && table[eip] === 1;
  };
}
