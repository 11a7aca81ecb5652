// Hardhat 3's EDR needs its native package (@nomicfoundation/edr-<platform>). When `npm ci` runs on
// an older system Node (< 22), npm marks that optional package "inert" for its `engines` field and
// skips it. This repository's own scripts that load Hardhat (`pretest`, `prebench`) run this first,
// on the Node 22 from the `node` devDependency (npm puts node_modules/.bin first on PATH); it fetches
// the package the lockfile pins when it is missing. It is not an install script: consumers of the
// package never run it.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

// npm scripts run on the Node 22 of the `node` devDependency, whose own install script provides it.
// Without it (`npm ci --ignore-scripts`, or an npm that blocked that script), say so here rather
// than let Hardhat refuse the older Node later.
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 13)) {
  console.error(
    `hardhat-preconf: Node ${process.version} runs this script; the tests need Node >= 22.13. The \`node\` devDependency ` +
      "provides it through its install script: run `npm ci` without --ignore-scripts (package.json's allowScripts approves it), " +
      "or put Node >= 22.13 on PATH.",
  );
  process.exit(1);
}

const require = createRequire(import.meta.url);
const root = new URL("..", import.meta.url).pathname;

function edrLoads() {
  try {
    require("@nomicfoundation/edr");
    return true;
  } catch {
    return false;
  }
}

function libcOfThisMachine() {
  if (process.platform !== "linux") return undefined;
  const header = process.report?.getReport()?.header;
  return header?.glibcVersionRuntime ? "glibc" : "musl";
}

function nativePackageFromLockfile() {
  const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8"));
  const libc = libcOfThisMachine();
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!path.startsWith("node_modules/@nomicfoundation/edr-")) continue;
    const fits = (list, value) => list === undefined || list.includes(value);
    if (fits(entry.os, process.platform) && fits(entry.cpu, process.arch) && fits(entry.libc, libc)) {
      return { name: path.slice("node_modules/".length), version: entry.version, path };
    }
  }
  return undefined;
}

if (!existsSync(join(root, "node_modules/@nomicfoundation/edr")) || edrLoads()) process.exit(0);

const native = nativePackageFromLockfile();
if (native === undefined) {
  console.warn(`hardhat-preconf: no EDR native package for ${process.platform}-${process.arch}`);
  process.exit(0);
}
const scratch = mkdtempSync(join(tmpdir(), "edr-native-"));
try {
  const tarball = execFileSync("npm", ["pack", `${native.name}@${native.version}`, "--silent"], {
    cwd: scratch,
    encoding: "utf8",
  })
    .trim()
    .split("\n")
    .pop();
  const target = join(root, native.path);
  mkdirSync(target, { recursive: true });
  execFileSync("tar", ["-xzf", join(scratch, tarball), "-C", target, "--strip-components=1"]);
  console.log(`hardhat-preconf: installed ${native.name}@${native.version} (${edrLoads() ? "loads" : "does not load"})`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
