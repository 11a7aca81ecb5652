/**
 * fast-check arbitraries for the property tests: JSON-RPC params that are almost right (odd hex,
 * huge numbers, missing and extra fields, wrong types, deep nesting, huge strings, object instead
 * of array), hostile in-process values (throwing getters, cycles, symbols), and raw transactions
 * (random bytes, valid signed txs with random fields, and mutations of them).
 */
import { RLP } from "@ethereumjs/rlp";
import { bigIntToBytes, bytesToHex, hexToBytes } from "@ethereumjs/util";
import fc from "fast-check";
import { privateKeyToAccount } from "viem/accounts";

import type { TransactionSerializable } from "viem";
import type { Hex } from "../../src/rpc/schema.ts";

const HEX_DIGITS = "0123456789abcdefABCDEF".split("");
export const hexDigits = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...HEX_DIGITS), minLength: min, maxLength: max });

/** Numbers at the edges of every width the node stores (uint8 … uint256) and of JS numbers. */
const EDGE_BIGINTS = [
  0n,
  1n,
  2n,
  255n,
  256n,
  21_000n,
  30_000_000n,
  30_000_001n,
  2n ** 31n - 1n,
  2n ** 32n,
  2n ** 53n - 1n,
  2n ** 53n,
  2n ** 53n + 1n,
  2n ** 63n,
  2n ** 64n - 2n,
  2n ** 64n - 1n,
  2n ** 64n,
  2n ** 128n,
  2n ** 255n,
  2n ** 256n - 1n,
  2n ** 256n,
];

/** A bigint biased to small values and the edges above. */
export const bigish = fc.oneof(
  { weight: 3, arbitrary: fc.bigInt(0n, 20n) },
  { weight: 3, arbitrary: fc.constantFrom(...EDGE_BIGINTS) },
  { weight: 1, arbitrary: fc.bigInt(0n, 2n ** 64n) },
  { weight: 1, arbitrary: fc.bigInt(0n, 2n ** 257n) },
);

export const quantityOf = (value: bigint): Hex => `0x${value.toString(16)}`;

/** Strings that look like quantities, data or tags but are subtly off (and some that are right). */
export const oddHex: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "",
    "0x",
    "0X1",
    "0x0",
    "0x00",
    "0x01",
    "0x1",
    "1",
    "0xg",
    "0x-1",
    "-0x1",
    " 0x1",
    "0x1 ",
    "0x1\n",
    "0x１",
    "0x0.5",
    "latest",
    "pending",
    "earliest",
    "safe",
    "finalized",
    "Latest",
    "PENDING",
    "null",
    "undefined",
    "true",
    "{}",
    "[]",
    `0x${"f".repeat(64)}`,
    `0x1${"0".repeat(64)}`,
    `0x${"0".repeat(40)}`,
    `0x${"0".repeat(39)}`,
    `0x${"0".repeat(41)}`,
    `0x${"0".repeat(64)}`,
    `0x${"FF".repeat(32)}`,
    `0x${"ab".repeat(20)}`,
    `0x${"AB".repeat(20)}`,
    "0xdeadbeef",
    "__proto__",
    "constructor",
    "toString",
    "\u0000",
    "\ud800",
  ),
  bigish.map(quantityOf),
  bigish.map((value) => `0x0${value.toString(16)}`),
  hexDigits(0, 80).map((digits) => `0x${digits}`),
  hexDigits(0, 80),
  fc.string({ maxLength: 20 }),
);

/** A long string: 64 KiB to 1 MiB of one character or of hex digits. */
export const hugeString = fc.oneof(
  fc.integer({ min: 65_536, max: 1_048_576 }).map((length) => "a".repeat(length)),
  fc.integer({ min: 65_536, max: 1_048_576 }).map((length) => `0x${"0".repeat(length)}`),
  fc.integer({ min: 65_536, max: 400_000 }).map((length) => `0x${"ab".repeat(length)}`),
);

/** Arrays nested 50 to 5,000 deep (a recursive validator would overflow its stack). */
export const deepNesting = fc.integer({ min: 50, max: 5_000 }).chain((depth) =>
  fc.constantFrom<"array" | "object">("array", "object").map((kind) => {
    let value: unknown = "0x1";
    for (let i = 0; i < depth; i++) value = kind === "array" ? [value] : { a: value };
    // fast-check would print it recursively (and overflow its stack).
    Object.defineProperty(value, fc.toStringMethod, { value: () => `<${kind} nested ${depth} deep>`, enumerable: false });
    return value;
  }),
);

const scalar: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, undefined, true, false, 0, -0, 1, -1, 1.5, NaN, Infinity, -Infinity, Number.MAX_SAFE_INTEGER + 2, 1e21, 1e308, 2 ** 31),
  fc.integer(),
  fc.double(),
  bigish,
  oddHex,
  fc.string({ unit: "binary", maxLength: 30 }),
);

/** Keys that make objects interesting to a validator. */
const key = fc.oneof(
  fc.constantFrom(
    "from",
    "to",
    "gas",
    "value",
    "data",
    "input",
    "chainId",
    "type",
    "options",
    "address",
    "__proto__",
    "constructor",
    "toString",
    "hasOwnProperty",
    "",
  ),
  fc.string({ maxLength: 8 }),
);

/** Any JSON-ish value (plus undefined, NaN, bigint), a few levels deep. */
export const junk: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    scalar,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(key, tie("value"), { maxKeys: 4 }),
  ),
})).value;

/** Values only an in-process caller can send: throwing getters and proxies, cycles, symbols, functions, typed arrays. */
export const hostile: fc.Arbitrary<unknown> = fc
  .constantFrom("throwingGetter", "throwingProxy", "cycle", "symbol", "function", "uint8array", "date", "map", "sparse", "frozen", "nullProto")
  .map((kind) => {
    const value = hostileValue(kind);
    // fast-check prints counterexamples by reading them: these say what they are instead.
    if ((typeof value === "object" && value !== null) || typeof value === "function") {
      if (kind !== "throwingProxy" && Object.isExtensible(value))
        Object.defineProperty(value, fc.toStringMethod, { value: () => `<${kind}>`, enumerable: false });
    }
    return value;
  });

export function hostileValue(kind: string): unknown {
  switch (kind) {
    case "throwingGetter":
      return Object.defineProperty({}, "chainId", {
        enumerable: true,
        get: () => {
          throw new Error("getter exploded");
        },
      });
    case "throwingProxy":
      return new Proxy([], {
        get: (_, property) => {
          // Readable enough for fast-check to print it; every field a validator reads throws.
          if (property === fc.toStringMethod || property === "toString") return () => "<throwingProxy>";
          if (typeof property === "symbol") return undefined;
          throw new Error("proxy get exploded");
        },
        has: (_, property) => property === fc.toStringMethod,
        ownKeys: () => {
          throw new Error("proxy ownKeys exploded");
        },
        getPrototypeOf: () => {
          throw new Error("proxy getPrototypeOf exploded");
        },
      });
    case "cycle": {
      const cycle: Record<string, unknown> = { chainId: "0x1", f: () => 1 };
      cycle.self = cycle;
      return cycle;
    }
    case "symbol":
      return Symbol("x");
    case "function":
      return () => "0x1";
    case "uint8array":
      return new Uint8Array([1, 2, 3]);
    case "date":
      return new Date(0);
    case "map":
      return new Map([["a", 1]]);
    case "sparse":
      // biome-ignore lint/suspicious/noSparseArray: the holes are the point of this case.
      return [, , "0x1"];
    case "frozen":
      return Object.freeze({ chainId: "0x1", [fc.toStringMethod]: () => "<frozen>" });
    default:
      return Object.assign(Object.create(null) as object, { chainId: "0x1" });
  }
}

/** A slot of a method's params: a generator of values that are usually valid and sometimes not. */
export type Slot = fc.Arbitrary<unknown>;

/**
 * Params for a method whose valid shape is `slots`: the right list, or one with a slot replaced
 * by junk, with items dropped or added, as an object instead of an array, or something else.
 */
export function paramsFor(slots: Slot[]): fc.Arbitrary<unknown> {
  const valid = slots.length === 0 ? fc.constant([] as unknown[]) : fc.tuple(...slots).map((items) => [...items] as unknown[]);
  return fc.oneof(
    { weight: 4, arbitrary: valid },
    {
      weight: 4,
      arbitrary: fc
        .tuple(
          valid,
          fc.nat(),
          fc.oneof(
            { weight: 4, arbitrary: junk },
            { weight: 1, arbitrary: hugeString },
            { weight: 1, arbitrary: deepNesting },
            { weight: 1, arbitrary: hostile },
          ),
        )
        .map(([items, at, value]) => {
          const copy = [...items];
          copy[items.length === 0 ? 0 : at % items.length] = value;
          return copy;
        }),
    },
    { weight: 1, arbitrary: fc.tuple(valid, fc.nat()).map(([items, cut]) => items.slice(0, items.length === 0 ? 0 : cut % items.length)) },
    { weight: 1, arbitrary: fc.tuple(valid, fc.array(junk, { minLength: 1, maxLength: 3 })).map(([items, extra]) => [...items, ...extra]) },
    { weight: 1, arbitrary: valid.map((items) => Object.fromEntries(items.map((item, i) => [String(i), item]))) },
    { weight: 1, arbitrary: valid.map((items) => items[0]) },
    { weight: 1, arbitrary: fc.oneof(junk, hostile, deepNesting) },
  );
}

/** An object with some of `fields` (each usually valid), sometimes with an unknown key or a junk value. */
export function objectOf(fields: Record<string, Slot>, required: string[] = []): fc.Arbitrary<Record<string, unknown>> {
  const keys = Object.keys(fields);
  return fc
    .tuple(
      fc.subarray(keys),
      fc.tuple(...keys.map((name) => fields[name]!)),
      fc.option(fc.tuple(key, junk), { freq: 5 }),
      fc.option(fc.tuple(fc.constantFrom(...keys), fc.oneof(junk, hostile)), { freq: 5 }),
    )
    .map(([present, values, extra, broken]) => {
      const out: Record<string, unknown> = {};
      keys.forEach((name, i) => {
        if (required.includes(name) || present.includes(name)) out[name] = values[i];
      });
      if (extra !== null) Object.defineProperty(out, extra[0], { value: extra[1], enumerable: true, configurable: true, writable: true });
      if (broken !== null) out[broken[0]] = broken[1];
      return out;
    });
}

// ── Raw transactions ──────────────────────────────────────────────────────────────────────────────

export interface TxFields {
  type: 0 | 1 | 2 | 4;
  chainId: bigint;
  nonce: bigint;
  gasLimit: bigint;
  tip: bigint;
  feeCap: bigint;
  value: bigint;
  data: Uint8Array;
  to: Hex | undefined;
  /** Index of a dev key, or -1 for a key that holds nothing. */
  signer: number;
  /** Legacy only: sign without EIP-155 replay protection. */
  unprotected: boolean;
}

const GWEI = 1_000_000_000n;

/** Fields of a tx a dev account could send, with each field sometimes wrong. `nonceBase` is the sender's next nonce. */
export function txFields(addresses: Hex[], chainId: bigint): fc.Arbitrary<TxFields> {
  return fc.record({
    type: fc.constantFrom<TxFields["type"]>(0, 1, 2, 2, 2, 4),
    chainId: fc.oneof({ weight: 8, arbitrary: fc.constant(chainId) }, { weight: 1, arbitrary: fc.constantFrom(1n, chainId + 1n, 0n) }),
    nonce: fc.oneof({ weight: 6, arbitrary: fc.bigInt(0n, 6n) }, { weight: 1, arbitrary: fc.constantFrom(2n ** 53n - 1n, 1_000n) }),
    gasLimit: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(21_000n, 21_000n, 60_000n, 200_000n) },
      { weight: 1, arbitrary: fc.constantFrom(0n, 20_999n, 30_000_000n, 30_000_001n, 2n ** 63n) },
    ),
    tip: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(GWEI, 2n * GWEI) }, { weight: 1, arbitrary: fc.constantFrom(0n, 1n, 100n * GWEI, 2n ** 100n) }),
    feeCap: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(10n * GWEI, 20n * GWEI) },
      { weight: 1, arbitrary: fc.constantFrom(0n, 1n, GWEI / 2n, 2n ** 100n, 2n ** 240n) },
    ),
    value: fc.oneof({ weight: 6, arbitrary: fc.bigInt(0n, 10n ** 18n) }, { weight: 1, arbitrary: fc.constantFrom(10n ** 22n, 10n ** 23n, 2n ** 255n) }),
    data: fc.oneof(
      { weight: 4, arbitrary: fc.constant(new Uint8Array()) },
      { weight: 3, arbitrary: fc.uint8Array({ maxLength: 64 }) },
      { weight: 1, arbitrary: fc.integer({ min: 49_000, max: 140_000 }).map((length) => new Uint8Array(length)) },
    ),
    to: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...addresses) },
      { weight: 1, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: hexDigits(40, 40).map((digits) => `0x${digits.toLowerCase()}` as Hex) },
    ),
    signer: fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: 3 }) }, { weight: 1, arbitrary: fc.constant(-1) }),
    unprotected: fc.oneof({ weight: 8, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  });
}

const NO_FUNDS_KEY = `0x${"42".repeat(32)}` as Hex;

/** The nonce a `fields.nonce` stands for: small values are offsets around the sender's next nonce (0 = one below). */
export function nonceOf(fields: TxFields, nonceBase: bigint): bigint {
  if (fields.nonce > 6n) return fields.nonce;
  const nonce = nonceBase + fields.nonce - 1n;
  return nonce < 0n ? 0n : nonce;
}

/**
 * Signs the fields with viem, as a wallet library would (any chain id, EIP-155 or not).
 * Combinations viem refuses to sign (tip above fee cap, fees above 2^256) are RLP-encoded by hand
 * with a made-up signature, as a hostile client would send them.
 */
export async function signFields(fields: TxFields, keys: Hex[], nonceBase: bigint): Promise<Uint8Array> {
  const account = privateKeyToAccount(fields.signer < 0 ? NO_FUNDS_KEY : keys[fields.signer]!);
  const nonce = nonceOf(fields, nonceBase);
  const base = { nonce: Number(nonce), gas: fields.gasLimit, value: fields.value, data: toHex(fields.data), to: fields.to };
  const chainId = Number(fields.chainId);
  try {
    let tx: TransactionSerializable;
    if (fields.type === 0) tx = { ...base, type: "legacy", gasPrice: fields.feeCap, ...(!fields.unprotected && { chainId }) };
    else if (fields.type === 1) tx = { ...base, type: "eip2930", gasPrice: fields.feeCap, accessList: [], chainId };
    else if (fields.type === 2) tx = { ...base, type: "eip1559", maxPriorityFeePerGas: fields.tip, maxFeePerGas: fields.feeCap, chainId };
    else {
      const address = fields.to ?? (`0x${"11".repeat(20)}` as Hex);
      tx = {
        ...base,
        to: address,
        type: "eip7702",
        maxPriorityFeePerGas: fields.tip,
        maxFeePerGas: fields.feeCap,
        chainId,
        authorizationList: [{ address, chainId: 0, nonce: 0, r: `0x${"01".repeat(32)}`, s: `0x${"01".repeat(32)}`, yParity: 0 }],
      };
    }
    return hexToBytes(await account.signTransaction(tx));
  } catch {
    const list = [
      bigIntToBytes(fields.chainId),
      bigIntToBytes(nonce),
      bigIntToBytes(fields.tip),
      bigIntToBytes(fields.feeCap),
      bigIntToBytes(fields.gasLimit),
      fields.to === undefined ? new Uint8Array() : hexToBytes(fields.to),
      bigIntToBytes(fields.value),
      fields.data,
      [],
      new Uint8Array([1]),
      new Uint8Array([7]),
      new Uint8Array([9]),
    ];
    return new Uint8Array([2, ...RLP.encode(list)]);
  }
}

export type Mutation =
  | { kind: "flip"; at: number; mask: number }
  | { kind: "truncate"; at: number }
  | { kind: "append"; bytes: Uint8Array }
  | { kind: "insert"; at: number; byte: number }
  | { kind: "retype"; type: number }
  | { kind: "duplicate" };

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("flip" as const), at: fc.nat(), mask: fc.integer({ min: 1, max: 255 }) }),
  fc.record({ kind: fc.constant("truncate" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("append" as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 8 }) }),
  fc.record({ kind: fc.constant("insert" as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant("retype" as const), type: fc.constantFrom(0, 1, 2, 3, 4, 5, 0x7f, 0xc0, 0xf8, 0xff) }),
  fc.constant({ kind: "duplicate" as const }),
);

export function mutate(raw: Uint8Array, change: Mutation): Uint8Array {
  const bytes = [...raw];
  switch (change.kind) {
    case "flip":
      if (bytes.length > 0) bytes[change.at % bytes.length]! ^= change.mask;
      break;
    case "truncate":
      bytes.length = bytes.length === 0 ? 0 : change.at % bytes.length;
      break;
    case "append":
      bytes.push(...change.bytes);
      break;
    case "insert":
      bytes.splice(bytes.length === 0 ? 0 : change.at % bytes.length, 0, change.byte);
      break;
    case "retype":
      if (bytes.length > 0) bytes[0] = change.type;
      break;
    case "duplicate":
      break;
  }
  return new Uint8Array(bytes);
}

/** Random bytes that start like a tx: a type byte (0–4, 0x7f) or an RLP list prefix. */
export const randomTxBytes = fc.oneof(
  fc.uint8Array({ maxLength: 300 }),
  fc
    .tuple(fc.constantFrom(0, 1, 2, 3, 4, 0x7f, 0xc0, 0xc1, 0xf7, 0xf8, 0xf9, 0xff), fc.uint8Array({ maxLength: 300 }))
    .map(([first, rest]) => new Uint8Array([first, ...rest])),
  fc.array(fc.oneof(fc.uint8Array({ maxLength: 40 }), fc.array(fc.uint8Array({ maxLength: 8 }), { maxLength: 3 })), { maxLength: 14 }).chain((list) =>
    fc.constantFrom(0, 1, 2, 4, -1).map((type) => {
      const body = RLP.encode(list as never);
      return type < 0 ? body : new Uint8Array([type, ...body]);
    }),
  ),
);

export const toHex = (bytes: Uint8Array): Hex => bytesToHex(bytes) as Hex;
