/**
 * Params helpers shared by the method tables, the services and the wallet's validation: positional
 * params and the name of a failing field. A leaf module (zod only), so that anything may use it.
 */
import { z } from "zod";

type Outputs<T extends z.ZodTypeAny[]> = { [K in keyof T]: T[K] extends z.ZodTypeAny ? z.output<T[K]> : never };

/**
 * Positional params: a missing `params` is `[]`, missing trailing items are `undefined` (so
 * `.optional()` items may be left out), and more items than the method takes is an error.
 */
export function positional<T extends z.ZodTypeAny[]>(...items: T): z.ZodType<Outputs<T>, z.ZodTypeDef, unknown> {
  const tuple = z.tuple(items as unknown as [z.ZodTypeAny, ...z.ZodTypeAny[]]);
  const schema = z.unknown().transform((value, ctx) => {
    const list = value === undefined ? [] : value;
    if (!Array.isArray(list)) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: "expected an array of parameters" });
      return z.NEVER;
    }
    if (list.length > items.length) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: `expected at most ${items.length} parameters, got ${list.length}` });
      return z.NEVER;
    }
    const parsed = tuple.safeParse([...list, ...new Array(items.length - list.length).fill(undefined)]);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, code: z.ZodIssueCode.custom });
      return z.NEVER;
    }
    return parsed.data as Outputs<T>;
  });
  fastPaths.set(schema, (params) => {
    const list = params === undefined ? [] : params;
    if (!Array.isArray(list) || list.length > items.length) return undefined;
    const data: unknown[] = new Array(items.length);
    for (let i = 0; i < items.length; i++) {
      const parsed = items[i]!.safeParse(list[i]);
      if (!parsed.success) return undefined;
      data[i] = parsed.data;
    }
    return { success: true, data };
  });
  return schema;
}

/** What a fast path answers: the schema's output for params it accepts, else undefined. */
export type FastParse = (params: unknown) => { success: true; data: unknown } | undefined;

/** The fast path of each schema that has one (`positional`, and schemas built on it: withFastPath). */
const fastPaths = new WeakMap<z.ZodTypeAny, FastParse>();

/**
 * `schema.safeParse(params)` for params that are valid, without the wrapping schemas' cost (a few
 * µs per call, on every request): `positional` parses item by item. Undefined when `schema` has no
 * fast path or anything fails: `safeParse` then finds the issue and words it, so every error stays
 * as it was.
 */
export function parseValid(schema: z.ZodTypeAny, params: unknown): { success: true; data: unknown } | undefined {
  return fastPaths.get(schema)?.(params);
}

/** Gives `schema` (built around `inner`) a fast path: `map` of `inner`'s valid output, when it has one. */
export function withFastPath<S extends z.ZodTypeAny>(schema: S, inner: z.ZodTypeAny, map: (data: unknown, params: unknown) => unknown): S {
  fastPaths.set(schema, (params) => {
    const valid = parseValid(inner, params);
    return valid === undefined ? undefined : { success: true, data: map(valid.data, params) };
  });
  return schema;
}

/** `params[0].maxFeePerGas` from zod's path `[0, "maxFeePerGas"]`. */
export function fieldOf(path: (string | number)[]): string {
  return path.reduce<string>((field, key) => (typeof key === "number" ? `${field}[${key}]` : `${field}.${key}`), "params");
}
