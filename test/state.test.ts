/**
 * State dump and load (src/node/state/stateDump.ts, src/rpc/state.ts): preconf_dumpState /
 * preconf_loadState, the anvil_ envelope, the `state` option and `preconf node --dump-state /
 * --load-state / --genesis / --import`.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { expect } from "chai";
import { encodeFunctionData } from "viem";

import { main } from "../src/cli.ts";
import { createPreconfProvider, InvalidOptionsError } from "../src/index.ts";
import { devGethGenesis } from "../src/node/state/genesis.ts";
import { createTestChain, rpcError, START_MS } from "./helpers/chain.ts";
import { Counter } from "./helpers/contracts.ts";
import { send, signTx } from "./helpers/sign.ts";

import type { PreconfProvider } from "../src/index.ts";
import type { StateDump } from "../src/node/state/stateDump.ts";
import type { Hex } from "../src/rpc/schema.ts";

const ROOT = resolve(fileURLToPath(import.meta.url), "../..");
const STRANGER = "0x1234567890123456789012345678901234567890";
const WHALE = "0xab5801a7d398351b8be11c439e05c5b3259aec9b";
const CODE_HOLDER = "0x00000000000000000000000000000000c0dec0de";

async function call<T = unknown>(provider: PreconfProvider, method: string, params: unknown[] = []): Promise<T> {
  return (await provider.request({ method, params })) as T;
}

interface History {
  counter: Hex;
  txs: Hex[];
}

/**
 * Two sealed blocks (a deployment with storage, a raw transfer, a contract call, an impersonated
 * send), dev edits after them, an open block with two fragments and a pool with a pending and a
 * queued tx. Manual mining: nothing moves unless asked, so every run is the same.
 */
async function buildHistory(provider: PreconfProvider): Promise<History> {
  const [dev0, , dev2] = provider.accounts.map((account) => account.address);
  const txs: Hex[] = [];
  txs.push(await call<Hex>(provider, "eth_sendTransaction", [{ from: dev0, data: Counter.bytecode }]));
  txs.push(await send(provider, await signTx(provider, 1, { nonce: 0, to: STRANGER, value: 5n })));
  await provider.preconf.fragment();
  await provider.preconf.fragment();
  await provider.preconf.seal();
  const counter = (await call<{ contractAddress: Hex }>(provider, "eth_getTransactionReceipt", [txs[0]])).contractAddress;

  txs.push(
    await call<Hex>(provider, "eth_sendTransaction", [{ from: dev0, to: counter, data: encodeFunctionData({ abi: Counter.abi, functionName: "increment" }) }]),
  );
  await call(provider, "hardhat_setBalance", [WHALE, "0xde0b6b3a7640000"]);
  await call(provider, "hardhat_impersonateAccount", [WHALE]);
  txs.push(await call<Hex>(provider, "eth_sendTransaction", [{ from: WHALE, to: STRANGER, value: "0x7" }]));
  await provider.preconf.seal();

  // Dev edits after block 2, before the open block's first fragment: block 2's state as reads see it (src/node/state/stateEdits.ts).
  await call(provider, "hardhat_setBalance", [STRANGER, "0x64"]);
  await call(provider, "hardhat_setCode", [CODE_HOLDER, "0x600160005260206000f3"]);
  await call(provider, "hardhat_setStorageAt", [counter, "0x5", `0x${"00".repeat(31)}2a`]);
  await call(provider, "hardhat_setNonce", [dev2, "0x10"]);

  // The open block: one pre-confirmed tx in fragment 0, an empty fragment 1; then the pool.
  txs.push(await send(provider, await signTx(provider, 3, { nonce: 0, to: STRANGER, value: 1n })));
  await provider.preconf.fragment();
  await provider.preconf.fragment();
  txs.push(await send(provider, await signTx(provider, 4, { nonce: 0 })));
  txs.push(await send(provider, await signTx(provider, 4, { nonce: 2 })));
  return { counter, txs };
}

/** Every answer a client could compare: accounts (latest and pending), blocks, receipts, pool. */
async function observe(provider: PreconfProvider, dump: StateDump, txs: Hex[]): Promise<unknown> {
  const seen: Record<string, unknown> = {};
  const addresses = [...new Set([...Object.keys(dump.accounts), ...Object.keys(dump.head.accounts)])];
  for (const who of addresses) {
    const slots = [...new Set([...Object.keys(dump.accounts[who as Hex]?.storage ?? {}), ...Object.keys(dump.head.accounts[who as Hex]?.storage ?? {})])];
    for (const tag of ["latest", "pending"]) {
      seen[`${who}@${tag}`] = [
        await call(provider, "eth_getBalance", [who, tag]),
        await call(provider, "eth_getCode", [who, tag]),
        await call(provider, "eth_getTransactionCount", [who, tag]),
        ...(await Promise.all(slots.map((slot) => call(provider, "eth_getStorageAt", [who, slot, tag])))),
      ];
    }
  }
  const head = Number(await call<Hex>(provider, "eth_blockNumber"));
  for (let number = 0; number <= head; number++) seen[`block ${number}`] = await call(provider, "eth_getBlockByNumber", [`0x${number.toString(16)}`, true]);
  seen.pending = await call(provider, "eth_getBlockByNumber", ["pending", true]);
  for (const hash of txs) {
    seen[`receipt ${hash}`] = await call(provider, "eth_getTransactionReceipt", [hash]);
    seen[`status ${hash}`] = await call(provider, "preconf_transactionStatus", [hash]);
  }
  seen.pool = await call(provider, "txpool_content");
  return seen;
}

describe("state dump and load", () => {
  const opened: PreconfProvider[] = [];
  async function chain(options: Parameters<typeof createTestChain>[0] = {}) {
    const test = await createTestChain({ mining: "manual", ...options });
    opened.push(test.provider);
    return test;
  }
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((provider) => provider.close()));
  });

  describe("format", () => {
    it("is versioned JSON: accounts, storage, code, nonces, blocks with receipts, the open block and the pool", async () => {
      const { provider } = await chain();
      const { counter, txs } = await buildHistory(provider);
      const dump = await call<StateDump>(provider, "preconf_dumpState");
      expect(dump).to.include({ format: "hardhat-preconf/state", version: 1, chainId: "0x7a69" });
      expect(JSON.parse(JSON.stringify(dump))).to.deep.equal(dump);
      expect(dump.head.number).to.equal("0x2");
      expect(dump.head.hash).to.equal((await call<{ hash: Hex }>(provider, "eth_getBlockByNumber", ["latest", false])).hash);
      expect(dump.blocks.map((block) => block.receipts.length)).to.deep.equal([0, 2, 2]);
      expect(dump.blocks[1]!.fragments).to.equal(2);
      expect(dump.accounts[STRANGER]!.balance).to.equal("0x65"); // the edit, plus the open block's 1 wei
      expect(dump.accounts[CODE_HOLDER]!.code).to.equal("0x600160005260206000f3");
      expect(dump.accounts[counter.toLowerCase() as Hex]!.storage).to.deep.equal({
        [`0x${"00".repeat(32)}`]: `0x${"00".repeat(31)}01`,
        [`0x${"00".repeat(31)}05`]: `0x${"00".repeat(31)}2a`,
      });
      expect(dump.accounts[provider.accounts[2]!.address]!.nonce).to.equal("0x10");
      // The head block's state as reads see it (its edits included): the accounts the open block changed.
      expect(dump.head.accounts[STRANGER]!.balance).to.equal("0x64");
      expect(dump.open).to.deep.include({ fragments: 2 });
      expect(dump.open!.transactions.map((tx) => tx.fragment)).to.deep.equal([0]);
      expect(dump.pool.map((entry) => entry.from)).to.deep.equal([provider.accounts[4]!.address, provider.accounts[4]!.address]);
      expect(txs).to.have.length(7);
    });

    it("waits for queued work: a tx and a fragment asked for before the dump are in it", async () => {
      const { provider } = await chain();
      const sent = send(provider, await signTx(provider, 0, { nonce: 0 }));
      const fragment = provider.preconf.fragment();
      const dump = await provider.preconf.dumpState();
      await Promise.all([sent, fragment]);
      expect(dump.open!.transactions.map((tx) => tx.from)).to.deep.equal([provider.accounts[0]!.address]);
    });
  });

  describe("load", () => {
    it("a pooled tx of an impersonated contract survives the load and executes", async () => {
      const { provider } = await chain();
      await call(provider, "hardhat_setCode", [WHALE, "0x00"]);
      await call(provider, "hardhat_setBalance", [WHALE, "0xde0b6b3a7640000"]);
      await call(provider, "hardhat_impersonateAccount", [WHALE]);
      const hash = await call<Hex>(provider, "eth_sendTransaction", [{ from: WHALE, to: STRANGER, value: "0x7" }]);
      const { provider: loaded } = await chain({ state: await call<StateDump>(provider, "preconf_dumpState") });
      await loaded.preconf.fragment();
      expect(await call<{ status: string }>(loaded, "eth_getTransactionReceipt", [hash])).to.include({ status: "0x1" });
      expect(await call(loaded, "eth_getBalance", [STRANGER, "pending"])).to.equal("0x7");
    });

    it("an account deleted (EIP-161 touch) and created again has no storage, live and after a load", async () => {
      // @ethereumjs/statemanager keeps a deleted account's storage trie; src/node/ethereumjs/stateManager.ts drops it.
      const { provider } = await chain();
      const slot = `0x${"00".repeat(32)}`;
      const zero = `0x${"00".repeat(32)}`;
      await call(provider, "hardhat_setStorageAt", [STRANGER, "0x0", `0x${"00".repeat(31)}01`]);
      await provider.preconf.seal();
      const from = provider.accounts[0]!.address;
      await call(provider, "eth_sendTransaction", [{ from, to: STRANGER, value: "0x0" }]); // empty: deleted
      await provider.preconf.seal();
      await call(provider, "eth_sendTransaction", [{ from, to: STRANGER, value: "0x1" }]); // created again
      await provider.preconf.seal();
      await call(provider, "eth_sendTransaction", [{ from, to: from, value: "0x1" }]);
      await provider.preconf.seal();
      expect(await call(provider, "eth_getStorageAt", [STRANGER, slot, "latest"])).to.equal(zero);
      const dump = await call<StateDump>(provider, "preconf_dumpState");
      expect(dump.accounts[STRANGER]).to.deep.include({ balance: "0x1", storage: {} });
      const { provider: loaded } = await chain({ state: dump });
      expect(await call(loaded, "eth_getStorageAt", [STRANGER, slot, "latest"])).to.equal(zero);
    });

    it("into a fresh provider (preconf_loadState) answers every account, block, receipt and pooled tx the same", async () => {
      const { provider } = await chain();
      const { txs } = await buildHistory(provider);
      const dump = await call<StateDump>(provider, "preconf_dumpState");
      const { provider: fresh } = await chain();
      expect(await call(fresh, "preconf_loadState", [dump])).to.equal(true);
      expect(await observe(fresh, dump, txs)).to.deep.equal(await observe(provider, dump, txs));
    });

    it("through the `state` option gives the same chain", async () => {
      const { provider } = await chain();
      const { txs } = await buildHistory(provider);
      const dump = await provider.preconf.dumpState();
      const { provider: loaded } = await chain({ state: dump });
      expect(await observe(loaded, dump, txs)).to.deep.equal(await observe(provider, dump, txs));
    });

    it("round-trips exactly: dump → load → dump is the same JSON (object, anvil envelope and option)", async () => {
      const { provider } = await chain();
      await buildHistory(provider);
      const dump = JSON.stringify(await provider.preconf.dumpState());

      const { provider: viaRpc } = await chain();
      await viaRpc.preconf.loadState(JSON.parse(dump) as StateDump);
      expect(JSON.stringify(await viaRpc.preconf.dumpState())).to.equal(dump);

      const envelope = await call<Hex>(provider, "anvil_dumpState");
      expect(envelope).to.match(/^0x1f8b/); // gzip, as anvil answers
      const { provider: viaAnvil } = await chain();
      expect(await call(viaAnvil, "anvil_loadState", [envelope])).to.equal(true);
      expect(JSON.stringify(await viaAnvil.preconf.dumpState())).to.equal(dump);

      const { provider: viaOption } = await chain({ state: JSON.parse(dump) as StateDump });
      expect(JSON.stringify(await viaOption.preconf.dumpState())).to.equal(dump);
    });

    it("keeps a requested next timestamp and the time offset", async () => {
      const { provider } = await chain();
      await call(provider, "evm_increaseTime", [100]);
      await call(provider, "evm_setNextBlockTimestamp", [START_MS / 1000 + 5000]);
      const dump = await provider.preconf.dumpState();
      expect(dump.time).to.deep.equal({ offset: "0x64", nextTimestamp: `0x${(START_MS / 1000 + 5000).toString(16)}` });
      const { provider: loaded } = await chain({ state: dump });
      const sealed = await loaded.preconf.seal();
      expect(sealed.block.header.timestamp).to.equal(BigInt(START_MS / 1000 + 5000));
    });

    it("a loaded chain keeps pre-confirming and sealing, with the same hashes as the original", async () => {
      const { provider, clock } = await chain();
      const { txs } = await buildHistory(provider);
      const dump = await provider.preconf.dumpState();
      const { provider: loaded, clock: loadedClock } = await chain({ state: dump });

      const hashes: Hex[][] = [];
      for (const [p, c] of [
        [provider, clock],
        [loaded, loadedClock],
      ] as const) {
        const sealed: Hex[] = [];
        p.chain.on("sealed", (block) => sealed.push(block.hash));
        p.preconf.setMining("interval");
        await p.preconf.advance(8); // the open block's 8 missing fragments: it seals with the pool's tx
        await send(p, await signTx(p, 4, { nonce: 1 })); // fills the gap: the queued tx runs too
        await p.preconf.advance(10);
        expect(c.now).to.equal(START_MS + 18 * 200);
        hashes.push(sealed);
      }
      expect(hashes[0]).to.have.length(2);
      expect(hashes[1]).to.deep.equal(hashes[0]);
      const receipt = await call<{ blockNumber: Hex; blockHash: Hex }>(loaded, "eth_getTransactionReceipt", [txs[6]]);
      expect(receipt.blockNumber).to.equal("0x4");
      expect(receipt.blockHash).to.equal(hashes[1]![1]);
    });

    it("dev edits survive, and `latest` still shows the head block (with the edits that landed on it) while the open block has fragments", async () => {
      const { provider } = await chain();
      await buildHistory(provider);
      const { provider: loaded } = await chain({ state: await provider.preconf.dumpState() });
      expect(await call(loaded, "eth_getBalance", [STRANGER, "pending"])).to.equal("0x65");
      expect(await call(loaded, "eth_getBalance", [STRANGER, "latest"])).to.equal("0x64");
      expect(await call(loaded, "eth_getCode", [CODE_HOLDER, "pending"])).to.equal("0x600160005260206000f3");
      await loaded.preconf.seal();
      expect(await call(loaded, "eth_getBalance", [STRANGER, "latest"])).to.equal("0x65");
    });

    it("edits made before any fragment are shown by `latest` after the load", async () => {
      const { provider } = await chain();
      await provider.preconf.seal();
      await call(provider, "hardhat_setBalance", [STRANGER, "0x64"]);
      const dump = await provider.preconf.dumpState();
      expect(dump.open).to.equal(null);
      const { provider: loaded } = await chain({ state: dump });
      expect(await call(loaded, "eth_getBalance", [STRANGER, "latest"])).to.equal("0x64");
      expect(await call(loaded, "eth_getBalance", [STRANGER, "0x1"])).to.equal(await call(provider, "eth_getBalance", [STRANGER, "0x1"]));
    });

    it("state before the dump is not available: a clear error, while blocks and receipts still answer", async () => {
      const { provider } = await chain();
      const { txs } = await buildHistory(provider);
      const { provider: loaded } = await chain({ state: await provider.preconf.dumpState() });
      const dev0 = provider.accounts[0]!.address;
      for (const [method, params] of [
        ["eth_getBalance", [dev0, "0x1"]],
        ["eth_call", [{ to: dev0 }, "earliest"]],
      ] as const) {
        expect(await rpcError(loaded, method, params)).to.deep.equal({
          code: -32000,
          message: "historical state not available",
          data: { block: method === "eth_call" ? "0x0" : "0x1", loadedAt: "0x2" },
        });
      }
      expect(await call(loaded, "eth_getBalance", [dev0, "0x2"])).to.equal(await call(provider, "eth_getBalance", [dev0, "0x2"]));
      expect(await call(loaded, "eth_getTransactionReceipt", [txs[0]])).to.deep.equal(await call(provider, "eth_getTransactionReceipt", [txs[0]]));
    });

    it("a hand-edited dump loads: `latest` shows the edited state", async () => {
      const { provider } = await chain();
      await provider.preconf.seal();
      const dump = await provider.preconf.dumpState();
      const dev0 = provider.accounts[0]!.address;
      dump.accounts[dev0]!.balance = "0x1";
      const { provider: loaded } = await chain({ state: dump });
      expect(await call(loaded, "eth_getBalance", [dev0, "latest"])).to.equal("0x1");
      expect(await call(loaded, "eth_getBalance", [dev0, "0x1"])).to.equal("0x1");
      expect((await rpcError(loaded, "eth_getBalance", [dev0, "0x0"])).message).to.equal("historical state not available");
    });

    it("an imported chain (PoW to Prague, a blob tx, withdrawals) round-trips and keeps sealing", async () => {
      const dir = join(ROOT, "fixtures/chains/multifork");
      const { provider } = await chain({
        genesis: JSON.parse(readFileSync(join(dir, "genesis.json"), "utf8")) as StateDump["genesis"],
        chain: new Uint8Array(readFileSync(join(dir, "chain.rlp"))),
      });
      const dump = JSON.stringify(await provider.preconf.dumpState());
      const { provider: loaded } = await chain({ state: JSON.parse(dump) as StateDump });
      expect(JSON.stringify(await loaded.preconf.dumpState())).to.equal(dump);
      const head = await call<{ number: Hex }>(provider, "eth_getBlockByNumber", ["latest", true]);
      expect(await call(loaded, "eth_getBlockByNumber", ["latest", true])).to.deep.equal(head);
      expect((await loaded.preconf.seal()).block.header.number).to.equal(BigInt(head.number) + 1n);
    });

    it("replaces a running chain: snapshots taken before the load are used up", async () => {
      const { provider } = await chain();
      await buildHistory(provider);
      const dump = await provider.preconf.dumpState();
      const { provider: other } = await chain();
      const id = await call<Hex>(other, "evm_snapshot");
      await other.preconf.seal();
      await other.preconf.seal();
      await other.preconf.seal();
      await other.preconf.loadState(dump);
      expect(await call(other, "eth_blockNumber")).to.equal("0x2");
      expect(await call(other, "evm_revert", [id])).to.equal(false);
    });
  });

  describe("bad dumps", () => {
    let provider: PreconfProvider;
    let dump: StateDump;
    let before: string;

    beforeEach(async () => {
      ({ provider } = await chain());
      await buildHistory(provider);
      dump = await provider.preconf.dumpState();
      before = JSON.stringify(dump);
    });

    const dev0 = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
    const cases: [string, (dump: StateDump) => unknown, string][] = [
      ["another format", (d) => ({ ...d, format: "anvil" }), "params[0].format"],
      ["a newer version", (d) => ({ ...d, version: 2 }), "params[0].version"],
      ["no accounts", (d) => ({ ...d, accounts: undefined }), "params[0].accounts"],
      [
        "a balance with leading zeros",
        (d) => ({ ...d, accounts: { ...d.accounts, [dev0]: { ...d.accounts[dev0], balance: "0x01" } } }),
        `params[0].accounts.${dev0}.balance`,
      ],
      ["an unknown key", (d) => ({ ...d, extra: 1 }), "params[0]"],
      ["a block that is not RLP", (d) => ({ ...d, blocks: d.blocks.map((b, i) => (i === 1 ? { ...b, rlp: "0x1234" } : b)) }), "params[0].blocks[1].rlp"],
      ["missing receipts", (d) => ({ ...d, blocks: d.blocks.map((b, i) => (i === 1 ? { ...b, receipts: [] } : b)) }), "params[0].blocks[1].receipts"],
      ["blocks out of order", (d) => ({ ...d, blocks: [d.blocks[0], d.blocks[2], d.blocks[1]] }), "params[0].blocks[1].rlp"],
      ["a head that is not the last block", (d) => ({ ...d, head: { ...d.head, hash: `0x${"11".repeat(32)}` } }), "params[0].head"],
      ["another chain id", (d) => ({ ...d, chainId: "0x1" }), "params[0].chainId"],
      ["a pooled tx that does not decode", (d) => ({ ...d, pool: [{ raw: "0xdeadbeef", from: dev0 }] }), "params[0].pool[0].raw"],
      [
        "an open block on another parent",
        (d) => ({ ...d, open: { ...d.open, header: { ...d.open!.header, parentHash: `0x${"22".repeat(32)}` } } }),
        "params[0].open.header",
      ],
      ["not an object", () => 42, "params[0]"],
      ["hex that is not a dump", () => "0xdeadbeef", "params[0]"],
    ];
    for (const [name, corrupt, field] of cases) {
      it(`${name}: -32602 naming ${field}, nothing changed`, async () => {
        const error = await rpcError(provider, "preconf_loadState", [corrupt(JSON.parse(before) as StateDump)]);
        expect(error).to.deep.include({ code: -32602, message: "Invalid params" });
        expect((error.data as { field: string }).field).to.equal(field);
        expect(JSON.stringify(await provider.preconf.dumpState())).to.equal(before);
      });
    }

    it("a dump of another fork schedule is refused over JSON-RPC, and loads as the `state` option", async () => {
      const { provider: cancun } = await chain({ hardfork: "cancun" });
      const error = await rpcError(cancun, "preconf_loadState", [dump]);
      expect(error.data).to.deep.include({ field: "params[0].genesis.config" });
      const { provider: loaded } = await chain({ hardfork: "cancun", state: dump });
      expect(loaded.chain.common.hardfork()).to.equal("osaka");
    });

    it("the `state` option names the field, and refuses genesis or chain beside it", async () => {
      for (const [options, message] of [
        [{ state: { ...dump, version: 2 } }, /option state\.version/],
        [{ state: { ...dump, blocks: [dump.blocks[0], dump.blocks[2]] } }, /option state\.blocks\[1\]\.rlp/],
        [{ state: dump, genesis: dump.genesis }, /option state: a dump brings its own genesis/],
      ] as const) {
        const failure = await createPreconfProvider({ mining: "manual", ...(options as object) }).then(
          () => expect.fail("expected InvalidOptionsError"),
          (caught: unknown) => caught,
        );
        expect(failure).to.be.instanceOf(InvalidOptionsError);
        expect((failure as Error).message).to.match(message);
      }
    });
  });

  describe("preconf node --dump-state / --load-state / --genesis / --import", function () {
    // Spawns real processes (a real clock, manual mining: nothing happens unless asked).
    this.timeout(60_000);
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), "preconf-state-"));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    async function runCli(args: string[], work: (url: string) => Promise<void>): Promise<string> {
      const child = spawn(process.execPath, ["bin/preconf.js", "node", "--port", "0", "--mining", "manual", ...args], {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
      const url = await new Promise<string>((done, fail) => {
        const check = () => {
          const match = /listening on (http:\/\/\S+)/.exec(output);
          if (match !== null) done(match[1]!);
        };
        child.stdout.on("data", check);
        void exited.then(() => fail(new Error(`exited early:\n${output}`)));
      });
      try {
        await work(url);
      } finally {
        child.kill("SIGINT");
      }
      expect(await exited, output).to.equal(0);
      return output;
    }

    async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      });
      const body = (await response.json()) as { result?: T; error?: unknown };
      if (body.error !== undefined) throw new Error(JSON.stringify(body.error));
      return body.result as T;
    }

    /** Runs `preconf` in process for commands that end on their own; its stderr is captured. */
    async function cliFailure(args: string[]): Promise<{ code: number; stderr: string }> {
      let stderr = "";
      const write = process.stderr.write;
      process.stderr.write = ((chunk: string) => {
        stderr += chunk;
        return true;
      }) as typeof process.stderr.write;
      try {
        return { code: await main(["node", "--port", "0", ...args]), stderr };
      } finally {
        process.stderr.write = write;
      }
    }

    it("refuses at start, with one clear line, a dump path it cannot write and a chain file it cannot decode", async () => {
      const unwritable = await cliFailure(["--dump-state", join(dir, "missing", "state.json")]);
      expect(unwritable.code).to.equal(2);
      expect(unwritable.stderr).to.match(/^preconf: --dump-state: cannot write .*state\.json: ENOENT/);
      const file = join(dir, "chain.rlp");
      writeFileSync(file, Uint8Array.of(0xf8, 0xff, 0x01));
      const undecodable = await cliFailure(["--import", file]);
      expect(undecodable.code).to.equal(2);
      expect(undecodable.stderr).to.match(/^preconf: --import ".*chain\.rlp": block at index 0: invalid RLP/);
      expect(undecodable.stderr.split("\n").filter(Boolean)).to.have.length(1);
    });

    it("dumps on Ctrl-C and starts again from the dump", async () => {
      const file = join(dir, "state.json");
      let head = "";
      const output = await runCli(["--dump-state", file], async (url) => {
        await rpc(url, "eth_sendTransaction", [{ from: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", to: STRANGER, value: "0x3" }]);
        await rpc(url, "preconf_seal");
        await rpc(url, "hardhat_setBalance", [WHALE, "0x42"]);
        head = (await rpc<{ hash: string }>(url, "eth_getBlockByNumber", ["latest", false])).hash;
      });
      expect(output).to.include(`State dumped to ${file} (block 1)`);
      const dump = JSON.parse(readFileSync(file, "utf8")) as StateDump;
      expect(dump.head).to.include({ number: "0x1", hash: head });

      await runCli(["--load-state", file], async (url) => {
        expect(await rpc(url, "eth_blockNumber")).to.equal("0x1");
        expect((await rpc<{ hash: string }>(url, "eth_getBlockByNumber", ["latest", false])).hash).to.equal(head);
        expect(await rpc(url, "eth_getBalance", [STRANGER, "latest"])).to.equal("0x3");
        expect(await rpc(url, "eth_getBalance", [WHALE, "latest"])).to.equal("0x42");
        await rpc(url, "preconf_seal");
        expect(await rpc(url, "eth_blockNumber")).to.equal("0x2");
      });
    });

    it("--genesis and --import start from a geth genesis and its blocks", async () => {
      const rich = "0x00000000000000000000000000000000000000aa";
      const genesis = JSON.parse(
        JSON.stringify(
          devGethGenesis({
            chainId: 1337n,
            hardfork: "prague",
            gasLimit: 30_000_000n,
            baseFeePerGas: 1_000_000_000n,
            timestamp: BigInt(START_MS / 1000),
            alloc: new Map([[rich, { balance: 123_456n }]]),
          }),
        ),
      ) as StateDump["genesis"];
      // The blocks: sealed by an in-process chain on that genesis.
      const { provider } = await chain({ genesis });
      const blocks = [await provider.preconf.seal(), await provider.preconf.seal()];
      writeFileSync(join(dir, "genesis.json"), JSON.stringify(genesis));
      writeFileSync(join(dir, "chain.rlp"), Buffer.concat(blocks.map((sealed) => sealed.block.serialize())));

      await runCli(["--genesis", join(dir, "genesis.json"), "--import", join(dir, "chain.rlp")], async (url) => {
        expect(await rpc(url, "eth_chainId")).to.equal("0x539");
        expect(await rpc(url, "eth_blockNumber")).to.equal("0x2");
        expect((await rpc<{ hash: string }>(url, "eth_getBlockByNumber", ["latest", false])).hash).to.equal(blocks[1]!.hash);
        expect(await rpc(url, "eth_getBalance", [rich, "latest"])).to.equal("0x1e240");
      });
    });

    it("a file that cannot be read is an error naming the flag", async () => {
      const child = spawn(process.execPath, ["bin/preconf.js", "node", "--port", "0", "--load-state", join(dir, "missing.json")], {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      expect(await new Promise((done) => child.once("exit", done))).to.equal(2);
      expect(stderr).to.match(/^preconf: --load-state: cannot read .*missing\.json/);
    });
  });
});
