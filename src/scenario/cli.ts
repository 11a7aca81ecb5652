/**
 * `preconf run-fixture FILE...`: runs scenario fixtures (a directory runs its *.json files),
 * prints pass/fail per step and a diff under each failure; exit code 0 when every one passes.
 * State dumps (`start.state: "state.json"` lives beside its fixture) are not fixtures: skipped.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";

import { STATE_DUMP_FORMAT } from "../node/state/stateDump.ts";
import { runScenario } from "./run.ts";
import { ScenarioFixtureError } from "./schema.ts";

export interface CommandOutput {
  stdout(text: string): void;
  stderr(text: string): void;
}

const processOutput: CommandOutput = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/** A `preconf_dumpState` file; anything unreadable or not JSON is left for the runner to report. */
async function isStateDump(file: string): Promise<boolean> {
  try {
    const content: unknown = JSON.parse(await readFile(file, "utf8"));
    return typeof content === "object" && content !== null && (content as { format?: unknown }).format === STATE_DUMP_FORMAT;
  } catch {
    return false;
  }
}

/** The fixtures to run, and the state dumps skipped among the files given or found. */
async function expand(paths: string[]): Promise<{ files: string[]; dumps: string[] }> {
  const candidates: string[] = [];
  for (const path of paths) {
    const isDirectory = await stat(path).then(
      (info) => info.isDirectory(),
      () => false,
    );
    if (!isDirectory) candidates.push(path);
    else
      candidates.push(
        ...(await readdir(path))
          .filter((name) => name.endsWith(".json"))
          .sort()
          .map((name) => join(path, name)),
      );
  }
  const files: string[] = [];
  const dumps: string[] = [];
  for (const file of candidates) ((await isStateDump(file)) ? dumps : files).push(file);
  return { files, dumps };
}

const indent = (text: string, prefix: string) =>
  text
    .split("\n")
    .map((line) => `${prefix}${line}`)
    .join("\n");

export const RUN_FIXTURE_USAGE = `Usage: preconf run-fixture FILE|DIR...

Runs scenario fixtures (docs/fixtures.md) and prints pass or fail per step, with a diff under each
failure. A directory runs every *.json in it; state dumps among them are skipped. Exit code 0 when
every fixture passes, 1 when one fails, 2 when no fixture is named.
`;

export async function runFixtureCommand(paths: string[], output: CommandOutput = processOutput): Promise<number> {
  if (paths.length === 0) {
    output.stderr("preconf: run-fixture needs a fixture file or directory: preconf run-fixture FILE|DIR... (`preconf run-fixture --help`)\n");
    return 2;
  }
  const { files, dumps } = await expand(paths);
  for (const dump of dumps) output.stdout(`SKIP ${dump} — a state dump (format "${STATE_DUMP_FORMAT}"), not a fixture\n`);
  if (files.length === 0) {
    output.stderr(`No *.json fixtures in ${paths.join(", ")}\n`);
    return 1;
  }
  let failed = 0;
  for (const file of files) {
    try {
      const result = await runScenario(file);
      output.stdout(`${result.passed ? "PASS" : "FAIL"} ${file} — ${result.name}\n`);
      for (const step of result.steps) {
        output.stdout(`  ${step.passed ? "✓" : "✗"} [${step.index}] ${step.description}\n`);
        if (step.diff !== undefined) output.stdout(`${indent(step.diff, "      ")}\n`);
      }
      if (!result.passed) failed++;
    } catch (error) {
      failed++;
      const reason = error instanceof ScenarioFixtureError ? error.message : `${file}: ${(error as Error).message ?? String(error)}`;
      output.stdout(`FAIL ${file}\n`);
      output.stderr(`${reason}\n`);
    }
  }
  output.stdout(`\n${files.length} fixture${files.length === 1 ? "" : "s"}: ${files.length - failed} passed, ${failed} failed\n`);
  return failed === 0 ? 0 : 1;
}
