/**
 * Writes the flag tables of docs/cli.md (between `<!-- flags:start -->` and `<!-- flags:end -->`)
 * from the table of settings (src/cli/flags.ts), so the page cannot drift from what
 * `preconf node` and the Hardhat task accept. `npm run docs:cli` rewrites them; test/docs.test.ts
 * fails when they are out of date.
 *
 * Usage: npx tsx scripts/cli-doc.ts [--check]
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { flagSignature } from "../src/cli/args.ts";
import { FLAGS, taskOptionName } from "../src/cli/flags.ts";

import type { FlagGroup } from "../src/cli/flags.ts";

export const CLI_DOC = fileURLToPath(new URL("../docs/cli.md", import.meta.url));

const START = "<!-- flags:start -->";
const END = "<!-- flags:end -->";

const cell = (text: string) => text.replaceAll("|", "\\|");

function tables(): string {
  const groups = [...new Set(FLAGS.map((spec) => spec.group))] as FlagGroup[];
  return groups
    .map((group) => {
      const rows = FLAGS.filter((spec) => spec.group === group).map((spec) => {
        const names = [`\`${flagSignature(spec)}\``, ...(spec.aliases ?? []).map((alias) => `\`--${alias}\``)].join("<br>");
        const task =
          spec.notInTask === undefined ? `\`--${taskOptionName(spec).replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}\`` : `— (${spec.notInTask})`;
        return `| ${names} | ${cell(spec.description)} | ${cell(spec.defaultText ?? "")} | ${cell(spec.anvil ?? "—")} | ${cell(spec.hardhat ?? "—")} | ${task} |`;
      });
      return [
        `### ${group}`,
        "",
        "| flag | what | default | anvil 1.7 | `npx hardhat node` (Hardhat 3) | `npx hardhat preconf node` |",
        "|---|---|---|---|---|---|",
        ...rows,
      ].join("\n");
    })
    .join("\n\n");
}

/** docs/cli.md with its flag tables as the table of settings makes them. */
export function renderCliDoc(page = readFileSync(CLI_DOC, "utf8")): string {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  if (start === -1 || end < start) throw new Error(`docs/cli.md must hold ${START} and ${END}`);
  return `${page.slice(0, start + START.length)}\n\n${tables()}\n\n${page.slice(end)}`;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const current = readFileSync(CLI_DOC, "utf8");
  const rendered = renderCliDoc(current);
  if (process.argv.includes("--check")) {
    if (rendered !== current) {
      console.error("docs/cli.md is out of date: run `npm run docs:cli`");
      process.exit(1);
    }
  } else writeFileSync(CLI_DOC, rendered);
}
