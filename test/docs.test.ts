/**
 * The documentation stays true: every code block marked `<!-- example: examples/… -->` in README.md
 * and docs/ is that file, byte for byte (the file is what CI runs and type-checks); docs/methods.md
 * is the method table as it is; the README stays an entry page; and nothing a user reads points
 * outside the repository.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { expect } from "chai";

import { CLI_DOC, renderCliDoc } from "../scripts/cli-doc.ts";
import { METHODS_DOC, renderMethodsDoc } from "../scripts/methods-doc.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const pages = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

/** Files under a directory, recursively, as repository paths. */
function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(`${dir}/${entry.name}`) : [`${dir}/${entry.name}`],
  );
}

describe("documentation", () => {
  const embedded = new Set<string>();

  for (const page of pages) {
    it(`${page}: every embedded example is its file, verbatim`, () => {
      const text = read(page);
      const marker = /<!-- example: (\S+) -->\n```[a-z]*\n([\s\S]*?)```\n/g;
      for (const [, path, block] of text.matchAll(marker)) {
        embedded.add(path!);
        expect(block, `${page}: the block of ${path} differs from the file`).to.equal(read(path!));
      }
      // A marker whose block does not follow it directly would escape the check above.
      expect(text.split("<!-- example:").length - 1, `${page}: a marker without a code block right after it`).to.equal([...text.matchAll(marker)].length);
    });
  }

  it("the README's quickstarts embed the examples CI runs", () => {
    for (const path of [
      "examples/viem-fake-clock.test.mjs",
      "examples/hardhat/contracts/Counter.sol",
      "examples/hardhat/hardhat.config.ts",
      "examples/hardhat/test/mocha/Counter.ts",
      "examples/cli-server.sh",
    ]) {
      expect(read("README.md"), path).to.include(`<!-- example: ${path} -->`);
    }
  });

  it("docs/methods.md is the method table as it is (npm run docs:methods)", () => {
    expect(readFileSync(METHODS_DOC, "utf8"), "docs/methods.md is out of date: run `npm run docs:methods`").to.equal(renderMethodsDoc());
  });

  it("docs/cli.md lists every flag of the table of settings as it is (npm run docs:cli)", () => {
    expect(readFileSync(CLI_DOC, "utf8"), "docs/cli.md is out of date: run `npm run docs:cli`").to.equal(renderCliDoc());
  });

  it("the README is an entry page of at most 12 KB", () => {
    expect(Buffer.byteLength(read("README.md"))).to.be.at.most(12 * 1024);
  });

  it("README, docs/ and src/ never refer to files outside the repository", () => {
    const outside = /\.\.\/shared|DECISIONS|seed §|the seed\b|issue #\d/;
    for (const path of [...pages, ...filesUnder("src")]) {
      const lines = read(path).split("\n");
      const hits = lines.map((line, index) => `${path}:${index + 1}: ${line.trim()}`).filter((line) => outside.test(line));
      expect(hits, hits.join("\n")).to.deep.equal([]);
    }
  });
});
