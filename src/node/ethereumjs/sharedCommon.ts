/**
 * One Common per (chain Common, params set, hardfork) for the txs and headers we build. Each
 * ethereumjs tx or header otherwise copies its Common and re-merges its params into it (JSON deep
 * copies and a params-cache rebuild, ~0.2 ms: more than recovering a sender natively), per tx on
 * admission, per dry run, twice per block at seal. They only read their Common, so they can share
 * one that already has the params; it is rebuilt when the chain's hardfork moves.
 *
 * Patch (@ethereumjs/common 10.1.3, `Common.copy` and `updateParams` on the shared instance):
 * @ethereumjs/tx and @ethereumjs/block 10.1.3 call `common.copy()` and then `updateParams(...)` in
 * their constructors; the shared Common answers both with itself. test/ethereumjs.test.ts fails if
 * a tx stops building on the Common it is given this way.
 */
import { memoiseHardforkOrder } from "./hardforkOrder.ts";

import type { Common, ParamsDict } from "@ethereumjs/common";

const shared = new WeakMap<Common, Map<ParamsDict, Common>>();

export function sharedCommon(common: Common, params: ParamsDict): Common {
  let byParams = shared.get(common);
  if (byParams === undefined) {
    byParams = new Map();
    shared.set(common, byParams);
  }
  let copy = byParams.get(params);
  if (copy === undefined || copy.hardfork() !== common.hardfork()) {
    const fresh = common.copy();
    fresh.updateParams(params);
    // Whatever builds on it asks for its own copy and params: hand back this one.
    copy = Object.assign(fresh, { copy: () => fresh, updateParams: () => fresh });
    memoiseHardforkOrder(copy);
    byParams.set(params, copy);
  }
  return copy;
}
