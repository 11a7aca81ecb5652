// Turns mocha's JSON report (scripts/peer-suite/run.sh) into one line per test: `passed|failed|pending <file> :: <full title>`.
import { readFileSync } from "node:fs";
import { relative } from "node:path";

const report = JSON.parse(readFileSync(process.argv[2], "utf8"));
const line = (state) => (test) => `${state} ${test.file === undefined ? "?" : relative(process.cwd(), test.file)} :: ${test.fullTitle}`;
const lines = [...report.passes.map(line("passed")), ...report.failures.map(line("failed")), ...report.pending.map(line("pending"))];
process.stdout.write(`${lines.sort().join("\n")}\n`);
