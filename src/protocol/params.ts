/**
 * Params helpers shared by the method tables, the services and the wallet's validation: positional
 * params, their fast path for valid params, and the name of a failing field. A leaf module (zod
 * only), so that anything may use it.
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
  // Compiled on first use, when every leaf parser has registered (withLeafParser).
  let parsers: Parser[] | undefined;
  fastPaths.set(schema, (params) => {
    const list = params === undefined ? [] : params;
    if (!Array.isArray(list) || list.length > items.length) return undefined;
    parsers ??= items.map(fastParserOf);
    const data: unknown[] = new Array(items.length);
    for (let i = 0; i < items.length; i++) {
      const parsed = parsers[i]!(list[i]);
      if (parsed === undefined) return undefined;
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

// ── The items' fast path ────────────────────────────────────────────────────────────────────────
//
// zod's safeParse of a call object costs ~10 µs (a context, a status and a result per field, every
// field's chain of checks): a tenth of an ERC-20 transfer's eth_estimateGas. A parser compiled once
// per schema node does the same for valid input, and answers exactly what safeParse answers:
// success (with the same data) when safeParse succeeds, undefined when it fails. A node it does not
// know (a string with checks, a number, an array, a record...) is parsed by its own safeParse, so
// unknown shapes cost what they did. The leaf value parsers (quantity, bytes, address, hash:
// src/node/common/values.ts) give theirs by hand (withLeafParser). test/positionalFastPath.test.ts
// compares both on random input.

type Parsed = { success: true; data: unknown } | undefined;
type Parser = (value: unknown) => Parsed;

const leafParsers = new WeakMap<z.ZodTypeAny, Parser>();
const compiled = new WeakMap<z.ZodTypeAny, Parser>();

/**
 * Gives a leaf schema a hand-written parser for the items' fast path: `parse` must succeed exactly
 * when `schema.safeParse` does, with the same data, and answer undefined otherwise.
 */
export function withLeafParser<S extends z.ZodTypeAny>(schema: S, parse: (value: unknown) => Parsed): S {
  leafParsers.set(schema, parse);
  return schema;
}

/** `{ success: true, data }`, the shape of a parser's success. */
export const parsedAs = (data: unknown): Parsed => ({ success: true, data });

/** The compiled parser of `schema` (compiled on first use, when every leaf has registered). */
export function fastParserOf(schema: z.ZodTypeAny): Parser {
  let parser = compiled.get(schema);
  if (parser === undefined) {
    parser = compile(schema);
    compiled.set(schema, parser);
  }
  return parser;
}

/** zod's safeParse, as a parser: for the nodes the fast path does not know. */
const bySafeParse =
  (schema: z.ZodTypeAny): Parser =>
  (value) => {
    const parsed = schema.safeParse(value);
    return parsed.success ? parsedAs(parsed.data) : undefined;
  };

function compile(schema: z.ZodTypeAny): Parser {
  const leaf = leafParsers.get(schema);
  if (leaf !== undefined) return leaf;
  if (schema instanceof z.ZodOptional) {
    const inner = fastParserOf(schema.unwrap());
    return (value) => (value === undefined ? parsedAs(undefined) : inner(value));
  }
  if (schema instanceof z.ZodNullable) {
    const inner = fastParserOf(schema.unwrap());
    return (value) => (value === null ? parsedAs(null) : inner(value));
  }
  if (schema instanceof z.ZodEnum) {
    const options = new Set<unknown>(schema.options);
    return (value) => (typeof value === "string" && options.has(value) ? parsedAs(value) : undefined);
  }
  if (schema instanceof z.ZodUnion) {
    // zod's union answers its first option that accepts the value.
    const options = (schema.options as z.ZodTypeAny[]).map(fastParserOf);
    return (value) => {
      for (const option of options) {
        const parsed = option(value);
        if (parsed !== undefined) return parsed;
      }
      return undefined;
    };
  }
  if (schema instanceof z.ZodObject) return compileObject(schema);
  if (schema instanceof z.ZodEffects) return compileEffects(schema);
  return bySafeParse(schema);
}

/**
 * A stripping or strict object without catchall: each field of the shape, set when its value is
 * defined or its key is in the input (zod's ZodObject._parse and mergeObjectSync). Only plain
 * objects: anything else zod may read differently (its own type detection), so safeParse does.
 */
function compileObject(schema: z.ZodObject<z.ZodRawShape>): Parser {
  const { unknownKeys, catchall } = schema._def;
  if (!(catchall instanceof z.ZodNever) || (unknownKeys !== "strip" && unknownKeys !== "strict")) return bySafeParse(schema);
  const strict = unknownKeys === "strict";
  const shape = schema.shape;
  const keys = Object.keys(shape);
  const known = new Set(keys);
  const fields = keys.map((key) => fastParserOf(shape[key]!));
  const slow = bySafeParse(schema);
  return (value) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return slow(value);
    const input = value as Record<string, unknown>;
    // zod's type detection (getParsedType) calls an object with `then` and `catch` methods a promise.
    if (typeof input.then === "function" && typeof input.catch === "function") return slow(value);
    if (strict) for (const key in input) if (!known.has(key)) return undefined;
    const data: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const parsed = fields[i]!(input[key]);
      if (parsed === undefined) return undefined;
      if (parsed.data !== undefined || key in input) data[key] = parsed.data;
    }
    return parsedAs(data);
  };
}

/**
 * A refinement or a transform on a valid inner value, with a context whose issues make it fail
 * (zod's ZodEffects._parse, sync). A promise (an async effect) and a transform answering z.NEVER
 * go to safeParse, which words them as ever; so do preprocess effects.
 */
function compileEffects(schema: z.ZodEffects<z.ZodTypeAny>): Parser {
  const effect = schema._def.effect;
  const inner = fastParserOf(schema.innerType());
  const slow = bySafeParse(schema);
  if (effect.type === "preprocess") return slow;
  return (value) => {
    const parsed = inner(value);
    if (parsed === undefined) return undefined;
    const before = effectIssues.count;
    const result = effect.type === "refinement" ? effect.refinement(parsed.data, effectContext) : effect.transform(parsed.data, effectContext);
    if (result instanceof Promise || result === z.NEVER) return slow(value);
    if (effectIssues.count !== before) return undefined;
    return effect.type === "refinement" ? parsed : parsedAs(result);
  };
}

/**
 * The context every effect runs with: an issue only counts (the parse then fails and safeParse
 * words it). One object for all, not one per call: a count compared before and after stays right
 * even if an effect parses something itself.
 */
const effectIssues = { count: 0 };
const effectContext: z.RefinementCtx = {
  addIssue() {
    effectIssues.count++;
  },
  path: [],
};

/** `params[0].maxFeePerGas` from zod's path `[0, "maxFeePerGas"]`. */
export function fieldOf(path: (string | number)[]): string {
  return path.reduce<string>((field, key) => (typeof key === "number" ? `${field}[${key}]` : `${field}.${key}`), "params");
}
