/**
 * One hidden class for every Common the engine runs on. V8 optimizes a function for the object
 * shapes ("maps") it has seen; a Common of another map reaching code optimized without it throws
 * that code away ("wrong map"), and the functions the Common's methods were inlined into (runTx,
 * the EVM's call, the block builder) are compiled again. The chain's Common came from the
 * constructor (its fields in the object), while every other one is a copy (`Common.copy`, an
 * `Object.assign` onto `Object.create(prototype)`: its fields out of the object) to which the
 * engine's patches then added own properties in different orders: the state views' hardfork memo
 * (hardforkOrder.ts), the shared Commons' `copy` and `updateParams` (sharedCommon.ts), the active
 * EIP table (activeEips.ts) whenever first asked, and `updateParams` without its idle deep copies
 * (paramsMerge.ts). The first eth_call after a run of mined blocks
 * so deoptimized some 30 functions of the block path (bench/benchmarks-notes.md, "Nineteenth round").
 *
 * `uniformCommon` makes the chain's Common a copy that already has every own property those
 * patches set, in one order, each written twice: V8 marks a field written after its object's
 * creation as mutable, once for its map, which deoptimizes code that read it as a constant; done
 * here, before anything is optimized, it costs nothing later. Every Common made from it since
 * (state views, EVMs, tx and block Commons) is a copy of it, so the patches only overwrite
 * properties it has, and all of them share its map. test/engineShapes.test.ts checks the maps.
 */
import { Common } from "@ethereumjs/common";

import { tableActiveEips } from "./activeEips.ts";
import { memoiseHardforkOrder } from "./hardforkOrder.ts";
import { updateParamsHeld } from "./paramsMerge.ts";

export function uniformCommon(common: Common): Common {
  const uniform = common.copy();
  for (let pass = 0; pass < 2; pass++) {
    tableActiveEips(uniform);
    memoiseHardforkOrder(uniform);
    // sharedCommon.ts gives its Commons their own `copy` and `updateParams`: every other Common has
    // the package's `copy`, and `updateParams` as the package merges but without its idle copies.
    uniform.copy = Common.prototype.copy;
    uniform.updateParams = updateParamsHeld;
  }
  return uniform;
}
