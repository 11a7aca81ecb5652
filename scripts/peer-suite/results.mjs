// Turns mocha's JSON report (scripts/peer-suite/run.sh) into one line per test: `passed|failed|pending <file> :: <full title>`,
// the file relative to the OpenZeppelin checkout.
//
//   node results.mjs <checkout> <report.json>
import { readFileSync } from "node:fs";
import { relative } from "node:path";

const [root, reportFile] = process.argv.slice(2);
const report = JSON.parse(readFileSync(reportFile, "utf8"));
const line = (state) => (test) => `${state} ${test.file === undefined ? "?" : relative(root, test.file)} :: ${test.fullTitle}`;
const lines = [...report.passes.map(line("passed")), ...report.failures.map(line("failed")), ...report.pending.map(line("pending"))];
process.stdout.write(`${lines.sort().join("\n")}\n`);
