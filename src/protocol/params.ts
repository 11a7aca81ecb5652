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
  // One parse of the padded list (a preprocess, not a transform that parses the tuple again inside:
  // every request of every method comes through here).
  return z.preprocess((value, ctx) => {
    const list = value === undefined ? [] : value;
    if (!Array.isArray(list)) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: "expected an array of parameters", fatal: true });
      return z.NEVER;
    }
    if (list.length > items.length) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: `expected at most ${items.length} parameters, got ${list.length}`, fatal: true });
      return z.NEVER;
    }
    return list.length === items.length ? list : [...list, ...new Array(items.length - list.length).fill(undefined)];
  }, tuple) as unknown as z.ZodType<Outputs<T>, z.ZodTypeDef, unknown>;
}

/** `params[0].maxFeePerGas` from zod's path `[0, "maxFeePerGas"]`. */
export function fieldOf(path: (string | number)[]): string {
  return path.reduce<string>((field, key) => (typeof key === "number" ? `${field}[${key}]` : `${field}.${key}`), "params");
}
