/**
 * `Common.updateParams` (@ethereumjs/common 10.1.3, common.js) without the deep copies that change
 * nothing. The VM's and the EVM's constructors call it on their Common with the package's default
 * params (`paramsVM`, `paramsEVM`: 12 and 34 EIPs), so every VM made (the chain's, and each state
 * view's copy: stateViews.ts) replaces each of those EIPs' params with a JSON round trip of itself
 * merged with the defaults, then rebuilds the params cache. Every Common of a chain shares one
 * params object (`Common.copy` is an `Object.assign`), which holds the defaults from the chain's
 * first VM on: each merge after it writes the values that are already there. That was ~95 µs of a
 * VM copy (bench/benchmarks-notes.md, "Twenty-first round").
 *
 * Here an EIP whose params already hold every value being merged, each a JSON primitive equal to
 * the one held, is left as it is: the package would write a JSON copy of the same values (the params
 * held are JSON copies already: the constructor, `updateParams` and `resetParams` all copy through
 * JSON). What a new chain's Common merges first (its first header, VM, EVM, txs: EIP 1 and others
 * come in several of the package's sets) is the same for every chain of a process: the package's
 * param sets are module constants, and neither the package nor this engine writes into an EIP's
 * params once held (they replace them whole). So the JSON copy of an EIP's params, and the merge of
 * a set into params made here, are made once per process, frozen and shared by every chain. Any
 * other merge is made as the package makes it, and the cache is rebuilt as the package rebuilds it,
 * every time: what the cache holds stays exactly the package's answer. test/paramsMerge.test.ts
 * compares both on the package's param sets.
 */
import type { Common, ParamsDict } from "@ethereumjs/common";

/** The fields `updateParams` reads and writes (@ethereumjs/common 10.1.3). */
interface CommonParams {
  _params: ParamsDict;
  _buildParamsCache(): void;
}

/** A value a JSON round trip gives back as it is, and `===` compares by value. */
const isJsonPrimitive = (value: unknown): boolean =>
  typeof value === "string" || typeof value === "boolean" || value === null || (typeof value === "number" && Number.isFinite(value) && !Object.is(value, -0));

/** Whether merging `update` into `held` would leave its values as they are. */
function holdsAll(held: unknown, update: unknown): boolean {
  if (typeof held !== "object" || held === null || typeof update !== "object" || update === null) return false;
  for (const key of Object.keys(update)) {
    const value = (update as Record<string, unknown>)[key];
    if (!isJsonPrimitive(value) || !Object.hasOwn(held, key) || (held as Record<string, unknown>)[key] !== value) return false;
  }
  return true;
}

/** The JSON copy of an EIP's params, by the params object first merged. */
const copies = new WeakMap<object, object>();
/** The JSON copy of a merge, by the frozen params held (made here) and the params object merged over them. */
const merges = new WeakMap<object, WeakMap<object, object>>();

/** What the package writes for an EIP: a JSON copy of `update` (nothing held) or of `update` over `held`. */
function merged(held: unknown, update: unknown, isHeld: boolean): unknown {
  const copy = () => JSON.parse(JSON.stringify(isHeld ? { ...(held as object), ...(update as object) } : update)) as object;
  if (typeof update !== "object" || update === null) return copy();
  let memo: WeakMap<object, object> | undefined = copies;
  if (isHeld) {
    // Only over params made here: frozen, so they hold what they held when the merge was made.
    if (typeof held !== "object" || held === null || !Object.isFrozen(held)) return copy();
    memo = merges.get(held);
    if (memo === undefined) merges.set(held, (memo = new WeakMap()));
  }
  let result = memo.get(update);
  if (result === undefined) memo.set(update, (result = Object.freeze(copy())));
  return result;
}

/** Installed as a Common's own `updateParams` (commonShape.ts): the package's semantics, see the module comment. */
export function updateParamsHeld(this: Common, params: ParamsDict): void {
  const common = this as unknown as CommonParams;
  const held = common._params;
  for (const [eip, update] of Object.entries(params)) {
    const isHeld = eip in held;
    if (isHeld && holdsAll(held[eip], update)) continue;
    // As the package merges (common.js `updateParams`): a JSON copy of the update, over what is held.
    held[eip] = merged(held[eip], update, isHeld) as ParamsDict[string];
  }
  common._buildParamsCache();
}
