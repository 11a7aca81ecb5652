/**
 * The package as a user gets it: `npm pack`, then the tarball installed into throwaway projects
 * under a temp dir, each with only what its README section says to install:
 *
 * - plain Node: a `.mjs` file (examples/viem-fake-clock.test.mjs, the README's first quickstart) run
 *   with `node` and no loader; `preconf --version`; `preconf node` and `npx preconf node` stopped by
 *   SIGTERM with the port freed; examples/cli-server.sh (the README's CLI quickstart);
 * - TypeScript with a stock strict config (`module nodenext`, `strict`, `exactOptionalPropertyTypes`,
 *   `skipLibCheck`): examples/server.ts compiled by `tsc` (emitting) and its output run;
 * - Hardhat 3 (examples/hardhat, the README's second quickstart): its test under mocha and under
 *   Hardhat's node:test runner, and `tsc --noEmit` over the project;
 * - vitest: examples/vitest/preconf.test.ts.
 *
 * Installs come from the npm registry (the local cache first). When one cannot install, the test
 * fails and says why: never a silent skip. The tarball is packed from dist/, which `npm test`
 * builds first (pretest).
 */
import { execFile, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { expect } from "chai";
import { accepts } from "../helpers/net.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const EXAMPLES = join(ROOT, "examples");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string; devDependencies: Record<string, string> };

/** The versions this repository tests with, so consumers install what is known to work. */
const dev = (name: string) => `${name}@${pkg.devDependencies[name]!}`;
const VERSIONS = {
  viem: "viem@^2.57.0",
  fakeTimers: "@sinonjs/fake-timers@^15.5.0",
  typescript: dev("typescript"),
  typesNode: dev("@types/node"),
  hardhat: dev("hardhat"),
  hardhatViem: dev("@nomicfoundation/hardhat-viem"),
  hardhatMocha: dev("@nomicfoundation/hardhat-mocha"),
  hardhatNodeTestRunner: "@nomicfoundation/hardhat-node-test-runner@3.1.0",
  mocha: dev("mocha"),
  chai: dev("chai"),
  typesMocha: dev("@types/mocha"),
  typesChai: dev("@types/chai"),
  vitest: "vitest@3.2.7",
  tsx: dev("tsx"),
};

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

const tail = (text: string) => text.trim().split("\n").slice(-25).join("\n");

/** Runs a step that must succeed; its failure names the step and shows the output's end. */
async function step(what: string, command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Outcome> {
  const outcome = await run(command, args, cwd, env);
  if (outcome.code !== 0) throw new Error(`${what} failed (exit ${outcome.code}):\n${tail(outcome.stdout)}\n${tail(outcome.stderr)}`);
  return outcome;
}

/** `npm install` into a project (its output); an unreachable registry is reported as such. */
async function install(cwd: string, packages: string[]): Promise<Outcome> {
  const outcome = await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", ...packages], cwd);
  if (outcome.code === 0) return outcome;
  const offline = /ENOTFOUND|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|network|fetch failed/i.test(outcome.stderr);
  throw new Error(
    `${offline ? "cannot reach the npm registry, so this consumer test cannot run" : "npm install failed"} ` +
      `(npm install ${packages.join(" ")}, exit ${outcome.code}):\n${tail(outcome.stderr)}`,
  );
}

function project(parent: string, name: string): string {
  const dir = join(parent, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), `${JSON.stringify({ name, private: true, type: "module" }, null, 2)}\n`);
  return dir;
}

/** Starts a server command, resolves with the port it printed. */
async function serve(command: string, args: string[], cwd: string) {
  const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on("data", () => {
      const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (match !== null) resolve(Number(match[1]));
    });
    void exited.then(() => reject(new Error(`${command} ${args.join(" ")} exited before serving:\n${output}`)));
  });
  return { child, port, exited, output: () => output };
}

/** Waits until nothing accepts connections on the port (a server that stops must free it). */
async function portFreed(port: number): Promise<boolean> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (!(await accepts(port))) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

describe("consumers of the packed tarball", function () {
  this.timeout(600_000);
  let work: string;
  let tarball: string;

  before(async () => {
    if (!existsSync(join(ROOT, "dist/index.js"))) throw new Error("dist/ is missing: run `npm run build` first (npm test does it in pretest)");
    work = mkdtempSync(join(tmpdir(), "preconf-consumer-"));
    // --ignore-scripts: prepack would build again; pretest has just built dist/. What prepack and
    // postpack do besides (the packed package.json without `prepare`) is done here around it.
    await step("strip prepare", process.execPath, ["scripts/pack-manifest.mjs", "strip"], ROOT);
    let packed: Outcome;
    try {
      packed = await step("npm pack", "npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], ROOT);
    } finally {
      await step("restore prepare", process.execPath, ["scripts/pack-manifest.mjs", "restore"], ROOT);
    }
    expect((JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts.prepare).to.equal("npm run build");
    const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    tarball = join(work, info!.filename);
    const paths = info!.files.map((file) => file.path);
    expect(paths).to.include.members([
      "LICENSE",
      "README.md",
      "CHANGELOG.md",
      "dist/index.js",
      "dist/index.d.ts",
      "dist/hardhat/index.js",
      "dist/cli.js",
      "bin/preconf.js",
    ]);
    expect(paths.filter((path) => /^(test|bench|\.ci|scripts|examples)\//.test(path) || path === "hardhat.config.ts")).to.deep.equal([]);
  });

  after(() => {
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  describe("plain Node (only the tarball, viem and @sinonjs/fake-timers)", () => {
    let dir: string;
    let installed: Outcome;
    before(async () => {
      dir = project(work, "plain");
      installed = await install(dir, [tarball, VERSIONS.viem, VERSIONS.fakeTimers]);
      cpSync(join(EXAMPLES, "viem-fake-clock.test.mjs"), join(dir, "viem-fake-clock.test.mjs"));
      cpSync(join(EXAMPLES, "cli-server.sh"), join(dir, "cli-server.sh"));
    });

    it("installs without a script of its own for npm to run or to ask approval for (the packed package.json has no prepare)", () => {
      const manifest = JSON.parse(readFileSync(join(dir, "node_modules/hardhat-preconf/package.json"), "utf8")) as { scripts: Record<string, string> };
      expect(Object.keys(manifest.scripts).filter((name) => ["preinstall", "install", "postinstall", "prepare"].includes(name))).to.deep.equal([]);
      expect(`${installed.stdout}${installed.stderr}`).to.not.match(/hardhat-preconf@[^\n]*\((preinstall|install|postinstall|prepare):/);
    });

    it("runs the README's viem quickstart as a .mjs file, with no loader", async () => {
      const { stdout } = await step("node viem-fake-clock.test.mjs", process.execPath, ["viem-fake-clock.test.mjs"], dir);
      expect(stdout).to.match(/# pass 1\b/);
      expect(stdout).to.match(/# fail 0\b/);
    });

    it("node_modules/.bin/preconf --version prints the version", async () => {
      const { stdout } = await step("preconf --version", join(dir, "node_modules/.bin/preconf"), ["--version"], dir);
      expect(stdout).to.equal(`${pkg.version}\n`);
    });

    it("preconf node in the background stops on SIGTERM and frees its port", async () => {
      const server = await serve(join(dir, "node_modules/.bin/preconf"), ["node", "--port", "0"], dir);
      expect(await accepts(server.port)).to.equal(true);
      server.child.kill("SIGTERM");
      expect(await server.exited, server.output()).to.equal(0);
      expect(await accepts(server.port)).to.equal(false);
    });

    it("npx preconf node stops on SIGTERM sent to npx's PID and frees its port", async () => {
      const server = await serve("npx", ["preconf", "node", "--port", "0"], dir);
      try {
        server.child.kill("SIGTERM");
        await server.exited;
        // npm forwards the signal to the shell it started, not to the server: the server stops
        // when it sees that shell go (see docs/server.md), a moment after npm has exited.
        expect(await portFreed(server.port), server.output()).to.equal(true);
      } finally {
        server.child.kill("SIGKILL");
      }
    });

    it("npx preconf node stops on Ctrl-C (SIGINT to its process group, as a terminal sends it) and frees its port", async () => {
      const child = spawn("npx", ["preconf", "node", "--port", "0", "--quiet"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"], detached: true });
      let output = "";
      child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      try {
        const port = await new Promise<number>((resolve, reject) => {
          child.stdout.on("data", () => {
            const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
            if (match !== null) resolve(Number(match[1]));
          });
          void exited.then(() => reject(new Error(`exited before serving:\n${output}`)));
        });
        process.kill(-child.pid!, "SIGINT");
        await exited;
        expect(await portFreed(port), output).to.equal(true);
        expect(output).to.not.match(/\n\s+at /);
      } finally {
        try {
          process.kill(-child.pid!, "SIGKILL");
        } catch {
          // already gone
        }
      }
    });

    it("the README's CLI quickstart (examples/cli-server.sh) answers eth_chainId and stops", async () => {
      const { stdout } = await step("bash cli-server.sh", "bash", ["cli-server.sh"], dir);
      expect(stdout).to.include('{"jsonrpc":"2.0","id":1,"result":"0x7a69"}');
      // Under npx, the server stops a moment after npm has gone (see the npx test above).
      expect(await portFreed(8545)).to.equal(true);
    });
  });

  describe("TypeScript, stock strict config", () => {
    let dir: string;
    before(async () => {
      dir = project(work, "typescript");
      await install(dir, [tarball, VERSIONS.viem, VERSIONS.fakeTimers, VERSIONS.typescript, VERSIONS.typesNode]);
      mkdirSync(join(dir, "src"));
      cpSync(join(EXAMPLES, "server.ts"), join(dir, "src/server.ts"));
      const compilerOptions = { target: "es2022", module: "nodenext", strict: true, exactOptionalPropertyTypes: true, skipLibCheck: true, outDir: "out" };
      writeFileSync(join(dir, "tsconfig.json"), `${JSON.stringify({ compilerOptions, include: ["src"] }, null, 2)}\n`);
    });

    it("compiles examples/server.ts with tsc (emitting) and runs the output", async () => {
      await step("tsc", join(dir, "node_modules/.bin/tsc"), ["-p", "."], dir);
      expect(existsSync(join(dir, "out/server.js"))).to.equal(true);
      const { stdout } = await step("node out/server.js", process.execPath, ["out/server.js"], dir);
      expect(stdout).to.include("chain 31337");
    });
  });

  describe("Hardhat 3 project with the plugin (examples/hardhat)", () => {
    let dir: string;
    before(async () => {
      dir = project(work, "hardhat");
      await install(dir, [
        tarball,
        VERSIONS.hardhat,
        VERSIONS.hardhatViem,
        VERSIONS.viem,
        VERSIONS.hardhatMocha,
        VERSIONS.hardhatNodeTestRunner,
        VERSIONS.mocha,
        VERSIONS.chai,
        VERSIONS.typesMocha,
        VERSIONS.typesChai,
        VERSIONS.typesNode,
        VERSIONS.typescript,
        VERSIONS.tsx,
        VERSIONS.fakeTimers,
      ]);
      cpSync(join(EXAMPLES, "hardhat"), dir, { recursive: true });
      mkdirSync(join(dir, "wallet"));
      for (const name of ["wallet-policy.test.ts", "wallet-add-chain.test.ts", "wallet-chains.test.ts"])
        cpSync(join(EXAMPLES, name), join(dir, "wallet", name));
      // Hardhat downloads solc from binaries.soliditylang.org, which CI cannot reach: the test uses
      // the Counter artifacts this repository compiles with the solc npm package (same source).
      cpSync(join(ROOT, "fixtures/hardhat-artifacts"), join(dir, "artifacts"), { recursive: true });
      const compilerOptions = { lib: ["es2023"], module: "node16", target: "es2022", strict: true, esModuleInterop: true, skipLibCheck: true };
      writeFileSync(join(dir, "tsconfig.json"), `${JSON.stringify({ compilerOptions }, null, 2)}\n`);
    });

    it("the contract source is the one the artifacts were compiled from", () => {
      expect(readFileSync(join(dir, "contracts/Counter.sol"), "utf8")).to.equal(readFileSync(join(ROOT, "fixtures/contracts/Counter.sol"), "utf8"));
    });

    it("passes its test under mocha (hardhat test mocha)", async () => {
      const { stdout } = await step("hardhat test mocha", join(dir, "node_modules/.bin/hardhat"), ["test", "mocha", "--no-compile"], dir);
      expect(stdout).to.match(/2 passing/);
    });

    it("passes its test under Hardhat's node:test runner (hardhat test nodejs)", async () => {
      const { stdout } = await step("hardhat test nodejs", join(dir, "node_modules/.bin/hardhat"), ["test", "nodejs", "--no-compile"], dir);
      expect(stdout).to.match(/1 passing/);
    });

    it("runs docs/wallet.md's examples as the page says: npx mocha --node-option import=tsx wallet/*.test.ts", async () => {
      const { stdout } = await step(
        "mocha wallet examples",
        join(dir, "node_modules/.bin/mocha"),
        ["--node-option", "import=tsx", "wallet/wallet-policy.test.ts", "wallet/wallet-add-chain.test.ts", "wallet/wallet-chains.test.ts"],
        dir,
      );
      expect(stdout).to.match(/\d+ passing/);
      expect(stdout).to.not.match(/failing/);
    });

    it("type-checks with tsc", async () => {
      await step("tsc --noEmit", join(dir, "node_modules/.bin/tsc"), ["--noEmit", "-p", "."], dir);
    });
  });

  describe("vitest", () => {
    let dir: string;
    before(async () => {
      dir = project(work, "vitest");
      await install(dir, [tarball, VERSIONS.viem, VERSIONS.fakeTimers, VERSIONS.vitest, VERSIONS.typescript, VERSIONS.typesNode]);
      cpSync(join(EXAMPLES, "vitest.test.ts"), join(dir, "preconf.test.ts"));
      const compilerOptions = { target: "es2022", module: "nodenext", strict: true, exactOptionalPropertyTypes: true, skipLibCheck: true, noEmit: true };
      writeFileSync(join(dir, "tsconfig.json"), `${JSON.stringify({ compilerOptions, include: ["*.ts"] }, null, 2)}\n`);
    });

    it("passes examples/vitest.test.ts", async () => {
      const { stdout } = await step("vitest run", join(dir, "node_modules/.bin/vitest"), ["run"], dir, { CI: "1", NO_COLOR: "1" });
      expect(stdout).to.match(/Tests\s+1 passed/);
    });

    it("type-checks examples/vitest.test.ts with a stock strict config", async () => {
      await step("tsc --noEmit", join(dir, "node_modules/.bin/tsc"), ["-p", "."], dir);
    });
  });
});
