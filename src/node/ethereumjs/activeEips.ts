/**
 * Patch (@ethereumjs/common 10.1.3, `Common.prototype.isActivatedEIP`): whether an EIP is active,
 * read from a table indexed by EIP number instead of `Array.prototype.includes` over the list of
 * the EIPs the hardfork activates (`_activatedEIPsCache`, ~70 numbers under Osaka). The EVM, the VM
 * and the tx classes ask it at every step, call and tx, most often for an EIP that is not active (a
 * full scan each time).
 *
 * The table is built from the list itself and kept on the Common with the list it was built from:
 * the package builds a new array whenever the set of active EIPs changes (`_buildActivatedEIPsCache`,
 * on `setHardfork` and `setEIPs`) and never changes one in place, so a table is right for as long as
 * its list is the Common's (a copy, `Common.copy`'s Object.assign, starts with its original's). The answers are the package's (`includes` of the number); an EIP number beyond the table
 * or not an integer gets the package's own answer. test/engineInternals.test.ts compares them on
 * every hardfork of the chain's Common and after `setEIPs`.
 */
import { Common } from "@ethereumjs/common";

interface ActiveEipCache {
  _activatedEIPsCache: number[];
  /** The table of `_activeEipList` (set here). */
  _activeEipTable?: Uint8Array;
  _activeEipList?: number[];
}

/** One byte per EIP number up to the largest active one: 1 when active. */
function tableOf(active: number[]): Uint8Array {
  let largest = 0;
  for (const eip of active) if (Number.isInteger(eip) && eip > largest) largest = eip;
  const table = new Uint8Array(largest + 1);
  for (const eip of active) if (Number.isInteger(eip) && eip >= 0) table[eip] = 1;
  return table;
}

let installed = false;

/** Installs the table lookup on the package's Common (the ES module build the chain runs on), once per process. */
export function installActiveEips(): void {
  if (installed) return;
  installed = true;
  const upstream = Common.prototype.isActivatedEIP;
  Common.prototype.isActivatedEIP = function (this: Common, eip: number): boolean {
    const common = this as unknown as ActiveEipCache;
    // Anything but a small non-negative integer (the package compares with SameValueZero) is answered by the package.
    if (!Number.isInteger(eip) || eip < 0) return upstream.call(this, eip);
    let table = common._activeEipTable;
    if (table === undefined || common._activeEipList !== common._activatedEIPsCache) {
      table = tableOf(common._activatedEIPsCache);
      common._activeEipTable = table;
      common._activeEipList = common._activatedEIPsCache;
    }
    return eip < table.length && table[eip] === 1;
  };
}
