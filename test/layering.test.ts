/**
 * Data flows one way: transports (src/server) → method tables (src/rpc) → the wallet (src/wallet)
 * and the engine (src/node); src/protocol (the error class, params helpers) is shared by all.
 * These tests read every import of every module (type-only imports and re-exports too) and fail
 * naming the file and the import that goes the wrong way.
 */
import { expect } from "chai";

import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

function sourcesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)).split(sep).join("/"));
}

/** `import … from "x"`, `export … from "x"`, `import "x"` and `import("x")`, as written. */
const SPECIFIER = /(?:^|[\s;])(?:import|export)\s[^;]*?\sfrom\s*["']([^"']+)["']|(?:^|[\s;])import\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

function importsOf(source: string): string[] {
  // Comments may quote paths (a docstring naming another module): only code counts.
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
  return [...code.matchAll(SPECIFIER)].map((match) => match[1] ?? match[2] ?? match[3]!);
}

/** The repository path a relative import of `file` resolves to (bare package names: undefined). */
function resolved(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  return relative(ROOT, resolve(ROOT, dirname(file), specifier))
    .split(sep)
    .join("/");
}

/** Every `file: specifier` under `dir` whose import lands in one of `forbidden`. */
function violations(dir: string, forbidden: string[]): string[] {
  const found: string[] = [];
  for (const file of sourcesUnder(dir)) {
    for (const specifier of importsOf(readFileSync(join(ROOT, file), "utf8"))) {
      const target = resolved(file, specifier);
      if (target !== undefined && forbidden.some((layer) => target === layer || target.startsWith(`${layer}/`))) found.push(`${file}: "${specifier}"`);
    }
  }
  return found;
}

describe("layering", () => {
  it("reads every kind of import (the checks below depend on it)", () => {
    const source = [
      'import { a } from "./a.ts";',
      'import type { B } from "../rpc/b.ts";',
      "export { c } from './c.ts';",
      'export * from "./d.ts";',
      'import "./e.ts";',
      'const f = await import("./f.ts");',
      'import {\n  g,\n  h,\n} from "./gh.ts";',
      '// import { x } from "../rpc/commented.ts";',
      '/** see "../server/doc.ts" */',
    ].join("\n");
    expect(importsOf(source)).to.deep.equal(["./a.ts", "../rpc/b.ts", "./c.ts", "./d.ts", "./e.ts", "./f.ts", "./gh.ts"]);
  });

  it("src/node (the engine) imports nothing from src/rpc or src/server", () => {
    expect(sourcesUnder("src/node").length).to.be.greaterThan(30);
    expect(violations("src/node", ["src/rpc", "src/server"])).to.deep.equal([]);
  });

  it("src/rpc (the method tables) imports nothing from src/server", () => {
    expect(violations("src/rpc", ["src/server"])).to.deep.equal([]);
  });

  it("src/wallet imports nothing from src/rpc or src/server: its errors live with it or in src/protocol", () => {
    expect(sourcesUnder("src/wallet").length).to.be.greaterThan(8);
    expect(violations("src/wallet", ["src/rpc", "src/server"])).to.deep.equal([]);
  });

  it("src/protocol (the vocabulary every layer shares) imports nothing of the project", () => {
    const found = sourcesUnder("src/protocol").flatMap((file) =>
      importsOf(readFileSync(join(ROOT, file), "utf8"))
        .filter((specifier) => specifier.startsWith(".") && !(resolved(file, specifier) ?? "").startsWith("src/protocol/"))
        .map((specifier) => `${file}: "${specifier}"`),
    );
    expect(found).to.deep.equal([]);
  });
});
