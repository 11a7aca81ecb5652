#!/usr/bin/env node
// The `preconf` command: runs the compiled CLI (dist/cli.js) with plain Node. Hardhat 3 and this
// package need Node ≥ 22.13; in a clone of this repository on an older system Node, it re-launches
// itself with the project's `node` package (a devDependency), as npm scripts do.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
const tooOld = major < 22 || (major === 22 && minor < 13);
const node22 = fileURLToPath(new URL("../node_modules/node/bin/node", import.meta.url));
const compiled = new URL("../dist/cli.js", import.meta.url);

if (tooOld && existsSync(node22)) {
  // Node's own options go along (a V8 flag given for the server, docs/cli.md "The server's process").
  const child = spawn(node22, [...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: "inherit" });
  // Signals sent to this process (kill <pid>) are passed on; the child decides when to stop.
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  // Under npx, npm's SIGTERM ends the shell between npm and this process: this process is then
  // re-parented, and its child must stop as if signalled (the child watches for the same thing
  // itself, but its parent, this process, is still there).
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid !== parent) child.kill("SIGTERM");
  }, 200);
  watch.unref();
  child.on("exit", (code, signal) => process.exit(code ?? (signal === null ? 1 : 128)));
} else if (!existsSync(compiled)) {
  // Only in a clone that was never built: the published package always ships dist/.
  process.stderr.write("hardhat-preconf: dist/cli.js is missing; run `npm run build` first.\n");
  process.exit(1);
} else {
  if (tooOld) process.stderr.write(`hardhat-preconf needs Node >= 22.13 (this is ${process.version}); trying anyway.\n`);
  const { main } = await import(compiled.href);
  process.exit(await main(process.argv.slice(2), { ownProcess: true }));
}
