/** Runs a scenario fixture against a fresh provider on a fake clock and reports every step. */
import { readFile } from "node:fs/promises";

import { compare } from "./compare.ts";
import { formatDiff, renderValue } from "./diff.ts";
import { Scope } from "./references.ts";
import { parseScenario, ScenarioFixtureError } from "./schema.ts";
import { startScenario } from "./start.ts";
import { describeStep, executeStep } from "./steps.ts";

import type { Mismatch } from "./compare.ts";
import type { Expectation, ScenarioFixture, Step } from "./schema.ts";

export interface ScenarioStepResult {
  /** Position in the fixture's `steps` (0-based, as in `steps[3]`). */
  index: number;
  description: string;
  passed: boolean;
  /** Expected vs actual at the paths that differ, or the error that stopped the step. */
  diff?: string;
  mismatches?: Mismatch[];
}

export interface ScenarioResult {
  name: string;
  /** The file, when run from one. */
  source: string | undefined;
  passed: boolean;
  steps: ScenarioStepResult[];
  /** Every value captured with `"as"`, by name (hashes, receipts, sealed blocks...). */
  captures: Record<string, unknown>;
}

type Outcome = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

/** JSON as it would cross the wire: bigints as hex, undefined fields dropped. */
function wire(value: unknown): unknown {
  if (value === undefined) return undefined;
  return JSON.parse(JSON.stringify(value, (_, item: unknown) => (typeof item === "bigint" ? `0x${item.toString(16)}` : item)));
}

function rpcErrorOf(error: unknown): { code: number; message: string; data?: unknown } | undefined {
  if (typeof error !== "object" || error === null || !("code" in error) || typeof error.code !== "number" || !Number.isInteger(error.code)) return undefined;
  const { code, message, data } = error as { code: number; message: string; data?: unknown };
  return data === undefined ? { code, message } : { code, message, data: wire(data) };
}

/** The paths where the outcome differs from what the step expects (success when nothing is said). */
function check(expectation: Expectation | undefined, outcome: Outcome): Mismatch[] {
  if ("error" in outcome) {
    if (expectation?.error === undefined) {
      const expected = expectation === undefined ? "success" : "result" in expectation ? expectation.result : expectation.match;
      return [{ path: "result", expected, actual: undefined, note: `failed with ${renderValue(outcome.error)}` }];
    }
    const { code, message, data } = expectation.error;
    const actual = { code: outcome.error.code, message: outcome.error.message, ...("data" in expectation.error && { data: outcome.error.data }) };
    return compare({ code, message, ...("data" in expectation.error && { data }) }, actual, "exact", "error");
  }
  if (expectation === undefined) return [];
  if (expectation.error !== undefined)
    return [{ path: "error", expected: expectation.error, actual: undefined, note: `succeeded with ${renderValue(outcome.result)}` }];
  if ("match" in expectation) return compare(expectation.match, outcome.result, "partial", "result");
  return compare(expectation.result, outcome.result, "exact", "result");
}

async function runStep(step: Step, index: number, scope: Scope, execute: (step: Step) => Promise<unknown>): Promise<ScenarioStepResult> {
  const description = describeStep(step);
  let outcome: Outcome;
  try {
    outcome = { result: wire(await execute(step)) };
  } catch (error) {
    const rpcError = rpcErrorOf(error);
    // Not an RPC answer: the fixture itself is wrong here (a bad reference, a missing account...).
    if (rpcError === undefined) return { index, description, passed: false, diff: `error: ${(error as Error).message ?? String(error)}` };
    outcome = { error: rpcError };
  }
  if ("as" in step && step.as !== undefined) scope.set(step.as, "result" in outcome ? outcome.result : outcome.error);

  let mismatches: Mismatch[];
  try {
    // Expectations may reference earlier results too ("$block1.hash").
    const expectation = "expect" in step && step.expect !== undefined ? (scope.resolve(step.expect) as Expectation) : undefined;
    mismatches = check(expectation, outcome);
  } catch (error) {
    return { index, description, passed: false, diff: `error: ${(error as Error).message}` };
  }
  return mismatches.length === 0 ? { index, description, passed: true } : { index, description, passed: false, diff: formatDiff(mismatches), mismatches };
}

/** Reads and validates a fixture file; JSON and schema errors name the file and the path. */
export async function loadScenario(path: string): Promise<ScenarioFixture> {
  const text = await readFile(path, "utf8");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ScenarioFixtureError(path, "(root)", `not valid JSON: ${(error as Error).message}`);
  }
  return parseScenario(json, path);
}

/**
 * Runs a scenario fixture (a path to a JSON file, or the parsed object) on a fresh provider with a
 * fake clock. Every step runs, even after a failure; a malformed fixture throws
 * `ScenarioFixtureError` naming the path (`steps[2].send.value`).
 *
 * @example
 * ```ts
 * import { runScenario } from "hardhat-preconf";
 *
 * const { passed, steps } = await runScenario("fixtures/scenarios/preconfirm-then-seal.json");
 * for (const step of steps) if (!step.passed) console.log(step.description, step.diff);
 * ```
 */
export async function runScenario(fixtureOrPath: string | object): Promise<ScenarioResult> {
  const source = typeof fixtureOrPath === "string" ? fixtureOrPath : undefined;
  const fixture = source === undefined ? parseScenario(fixtureOrPath) : await loadScenario(source);
  const { provider, clock } = await startScenario(fixture.start, fixture.wallet, source ?? "(inline)");
  const scope = new Scope(provider.accounts.map((account) => account.address));
  const ctx = { provider, scope, tickAsync: (ms: number) => clock.tickAsync(ms) };
  const steps: ScenarioStepResult[] = [];
  try {
    for (const [index, step] of fixture.steps.entries()) steps.push(await runStep(step, index, scope, (current) => executeStep(current, ctx)));
  } finally {
    await provider.close();
  }
  return { name: fixture.name, source, passed: steps.every((step) => step.passed), steps, captures: scope.captures() };
}
