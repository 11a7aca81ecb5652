/**
 * Loading a module on demand in the module system the caller runs in. The package is ES modules
 * (dist/): there `import()` loads the one copy every static import shares. A loader that compiles
 * the sources to CommonJS (tsx, when mocha `require`s this repository's tests) shares modules
 * through `require` instead, and `import()` would load a second copy beside it, splitting
 * module-level state (the wallet's served nodes, error classes checked with `instanceof`,
 * @ethereumjs' ES and CommonJS builds).
 *
 * The test is whether this very instance of this file runs as CommonJS: its `module` is then its
 * own module object (the CommonJS wrapper's parameter). Not whether a `require` or `module` exists:
 * `node -e`, `node -p` and the REPL define global ones beside ES modules (resolving from the
 * working directory, named "[eval]"); nor whether the file is in `require`'s cache: a process may
 * load the sources both ways (mocha's CommonJS tests, and a script they `import()`), and each copy
 * must keep to its own.
 */
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

import { packageRoot } from "./packageRoot.ts";

const LOADED_AS_COMMONJS = typeof module !== "undefined" && module.filename === fileURLToPath(import.meta.url);

/** `require` for the module at `moduleUrl` (its `import.meta.url`) when it was loaded as CommonJS; else undefined (load with `import()`). */
export function commonJsRequire(moduleUrl: string): NodeJS.Require | undefined {
  return LOADED_AS_COMMONJS ? createRequire(moduleUrl) : undefined;
}

/**
 * What `require` takes for one of the package's own entry points (`entry` as under src/, e.g.
 * "server/http.ts") from the module at `moduleUrl`: the source when that module runs from src/
 * (tsx), else the entry's file in dist/, where it keeps its path (scripts/bundle.mjs) while the
 * asking code may sit in dist/chunks/. Not a path relative to the asking file: dist/ has no `.ts`
 * files, and a chunk is not where its sources were. dist/ is loaded as CommonJS when a CommonJS
 * project's loader compiles it (tsx: `node --import tsx`, `mocha --require tsx/cjs`).
 */
export function ownEntryFile(moduleUrl: string, entry: string): string {
  const root = packageRoot(moduleUrl);
  if (moduleUrl.startsWith(new URL("src/", root).href)) return fileURLToPath(new URL(`src/${entry}`, root));
  return fileURLToPath(new URL(`dist/${entry.replace(/\.ts$/, ".js")}`, root));
}
