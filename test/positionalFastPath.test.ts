/**
 * dispatch's fast path for valid params (src/protocol/params.ts, parseValid: positional schemas and the fork wrapper around them): for
 * valid params it gives exactly what the schema's safeParse gives, and for anything else it steps
 * aside (undefined) so that safeParse words the error as ever. Also: `preconf node`'s log output
 * is written once per event-loop turn, in order (src/cli/coalescedOutput.ts).
 */
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { expect } from "chai";
import fc from "fast-check";

import { coalescedOutput } from "../src/cli/coalescedOutput.ts";
import { methods } from "../src/rpc/methods.ts";
import { fastParserOf } from "../src/protocol/params.ts";
import { parseValid } from "../src/rpc/params.ts";
import { address, blockSelector, bytes, callRequest, hash, quantity, smallQuantity, storageSlot, uint64 } from "../src/rpc/schema.ts";
import { stateOverrides } from "../src/node/state/stateOverrides.ts";
import { positional } from "../src/rpc/table.ts";
import { bytesOfCheckedHex, flatHex, unprefixedHex } from "../src/node/common/hex.ts";
import { seededDraws } from "./helpers/seeded.ts";

const TOKEN = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const CALL = { to: TOKEN, data: "0x70a08231000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266" };

describe("positional params fast path", () => {
  const schema = positional(callRequest, blockSelector.optional());

  it("answers valid params exactly as safeParse does, missing trailing items included", () => {
    for (const params of [[CALL, "latest"], [CALL], [CALL, "0x10"], [{ ...CALL, from: TOKEN, gas: "0x5208" }, { blockNumber: "0x1" }]]) {
      const slow = schema.safeParse(params);
      expect(slow.success, JSON.stringify(params)).to.equal(true);
      expect(parseValid(schema, params), JSON.stringify(params)).to.deep.equal({ success: true, data: slow.success ? slow.data : undefined });
    }
    expect(parseValid(positional(), undefined)).to.deep.equal({ success: true, data: [] });
    expect(parseValid(positional(), [])).to.deep.equal({ success: true, data: [] });
  });

  it("steps aside for anything invalid, and for schemas that are not positional", () => {
    for (const params of [
      {},
      "x",
      [CALL, "latest", undefined, 1],
      [{ ...CALL, to: "0x12" }],
      [CALL, "soon"],
      [{ ...CALL, gasPrice: "0x1", maxFeePerGas: "0x1" }],
    ]) {
      expect(parseValid(schema, params), JSON.stringify(params)).to.equal(undefined);
      expect(schema.safeParse(params).success, JSON.stringify(params)).to.equal(false);
    }
    expect(
      parseValid(
        positional().superRefine(() => undefined),
        [],
      ),
    ).to.equal(undefined);
    expect(parseValid(callRequest, CALL)).to.equal(undefined);
  });

  it("covers the hot methods of the table", () => {
    for (const name of ["eth_blockNumber", "eth_call", "eth_estimateGas", "eth_sendRawTransaction", "eth_getTransactionReceipt", "eth_getBalance"]) {
      const spec = methods[name]!;
      const params = {
        eth_blockNumber: [],
        eth_call: [CALL, "latest"],
        eth_estimateGas: [CALL],
        eth_sendRawTransaction: ["0x02"],
        eth_getTransactionReceipt: [`0x${"ab".repeat(32)}`],
        eth_getBalance: [TOKEN, "latest"],
      }[name];
      const slow = spec.params.safeParse(params);
      expect(parseValid(spec.params, params), name).to.deep.equal({ success: true, data: slow.success ? slow.data : "(invalid)" });
    }
  });
});

/** Random params: mostly near-valid call objects, block selectors and hex values, with every kind of flaw. */
function generator(seed: number) {
  const { next, pick, hex } = seededDraws(seed);
  const atom = (): unknown =>
    pick([
      () => `0x${hex(Math.floor(next() * 6))}`,
      () => `0x${pick(["", "0", "00", "1", "01", "a", "F"])}${hex(Math.floor(next() * 4))}`,
      () => `0x${hex(40)}`,
      () => `0x${hex(64)}`,
      () => `0x${pick(["1", "f"])}${hex(pick([63, 64, 65]))}`,
      () => `0x${hex(pick([16, 17]))}`,
      () => `0X${hex(2)}`,
      () => hex(4),
      () => pick(["latest", "pending", "earliest", "safe", "finalized", "soon", "Latest", ""]),
      () => pick([0, 1, 5, -1, 1.5, 2 ** 53, Number.NaN]),
      () => pick([true, false, null, undefined]),
      () => [],
      () => ({}),
      () => new Date(0),
      () => Object.create(null) as object,
    ])();
  const value = (depth = 0): unknown => (depth < 2 && next() < 0.25 ? pick([callObject, selectorObject])(depth + 1) : atom());
  const FIELDS = ["from", "to", "gas", "gasPrice", "maxFeePerGas", "maxPriorityFeePerGas", "value", "data", "input", "nonce", "type", "chainId"];
  const callObject = (depth = 0): Record<string, unknown> => {
    const object: Record<string, unknown> = {};
    for (const field of FIELDS) if (next() < 0.3) object[field] = next() < 0.7 ? pick([`0x${hex(40)}`, "0x5208", "0x0", "0x", "0xa9059cbb"]) : value(depth);
    if (next() < 0.1) object.accessList = pick([[], [{ address: `0x${hex(40)}`, storageKeys: [`0x${hex(64)}`] }], [{}], "x"]);
    if (next() < 0.1) object.extra = value(depth);
    if (next() < 0.05) Object.setPrototypeOf(object, { to: "0x00" });
    // zod calls an object with `then` and `catch` methods a promise, and refuses it.
    // biome-ignore lint/suspicious/noThenProperty: a thenable is the case under test.
    if (next() < 0.03) Object.assign(object, { then: () => undefined, catch: () => undefined });
    return object;
  };
  const selectorObject = (depth = 0): unknown =>
    pick([
      () => ({ blockNumber: pick([atom(), "0x1", "latest", 3]) }),
      () => ({ blockHash: pick([atom(), `0x${hex(64)}`]), ...(next() < 0.5 ? { requireCanonical: pick([true, "yes", undefined]) } : {}) }),
      () => ({ blockNumber: "0x1", blockHash: `0x${hex(64)}` }),
      () => ({ blockNumber: value(depth) }),
    ])();
  return { next, pick, atom, value, callObject, selectorObject };
}

describe("the items' fast path agrees with zod", () => {
  const { next, pick, atom, value, callObject, selectorObject } = generator(0x5eed);
  const agree = (schema: Parameters<typeof fastParserOf>[0], input: unknown, label: string) => {
    const slow = schema.safeParse(input);
    const fast = fastParserOf(schema)(input);
    const shown = () => `${label}: ${JSON.stringify(input, (_, v) => (v === undefined ? "(undefined)" : v))}`;
    if (slow.success) expect(fast, shown()).to.deep.equal({ success: true, data: slow.data });
    else expect(fast, shown()).to.equal(undefined);
  };

  it("on values, call objects and block selectors: the same accept or reject, and the same parsed value", () => {
    const schemas = { quantity, uint64, bytes, address, hash, smallQuantity, storageSlot, blockSelector, callRequest, stateOverrides };
    for (let i = 0; i < 4000; i++) {
      for (const [name, schema] of Object.entries(schemas)) agree(schema, pick([atom, value, callObject, selectorObject])(), name);
      agree(callRequest, callObject(), "callRequest");
      agree(blockSelector, selectorObject(), "blockSelector");
    }
  });

  it("on the positional params of every method in the table", () => {
    const accepted = new Set<string>();
    for (let i = 0; i < 300; i++) {
      for (const [name, spec] of Object.entries(methods)) {
        const length = Math.floor(next() * 4);
        const params = next() < 0.05 ? atom() : Array.from({ length }, () => pick([atom, value, callObject, selectorObject])());
        const slow = spec.params.safeParse(params);
        const fast = parseValid(spec.params, params);
        if (slow.success) {
          accepted.add(name);
          // A method without a fast path at all steps aside; one with it answers as safeParse.
          if (fast !== undefined) expect(fast, name).to.deep.equal({ success: true, data: slow.data });
        } else expect(fast, `${name} ${JSON.stringify(params)}`).to.equal(undefined);
      }
    }
    for (const name of ["eth_call", "eth_estimateGas", "eth_getBalance", "eth_sendRawTransaction"]) expect(accepted, name).to.include(name);
  });
});

describe("coalesced log output", () => {
  it("writes a turn's text once, in order, after the turn; flush writes what waits at once", async () => {
    const writes: string[] = [];
    const out = coalescedOutput({ write: (text) => writes.push(text) });
    out.write("a\n");
    out.write("b\n");
    expect(writes).to.deep.equal([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).to.deep.equal(["a\nb\n"]);
    out.write("c\n");
    out.flush();
    expect(writes).to.deep.equal(["a\nb\n", "c\n"]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).to.have.length(2);
  });

  it("a stream that throws breaks nothing", async () => {
    const out = coalescedOutput({
      write: () => {
        throw new Error("stdout closed");
      },
    });
    out.write("a\n");
    await new Promise((resolve) => setImmediate(resolve));
    out.write("b\n");
    expect(() => out.flush()).to.not.throw();
  });
});

describe("hex data decoded (bytesOfCheckedHex, the bytes parser's decoder)", () => {
  it("gives @ethereumjs/util's hexToBytes bytes for every size and letter case, in an array of its own", () => {
    const sizes = fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 240, max: 270 }), fc.integer({ min: 1000, max: 6000 }));
    fc.assert(
      fc.property(
        sizes.chain((size) =>
          fc.tuple(fc.uint8Array({ minLength: size, maxLength: size }), fc.array(fc.boolean(), { minLength: size * 2, maxLength: size * 2 })),
        ),
        ([data, upper]) => {
          const digits = [...Buffer.from(data).toString("hex")].map((digit, index) => (upper[index] ? digit.toUpperCase() : digit)).join("");
          const hex = `0x${digits}`;
          const decoded = bytesOfCheckedHex(hex);
          expect(decoded).to.deep.equal(hexToBytes(hex as `0x${string}`));
          // A plain array over a buffer of its own: not a Buffer, not a view into Buffer's shared pool.
          expect(decoded.constructor).to.equal(Uint8Array);
          expect(decoded.byteOffset).to.equal(0);
          expect(decoded.buffer.byteLength).to.equal(data.length);
          expect(bytes.safeParse(hex)).to.deep.equal({ success: true, data: decoded });
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("hex encoded (flatHex, unprefixedHex: keys and answers)", () => {
  it("gives @ethereumjs/util's bytesToHex digits for every size, views into larger buffers included, each call its own string", () => {
    // Both sides of the scratch buffer's 128 bytes, and views at an offset (a subarray; a Buffer from the shared pool, below).
    const sizes = fc.oneof(fc.integer({ min: 0, max: 160 }), fc.integer({ min: 120, max: 136 }), fc.integer({ min: 1000, max: 3000 }));
    fc.assert(
      fc.property(
        sizes.chain((size) => fc.tuple(fc.uint8Array({ minLength: size + 7, maxLength: size + 7 }), fc.integer({ min: 0, max: 7 }))),
        ([backing, offset]) => {
          const bytes = backing.subarray(offset, backing.length - 7 + offset);
          const expected = bytesToHex(bytes);
          const prefixed = flatHex(bytes);
          const bare = unprefixedHex(bytes);
          expect(prefixed).to.equal(expected);
          expect(bare).to.equal(expected.slice(2));
          // The next call reuses the scratch buffer: what an earlier call answered does not change.
          flatHex(Uint8Array.of(0xff, 0xee));
          expect(prefixed).to.equal(expected);
          expect(bare).to.equal(expected.slice(2));
          // A Buffer (small ones are views into Node's shared pool) and a DataView over the same bytes.
          expect(flatHex(Buffer.from(bytes))).to.equal(expected);
          expect(unprefixedHex(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength) as unknown as Uint8Array)).to.equal(expected.slice(2));
        },
      ),
      { numRuns: 300 },
    );
  });
});
