// `npm run build`, second step: the package's JavaScript in dist/, bundled from src/ by esbuild
// (tsc, the first step, writes only the declarations).
//
// Why a bundle: Node's ES module loader costs about 0.7 ms of CPU per module file (resolving each
// import, reading the file and its package scope, compiling, linking), and the package is ~160 small
// modules that a fresh process loads before its first answer (row W6d of docs/benchmarks.md). As a
// few files the same code loads in half the time (bench/benchmarks-notes.md, "Cold start").
//
// - The entry points keep their paths: the package's exports (dist/index.js, dist/hardhat/index.js),
//   the CLI (dist/cli.js), and the modules loaded on first use at a seam (the server, the scenario
//   runner, the Hardhat plugin's hook handlers and task), so that what is lazy stays lazy and a
//   reader of dist/ still finds them. `splitting` puts code two entries share in dist/chunks/: one
//   copy of every class per process, whichever entries a process loads (`instanceof` holds).
// - Dependencies stay imports (`packages: "external"`): @ethereumjs' ES modules are patched in place
//   (src/node/ethereumjs/) and must be the instances every other importer gets.
// - `keepNames`: class and function names stay what the sources say (errors print them). It costs a
//   `defineProperty` per named closure made, ~5 % of the HTTP server's eth_call, but without it a
//   class that names itself in its body is emitted as `var X = class _X` and is named `_X` (`Wallet`,
//   `Chain` and others: bench/benchmarks-notes.md, "Thirteenth round"); hot paths make classes, not closures.
// - Which file a module's code lands in changes as imports change, so a module that finds a package
//   file from its own URL does so from the package root (src/node/common/packageRoot.ts: the scenario runner's
//   fixtures/artifacts/), not by a count of `../`; test/coldPath.test.ts runs a scenario from dist/.
//   The entry points' own `../package.json` (cli.ts, hardhat/tasks/node.ts) holds: entries keep
//   their paths.
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));

export const ENTRY_POINTS = [
  "index.ts",
  "hardhat/index.ts",
  "hardhat/hook-handlers/config.ts",
  "hardhat/hook-handlers/network.ts",
  "hardhat/tasks/node.ts",
  "cli.ts",
  "server/http.ts",
  "scenario/run.ts",
];

rmSync(`${root}dist/chunks`, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: ENTRY_POINTS.map((entry) => `src/${entry}`),
  outbase: "src",
  outdir: "dist",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node22",
  packages: "external",
  keepNames: true,
  sourcemap: "linked",
  // The package ships src/: the maps point at it rather than carrying a copy.
  sourcesContent: false,
  tsconfig: "tsconfig.build.json",
  logLevel: "warning",
});
