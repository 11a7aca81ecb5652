/**
 * The `preconf` command as a subprocess (dist/cli.js, started directly): the version, every bad
 * command line and bad value (one line on stderr, exit code 2, no stack trace, nothing served),
 * the request and transaction log (its exact lines for a transfer, a deploy with console.log and a
 * revert), `--quiet`, `--json`, anvil's names through `--print-config`, and `npm start` stopping on
 * SIGINT and SIGTERM sent to the PID it started. `npx preconf node` is exercised on the installed
 * tarball in test/consumer/.
 */
import { fork, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { validateMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english";
import { expect } from "chai";

import { main, parseNodeArgs } from "../src/cli.ts";
import { lowerTierUpThreshold, relaunchArgv } from "../src/cli/tierUp.ts";
import { mnemonicProblem } from "../src/node/common/bip39.ts";
import { canRelaunch, CLI, commandLineOf, requireBuiltCli, ROOT, rpc, runCli, startCli } from "./helpers/cli.ts";
import { CONSOLE_LOGGER_BYTECODE } from "./helpers/consoleLogger.ts";
import { accepts } from "./helpers/net.ts";

import type { Serving } from "./helpers/cli.ts";

const VERSION = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
const ALICE = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const BOB = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const ALICE_55 = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
const BOB_55 = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

describe("preconf CLI: the server's V8 tier-up (docs/cli.md#the-servers-process)", () => {
  const lower = (execArgv: string[]) => {
    const set: string[] = [];
    const changed = lowerTierUpThreshold(execArgv, (flags) => set.push(flags));
    return { changed, set };
  };

  it("lowers TurboFan's threshold to 500 invocations when Node was given none", () => {
    expect(lower(["--enable-source-maps", "--max-old-space-size=4096"])).to.deep.equal({ changed: true, set: ["--invocation-count-for-turbofan=500"] });
  });

  it("leaves a threshold given on Node's command line as it is", () => {
    expect(lower(["--invocation-count-for-turbofan=3000"])).to.deep.equal({ changed: false, set: [] });
    // V8 reads - and _ in a flag's name alike.
    expect(lower(["--invocation_count_for_turbofan=3000"])).to.deep.equal({ changed: false, set: [] });
    // A flag whose name only starts the same is another flag.
    expect(lower(["--invocation-count-for-turbofan-osr=3000"]).changed).to.equal(true);
  });

  it("starts the process again with a compile queue of 64, Node's options and the script's arguments kept in order", () => {
    expect(relaunchArgv(["--import", "tsx", "--enable-source-maps"], ["/usr/bin/node", "/app/bin/preconf.js", "node", "--port", "9545"])).to.deep.equal([
      "/usr/bin/node",
      "--concurrent-recompilation-queue-length=64",
      "--import",
      "tsx",
      "--enable-source-maps",
      "/app/bin/preconf.js",
      "node",
      "--port",
      "9545",
    ]);
  });

  it("does not start again when Node was given a queue length, or under an inspector", () => {
    const argv = ["/usr/bin/node", "/app/dist/cli.js", "node"];
    expect(relaunchArgv(["--concurrent-recompilation-queue-length=64"], argv)).to.equal(undefined);
    expect(relaunchArgv(["--concurrent_recompilation_queue_length=16"], argv)).to.equal(undefined);
    expect(relaunchArgv(["--inspect-brk=9229"], argv)).to.equal(undefined);
    expect(relaunchArgv(["--inspect"], argv)).to.equal(undefined);
    expect(relaunchArgv([], argv, "--max-old-space-size=4096 --inspect-brk")).to.equal(undefined);
    expect(relaunchArgv([], argv, "--max-old-space-size=4096")?.[1]).to.equal("--concurrent-recompilation-queue-length=64");
  });

  describe("main", () => {
    const original = (process as { execve?: unknown }).execve;
    let calls: unknown[][];
    let stderr: string;
    const writeStderr = process.stderr.write;
    beforeEach(() => {
      calls = [];
      stderr = "";
      (process as { execve?: unknown }).execve = (...args: unknown[]) => calls.push(args);
      process.stderr.write = ((text: string) => (stderr += text) !== undefined) as typeof process.stderr.write;
    });
    afterEach(() => {
      (process as { execve?: unknown }).execve = original;
      process.stderr.write = writeStderr;
      delete process.env.PRECONF_V8_RELAUNCHED;
    });
    // A command line that parses, then is refused by settleCommand, right after the relaunch point.
    // Under mocha, src/cli.ts loads as CommonJS and settle.ts (imported on demand) as ESM, so the
    // refusal's UsageError is another class's and escapes main here; the built CLI returns 2 for it
    // ("exit 2" tests below). What these tests look at is whether main started the process again.
    const refused = ["node", "--profile", "base", "--dump-state", "/nonexistent/state.json"];
    const run = (options?: { ownProcess: boolean }) => main(refused, options).catch((error: unknown) => (error as Error).message);
    const REFUSAL = /--dump-state is not supported with --profile base/;

    it("starts its own process again with the queue's flag and a marker, before it settles the command", async () => {
      expect(String(await run({ ownProcess: true })) + stderr).to.match(REFUSAL);
      expect(calls).to.have.length(1);
      const [file, args, env] = calls[0] as [string, string[], NodeJS.ProcessEnv];
      // This process's own command line (mocha's), as the entry points' would be theirs.
      expect(file).to.equal(process.execPath);
      expect(args).to.deep.equal(relaunchArgv(process.execArgv, process.argv, process.env.NODE_OPTIONS));
      expect(args[1]).to.equal("--concurrent-recompilation-queue-length=64");
      expect(env.PRECONF_V8_RELAUNCHED).to.equal("1");
    });

    it("does not start again in the process it started (the marker), and removes the marker", async () => {
      process.env.PRECONF_V8_RELAUNCHED = "1";
      expect(String(await run({ ownProcess: true })) + stderr).to.match(REFUSAL);
      expect(calls).to.deep.equal([]);
      expect(process.env.PRECONF_V8_RELAUNCHED).to.equal(undefined);
    });

    it("leaves a process it does not own alone (tests call main in theirs)", async () => {
      expect(String(await run()) + stderr).to.match(REFUSAL);
      expect(calls).to.deep.equal([]);
    });
  });

  it("runs the server with the queue flag on Node's command line, in the same process", async function () {
    if (!canRelaunch) this.skip(); // Linux's /proc and Node's process.execve (22.15 on)
    requireBuiltCli();
    const serving = await startCli(["--port", "0"]);
    try {
      // The pid the test spawned is the server's: the process replaced itself (no child).
      expect(commandLineOf(serving.pid)).to.deep.equal([process.execPath, "--concurrent-recompilation-queue-length=64", CLI, "node", "--port", "0"]);
      expect(await rpc(serving.url, "eth_chainId")).to.equal("0x7a69");
    } finally {
      await serving.stop();
    }
  });

  it("stays as started, still connected, when its parent forked it with an IPC channel", async function () {
    if (!canRelaunch) this.skip(); // Linux's /proc and Node's process.execve (22.15 on)
    requireBuiltCli();
    const child = fork(CLI, ["node", "--port", "0"], { cwd: ROOT, execArgv: [], stdio: ["ignore", "pipe", "pipe", "ipc"] });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        let output = "";
        child.stdout!.on("data", (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes("listening on")) resolve();
        });
        void exited.then(() => reject(new Error(`exited before listening:\n${output}`)));
      });
      expect(child.connected).to.equal(true);
      expect(commandLineOf(child.pid!)).to.deep.equal([process.execPath, CLI, "node", "--port", "0"]);
    } finally {
      child.kill("SIGTERM");
      await exited;
    }
  });
});

describe("preconf CLI: version and mnemonic", () => {
  before(requireBuiltCli);

  for (const flag of ["--version", "-v", "-V"]) {
    it(`preconf ${flag} prints the package version and exits 0`, async () => {
      const { code, stdout } = await runCli([flag]);
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
});

describe("preconf CLI: every flag and each of its names", () => {
  /** A valid value of each flag that takes one (a new flag without one here fails the test below). */
  const SAMPLES: Record<string, string | undefined> = {
    host: "localhost",
    port: "1234",
    cors: "http://a.test",
    "allowed-hosts": "box.lan",
    "max-body": "100",
    "max-batch": "5",
    "max-response": "1000",
    "batch-timeout": "10",
    "ws-max-subscriptions": "3",
    profile: "base",
    network: "optimism",
    "chain-id": "7",
    hardfork: "cancun",
    "gas-limit": "40000000",
    "block-base-fee-per-gas": "9",
    timestamp: "1700000000",
    coinbase: "0x0000000000000000000000000000000000000001",
    genesis: "g.json",
    import: "c.rlp",
    mining: "auto",
    "block-time": "4",
    "fragment-interval": "50",
    "fragments-per-block": "4",
    order: "fifo",
    accounts: "3",
    balance: "2.5",
    mnemonic: "legal winner thank year wave sausage worth useful legal winner thank yellow",
    "derivation-path": "m/44'/60'/1'/0",
    "wallet-policy": "reject",
    "wallet-personality": "coinbase",
    "wallet-connected": "false",
    state: "s.json",
    "state-interval": "2",
    "load-state": "l.json",
    "dump-state": "d.json",
    "state-history": "all",
    "block-history": "500",
    "prune-history": "3",
    "fork-url": "https://rpc.example",
    "fork-block-number": "5",
    "fork-chain-id": "10",
    "fork-header": "X-Key: k",
    "fork-cache-dir": "cache",
    retries: "2",
    "fork-retry-backoff": "50",
    timeout: "1000",
    "rpc.gascap": "1000",
    "rpc.evmtimeout": "100",
    "max-filters": "4",
    "txpool.slots": "9",
    "txpool.accountqueue": "8",
    "txpool.lifetime": "1000",
    "txpool.pricelimit": "1",
    color: "always",
    "config-out": "c.json",
    "code-size-limit": "100",
    "throw-on-transaction-failures": "false",
    "throw-on-call-failures": "false",
    "trace-format": "hardhat",
    "wallet-switch-on-add": "false",
    "wallet-preconfirmed-calls-status": "201",
    "max-subscriptions": "5",
  };
  /** Flags that only make sense with another one. */
  const NEEDS: Record<string, string[]> = {
    "fork-block-number": ["--fork-url", "https://rpc.example"],
    "fork-chain-id": ["--fork-url", "https://rpc.example"],
    "fork-header": ["--fork-url", "https://rpc.example"],
    "fork-cache-dir": ["--fork-url", "https://rpc.example"],
    retries: ["--fork-url", "https://rpc.example"],
    "fork-retry-backoff": ["--fork-url", "https://rpc.example"],
    timeout: ["--fork-url", "https://rpc.example"],
    "state-interval": ["--state", "s.json"],
    // The default already allows no origin: --no-cors undoes a --cors.
    "no-cors": ["--cors", "http://a.test"],
  };

  it("each flag, under its name, each alias and its short letter, sets the same thing", async () => {
    const { FLAGS } = await import("../src/cli/flags.ts");
    const without = (command: ReturnType<typeof parseNodeArgs>) => {
      if (command === "help") throw new Error("expected a command");
      const { given: _given, ...rest } = command;
      return rest;
    };
    for (const spec of FLAGS) {
      const value = spec.value === undefined ? [] : [SAMPLES[spec.name] ?? expect.fail(`no sample value for --${spec.name}`)];
      const extra = NEEDS[spec.name] ?? [];
      const canonical = without(parseNodeArgs([...extra, `--${spec.name}`, ...value]));
      expect(canonical, `--${spec.name} changes something`).to.not.deep.equal(without(parseNodeArgs(extra)));
      for (const name of [...(spec.aliases ?? []).map((alias) => `--${alias}`), ...(spec.short === undefined ? [] : [`-${spec.short}`])]) {
        expect(without(parseNodeArgs([...extra, name, ...value])), `${name} as --${spec.name}`).to.deep.equal(canonical);
      }
      if (value.length > 0) expect(without(parseNodeArgs([...extra, `--${spec.name}=${value[0]}`])), `--${spec.name}=…`).to.deep.equal(canonical);
    }
  });
});

describe("preconf CLI: bad command lines and values", function () {
  this.timeout(120_000);
  let dir: string;
  before(() => {
    requireBuiltCli();
    dir = mkdtempSync(join(tmpdir(), "preconf-cli-"));
    writeFileSync(join(dir, "genesis.json"), "{ not json");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Each: the arguments and the one line on stderr (after "preconf: "), exit code 2. */
  const cases = (): Array<[string[], string]> => [
    [["node", "--prot", "1"], "unknown option --prot (did you mean --port?); `preconf node --help` lists every option"],
    [["node", "--balance", "-5"], '--balance must be an amount of ETH ≥ 0 (up to 18 decimals), got "-5"'],
    [["node", "--host", "999.1.1.1"], '--host must be an IP address or a host name, got "999.1.1.1"'],
    [
      ["node", "--port", "0", "--host", "192.0.2.1"],
      '--host "192.0.2.1": no interface of this machine has that address (cannot listen on 192.0.2.1:0); use 127.0.0.1, 0.0.0.0 or one of its addresses',
    ],
    [["node", "-p", "99999"], '-p must be an integer from 0 to 65535, got "99999"'],
    [["node", "--port", "http"], '--port must be an integer from 0 to 65535, got "http"'],
    [["node", "--port"], "--port needs a value: -p, --port <n>"],
    [["node", "--accounts", "1.5"], '--accounts must be an integer ≥ 0, got "1.5"'],
    [["node", "--chain-id", "0"], '--chain-id "0": must be between 1 and 0xfffffffffffec'],
    [["node", "--profile", "bse"], '--profile "bse": must be dev, base, base-sepolia, base-denim, optimism or unichain (did you mean base?)'],
    [["node", "--hardfork", "pragu"], '--hardfork "pragu": must be paris, shanghai, cancun, prague or osaka (did you mean prague?)'],
    [["node", "--mining", "sometimes"], '--mining must be interval, auto or manual, got "sometimes"'],
    [["node", "--order", "fefo"], '--order must be fees or fifo, got "fefo" (did you mean fifo?)'],
    [["node", "--trace-format", "gath"], '--trace-format "gath": must be geth or hardhat (did you mean geth?)'],
    [["node", "--code-size-limit", "0"], '--code-size-limit must be an integer ≥ 1, got "0"'],
    [["node", "--throw-on-call-failures", "yes"], '--throw-on-call-failures must be true or false, got "yes"'],
    [["node", "--wallet-preconfirmed-calls-status", "300"], '--wallet-preconfirmed-calls-status must be 100, 200 or 201, got "300"'],
    [
      ["node", "--wallet-personality", "metamsk"],
      '--wallet-personality "metamsk": must be metamask, metamask-mobile, coinbase, base-account or eip (did you mean metamask?)',
    ],
    [["node", "--gas-limit", "lots"], '--gas-limit must be a non-negative integer (decimal or 0x hex), got "lots"'],
    [["node", "--gas-limit", "100"], '--gas-limit "100": must be at least 21000'],
    [
      ["node", "--block-time", "0.3", "--fragments-per-block", "7"],
      "--block-time 0.3 does not divide into 7 fragments of whole milliseconds: use a multiple of 7 ms, or set --fragments-per-block",
    ],
    [["node", "--no-mining", "--mining", "auto"], "--no-mining and --mining both set the same thing: give one of them"],
    [["node", "--port", "1", "--port", "2"], "--port is given twice: give it once"],
    [["node", "--fork-block-number", "3"], "--fork-block-number needs --fork-url"],
    [["node", "--fork-url", "ftp://example.com"], '--fork-url must be an http:// or https:// URL (optionally url@block), got "ftp://example.com"'],
    [["node", "--state-interval", "5"], "--state-interval needs --state or --dump-state: the file it writes"],
    [["node", "--cors", "http://a.example/"], '--cors: "http://a.example/" is not an origin: use "http://a.example"'],
    [
      ["node", "--mnemonic", "test test test test test test test test test test test test"],
      "--mnemonic is not a valid BIP-39 mnemonic: its checksum does not match (a word is wrong or out of order)",
    ],
    [
      ["node", "-p", "0", "--load-state", join(dir, "missing.json")],
      `--load-state: cannot read ${join(dir, "missing.json")}: ENOENT: no such file or directory, open '${join(dir, "missing.json")}'`,
    ],
    [
      ["node", "-p", "0", "--dump-state", join(dir, "no", "state.json")],
      `--dump-state: cannot write ${join(dir, "no", "state.json")}: ENOENT: no such file or directory, access '${join(dir, "no")}'`,
    ],
    [
      ["node", "-p", "0", "--genesis", join(dir, "genesis.json")],
      `--genesis: ${join(dir, "genesis.json")} is not JSON: Expected property name or '}' in JSON at position 2 (line 1 column 3)`,
    ],
    [["node", "serve"], 'unexpected argument "serve": preconf node takes options only (`preconf node --help`)'],
    [["nod"], 'unknown command "nod" (did you mean node?); `preconf --help` lists the commands'],
    [["--port", "8545"], "--port is an option of `preconf node`: run `preconf node --port 8545`"],
    [[], "which command? `preconf node` serves a chain; `preconf --help` lists everything"],
    [["run-fixture"], "run-fixture needs a fixture file or directory: preconf run-fixture FILE|DIR... (`preconf run-fixture --help`)"],
  ];

  it("each is one line naming the problem and its fix, exit code 2, and nothing served", async function () {
    this.timeout(300_000);
    const all = cases();
    const results: Awaited<ReturnType<typeof runCli>>[] = [];
    // A few at a time: each is a Node process, and the machine is shared.
    for (let i = 0; i < all.length; i += 4) results.push(...(await Promise.all(all.slice(i, i + 4).map(([args]) => runCli(args)))));
    results.forEach((result, i) => {
      const [args, line] = all[i]!;
      const what = `preconf ${args.join(" ")}`;
      expect(result.stderr, what).to.equal(`preconf: ${line}\n`);
      expect(result.code, what).to.equal(2);
      expect(result.stdout, what).to.equal("");
    });
  });

  it("a port in use is one line and exit code 1 (nothing is wrong with the command line)", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const result = await runCli(["node", "--port", String(port), "--quiet"]);
      expect(result.stderr).to.equal(
        `preconf: port ${port} on 127.0.0.1 is already in use: stop what serves it, or choose another with --port (0 picks a free one)\n`,
      );
      expect(result.code).to.equal(1);
    } finally {
      blocker.close();
    }
  });

  it("help only on --help: preconf node --help and preconf run-fixture --help print their usage and exit 0", async () => {
    const node = await runCli(["node", "--help"]);
    expect(node.code).to.equal(0);
    expect(node.stdout).to.match(/^Usage: preconf node \[options\]/);
    for (const flag of ["--block-time", "--state-interval", "--print-config", "--json", "--quiet", "--order"]) expect(node.stdout).to.include(flag);
    const fixture = await runCli(["run-fixture", "--help"]);
    expect(fixture.code).to.equal(0);
    expect(fixture.stdout).to.match(/^Usage: preconf run-fixture FILE\|DIR\.\.\./);
    expect(fixture.stderr).to.equal("");
  });
});

describe("preconf CLI: the request and transaction log", function () {
  this.timeout(120_000);
  let cli: Serving;
  before(async () => {
    requireBuiltCli();
    cli = await startCli(["-p", "0", "-a", "2", "--mining", "manual"]);
  });
  after(async () => {
    await cli?.stop("SIGTERM");
  });

  /** The log since `mark` (a length of stdout), as lines. */
  const linesSince = (mark: number) => cli.stdout().slice(mark).split("\n").slice(0, -1);

  it("starts with anvil's banner: checksummed accounts, keys, mnemonic, derivation path, then chain id, hardfork, base fee, gas limit and cadence", () => {
    const out = cli.stdout();
    expect(out).to.match(new RegExp(`^hardhat-preconf ${VERSION.replaceAll(".", "\\.")}\n`));
    expect(out).to.include(`\nAvailable Accounts\n==================\n\n(0) ${ALICE_55} (10000 ETH)\n(1) ${BOB_55} (10000 ETH)\n`);
    expect(out).to.include("\nPrivate Keys\n==================\n\n(0) 0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80\n");
    expect(out).to.include(
      "\nWallet\n==================\nMnemonic:          test test test test test test test test test test test junk\nDerivation path:   m/44'/60'/0'/0/\n",
    );
    expect(out).to.include(
      [
        "Chain ID:          31337",
        "Profile:           dev",
        "Hardfork:          osaka",
        "Base fee:          1000000000 (1 gwei)",
        "Gas limit:         60000000",
        "Cadence:           a fragment every 200 ms, 10 per block (a block every 2 s); mining manual: only when asked",
      ].join("\n"),
    );
    expect(out).to.match(/\nGenesis timestamp: \d+ \(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)\n/);
    expect(out).to.include(`\nhardhat-preconf listening on ${cli.url} (WebSocket ${cli.url.replace("http:", "ws:")})\n`);
    // Not a terminal: no colour codes.
    expect(out).to.not.include("\u001b[");
  });

  it("a transfer: the prompt, the request, the pre-confirmation, the seal", async () => {
    const mark = cli.stdout().length;
    const hash = await rpc<string>(cli.url, "eth_sendTransaction", [{ from: ALICE, to: BOB, value: "0xde0b6b3a7640000" }]);
    await rpc(cli.url, "preconf_fragment");
    await rpc(cli.url, "evm_mine");
    const block = await rpc<{ hash: string; number: string }>(cli.url, "eth_getBlockByNumber", ["latest", false]);
    // The log is written once per event-loop turn (src/cli/coalescedOutput.ts): wait for its last lines.
    await cli.waitFor("evm_mine\neth_getBlockByNumber\n");
    expect(linesSince(mark)).to.deep.equal([
      "Wallet prompt #1 eth_sendTransaction: approved",
      "eth_sendTransaction",
      `Transaction ${hash} pre-confirmed in block 1, fragment 0`,
      `  from ${ALICE_55} to ${BOB_55}, value 1 ETH, gas 21,000 of 21,000, success`,
      "preconf_fragment",
      `Block 1 sealed: 1 tx, gas 21,000, 1 fragment, hash ${block.hash}`,
      `  ${hash} (fragment 0)`,
      "evm_mine",
      "eth_getBlockByNumber",
    ]);
  });

  it("a deploy whose constructor logs, and a call that logs and reverts: contract created, console.log lines, the decoded reason", async () => {
    const mark = cli.stdout().length;
    const deploy = await rpc<string>(cli.url, "eth_sendTransaction", [{ from: ALICE, data: CONSOLE_LOGGER_BYTECODE }]);
    await rpc(cli.url, "preconf_fragment");
    const receipt = await rpc<{ contractAddress: string; gasUsed: string }>(cli.url, "eth_getTransactionReceipt", [deploy]);
    const deployTx = await rpc<{ gas: string }>(cli.url, "eth_getTransactionByHash", [deploy]);
    const contract = receipt.contractAddress;
    const failing = await rpc<string>(cli.url, "eth_sendTransaction", [{ from: ALICE, to: contract, data: "0xa9cc4718", gas: "0x186a0" }]);
    await rpc(cli.url, "preconf_fragment");
    const failed = await rpc<{ gasUsed: string; status: string }>(cli.url, "eth_getTransactionReceipt", [failing]);
    expect(failed.status).to.equal("0x0");
    const contract55 = (await import("viem")).getAddress(contract);
    const gas = (hex: string) => BigInt(hex).toLocaleString("en-US");
    await cli.waitFor(`console.log: failing for ${ALICE_55}\npreconf_fragment\neth_getTransactionReceipt\n`, 10_000);
    expect(linesSince(mark)).to.deep.equal([
      "Wallet prompt #2 eth_sendTransaction: approved",
      "eth_sendTransaction",
      `Transaction ${deploy} pre-confirmed in block 2, fragment 0`,
      `  from ${ALICE_55} created contract ${contract55}, value 0 ETH, gas ${gas(receipt.gasUsed)} of ${gas(deployTx.gas)}, success`,
      "  console.log: deployed",
      "preconf_fragment",
      "eth_getTransactionReceipt",
      "eth_getTransactionByHash",
      "Wallet prompt #3 eth_sendTransaction: approved",
      "eth_sendTransaction",
      `Transaction ${failing} pre-confirmed in block 2, fragment 1`,
      `  from ${ALICE_55} to ${contract55}, value 0 ETH, gas ${gas(failed.gasUsed)} of 100,000, reverted: nope`,
      `  console.log: failing for ${ALICE_55}`,
      "preconf_fragment",
      "eth_getTransactionReceipt",
    ]);
  });

  it("a failed request shows its error; a batch is one line; a run of the same line is counted once it ends", async () => {
    const mark = cli.stdout().length;
    await rpc(cli.url, "eth_call", [{ from: ALICE, to: ALICE, data: "0x" }, "nope"]).catch(() => undefined);
    for (let i = 0; i < 3; i++) await rpc(cli.url, "eth_blockNumber");
    await fetch(cli.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "eth_chainId" },
        { jsonrpc: "2.0", id: 2, method: "eth_nope" },
      ]),
    });
    await rpc(cli.url, "net_version");
    await cli.waitFor(/net_version\n$/);
    expect(linesSince(mark)).to.deep.equal([
      "eth_call  error -32602: Invalid params",
      "eth_blockNumber",
      "eth_blockNumber (×3)",
      "batch of 2: eth_chainId, eth_nope  eth_nope: error -32601: Method not found",
      "net_version",
    ]);
  });
});

describe("preconf CLI: --quiet, --json and anvil's names", function () {
  this.timeout(120_000);
  before(requireBuiltCli);

  it("--quiet prints where it listens and nothing else, whatever happens", async () => {
    const cli = await startCli(["-p", "0", "--quiet", "--mining", "manual"]);
    await rpc(cli.url, "eth_sendTransaction", [{ from: ALICE, to: BOB, value: "0x1" }]);
    await rpc(cli.url, "preconf_seal");
    const { stdout, stderr, code } = await cli.stop("SIGINT");
    expect(code).to.equal(0);
    expect(stderr).to.equal("");
    expect(stdout).to.equal(`hardhat-preconf listening on ${cli.url} (WebSocket ${cli.url.replace("http:", "ws:")})\n`);
  });

  it("--json: one JSON object per line — the start with the effective configuration, then requests, prompts, txs, blocks, the stop", async () => {
    const cli = await startCli(["-p", "0", "-a", "1", "--json", "--mining", "auto"]);
    const hash = await rpc<string>(cli.url, "eth_sendTransaction", [{ from: ALICE, to: BOB, value: "0x2" }]);
    const { stdout, code } = await cli.stop("SIGTERM");
    expect(code).to.equal(0);
    const events = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events.map((event) => event.type)).to.deep.equal(["start", "prompt", "transaction", "block", "request", "stop"]);
    const [start, prompt, tx, block, sent, stop] = events;
    expect(start).to.deep.include({ version: VERSION });
    expect(start!.server).to.deep.include({ host: "127.0.0.1", url: cli.url });
    expect(start!.mining).to.deep.equal({
      mode: "auto",
      fragmentIntervalMs: 200,
      fragmentsPerBlock: 10,
      blockTimeMs: 2000,
      order: "fees",
      allowBlocksWithSameTimestamp: false,
    });
    expect((start!.accounts as { addresses: string[] }).addresses).to.deep.equal([ALICE_55]);
    expect(prompt).to.deep.equal({ type: "prompt", event: "decided", id: 1, method: "eth_sendTransaction", chainId: "0x7a69", decision: "approve" });
    expect(tx).to.deep.equal({
      type: "transaction",
      event: "preconfirmed",
      hash,
      block: 1,
      fragment: 0,
      from: ALICE_55,
      to: BOB_55,
      contractAddress: null,
      value: "2",
      gasUsed: 21000,
      gasLimit: 21000,
      status: "success",
    });
    expect(block).to.include({ type: "block", number: 1, gasUsed: 21000, fragments: 1 });
    expect(block!.transactions).to.deep.equal([hash]);
    expect(sent).to.deep.equal({ type: "request", transport: "http", batch: false, calls: [{ method: "eth_sendTransaction" }] });
    expect(stop).to.deep.equal({ type: "stop", reason: "SIGTERM" });
  });

  it("anvil's and Hardhat's names set what ours do (--print-config shows the effective configuration)", async () => {
    const config = async (args: string[]) => {
      const result = await runCli(["node", ...args, "--print-config"]);
      expect(result.stderr, args.join(" ")).to.equal("");
      expect(result.code).to.equal(0);
      return JSON.parse(result.stdout) as Record<string, Record<string, unknown>>;
    };
    const anvil = await config([
      "-p",
      "9000",
      "-a",
      "3",
      "-m",
      "legal winner thank year wave sausage worth useful legal winner thank yellow",
      "--derivation-path",
      "m/44'/60'/0'/1/",
      "--balance",
      "5.5",
      "-b",
      "1",
      "--hardfork",
      "cancun",
      "--gas-limit",
      "40000000",
      "--base-fee",
      "7",
      "--chain-id",
      "1337",
      "--timestamp",
      "1700000000",
      "--order",
      "fifo",
      "--auto-impersonate",
      "--allow-origin",
      "http://localhost:3000",
      "--prune-history",
      "5",
      "--no-console-log",
    ]);
    expect(anvil.server).to.include({ port: 9000 });
    expect(anvil.server!.allowedOrigins).to.deep.equal(["http://localhost:3000"]);
    expect(anvil.chain).to.include({
      profile: "dev",
      chainId: "1337",
      hardfork: "cancun",
      blockGasLimit: "40000000",
      initialBaseFeePerGas: "7",
      genesisTimestamp: "1700000000",
    });
    expect(anvil.mining).to.deep.equal({
      mode: "interval",
      fragmentIntervalMs: 100,
      fragmentsPerBlock: 10,
      blockTimeMs: 1000,
      order: "fifo",
      allowBlocksWithSameTimestamp: false,
    });
    expect(anvil.accounts).to.include({
      // A custom mnemonic is never printed (its keys are, as the banner's).
      mnemonic: "(given with --mnemonic: not printed)",
      derivationPath: "m/44'/60'/0'/1/",
      balance: "5500000000000000000",
      autoImpersonate: true,
    });
    // The accounts of that mnemonic (BIP-39 test vector) at m/44'/60'/0'/1: not the default ones.
    expect(anvil.accounts!.addresses).to.have.length(3);
    expect(anvil.accounts!.addresses).to.not.include(ALICE_55);
    expect(anvil.state).to.include({ history: 5 });
    expect(anvil.log).to.include({ consoleLogs: false });

    const more = await config([
      "--no-mine",
      "-n",
      "ethereum",
      "--cache-path",
      "cache",
      "--rpc-url",
      "http://127.0.0.1:1@12",
      "--fork-header",
      "X-Key: 1",
      "--fork-chain-id",
      "10",
      "--retries",
      "1",
      "--timeout",
      "500",
      "--hostname",
      "localhost",
      "-q",
      "--init",
      "g.json",
    ]);
    expect(more.server).to.include({ host: "localhost" });
    expect(more.mining).to.include({ mode: "manual" });
    expect(more.chain).to.include({ profile: "dev", chainId: "10", genesisFile: "g.json" });
    expect(more.fork).to.deep.equal({ url: "http://127.0.0.1:1", blockNumber: "12", cacheDir: "cache", headers: ["X-Key"] });
    expect(more.log).to.include({ level: -1 });

    expect((await config(["--optimism"])).chain).to.include({ profile: "optimism" });

    const hardhat = await config(["--fork", "https://rpc.example", "--fork-block-number", "5", "-vv", "--json", "--color", "always"]);
    expect(hardhat.fork).to.include({ url: "https://rpc.example", blockNumber: "5" });
    expect(hardhat.log).to.include({ level: 2, json: true, color: "always" });
    expect(hardhat.chain).to.include({ chainId: null });

    // The defaults of Hardhat's semantics, the code size limit and the wallet.
    const defaults = await config([]);
    expect(defaults.chain).to.include({ codeSizeLimit: 24_576, allowUnlimitedContractSize: false });
    expect(defaults.hardhat).to.deep.equal({ throwOnTransactionFailures: true, throwOnCallFailures: true, traceFormat: "geth" });
    expect(defaults.wallet).to.deep.equal({ policy: "approve", personality: "metamask", connected: true, switchOnAdd: true, preconfirmedCallsStatus: 200 });
    expect(defaults.limits).to.include({ maxSubscriptions: 10_000 });

    const set = await config([
      "--code-size-limit",
      "100",
      "--throw-on-transaction-failures",
      "false",
      "--throw-on-call-failures=false",
      "--trace-format",
      "hardhat",
      "--wallet-personality",
      "base-account",
      "--wallet-connected",
      "false",
      "--wallet-switch-on-add",
      "false",
      "--wallet-preconfirmed-calls-status",
      "201",
      "--allow-blocks-with-same-timestamp",
      "--max-subscriptions",
      "7",
    ]);
    expect(set.chain).to.include({ codeSizeLimit: 100, allowUnlimitedContractSize: false });
    expect(set.mining).to.include({ allowBlocksWithSameTimestamp: true });
    expect(set.hardhat).to.deep.equal({ throwOnTransactionFailures: false, throwOnCallFailures: false, traceFormat: "hardhat" });
    expect(set.wallet).to.deep.equal({ policy: "approve", personality: "base-account", connected: false, switchOnAdd: false, preconfirmedCallsStatus: 201 });
    expect(set.limits).to.include({ maxSubscriptions: 7 });
    // Hardhat's name for anvil's --disable-code-size-limit.
    expect((await config(["--allow-unlimited-contract-size"])).chain).to.include({ codeSizeLimit: null, allowUnlimitedContractSize: true });
  });
});

describe("preconf CLI: code size limits and Hardhat's semantics over RPC", function () {
  this.timeout(120_000);
  let cli: Serving;
  before(async () => {
    requireBuiltCli();
    cli = await startCli([
      "-p",
      "0",
      "-a",
      "1",
      "-q",
      "--mining",
      "auto",
      "--code-size-limit",
      "100",
      "--throw-on-transaction-failures",
      "false",
      "--trace-format",
      "hardhat",
    ]);
  });
  after(async () => {
    await cli?.stop("SIGTERM");
  });

  /** Initcode that deploys `size` zero bytes: PUSH3 size, PUSH1 0, RETURN. */
  const returning = (size: number) => `0x62${size.toString(16).padStart(6, "0")}6000f3`;
  const deploy = async (data: string) => {
    const hash = await rpc<string>(cli.url, "eth_sendTransaction", [{ from: ALICE, data, gas: "0x100000" }]);
    const receipt = await rpc<{ status: string; contractAddress: string }>(cli.url, "eth_getTransactionReceipt", [hash]);
    const code = await rpc<string>(cli.url, "eth_getCode", [receipt.contractAddress, "latest"]);
    return { hash, status: receipt.status, size: (code.length - 2) / 2 };
  };

  it("--code-size-limit 100: 100 bytes deploy, 101 do not (a failed tx, answered by its hash under --throw-on-transaction-failures false), 201 bytes of initcode are refused", async () => {
    expect(await deploy(returning(100))).to.include({ status: "0x1", size: 100 });
    expect(await deploy(returning(101))).to.include({ status: "0x0", size: 0 });
    const refused = await rpc(cli.url, "eth_sendTransaction", [{ from: ALICE, data: `0x${"00".repeat(201)}`, gas: "0x100000" }]).then(
      () => expect.fail("201 bytes of initcode were accepted"),
      (error: { code: number; message: string }) => error,
    );
    expect(refused).to.include({ code: -32000, message: "max initcode size exceeded" });
  });

  it("without --throw-on-transaction-failures false (Hardhat's default) the same failed deploy answers Hardhat's error, its block mined", async () => {
    const strict = await startCli(["-p", "0", "-a", "1", "-q", "--mining", "auto", "--code-size-limit", "100"]);
    try {
      const error = await rpc(strict.url, "eth_sendTransaction", [{ from: ALICE, data: returning(101), gas: "0x100000" }]).then(
        () => expect.fail("the failed deploy was answered by its hash"),
        (thrown: { code: number; message: string }) => thrown,
      );
      expect(error).to.include({ code: -32603, message: "VM Exception while processing transaction: code size to deposit exceeds maximum code size" });
      expect(await rpc(strict.url, "eth_blockNumber")).to.equal("0x1");
    } finally {
      await strict.stop("SIGTERM");
    }
  });

  it("--trace-format hardhat: struct logs as Hardhat 2's node gives them (64-digit stack words without 0x)", async () => {
    const { hash } = await deploy(returning(1));
    const trace = await rpc<{ structLogs: Array<{ op: string; stack: string[] }> }>(cli.url, "debug_traceTransaction", [hash]);
    expect(trace.structLogs.map((step) => step.op)).to.deep.equal(["PUSH3", "PUSH1", "RETURN"]);
    expect(trace.structLogs[1]!.stack).to.deep.equal([`${"0".repeat(63)}1`]);
  });
});

describe("npm start: signals sent to the started PID", function () {
  this.timeout(120_000);

  before(requireBuiltCli);

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

  // --ignore-scripts skips prestart (the build): pretest has just built dist/.
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`${signal} to npm's PID stops the server; the port is free once npm has exited`, async () => {
      const started = await startServing("npm", ["start", "--ignore-scripts", "--silent", "--", "--port", "0"]);
      try {
        expect(await accepts(started.port)).to.equal(true);
        started.child.kill(signal);
        const { code } = await started.exited;
        expect(code, started.output()).to.equal(0);
        expect(started.output()).to.include(`Stopping (${signal})`);
        expect(await accepts(started.port)).to.equal(false);
      } finally {
        started.child.kill("SIGKILL");
      }
    });
  }
});
