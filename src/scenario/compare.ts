/**
 * Expected vs actual, as a list of the JSON paths that differ. `exact` is deep equality; `partial`
 * only checks the keys the fixture names (arrays keep their length). Both compare 0x strings
 * case-insensitively, and a hex quantity against a number, decimal or "1 ether" by value.
 */
import { isAmountString, parseAmount } from "./amounts.ts";
import { ANY } from "./references.ts";
import { HEX_DIGITS_PATTERN } from "../node/common/hex.ts";

export interface Mismatch {
  /** `result.logs[0].address` */
  path: string;
  expected: unknown;
  actual: unknown;
  /** Why they differ when the values alone do not say (lengths, numeric comparison). */
  note?: string;
}

export type CompareMode = "exact" | "partial";

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** A fixture may write a quantity as a number, a decimal or an amount with a unit. */
function numericExpectation(expected: unknown): bigint | undefined {
  if (typeof expected === "number" && Number.isSafeInteger(expected) && expected >= 0) return BigInt(expected);
  if (typeof expected === "string" && !expected.startsWith("0x") && isAmountString(expected)) return parseAmount(expected);
  return undefined;
}

export function compare(expected: unknown, actual: unknown, mode: CompareMode, path: string): Mismatch[] {
  if (expected === ANY) return actual === undefined ? [{ path, expected, actual }] : [];

  if (typeof actual === "string" && HEX_DIGITS_PATTERN.test(actual)) {
    const value = numericExpectation(expected);
    if (value !== undefined) return value === BigInt(actual) ? [] : [{ path, expected, actual, note: `actual = ${BigInt(actual)}, expected ${value}` }];
  }
  if (typeof expected === "string" && typeof actual === "string" && expected.startsWith("0x") && actual.startsWith("0x")) {
    return expected.toLowerCase() === actual.toLowerCase() ? [] : [{ path, expected, actual }];
  }

  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [{ path, expected, actual }];
    if (expected.length !== actual.length) return [{ path, expected, actual, note: `${actual.length} items, expected ${expected.length}` }];
    return expected.flatMap((item, index) => compare(item, actual[index], mode, `${path}[${index}]`));
  }

  if (isObject(expected)) {
    if (!isObject(actual)) return [{ path, expected, actual }];
    const mismatches = Object.keys(expected).flatMap((key) => compare(expected[key], actual[key], mode, `${path}.${key}`));
    if (mode === "exact") {
      for (const key of Object.keys(actual)) {
        if (!(key in expected) && actual[key] !== undefined)
          mismatches.push({ path: `${path}.${key}`, expected: undefined, actual: actual[key], note: "not expected" });
      }
    }
    return mismatches;
  }

  return Object.is(expected, actual) ? [] : [{ path, expected, actual }];
}
