// Turns mocha's report of a peer-suite run (scripts/peer-suite/run.sh) into one line per test:
// `passed|failed <file> :: <full title>`, the file relative to the OpenZeppelin checkout, then
// `pending <count>` when the run ended. The report is mocha's `json-stream` output (one
// `["pass"|"fail", test]` line per test, other output in between ignored) or its `json` report.
//
//   node results.mjs <checkout> <report>
import { readFileSync } from "node:fs";
import { relative } from "node:path";

const [root, reportFile] = process.argv.slice(2);
const text = readFileSync(reportFile, "utf8");
const line = (state) => (test) => `${state} ${test.file === undefined ? "?" : relative(root, test.file)} :: ${test.fullTitle}`;
const lines = [];
let pending;
if (text.trimStart().startsWith("{")) {
  const report = JSON.parse(text);
  lines.push(...report.passes.map(line("passed")), ...report.failures.map(line("failed")));
  pending = report.pending.length;
} else {
  for (const row of text.split("\n")) {
    if (!row.startsWith('["')) continue;
    const [event, data] = JSON.parse(row);
    if (event === "pass") lines.push(line("passed")(data));
    else if (event === "fail") lines.push(line("failed")(data));
    else if (event === "end") pending = data.pending;
  }
}
process.stdout.write(`${lines.sort().join("\n")}\n${pending === undefined ? "" : `pending ${pending}\n`}`);
