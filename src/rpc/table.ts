/**
 * The method table: each JSON-RPC method is a params schema and one handler. `dispatch` is the
 * only place params are validated and unknown failures become `-32603`, for every transport.
 */
import { z } from "zod";

import { internalError, invalidParams, isRpcError, methodNotFound } from "./errors.ts";

import type { MethodContext } from "./context.ts";

export interface MethodSpec<S extends z.ZodTypeAny = z.ZodTypeAny> {
  params: S;
  handler: (params: z.output<S>, ctx: MethodContext) => unknown;
}

export type MethodTable = Record<string, MethodSpec>;

export function method<S extends z.ZodTypeAny>(params: S, handler: (params: z.output<S>, ctx: MethodContext) => unknown): MethodSpec {
  return { params, handler } as MethodSpec;
}

type Outputs<T extends z.ZodTypeAny[]> = { [K in keyof T]: T[K] extends z.ZodTypeAny ? z.output<T[K]> : never };

/**
 * Positional params: a missing `params` is `[]`, missing trailing items are `undefined` (so
 * `.optional()` items may be left out), and more items than the method takes is an error.
 */
export function positional<T extends z.ZodTypeAny[]>(...items: T): z.ZodType<Outputs<T>, z.ZodTypeDef, unknown> {
  const tuple = z.tuple(items as unknown as [z.ZodTypeAny, ...z.ZodTypeAny[]]);
  return z.unknown().transform((value, ctx) => {
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
}

/** `params[0].maxFeePerGas` from zod's path `[0, "maxFeePerGas"]`. */
export function fieldOf(path: (string | number)[]): string {
  return path.reduce<string>((field, key) => (typeof key === "number" ? `${field}[${key}]` : `${field}.${key}`), "params");
}

export async function dispatch(table: MethodTable, ctx: MethodContext, name: string, params: unknown): Promise<unknown> {
  const spec = Object.hasOwn(table, name) ? table[name] : undefined;
  if (spec === undefined) throw methodNotFound(name);
  let parsed: z.SafeParseReturnType<unknown, unknown>;
  try {
    parsed = spec.params.safeParse(params);
  } catch (error) {
    // In process, params can be anything: a getter or a proxy that throws is unreadable params.
    throw invalidParams("params", error instanceof Error ? error.message : String(error));
  }
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw invalidParams(fieldOf(issue.path), issue.message);
  }
  try {
    return await spec.handler(parsed.data, ctx);
  } catch (error) {
    if (isRpcError(error)) throw error;
    throw internalError(error);
  }
}
