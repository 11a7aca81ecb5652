/**
 * The wallet's copies of params and answers (src/wallet/requestLog.ts `deepClone`): plain data is
 * copied in JS, anything else by structuredClone, and both give structuredClone's copy.
 */
import { expect } from "chai";

import { deepClone } from "../src/wallet/requestLog.ts";

/** The copy is structuredClone's: equal, never the same object, and sharing nothing with the original. */
function expectStructuredCopy(value: unknown, label: string): void {
  const copy = deepClone(value);
  expect(copy, label).to.deep.equal(structuredClone(value));
  if (typeof value === "object" && value !== null) expect(copy, label).to.not.equal(value);
}

describe("wallet request log copies (deepClone)", () => {
  it("plain data: the same copy as structuredClone's, key order, -0 and bigints kept", () => {
    const values: [string, unknown][] = [
      ["a string", "0xabc"],
      ["a number", 1.5],
      ["minus zero", -0],
      ["a bigint", 10n ** 30n],
      ["undefined", undefined],
      ["null", null],
      [
        "a tx's params",
        [{ from: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", to: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8", value: "0x1", gas: undefined }],
      ],
      ["integer-like keys first", { b: 1, 2: "two", a: [1, { c: null }], 1: "one" }],
      ["empty containers", [[], {}, [[]]]],
      ["nested 63 deep", JSON.parse(`${"[".repeat(63)}1${"]".repeat(63)}`)],
    ];
    for (const [label, value] of values) expectStructuredCopy(value, label);
    // -0 stays -0 (deep.equal tells it from 0).
    expect(Object.is(deepClone(-0), -0)).to.equal(true);
    expect(Object.keys(deepClone({ b: 1, 2: "two", a: 3 }) as object)).to.deep.equal(["2", "b", "a"]);
  });

  it("anything else as structuredClone copies it: shared objects stay shared, holes stay holes, classes become what it makes of them", () => {
    const shared = { x: 1 };
    const twice = deepClone({ left: shared, right: shared }) as { left: object; right: object };
    expect(twice.left).to.equal(twice.right);
    expect(twice.left).to.not.equal(shared);
    const cycle: Record<string, unknown> = { name: "cycle" };
    cycle.self = cycle;
    const copied = deepClone(cycle) as Record<string, unknown>;
    expect(copied.self).to.equal(copied);
    // biome-ignore lint/suspicious/noSparseArray: a hole is the point
    const holes = deepClone([1, , 3]) as unknown[];
    expect(1 in holes).to.equal(false);
    expect(holes).to.have.length(3);
    const withKey = Object.assign([1, 2], { extra: "kept" });
    expect((deepClone(withKey) as unknown as { extra: string }).extra).to.equal("kept");
    const date = new Date(0);
    expect(deepClone({ date })).to.deep.equal({ date });
    expect((deepClone({ date }) as { date: unknown }).date).to.be.instanceOf(Date);
    expect(deepClone(new Map([[1, 2]]))).to.be.instanceOf(Map);
    const bare = Object.assign(Object.create(null), { a: 1 }) as object;
    expect(Object.getPrototypeOf(deepClone(bare))).to.equal(Object.prototype);
    expect(deepClone(new Uint8Array([1, 2]))).to.deep.equal(new Uint8Array([1, 2]));
  });

  it("values structuredClone refuses or the log does not keep: as before (JSON's copy, a note)", () => {
    expect(deepClone({ f: () => 1, a: 1 })).to.deep.equal({ a: 1 });
    expect(deepClone(() => 1)).to.equal(undefined);
    expect(deepClone(Symbol("s"))).to.equal(undefined);
    expect(deepClone({ big: 1n, f: () => 1 })).to.deep.equal({ big: "1" });
    expect(deepClone(JSON.parse(`${"[".repeat(70)}1${"]".repeat(70)}`))).to.equal("[nested deeper than 64 levels]");
  });

  it('a JSON "__proto__" key stays an own key (as structuredClone keeps it), never the copy\'s prototype', () => {
    const value = JSON.parse('{"a":1,"__proto__":{"polluted":true}}') as Record<string, unknown>;
    const copy = deepClone(value) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).to.equal(Object.prototype);
    expect(Object.keys(copy)).to.deep.equal(["a", "__proto__"]);
    expect(JSON.stringify(copy)).to.equal(JSON.stringify(structuredClone(value)));
    expect(copy.polluted).to.equal(undefined);
  });
});
