/**
 * The engine's folders (docs/architecture.md): no module of src/ loads, through its static imports,
 * a module that loads it back; each folder of src/node/ imports at run time only the folders its
 * README.md lists on its "May import:" line (type-only imports load nothing and are not counted);
 * only src/node/ethereumjs/ reaches into an @ethereumjs package's own files. Each test fails naming the
 * files and the imports.
 */
import { expect } from "chai";

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, posix, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const NODE = "src/node";

function sourcesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)).split(sep).join("/"));
}

function codeOf(source: string): string {
  // Comments may quote paths (a docstring naming another module): only code counts.
  return source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

/**
 * The relative modules `source` loads when it loads: `import … from`, `export … from` and
 * `import "x"`, but not `import type`/`export type` (erased) nor `import("x")` (loaded later, on
 * demand). Under `verbatimModuleSyntax`, `import { type A } from "x"` stays `import {} from "x"`
 * and loads "x": it counts.
 */
function staticImportsOf(source: string): string[] {
  const found: string[] = [];
  const STATIC = /(?:^|[\s;])(?:import|export)\s+(type\s+)?[^;]*?\sfrom\s*["']([^"']+)["']|(?:^|[\s;])import\s*["']([^"']+)["']/g;
  for (const match of codeOf(source).matchAll(STATIC)) {
    if (match[1] !== undefined) continue;
    found.push((match[2] ?? match[3])!);
  }
  return found.filter((specifier) => specifier.startsWith("."));
}

/** file → the repository files it loads. */
function loadGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourcesUnder("src")) {
    const imports = staticImportsOf(readFileSync(join(ROOT, file), "utf8")).map((specifier) => posix.normalize(posix.join(posix.dirname(file), specifier)));
    graph.set(file, imports);
  }
  return graph;
}

/** Every cycle found by a depth-first walk, each as `a → b → … → a`. */
function cycles(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, "open");
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === "open") found.push([...stack.slice(stack.indexOf(next)), next].join(" → "));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return found;
}

/** The folder of src/node/ a file is in (undefined outside src/node/). */
function folderOf(file: string): string | undefined {
  if (!file.startsWith(`${NODE}/`)) return undefined;
  return file
    .slice(NODE.length + 1)
    .split("/")
    .slice(0, -1)[0];
}

/** The folders a README's "May import:" line names (`common/`, …); "nothing" names none. */
function allowedBy(folder: string): string[] | undefined {
  const readme = join(ROOT, NODE, folder, "README.md");
  if (!existsSync(readme)) return undefined;
  const line = readFileSync(readme, "utf8")
    .split("\n")
    .find((text) => text.startsWith("May import:"));
  if (line === undefined) return undefined;
  return [...line.matchAll(/`([a-z]+)\/`/g)].map((match) => match[1]!);
}

describe("folders of the engine", () => {
  it("reads static imports and leaves type-only and dynamic ones out (the checks below depend on it)", () => {
    const source = [
      'import { a } from "./a.ts";',
      'import type { B } from "./b.ts";',
      'import { type C } from "./c.ts";',
      "export { d } from './d.ts';",
      'export type { E } from "./e.ts";',
      'import "./f.ts";',
      'const g = await import("./g.ts");',
      'import {\n  h,\n  i,\n} from "./hi.ts";',
      'import typeset from "./typeset.ts";',
      '// import { x } from "./commented.ts";',
      'import { y } from "@ethereumjs/util";',
    ].join("\n");
    expect(staticImportsOf(source)).to.deep.equal(["./a.ts", "./c.ts", "./d.ts", "./f.ts", "./hi.ts", "./typeset.ts"]);
    expect(
      cycles(
        new Map([
          ["a", ["b"]],
          ["b", ["c"]],
          ["c", ["a"]],
          ["d", ["a"]],
        ]),
      ),
    ).to.deep.equal(["a → b → c → a"]);
  });

  it("no module of src/ loads itself back through its imports", () => {
    const graph = loadGraph();
    expect(graph.size).to.be.greaterThan(100);
    expect(cycles(graph)).to.deep.equal([]);
  });

  it("src/node/ holds folders only, each with a README.md that says what it may import", () => {
    const loose = readdirSync(join(ROOT, NODE), { withFileTypes: true }).filter((entry) => entry.isFile() && entry.name.endsWith(".ts"));
    expect(loose.map((entry) => entry.name)).to.deep.equal([]);
    const folders = readdirSync(join(ROOT, NODE), { withFileTypes: true }).filter((entry) => entry.isDirectory());
    expect(folders.filter((entry) => allowedBy(entry.name) === undefined).map((entry) => `${NODE}/${entry.name}/README.md`)).to.deep.equal([]);
  });

  it("each folder of src/node/ loads only the folders its README allows", () => {
    const found: string[] = [];
    for (const [file, imports] of loadGraph()) {
      const folder = folderOf(file);
      if (folder === undefined) continue;
      const allowed = allowedBy(folder) ?? [];
      for (const target of imports) {
        const other = folderOf(target);
        if (other !== undefined && other !== folder && !allowed.includes(other))
          found.push(`${file} → ${target} (${folder}/README.md allows ${allowed.join(", ") || "nothing"})`);
      }
    }
    expect(found).to.deep.equal([]);
  });

  it("only src/node/ethereumjs/ reaches into an @ethereumjs package's own files (a path below its name)", () => {
    const found = ["src", "test", "bench", "scripts"]
      .flatMap((dir) => sourcesUnder(dir))
      .filter((file) => !file.startsWith(`${NODE}/ethereumjs/`) && /["'`]@ethereumjs\/[a-z-]+\//.test(codeOf(readFileSync(join(ROOT, file), "utf8"))));
    expect(found).to.deep.equal([]);
  });
});
