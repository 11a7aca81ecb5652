/**
 * Amounts in fixtures: a JSON number, a decimal or 0x-hex string, or a decimal with a unit
 * ("1.5 ether", "2 gwei", "7 wei"), so balances and fees read as people write them.
 */
import { viem } from "../lazyViem.ts";
import { HEX_DIGITS_PATTERN } from "../node/common/hex.ts";

const UNITS = { wei: 0, gwei: 9, ether: 18 } as const;
const WITH_UNIT = /^(\d+(?:\.\d+)?)\s+(wei|gwei|ether)$/;

/** True for the strings `parseAmount` accepts. */
export function isAmountString(text: string): boolean {
  return /^\d+$/.test(text) || HEX_DIGITS_PATTERN.test(text) || WITH_UNIT.test(text);
}

/** The amount as a bigint; throws with the offending text when it is none of the accepted forms. */
export function parseAmount(value: unknown): bigint {
  if (typeof value === "bigint") return value;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === "string") {
    if (/^\d+$/.test(value) || HEX_DIGITS_PATTERN.test(value)) return BigInt(value);
    const match = WITH_UNIT.exec(value);
    const decimals = match === null ? undefined : UNITS[match[2] as keyof typeof UNITS];
    // parseUnits would round "1.5 wei"; a fixture must say exactly what it means.
    if (match !== null && decimals !== undefined && (match[1]!.split(".")[1] ?? "").length <= decimals) return viem().parseUnits(match[1]!, decimals);
  }
  throw new Error(`invalid amount ${JSON.stringify(value)}: use a non-negative integer, a 0x-hex or decimal string, or "<n> ether|gwei|wei"`);
}
