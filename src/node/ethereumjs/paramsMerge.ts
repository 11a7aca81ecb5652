/**
 * `Common.updateParams` (@ethereumjs/common 10.1.3, common.js) without the deep copies that change
 * nothing. The VM's and the EVM's constructors call it on their Common with the package's default
 * params (`paramsVM`, `paramsEVM`: 12 and 34 EIPs), so every VM made (the chain's, and each state
 * view's copy: stateViews.ts) replaces each of those EIPs' params with a JSON round trip of itself
 * merged with the defaults, then rebuilds the params cache. Every Common of a chain shares one
 * params object (`Common.copy` is an `Object.assign`), which holds the defaults from the chain's
 * first VM on: each merge after it writes the values that are already there, but one. The package's
 * sets disagree on EIP-2935's `historyServeWindow` (8192 in `paramsEVM`, 8191 in `paramsVM`), so each
 * VM made flips it, and the VM's, merged last, stays. That was ~95 µs of a VM copy
 * (bench/benchmarks-notes.md, "Twenty-first round").
 *
 * Here an EIP whose params already hold every value being merged, each a JSON primitive equal to
 * the one held, is left as it is: the package would write a JSON copy of the same values (the params
 * held are JSON copies already: the constructor, `updateParams` and `resetParams` all copy through
 * JSON). A merge of an entry of the package's own sets (`paramsVM`, `paramsEVM`, `paramsTx`,
 * `paramsBlock`: module constants), alone or over params made here, gives the same params in every
 * chain of a process (a new chain's first header, VM, EVM and txs merge EIP 1 and others from several
 * sets): it is made once, frozen and shared, one object per content. Neither the package nor this
 * engine writes into an EIP's params once held (they replace them whole). Any other merge is made as
 * the package makes it, and the cache is rebuilt as the package rebuilds it, every time: what the
 * cache holds stays exactly the package's answer. test/paramsMerge.test.ts compares both on the
 * package's param sets.
 */
import { paramsBlock } from "@ethereumjs/block";
import { paramsEVM } from "@ethereumjs/evm";
import { paramsTx } from "@ethereumjs/tx";
import { paramsVM } from "@ethereumjs/vm";

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

/** The entries of the package's own param sets: module constants, the only params whose merges are shared. */
const packageEntries = new WeakSet<object>(
  [paramsBlock, paramsEVM, paramsTx, paramsVM]
    .flatMap((set): unknown[] => Object.values(set))
    .filter((entry): entry is object => typeof entry === "object" && entry !== null),
);

/**
 * Frozen params made here, one per content (its JSON text), so that merges which flip a value back
 * and forth (EIP-2935's window, see the module comment) come back to the same objects. Bounded by
 * the contents the package's sets merge into (a few dozen); past MAX_SHARED, plain copies.
 */
const shared = new Map<string, object>();
const sharedObjects = new WeakSet<object>();
const MAX_SHARED = 1024;

function sharedCopy(value: unknown): object {
  const text = JSON.stringify(value);
  let copy = shared.get(text);
  if (copy === undefined) {
    copy = JSON.parse(text) as object;
    if (shared.size >= MAX_SHARED) return copy;
    Object.freeze(copy);
    shared.set(text, copy);
    sharedObjects.add(copy);
  }
  return copy;
}

/** The shared copy of a package entry merged alone, by entry. */
const copies = new WeakMap<object, object>();
/** The shared copy of a package entry merged over shared params, by those params, then entry. */
const merges = new WeakMap<object, WeakMap<object, object>>();

const isObject = (value: unknown): value is object => typeof value === "object" && value !== null;

/** What the package writes for an EIP: a JSON copy of `update` (nothing held) or of `update` over `held`. */
function merged(held: unknown, update: unknown, isHeld: boolean): unknown {
  const value = isHeld ? { ...(held as object), ...(update as object) } : update;
  if (!isObject(update) || !packageEntries.has(update)) return JSON.parse(JSON.stringify(value));
  let memo: WeakMap<object, object> | undefined = copies;
  if (isHeld) {
    // Over shared params only: frozen, so they hold what they held when the merge was made.
    if (!isObject(held) || !sharedObjects.has(held)) return JSON.parse(JSON.stringify(value));
    memo = merges.get(held);
    if (memo === undefined) merges.set(held, (memo = new WeakMap()));
  }
  let result = memo.get(update);
  if (result === undefined) memo.set(update, (result = sharedCopy(value)));
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
