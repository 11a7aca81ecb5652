/**
 * Hardfork order answered from a memo, on the chain's Common (commonShape.ts), which every Common
 * the chain runs on is a copy of (state views, EVMs, the shared tx and block Commons of
 * sharedCommon.ts, which give it to a Common of their own too). Every legacy tx's constructor asks
 * `common.gteHardfork("spuriousDragon")` (EIP-155), and each run's journal cleanup and receipt ask
 * it too; @ethereumjs/common 10.1.3 answers by walking `hardforks()`, which on a chain with custom
 * hardforks (ours: the OP-stack ones) builds a Set and two arrays per call: ~2 % of an ERC-20
 * transfer's eth_estimateGas. The order of two hardforks of a chain never changes, so one answer
 * per pair is enough.
 *
 * Patch (@ethereumjs/common 10.1.3): `hardforkGteHardfork`, which `gteHardfork` calls, becomes an own
 * property of the instance (copies made by `Common.copy`, an Object.assign, keep it, and so share
 * the memo; they share the chain's hardfork definitions too). The memo is keyed by the instance's
 * current hardfork, so `setHardfork` needs nothing. test/engineInternals.test.ts checks its answers
 * against the package's and that a legacy tx's constructor still asks it.
 */
import { Common } from "@ethereumjs/common";

/** Gives `common` a memo of its own, over the package's method (so that a memo never wraps another). */
export function memoiseHardforkOrder(common: Common): void {
  const upstream = Common.prototype.hardforkGteHardfork;
  // first → second → answer: two lookups, no key string built per call.
  const answers = new Map<string, Map<string, boolean>>();
  common.hardforkGteHardfork = function (this: Common, hardfork1: string | null, hardfork2: string): boolean {
    const first = hardfork1 ?? this.hardfork();
    let row = answers.get(first);
    if (row === undefined) {
      row = new Map();
      answers.set(first, row);
    }
    let answer = row.get(hardfork2);
    if (answer === undefined) {
      answer = upstream.call(this, first, hardfork2);
      row.set(hardfork2, answer);
    }
    return answer;
  };
}
