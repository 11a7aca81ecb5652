/** A few readable lines per differing path, never a dump of the whole value. */
import { ANY } from "./references.ts";

import type { Mismatch } from "./compare.ts";

const MAX_MISMATCHES = 5;
const MAX_VALUE_CHARS = 160;

/** Compact JSON; long values are cut with a note of their size. */
export function renderValue(value: unknown): string {
  if (value === undefined) return "(missing)";
  if (value === ANY) return "(any value)";
  const text = JSON.stringify(value, (_, item: unknown) => (typeof item === "bigint" ? `0x${item.toString(16)}` : item)) ?? String(value);
  return text.length <= MAX_VALUE_CHARS ? text : `${text.slice(0, MAX_VALUE_CHARS)}… (${text.length} chars)`;
}

export function formatDiff(mismatches: readonly Mismatch[]): string {
  const lines: string[] = [];
  for (const mismatch of mismatches.slice(0, MAX_MISMATCHES)) {
    lines.push(`at ${mismatch.path}${mismatch.note === undefined ? "" : ` (${mismatch.note})`}`);
    lines.push(`  expected: ${renderValue(mismatch.expected)}`);
    lines.push(`  actual:   ${renderValue(mismatch.actual)}`);
  }
  if (mismatches.length > MAX_MISMATCHES) lines.push(`… and ${mismatches.length - MAX_MISMATCHES} more`);
  return lines.join("\n");
}
