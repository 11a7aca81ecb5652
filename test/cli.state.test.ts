/**
 * `preconf node --state <file>` as a subprocess (dist/cli.js): a first run with no file starts a
 * new chain and writes it on exit, the next run loads it and says which block; `--load-state x
 * --dump-state x` works on the first run; and with `--state-interval`, a reader polling the file
 * and a SIGKILL at any moment find the previous or the next complete dump, never a torn one.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { expect } from "chai";

import { createPreconfProvider } from "../src/index.ts";
import { stateDumpSchema } from "../src/node/state/stateDump.ts";
import { requireBuiltCli, rpc, startCli } from "./helpers/cli.ts";

import type { StateDump } from "../src/node/state/stateDump.ts";

const ALICE = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const STRANGER = "0x1234567890123456789012345678901234567890";

/** The file parsed and checked as a dump (a torn file fails here), and its head block number. */
function readDump(file: string): { dump: StateDump; head: number } {
  const parsed = stateDumpSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success) throw new Error(`${file} is not a state dump: ${parsed.error.issues[0]?.message}`);
  const dump = JSON.parse(readFileSync(file, "utf8")) as StateDump;
  return { dump, head: Number(dump.head.number) };
}

describe("preconf node --state", function () {
  this.timeout(240_000);
  let dir: string;
  before(requireBuiltCli);
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "preconf-state-file-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("carries the chain across runs: a new chain when the file is absent, loaded (and named) the next time", async () => {
    const file = join(dir, "chain.json");
    const first = await startCli(["-p", "0", "-a", "2", "--mining", "manual", "--state", file]);
    expect(first.stdout()).to.include(`\nState:             ${file} does not exist yet: a new chain, written there on exit\n`);
    await rpc(first.url, "eth_sendTransaction", [{ from: ALICE, to: STRANGER, value: "0x7" }]);
    await rpc(first.url, "preconf_seal");
    const head = await rpc<{ hash: string; number: string }>(first.url, "eth_getBlockByNumber", ["latest", false]);
    const stopped = await first.stop("SIGINT");
    expect(stopped.code).to.equal(0);
    expect(stopped.stdout).to.include(`State dumped to ${file} (block 1)\n`);
    expect(readDump(file).head).to.equal(1);

    const second = await startCli(["-p", "0", "-a", "2", "--mining", "manual", "--state", file]);
    expect(second.stdout()).to.include(`\nState:             loaded from ${file}: block 1 (${head.hash})\n`);
    expect(await rpc(second.url, "eth_getBalance", [STRANGER, "latest"])).to.equal("0x7");
    await rpc(second.url, "preconf_seal");
    expect((await second.stop("SIGTERM")).code).to.equal(0);
    expect(readDump(file).head).to.equal(2);
  });

  it("--load-state x --dump-state x starts a new chain the first time (no ENOENT), and loads it the next", async () => {
    const file = join(dir, "same.json");
    const first = await startCli(["-p", "0", "--mining", "manual", "--load-state", file, "--dump-state", file]);
    await rpc(first.url, "preconf_seal");
    expect((await first.stop("SIGINT")).code).to.equal(0);
    const second = await startCli(["-p", "0", "--mining", "manual", "--load-state", file, "--dump-state", file]);
    expect(await rpc(second.url, "eth_blockNumber")).to.equal("0x1");
    expect((await second.stop("SIGINT")).code).to.equal(0);
  });

  it("periodic dumps are atomic: a reader and a SIGKILL at any moment find a complete dump, previous or next", async () => {
    const file = join(dir, "live.json");
    let lastSeen = -1;
    let killed: number | undefined;
    for (let round = 0; round < 3; round++) {
      // A fast chain (a block every 20 ms) and a dump every 10 ms: writes are nearly always under way.
      const cli = await startCli([
        "-p",
        "0",
        "-a",
        "3",
        "--quiet",
        "--fragment-interval",
        "10",
        "--fragments-per-block",
        "2",
        "--state",
        file,
        "--state-interval",
        "0.01",
      ]);
      if (round > 0) {
        // What the last run left behind (its temporary file included) did not stop this one.
        expect(Number(await rpc<string>(cli.url, "eth_blockNumber"))).to.be.at.least(lastSeen);
        expect(readdirSync(dir).filter((name) => name.includes(`.${killed}.`))).to.deep.equal([]);
      }
      let reads = 0;
      const until = Date.now() + 600 + round * 250;
      let sending = true;
      const traffic = (async () => {
        while (sending) await rpc(cli.url, "eth_sendTransaction", [{ from: ALICE, to: STRANGER, value: "0x1" }]).catch(() => undefined);
      })();
      while (Date.now() < until) {
        if (existsSync(file)) {
          const { head } = readDump(file);
          expect(head).to.be.at.least(lastSeen);
          lastSeen = head;
          reads++;
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      cli.kill("SIGKILL");
      killed = cli.pid;
      sending = false;
      await traffic;
      const { signal } = await cli.exited;
      expect(signal).to.equal("SIGKILL");
      expect(reads).to.be.greaterThan(0);
      // The file after the kill: complete, and a chain can start from it.
      const { dump, head } = readDump(file);
      expect(head).to.be.at.least(lastSeen);
      lastSeen = head;
      const provider = await createPreconfProvider({ state: dump, mining: "manual" });
      expect(await provider.request({ method: "eth_blockNumber" })).to.equal(`0x${head.toString(16)}`);
      await provider.close();
    }
  });

  it("a file that is not a dump is refused at start with one line and exit code 2", async () => {
    const file = join(dir, "torn.json");
    writeFileSync(file, '{"format":');
    const { runCli } = await import("./helpers/cli.ts");
    const result = await runCli(["node", "-p", "0", "--state", file]);
    expect(result.code).to.equal(2);
    expect(result.stderr).to.match(new RegExp(`^preconf: --state: ${file.replaceAll(/[.*+?^${}()|[\]\\]/g, "\\$&")} is not JSON: .+\\n$`));
  });
});
