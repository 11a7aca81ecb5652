/**
 * Scenario fixtures: every file of fixtures/scenarios/ as its own test (so CI runs them all), and
 * the runner itself: failure reports and diffs, malformed fixtures, determinism, the CLI.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readdirSync, readFileSync, rm, writeFile } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

import { expect } from "chai";

import { runScenario } from "../src/index.ts";
import { main } from "../src/cli.ts";
import { parseAmount } from "../src/scenario/amounts.ts";
import { runFixtureCommand } from "../src/scenario/cli.ts";
import { compare } from "../src/scenario/compare.ts";
import { ANY, Scope } from "../src/scenario/references.ts";
import { ScenarioFixtureError } from "../src/scenario/schema.ts";

import type { ScenarioResult } from "../src/index.ts";

const SCENARIOS = "fixtures/scenarios";
const files = readdirSync(SCENARIOS)
  .filter((name) => name.endsWith(".json"))
  .sort();

const failures = (result: ScenarioResult) =>
  result.steps
    .filter((step) => !step.passed)
    .map((step) => `steps[${step.index}] ${step.description}\n${step.diff ?? ""}`)
    .join("\n");

describe("scenario fixtures (fixtures/scenarios)", function () {
  it("the docs' example (examples/scenario.json, embedded in docs/fixtures.md) passes", async function () {
    const result = await runScenario(JSON.parse(readFileSync("examples/scenario.json", "utf8")) as object);
    expect(result.passed, failures(result)).to.equal(true);
  });

  it("has at least five fixtures", function () {
    expect(files.length).to.be.at.least(5);
  });

  for (const file of files) {
    it(file, async function () {
      const result = await runScenario(join(SCENARIOS, file));
      expect(result.passed, failures(result)).to.equal(true);
      expect(result.steps.length).to.be.greaterThan(0);
    });
  }
});

/** A transfer checked against a wrong balance and a wrong receipt status: meant to fail. */
const wrongExpectation = {
  name: "a fixture with wrong expectations",
  start: { accounts: { count: 2 } },
  steps: [
    { send: { from: 0, to: 1, value: "1 ether" }, as: "tx" },
    { advance: 1 },
    { receipt: "$tx", expect: { match: { status: "0x0", blockNumber: "0x1" } } },
    { balance: 1, block: "pending", expect: { result: "10002 ether" } },
    { call: "eth_chainId", expect: { result: "0x7a69" } },
  ],
};

describe("scenario runner", function () {
  describe("failure reports", function () {
    it("reports the failing steps with a diff of the path that differs, and runs every step", async function () {
      const result = await runScenario(wrongExpectation);
      expect(result.passed).to.equal(false);
      expect(result.steps.map((step) => step.passed)).to.deep.equal([true, true, false, false, true]);
      const receipt = result.steps[2]!;
      expect(receipt.index).to.equal(2);
      expect(receipt.description).to.equal('receipt of $tx ⇒ matches {"status":"0x0","blockNumber":"0x1"}');
      expect(receipt.diff).to.equal(["at result.status", '  expected: "0x0"', '  actual:   "0x1"'].join("\n"));
      expect(receipt.mismatches).to.deep.equal([{ path: "result.status", expected: "0x0", actual: "0x1" }]);
      // Quantities compared by value say so, in decimal.
      expect(result.steps[3]!.diff).to.include("at result (actual = 10001000000000000000000, expected 10002000000000000000000)");
      expect(result.steps[3]!.diff).to.include('expected: "10002 ether"');
    });

    it("a diff stays small: a few paths, long values cut", async function () {
      const result = await runScenario({
        name: "many mismatches",
        steps: [
          { send: { from: 0, to: 1 }, as: "tx" },
          { advance: 1 },
          {
            receipt: "$tx",
            expect: {
              match: { logsBloom: "0x01", status: "0x0", type: "0x0", gasUsed: "0x1", from: "$zeroAddress", to: "$zeroAddress", cumulativeGasUsed: "0x2" },
            },
          },
        ],
      });
      const diff = result.steps[2]!.diff!;
      expect(diff.split("\n")).to.have.length(5 * 3 + 1);
      expect(diff).to.match(/… and 2 more$/);
      expect(diff).to.include("… (516 chars)");
    });

    it("an unexpected error, an unexpected success and a bad reference fail their step", async function () {
      const result = await runScenario({
        name: "errors",
        steps: [
          { send: { from: 0, to: 1, nonce: 0 } },
          { send: { from: 0, to: 1, nonce: 0 }, description: "already known, but no error expected" },
          { call: "eth_chainId", expect: { error: { code: 4001, message: "User rejected the request" } } },
          { receipt: "$nope" },
          { send: { from: 25, to: 1 } },
        ],
      });
      expect(result.steps.map((step) => step.passed)).to.deep.equal([true, false, false, false, false]);
      expect(result.steps[1]!.diff).to.equal(
        ['at result (failed with {"code":-32000,"message":"already known"})', '  expected: "success"', "  actual:   (missing)"].join("\n"),
      );
      expect(result.steps[2]!.diff).to.include('at error (succeeded with "0x7a69")');
      expect(result.steps[3]!.diff).to.match(/^error: unknown reference \$nope \(known: accounts, artifacts/);
      expect(result.steps[4]!.diff).to.equal("error: no dev account 25 (the chain has 20)");
    });

    it("error data is compared when the fixture gives it", async function () {
      const result = await runScenario({
        name: "error data",
        start: { mining: "manual" },
        steps: [
          { send: { from: 0, to: 1, nonce: 0 } },
          { fragment: true },
          {
            send: { from: 0, to: 1, nonce: 0, value: 2 },
            expect: { error: { code: -32000, message: "nonce too low", data: { nextNonce: "0x2", txNonce: "0x0" } } },
          },
          { send: { from: 0, to: 1, nonce: 0, value: 3 }, expect: { error: { code: -32000, message: "nonce too low" } } },
        ],
      });
      expect(result.steps.map((step) => step.passed)).to.deep.equal([true, true, false, true]);
      expect(result.steps[2]!.mismatches).to.deep.equal([{ path: "error.data.nextNonce", expected: "0x2", actual: "0x1" }]);
    });
  });

  describe("steps", function () {
    it("at: reaches a fragment in interval and manual mode, and refuses one already past", async function () {
      for (const mining of ["interval", "manual"]) {
        const result = await runScenario({
          name: `at (${mining})`,
          start: { mining, fragmentsPerBlock: 4 },
          steps: [
            { at: { fragment: 2 } },
            { call: "eth_getBlockByNumber", params: ["pending", false], expect: { match: { number: "0x1" } } },
            { at: { block: 2, fragment: 0 } },
            { call: "eth_blockNumber", expect: { result: "0x1" } },
            { at: { block: 2, fragment: 0 }, description: "already there" },
            { at: { block: 1, fragment: 3 } },
            { at: { fragment: 4 } },
          ],
        });
        expect(
          result.steps.map((step) => step.passed),
          mining,
        ).to.deep.equal([true, true, true, true, true, false, false]);
        expect(result.steps[5]!.diff).to.equal("error: block 1 fragment 3 is already past");
        expect(result.steps[6]!.diff).to.equal("error: fragment 4 does not exist: a block has 4 fragments (0…3)");
      }
    });

    it("wait ticks the clock; captures hold results and RPC errors", async function () {
      const result = await runScenario({
        name: "wait",
        steps: [
          { call: "eth_blockNumber", as: "before" },
          { wait: 2000, description: "10 fragments of 200 ms" },
          { call: "eth_blockNumber", expect: { result: "0x1" } },
          { call: "eth_getBalance", params: ["0x12"], as: "failed", expect: { error: { code: -32602, message: "Invalid params" } } },
          { call: "eth_chainId", expect: { result: "$any" } },
        ],
      });
      expect(result.passed, failures(result)).to.equal(true);
      expect(result.captures.before).to.equal("0x0");
      expect(result.captures.failed).to.include({ code: -32602, message: "Invalid params" });
    });

    it("the start state: chain id, explicit accounts, clock start", async function () {
      const key = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
      const result = await runScenario({
        name: "start",
        start: { time: "2030-01-01T00:00:00Z", chainId: 8453, accounts: [{ privateKey: key, balance: "5 ether" }], fragmentsPerBlock: 1 },
        steps: [
          { call: "eth_chainId", expect: { result: "0x2105" } },
          { balance: 0, expect: { result: "5 ether" } },
          { send: { from: 0, to: "$zeroAddress", value: "1 gwei" }, as: "tx" },
          { advance: 1 },
          {
            call: "eth_getBlockByNumber",
            params: ["latest", false],
            expect: { match: { number: "0x1", timestamp: Date.parse("2030-01-01T00:00:01Z") / 1000 } },
          },
        ],
      });
      expect(result.passed, failures(result)).to.equal(true);
    });

    it("start.state: a preconf_dumpState dump is loaded before the first step", async function () {
      const dumped = await runScenario({
        name: "make a dump",
        steps: [
          { send: { from: 0, to: 1, value: "1 ether" } },
          { advance: 10 },
          { send: { from: 0, to: 1, value: "2 ether" } },
          { advance: 1, description: "the second transfer is only pre-confirmed" },
          { call: "preconf_dumpState", as: "dump" },
        ],
      });
      const fixture = {
        name: "from the dump",
        start: { state: dumped.captures.dump },
        steps: [
          { call: "eth_blockNumber", expect: { result: "0x1" } },
          { balance: 1, expect: { result: "10001 ether" } },
          { balance: 1, block: "pending", expect: { result: "10003 ether" } },
          { advance: 9 },
          { call: "eth_getBlockByNumber", params: ["latest", false], as: "block2", expect: { match: { number: "0x2" } } },
        ],
      };
      const first = await runScenario(fixture);
      expect(first.passed, failures(first)).to.equal(true);
      expect((await runScenario(fixture)).captures).to.deep.equal(first.captures);
      // A dump file is read relative to the fixture.
      const dir = await promisify(mkdtemp)(join(tmpdir(), "preconf-dump-"));
      await promisify(writeFile)(join(dir, "dump.json"), JSON.stringify(dumped.captures.dump));
      await promisify(writeFile)(join(dir, "fixture.json"), JSON.stringify({ ...fixture, start: { state: "dump.json" } }));
      const fromFile = await runScenario(join(dir, "fixture.json"));
      await promisify(rm)(dir, { recursive: true, force: true });
      expect(fromFile.captures).to.deep.equal(first.captures);
      const error = await runScenario({ name: "bad dump", start: { state: { format: "geth" } }, steps: [{ advance: 1 }] }).catch(
        (caught: Error) => caught.message,
      );
      expect(error).to.match(/^Invalid scenario fixture \(inline\) at start\.state\.format: /);
    });
  });

  describe("malformed fixtures", function () {
    const cases: [string, unknown, string][] = [
      ["no name", { steps: [{ advance: 1 }] }, "at name: Required"],
      ["no steps", { name: "x", steps: [] }, "at steps: Array must contain at least 1 element(s)"],
      [
        "a step without an action",
        { name: "x", steps: [{ advance: 1 }, { expect: { result: 1 } }] },
        "at steps[1]: needs exactly one action of send, call, receipt",
      ],
      [
        "a step with two actions",
        { name: "x", steps: [{ advance: 1, seal: true }] },
        "at steps[0]: needs exactly one action of send, call, receipt, balance, txStatus, advance, at, fragment, seal, wait, wallet (found advance, seal)",
      ],
      [
        "a bad amount",
        { name: "x", steps: [{ send: { from: 0, to: 1, value: "1 eth" } }] },
        'at steps[0].send.value: must be an amount (integer, "0x…", "123", "1.5 ether", "2 gwei") or a $reference',
      ],
      ["raw hex that is not hex", { name: "x", steps: [{ send: "0xzz" }] }, "at steps[0].send: must be 0x-hex bytes or a $reference"],
      ["an unknown key", { name: "x", steps: [{ call: "eth_chainId", expects: {} }] }, "at steps[0]: Unrecognized key(s) in object: 'expects'"],
      [
        "two expectations",
        { name: "x", steps: [{ call: "eth_chainId", expect: { result: 1, match: 1 } }] },
        "at steps[0].expect: needs exactly one of result, match, error (found result, match)",
      ],
      [
        "an error without message",
        { name: "x", steps: [{ call: "eth_chainId", expect: { error: { code: 1 } } }] },
        "at steps[0].expect.error.message: Required",
      ],
      [
        "a bad decision",
        { name: "x", wallet: { queue: { wallet_watchAsset: ["maybe"] } }, steps: [{ advance: 1 }] },
        "at wallet.queue.wallet_watchAsset[0]: Invalid enum value",
      ],
      [
        "a bad start option",
        { name: "x", start: { fragmentIntervalMs: 0 }, steps: [{ advance: 1 }] },
        "at start.fragmentIntervalMs: Number must be greater than 0",
      ],
      [
        "bad accounts",
        { name: "x", start: { accounts: { count: "3" } }, steps: [{ advance: 1 }] },
        "at start.accounts.count: Expected number, received string",
      ],
      ["a built-in capture name", { name: "x", steps: [{ call: "eth_chainId", as: "accounts" }] }, "at steps[0].as: must not be a built-in name"],
      [
        "an option the provider refuses",
        { name: "x", start: { coinbase: "0x12" }, steps: [{ advance: 1 }] },
        "at start: Invalid hardhat-preconf option coinbase: must be an address",
      ],
    ];
    for (const [title, fixture, message] of cases) {
      it(title, async function () {
        const error = await runScenario(fixture as object).then(
          () => expect.fail("expected a ScenarioFixtureError"),
          (caught: unknown) => caught,
        );
        expect(error).to.be.instanceOf(ScenarioFixtureError);
        expect((error as Error).message).to.include(`Invalid scenario fixture (inline) ${message}`);
      });
    }
  });

  describe("values", function () {
    it("amounts: integers, decimal and hex strings, units", function () {
      expect(parseAmount(7)).to.equal(7n);
      expect(parseAmount("0x10")).to.equal(16n);
      expect(parseAmount("1.5 ether")).to.equal(1_500_000_000_000_000_000n);
      expect(parseAmount("2 gwei")).to.equal(2_000_000_000n);
      expect(() => parseAmount("1.5 wei")).to.throw(/invalid amount/);
      expect(() => parseAmount(-1)).to.throw(/invalid amount/);
    });

    it("references, paths, $$ escapes and $calldata", function () {
      const scope = new Scope(["0x00000000000000000000000000000000000000aa"]);
      scope.set("receipt", { logs: [{ topics: ["0x01"] }] });
      expect(scope.resolve(["$receipt.logs.0.topics.0", "$accounts.0", "$$literal", "plain $ text"])).to.deep.equal([
        "0x01",
        "0x00000000000000000000000000000000000000aa",
        "$literal",
        "plain $ text",
      ]);
      expect(scope.resolve({ $calldata: "transfer(address,uint256)", args: ["$accounts.0", "1 gwei"] })).to.equal(
        "0xa9059cbb00000000000000000000000000000000000000000000000000000000000000aa000000000000000000000000000000000000000000000000000000003b9aca00",
      );
      expect(() => scope.resolve("$receipt.status")).to.throw('$receipt.status: $receipt has no "status"');
      expect(scope.resolve("$artifacts.Gate.contractName")).to.equal("Gate");
      expect(() => scope.resolve("$artifacts.Nope.bytecode")).to.throw('no artifact "Nope"');
    });

    it("compare: exact and partial, hex case, quantities by value", function () {
      expect(compare({ a: "0xAB", b: [1] }, { a: "0xab", b: ["0x1"], c: 2 }, "partial", "result")).to.deep.equal([]);
      expect(compare({ a: "0xAB" }, { a: "0xab", c: 2 }, "exact", "result")).to.deep.equal([
        { path: "result.c", expected: undefined, actual: 2, note: "not expected" },
      ]);
      expect(compare([1, 2], ["0x1"], "partial", "result")).to.deep.equal([{ path: "result", expected: [1, 2], actual: ["0x1"], note: "1 items, expected 2" }]);
      expect(compare({ a: null }, {}, "partial", "result")).to.deep.equal([{ path: "result.a", expected: null, actual: undefined }]);
      expect(compare({ a: ANY, b: ANY }, { a: 0 }, "partial", "result")).to.deep.equal([{ path: "result.b", expected: ANY, actual: undefined }]);
      expect(compare("1 gwei", "0x3b9aca00", "exact", "result")).to.deep.equal([]);
    });
  });

  describe("determinism", function () {
    it("the same scenario twice gives byte-identical blocks and results", async function () {
      const fixture = {
        name: "two blocks",
        start: { fragmentsPerBlock: 3 },
        steps: [
          { send: { from: 0, to: 1, value: "1 ether" }, as: "a" },
          { send: { from: 1, data: "$artifacts.Counter.bytecode" }, as: "deploy" },
          { advance: 3 },
          { call: "eth_getBlockByNumber", params: ["0x1", true], as: "block1" },
          { send: { from: 2, to: 0, value: 5 }, as: "b" },
          { seal: true, as: "block2" },
          { receipt: "$deploy", as: "deployReceipt" },
        ],
      };
      const first = await runScenario(fixture);
      const second = await runScenario(fixture);
      expect(first.passed, failures(first)).to.equal(true);
      const block1 = first.captures.block1 as { hash: string; transactions: unknown[] };
      expect(block1.transactions).to.have.length(2);
      expect(JSON.stringify(second.captures)).to.equal(JSON.stringify(first.captures));
      expect((second.captures.block2 as { hash: string }).hash).to.equal((first.captures.block2 as { hash: string }).hash);
    });
  });

  describe("preconf run-fixture", function () {
    let dir: string;
    let failing: string;
    let malformed: string;
    const passing = join(SCENARIOS, "preconfirm-then-seal.json");

    before(async function () {
      dir = await promisify(mkdtemp)(join(tmpdir(), "preconf-scenarios-"));
      failing = join(dir, "wrong-expectation.json");
      malformed = join(dir, "malformed.json");
      await promisify(writeFile)(failing, JSON.stringify(wrongExpectation));
      await promisify(writeFile)(malformed, '{ "name": "broken", "steps": [ { "advance": 0 } ] }');
    });
    after(async function () {
      await promisify(rm)(dir, { recursive: true, force: true });
    });

    async function run(paths: string[]) {
      let stdout = "";
      let stderr = "";
      const code = await runFixtureCommand(paths, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
      return { code, stdout, stderr };
    }

    it("exit 0 and one line per step when every fixture passes", async function () {
      const { code, stdout, stderr } = await run([passing]);
      expect(code).to.equal(0);
      expect(stderr).to.equal("");
      expect(stdout).to.match(/^PASS fixtures\/scenarios\/preconfirm-then-seal\.json — pre-confirmation then sealing\n/);
      expect(stdout).to.include("  ✓ [0] send #0 → #1 (value 1 ether) as $tx1\n");
      expect(stdout).to.match(/1 fixture: 1 passed, 0 failed\n$/);
    });

    it("exit 1 with the diff under each failing step", async function () {
      const { code, stdout } = await run([passing, failing]);
      expect(code).to.equal(1);
      expect(stdout).to.include(`FAIL ${failing} — a fixture with wrong expectations\n`);
      expect(stdout).to.include(
        '  ✗ [2] receipt of $tx ⇒ matches {"status":"0x0","blockNumber":"0x1"}\n      at result.status\n        expected: "0x0"\n        actual:   "0x1"\n',
      );
      expect(stdout).to.match(/2 fixtures: 1 passed, 1 failed\n$/);
    });

    it("exit 1 with the path for a malformed fixture, and usage without files", async function () {
      const { code, stderr } = await run([malformed]);
      expect(code).to.equal(1);
      expect(stderr).to.equal(`Invalid scenario fixture ${malformed} at steps[0].advance: Number must be greater than 0\n`);
      const notJson = join(dir, "not-json.json");
      await promisify(writeFile)(notJson, "{ name: ");
      expect((await run([notJson])).stderr).to.match(new RegExp(`^Invalid scenario fixture ${notJson} at \\(root\\): not valid JSON: `));
      expect((await run([])).code).to.equal(2);
      expect((await run([join(dir, "missing.json")])).stderr).to.include("ENOENT");
    });

    it("main dispatches run-fixture; a directory runs every *.json in it", async function () {
      const write = process.stdout.write;
      let printed = "";
      process.stdout.write = ((text: string) => {
        printed += text;
        return true;
      }) as typeof process.stdout.write;
      try {
        expect(await main(["run-fixture", SCENARIOS])).to.equal(0);
      } finally {
        process.stdout.write = write;
      }
      expect(printed).to.include(`${files.length} fixtures: ${files.length} passed, 0 failed`);
    });

    it("a state dump beside its fixture (start.state) is skipped, not run as a fixture", async function () {
      const dumped = await runScenario({ name: "make a dump", steps: [{ advance: 10 }, { call: "preconf_dumpState", as: "dump" }] });
      const withDump = await promisify(mkdtemp)(join(tmpdir(), "preconf-with-dump-"));
      try {
        const state = join(withDump, "state.json");
        await promisify(writeFile)(state, JSON.stringify(dumped.captures.dump));
        await promisify(writeFile)(
          join(withDump, "fixture.json"),
          JSON.stringify({ name: "from the dump beside it", start: { state: "state.json" }, steps: [{ call: "eth_blockNumber", expect: { result: "0x1" } }] }),
        );
        // A JSON file with another format is still a (malformed) fixture.
        const other = join(withDump, "other.json");
        await promisify(writeFile)(other, JSON.stringify({ format: "geth" }));
        const { code, stdout, stderr } = await run([withDump]);
        expect(stdout).to.include(`SKIP ${state} — a state dump (format "hardhat-preconf/state"), not a fixture\n`);
        expect(stdout).to.include(`PASS ${join(withDump, "fixture.json")} — from the dump beside it\n`);
        expect(stdout).to.include(`FAIL ${other}\n`);
        expect(stderr).to.not.include(state);
        expect(code).to.equal(1);
        expect(stdout).to.match(/2 fixtures: 1 passed, 1 failed\n$/);
        await promisify(rm)(other);
        expect(await run([withDump])).to.include({ code: 0, stderr: "" });
        // Named explicitly (a shell glob), it is skipped too; nothing else left: usage error.
        const alone = await run([state]);
        expect(alone.code).to.equal(1);
        expect(alone.stdout).to.include(`SKIP ${state}`);
      } finally {
        await promisify(rm)(withDump, { recursive: true, force: true });
      }
    });

    it("the real command: npx tsx src/cli.ts run-fixture exits 1 on a failing fixture", async function () {
      this.timeout(60_000);
      const outcome = await promisify(execFile)("npx", ["tsx", "src/cli.ts", "run-fixture", passing, failing]).then(
        ({ stdout }) => ({ code: 0, stdout }),
        (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
      );
      expect(outcome.code).to.equal(1);
      expect(outcome.stdout).to.include("✗ [2] receipt of $tx");
      expect(outcome.stdout).to.include("PASS fixtures/scenarios/preconfirm-then-seal.json");
    });
  });
});
