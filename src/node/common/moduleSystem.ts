/**
 * Loading a module on demand in the module system the caller runs in. The package is ES modules
 * (dist/): there `import()` loads the one copy every static import shares. A loader that compiles
 * the sources to CommonJS (tsx, when mocha `require`s this repository's tests) shares modules
 * through `require` instead, and `import()` would load a second copy beside it, splitting
 * module-level state (the wallet's served nodes, error classes checked with `instanceof`,
 * @ethereumjs' ES and CommonJS builds).
 *
 * The test is whether the calling file itself is in `require`'s cache, not whether a `require`
 * exists: `node -e`, `node -p` and the REPL put a global `require` beside ES modules, resolving
 * from the working directory.
 */
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/** `require` for the module at `moduleUrl` (its `import.meta.url`) when it was loaded as CommonJS; else undefined (load with `import()`). */
export function commonJsRequire(moduleUrl: string): NodeJS.Require | undefined {
  const local = createRequire(moduleUrl);
  return local.cache[fileURLToPath(moduleUrl)] === undefined ? undefined : local;
}
