/**
 * The method table: each JSON-RPC method is a params schema and one handler. `dispatch` is the
 * only place params are validated, engine errors get their codes (errors.ts) and unknown failures
 * become `-32603`, for every transport.
 */
import type { z } from "zod";

import { invalidParams, methodNotFound, toRpcError } from "./errors.ts";
import { fieldOf, parseValid } from "./params.ts";

import type { MethodContext } from "./context.ts";

export { fieldOf, positional } from "./params.ts";

export interface MethodSpec<S extends z.ZodTypeAny = z.ZodTypeAny> {
  params: S;
  handler: (params: z.output<S>, ctx: MethodContext) => unknown;
}

export type MethodTable = Record<string, MethodSpec>;

export function method<S extends z.ZodTypeAny>(params: S, handler: (params: z.output<S>, ctx: MethodContext) => unknown): MethodSpec {
  return { params, handler } as MethodSpec;
}

/** One family of methods, and the module that defines it (named when a name is defined twice). */
export interface MethodFamily {
  source: string;
  methods: MethodTable;
}

/**
 * The method table from its families. Each name has one handler: a name two families define is
 * refused here, at construction, naming both sources (which one answered would otherwise depend
 * on the order the families are merged in).
 */
export function buildMethodTable(families: readonly MethodFamily[]): MethodTable {
  const table: MethodTable = {};
  const sourceOf = new Map<string, string>();
  for (const { source, methods } of families) {
    for (const [name, spec] of Object.entries(methods)) {
      const first = sourceOf.get(name);
      if (first !== undefined) throw new Error(`JSON-RPC method ${name} is defined twice: in ${first} and in ${source}`);
      sourceOf.set(name, source);
      table[name] = spec;
    }
  }
  return table;
}

export async function dispatch(table: MethodTable, ctx: MethodContext, name: string, params: unknown): Promise<unknown> {
  const spec = Object.hasOwn(table, name) ? table[name] : undefined;
  if (spec === undefined) throw methodNotFound(name);
  let parsed: z.SafeParseReturnType<unknown, unknown>;
  try {
    parsed = parseValid(spec.params, params) ?? spec.params.safeParse(params);
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
    throw toRpcError(error);
  }
}
