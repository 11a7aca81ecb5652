/**
 * The `preconf` command as a Unix tool: `--version`, a checked `--mnemonic`, and `npm start` that
 * stops on SIGINT and SIGTERM sent to the PID that was started, leaving the port free. These run the
 * compiled CLI (dist/), which `npm test` builds first (pretest). `npx preconf node` is exercised on
 * the installed tarball in test/consumer/.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { validateMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english";
import { expect } from "chai";

import { parseNodeArgs } from "../src/cli.ts";
import { mnemonicProblem } from "../src/node/bip39.ts";
import { accepts } from "./helpers/net.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const VERSION = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;

/** Runs a command to completion: its exit code and output. */
function run(command: string, args: string[]) {
  const child = spawn(command, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

/** Starts a long-running command and resolves once it printed the URL it serves. */
async function startServing(command: string, args: string[]) {
  const child = spawn(command, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const port = await new Promise<number>((resolve, reject) => {
    const check = () => {
      const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (match !== null) resolve(Number(match[1]));
    };
    child.stdout.on("data", check);
    void exited.then(() => reject(new Error(`exited before serving:\n${output}`)));
  });
  return { child, port, exited, output: () => output };
}

describe("preconf CLI: version and mnemonic", () => {
  before(() => {
    if (!existsSync(`${ROOT}/dist/cli.js`)) throw new Error("dist/cli.js is missing: run `npm run build` first (npm test does it in pretest)");
  });

  for (const flag of ["--version", "-v"]) {
    it(`preconf ${flag} prints the package version and exits 0`, async () => {
      const { code, stdout } = await run(process.execPath, ["bin/preconf.js", flag]);
      expect(code).to.equal(0);
      expect(stdout).to.equal(`${VERSION}\n`);
    });
  }

  it("accepts BIP-39 mnemonics (the default and the spec's test vectors), as @scure/bip39 does", () => {
    for (const phrase of [
      "test test test test test test test test test test test junk",
      "legal winner thank year wave sausage worth useful legal winner thank yellow",
      "letter advice cage absurd amount doctor acoustic avoid letter advice cage absurd amount doctor acoustic avoid letter always",
      "zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo vote",
      "  test test test test test test\ttest test test test test junk ",
    ]) {
      expect(mnemonicProblem(phrase), phrase).to.equal(undefined);
      expect(validateMnemonic(phrase.trim().split(/\s+/).join(" "), wordlist), phrase).to.equal(true);
    }
    const parsed = parseNodeArgs(["--mnemonic", "legal winner thank year wave sausage worth useful legal winner thank yellow"]);
    expect(parsed).to.not.equal("help");
  });

  it("names what is wrong with a phrase that is not BIP-39", () => {
    const cases: Array<[string, string]> = [
      ["test test … junk", "a BIP-39 mnemonic has 12, 15, 18, 21 or 24 words, got 4"],
      ["test test test test test test test test test test tset junk", 'word 11 ("tset") is not in the BIP-39 English wordlist'],
      ["test test test test test test test test test test test test", "its checksum does not match (a word is wrong or out of order)"],
      ["junk test test test test test test test test test test test", "its checksum does not match (a word is wrong or out of order)"],
      ["", "a BIP-39 mnemonic has 12, 15, 18, 21 or 24 words, got 0"],
    ];
    for (const [phrase, problem] of cases) {
      expect(mnemonicProblem(phrase), phrase).to.equal(problem);
      expect(() => parseNodeArgs(["--mnemonic", phrase])).to.throw(`--mnemonic is not a valid BIP-39 mnemonic: ${problem}`);
    }
  });

  it("preconf node --mnemonic <not BIP-39> exits 1 naming the flag, and serves nothing", async () => {
    const { code, stdout, stderr } = await run(process.execPath, [
      "bin/preconf.js",
      "node",
      "--port",
      "0",
      "--mnemonic",
      "test test test test test test test test test test test test",
    ]);
    expect(code).to.equal(1);
    expect(stderr).to.include("--mnemonic is not a valid BIP-39 mnemonic: its checksum does not match");
    expect(stdout).to.not.include("listening");
  });
});

describe("npm start: signals sent to the started PID", function () {
  this.timeout(120_000);

  before(() => {
    if (!existsSync(`${ROOT}/dist/cli.js`)) throw new Error("dist/cli.js is missing: run `npm run build` first (npm test does it in pretest)");
  });

  // --ignore-scripts skips prestart (the build): pretest has just built dist/.
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`${signal} to npm's PID stops the server; the port is free once npm has exited`, async () => {
      const started = await startServing("npm", ["start", "--ignore-scripts", "--silent", "--", "--port", "0"]);
      try {
        expect(await accepts(started.port)).to.equal(true);
        started.child.kill(signal);
        const { code } = await started.exited;
        expect(code, started.output()).to.equal(0);
        expect(started.output()).to.include("Stopping");
        expect(await accepts(started.port)).to.equal(false);
      } finally {
        started.child.kill("SIGKILL");
      }
    });
  }
});
