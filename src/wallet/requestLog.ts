/**
 * The wallet's request log: what it keeps of each request (a bounded copy of the params) and of
 * its outcome, so that a client can neither grow it for ever nor crash it with odd params.
 */
import type { Hex } from "../node/common/types.ts";
import type { RpcError } from "../protocol/errors.ts";
import type { Decision } from "./policy.ts";

export type RequestOutcome = "pending" | { result: unknown } | { error: { code: number; message: string; data?: unknown } };

/** One entry of `wallet.requests`. */
export interface WalletRequestRecord {
  id: number;
  method: string;
  /** Deep clone of the params as sent. */
  params: unknown;
  /** Active chain when the request arrived. */
  chainId: Hex;
  time: number;
  /** The policy's decision; absent when the request never reached the policy (invalid, or no prompt needed). */
  decision?: Decision;
  outcome: RequestOutcome;
}

/** Deeper params are logged as a note: cloning them (and the log, on every read) would overflow the stack. */
const MAX_LOGGED_DEPTH = 64;
/** The request log keeps the newest this many requests: a client must not grow it for ever. */
export const MAX_LOGGED_REQUESTS = 1000;
/** Params larger than this (as JSON) are logged as a note of their size. */
export const MAX_LOGGED_PARAMS_BYTES = 16 * 1024;

/** What the log keeps of a request's params: a copy, or a note when they are too large. */
export function loggedParams(params: unknown): unknown {
  const copy = deepClone(params);
  let size = 0;
  try {
    size = JSON.stringify(copy, (_, item: unknown) => (typeof item === "bigint" ? item.toString() : item))?.length ?? 0;
  } catch {
    // A copy JSON cannot write (a cycle) is kept as is: its size is not the budget's concern.
  }
  return size > MAX_LOGGED_PARAMS_BYTES ? `[params of ${size} bytes, not logged]` : copy;
}

/** Whether `value` nests objects deeper than `limit` (iterative: the value may be deeper than the stack). */
function deeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  const seen = new Set<unknown>();
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== "object" || item === null || seen.has(item)) continue;
    if (depth >= limit) return true;
    seen.add(item);
    try {
      for (const child of Object.values(item)) stack.push([child, depth + 1]);
    } catch {
      // A throwing getter or proxy: what can be read is all that gets cloned.
    }
  }
  return false;
}

/** What `plainCopy` answers for a value it leaves to structuredClone. */
const NOT_PLAIN = Symbol("not plain");

/**
 * structuredClone's copy of plain data (JSON-like: primitives but symbols, arrays without holes or
 * extra keys, objects whose prototype is Object's), made in JS: in the middle of a request
 * structuredClone costs ~100 µs of CPU for a tx's params (measured in an automined send; ~3 µs
 * in a tight loop). The same result as structuredClone's: own enumerable string keys in their
 * order, -0 and bigints kept. Anything else (a Date, a Map, a null prototype, an object met
 * twice, which structuredClone keeps as one, deeper than the log keeps) answers NOT_PLAIN, and
 * structuredClone copies the whole value.
 */
function plainCopy(value: unknown, depth: number, seen: Set<object>): unknown {
  if (value === null || (typeof value !== "object" && typeof value !== "function" && typeof value !== "symbol")) return value;
  if (typeof value !== "object" || depth >= MAX_LOGGED_DEPTH || seen.has(value)) return NOT_PLAIN;
  seen.add(value);
  const prototype = Object.getPrototypeOf(value);
  if (prototype === Array.prototype) {
    const array = value as unknown[];
    if (Object.keys(array).length !== array.length) return NOT_PLAIN;
    const copy = new Array<unknown>(array.length);
    for (let i = 0; i < array.length; i++) {
      const item = plainCopy(array[i], depth + 1, seen);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      copy[i] = item;
    }
    return copy;
  }
  if (prototype !== Object.prototype) return NOT_PLAIN;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = plainCopy((value as Record<string, unknown>)[key], depth + 1, seen);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    // An own data property, as structuredClone makes it: `copy[key] = item` with a JSON
    // "__proto__" key would set the copy's prototype instead of copying the key.
    if (key === "__proto__") Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    else copy[key] = item;
  }
  return copy;
}

export function deepClone(value: unknown): unknown {
  try {
    const copy = plainCopy(value, 0, new Set());
    if (copy !== NOT_PLAIN) return copy;
  } catch {
    // A throwing getter or proxy: the long way below says what becomes of it.
  }
  if (deeperThan(value, MAX_LOGGED_DEPTH)) return `[nested deeper than ${MAX_LOGGED_DEPTH} levels]`;
  try {
    return structuredClone(value);
  } catch {
    // Functions and other uncloneable values: keep what JSON keeps (nothing, for a symbol or a function).
    try {
      const text = JSON.stringify(value, (_, item: unknown) => (typeof item === "bigint" ? item.toString() : item));
      return text === undefined ? undefined : (JSON.parse(text) as unknown);
    } catch {
      // Cycles through functions, throwing getters: the log still records that a request came.
      return Object.prototype.toString.call(value);
    }
  }
}

/** A failure as the log keeps it: the JSON-RPC error it is answered with (`toRpcError` maps engine errors). */
export function errorOutcome(error: unknown, toRpcError: (error: unknown) => RpcError): RequestOutcome {
  const json = toRpcError(error).toJSON();
  return { error: { ...json, ...(json.data !== undefined && { data: deepClone(json.data) }) } };
}
