/**
 * Forking (docs/forking.md) against an upstream that runs in process: a preconf chain served on
 * 127.0.0.1 with some history (a token deployed, transfers, storage writes over several blocks) is
 * forked at a past block by a second chain. No internet.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { expect } from "chai";
import { decodeFunctionResult, encodeDeployData, encodeFunctionData, parseEther } from "viem";
import { privateKeyToAccount } from "viem/accounts";

import { startServer } from "../src/index.ts";
import { parseNodeArgs } from "../src/cli.ts";
import { providerOptionsOf, resolvePreconfConfig, validatePreconfConfig } from "../src/hardhat/config.ts";
import { createTestChain, rpcError } from "./helpers/chain.ts";
import { Token } from "./helpers/contracts.ts";

import type { AddressInfo } from "node:net";
import type { Hex, TransactionSerializable } from "viem";
import type { PreconfProvider, RunningServer } from "../src/index.ts";

const CHAIN_ID = 4242;
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const RECIPIENT = "0x000000000000000000000000000000000000dEaD" as Hex;
const HOLDER = "0x00000000000000000000000000000000000a11ce" as Hex;
const FRESH = "0x000000000000000000000000000000000000beef" as Hex;
/** Runtime code: returns BLOCKHASH(calldata[0..32]). */
const BLOCKHASH_READER = "0x60003540600052602060" + "00f3";

type Request = (method: string, params?: unknown[]) => Promise<unknown>;
const requester =
  (provider: PreconfProvider): Request =>
  (method, params = []) =>
    provider.request({ method, params });

async function signed(provider: PreconfProvider, chainId: number, from: number, tx: Partial<TransactionSerializable> & { nonce: number }): Promise<Hex> {
  const account = privateKeyToAccount(provider.accounts[from]!.privateKey);
  return account.signTransaction({ chainId, gas: 1_000_000n, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n, ...tx } as TransactionSerializable);
}

const balanceOfCall = (who: Hex) => encodeFunctionData({ abi: Token.abi, functionName: "balanceOf", args: [who] });
const decodeBalance = (data: unknown) => decodeFunctionResult({ abi: Token.abi, functionName: "balanceOf", data: data as Hex }) as bigint;

describe("fork", function () {
  this.timeout(20_000);
  let upstream: PreconfProvider;
  let server: RunningServer;
  let up: Request;
  let token: Hex;
  let deployTx: Hex;
  let laterTx: Hex;
  /** Upstream facts at the fork block (2). */
  let atFork: { recipient: string; holderTokens: bigint; nonce0: string; code: string; slot: string; hash1: Hex; hash2: Hex };

  before(async () => {
    upstream = (await createTestChain({ chainId: CHAIN_ID, mining: "manual" })).provider;
    server = await startServer(upstream, { port: 0 });
    up = requester(upstream);
    const send = async (raw: Hex) => (await up("eth_sendRawTransaction", [raw])) as Hex;
    // Block 1: the token (1000 to account 0) and 1 ETH to RECIPIENT.
    deployTx = await send(
      await signed(upstream, CHAIN_ID, 0, { nonce: 0, data: encodeDeployData({ abi: Token.abi, bytecode: Token.bytecode, args: ["T", "T", 1000n] }) }),
    );
    await send(await signed(upstream, CHAIN_ID, 0, { nonce: 1, to: RECIPIENT, value: parseEther("1") }));
    await upstream.preconf.seal();
    token = ((await up("eth_getTransactionReceipt", [deployTx])) as { contractAddress: Hex }).contractAddress;
    // Block 2: 300 tokens to HOLDER, 1 more ETH to RECIPIENT.
    const transfer = encodeFunctionData({ abi: Token.abi, functionName: "transfer", args: [HOLDER, 300n] });
    await send(await signed(upstream, CHAIN_ID, 0, { nonce: 2, to: token, data: transfer }));
    await send(await signed(upstream, CHAIN_ID, 0, { nonce: 3, to: RECIPIENT, value: parseEther("1") }));
    await upstream.preconf.seal();
    // Block 3: after the fork block; the fork must not see it.
    laterTx = await send(await signed(upstream, CHAIN_ID, 0, { nonce: 4, to: RECIPIENT, value: parseEther("5") }));
    await upstream.preconf.seal();
    atFork = {
      recipient: (await up("eth_getBalance", [RECIPIENT, "0x2"])) as string,
      holderTokens: decodeBalance(await up("eth_call", [{ to: token, data: balanceOfCall(HOLDER) }, "0x2"])),
      nonce0: (await up("eth_getTransactionCount", [upstream.accounts[0]!.address, "0x2"])) as string,
      code: (await up("eth_getCode", [token, "0x2"])) as string,
      slot: (await up("eth_getStorageAt", [token, "0x2", "0x2"])) as string,
      hash1: ((await up("eth_getBlockByNumber", ["0x1", false])) as { hash: Hex }).hash,
      hash2: ((await up("eth_getBlockByNumber", ["0x2", false])) as { hash: Hex }).hash,
    };
  });

  after(async () => {
    await server.close();
    await upstream.close();
  });

  describe("at a past block", () => {
    let fork: PreconfProvider;
    let rpc: Request;
    beforeEach(async () => {
      fork = (await createTestChain({ fork: { url: server.url, blockNumber: 2 }, mining: "manual" })).provider;
      rpc = requester(fork);
    });
    afterEach(async () => fork.close());

    it("answers earliest from the upstream's block 0, and a dry run at earliest is no internal error", async () => {
      const earliest = (await rpc("eth_getBlockByNumber", ["earliest", false])) as { number: Hex; hash: Hex };
      const upstream0 = (await up("eth_getBlockByNumber", ["0x0", false])) as { hash: Hex };
      expect(earliest.number).to.equal("0x0");
      expect(earliest.hash).to.equal(upstream0.hash);
      expect(await rpc("eth_getBalance", [RECIPIENT, "earliest"])).to.equal(await up("eth_getBalance", [RECIPIENT, "0x0"]));
      const trace = (await rpc("debug_traceCall", [{ to: RECIPIENT }, "earliest", { tracer: "callTracer" }])) as { type: string };
      expect(trace.type).to.equal("CALL");
    });

    it("continues the upstream's chain from the fork block, with its chain id", async () => {
      expect(await rpc("eth_chainId")).to.equal(`0x${CHAIN_ID.toString(16)}`);
      expect(await rpc("eth_blockNumber")).to.equal("0x2");
      const sealed = await fork.preconf.seal();
      expect(sealed.block.header.number).to.equal(3n);
      const block3 = (await rpc("eth_getBlockByNumber", ["0x3", false])) as { parentHash: Hex; timestamp: Hex; hash: Hex };
      expect(block3.parentHash).to.equal(atFork.hash2);
      const upstream2 = (await up("eth_getBlockByNumber", ["0x2", false])) as { timestamp: Hex };
      expect(BigInt(block3.timestamp) > BigInt(upstream2.timestamp)).to.equal(true);
      // The upstream's own block 3 is another block.
      expect(block3.hash).not.to.equal(((await up("eth_getBlockByNumber", ["0x3", false])) as { hash: Hex }).hash);
      const metadata = (await rpc("hardhat_metadata")) as { forkedNetwork: unknown };
      expect(metadata.forkedNetwork).to.deep.equal({ chainId: CHAIN_ID, forkBlockNumber: 2, forkBlockHash: atFork.hash2 });
    });

    it("reads balances, nonces, code and storage as the upstream had them at the fork block", async () => {
      expect(await rpc("eth_getBalance", [RECIPIENT, "latest"])).to.equal(atFork.recipient);
      expect(await rpc("eth_getBalance", [RECIPIENT, "latest"])).not.to.equal(await up("eth_getBalance", [RECIPIENT, "latest"]));
      expect(await rpc("eth_getTransactionCount", [fork.accounts[0]!.address, "latest"])).to.equal(atFork.nonce0);
      expect(await rpc("eth_getCode", [token, "latest"])).to.equal(atFork.code);
      expect(await rpc("eth_getStorageAt", [token, "0x2", "latest"])).to.equal(atFork.slot);
      expect(decodeBalance(await rpc("eth_call", [{ to: token, data: balanceOfCall(HOLDER) }, "latest"]))).to.equal(atFork.holderTokens);
      // Blocks before the fork block are the upstream's too.
      expect(await rpc("eth_getBalance", [RECIPIENT, "0x1"])).to.equal(await up("eth_getBalance", [RECIPIENT, "0x1"]));
      // So are calls there.
      const atBlock1 = await up("eth_call", [{ to: token, data: balanceOfCall(HOLDER) }, "0x1"]);
      expect(decodeBalance(atBlock1)).to.equal(0n);
      expect(await rpc("eth_call", [{ to: token, data: balanceOfCall(HOLDER) }, "0x1"])).to.equal(atBlock1);
      expect(await rpc("eth_estimateGas", [{ to: RECIPIENT, value: "0x1" }, "0x1"])).to.equal("0x5208");
      // The dev accounts are funded as on any dev chain.
      expect(await rpc("eth_getBalance", [fork.accounts[0]!.address, "latest"])).to.equal(`0x${(10_000n * 10n ** 18n).toString(16)}`);
    });

    it("answers blocks, txs, receipts and logs up to the fork block from the upstream, and nothing after it", async () => {
      expect(await rpc("eth_getBlockByNumber", ["0x1", true])).to.deep.equal(await up("eth_getBlockByNumber", ["0x1", true]));
      expect(await rpc("eth_getBlockByHash", [atFork.hash2, false])).to.deep.equal(await up("eth_getBlockByNumber", ["0x2", false]));
      expect(await rpc("eth_getTransactionByHash", [deployTx])).to.deep.equal(await up("eth_getTransactionByHash", [deployTx]));
      expect(await rpc("eth_getTransactionReceipt", [deployTx])).to.deep.equal(await up("eth_getTransactionReceipt", [deployTx]));
      expect(await rpc("eth_getBlockTransactionCountByHash", [atFork.hash2])).to.equal("0x2");
      expect(await rpc("eth_getBlockTransactionCountByNumber", ["0x1"])).to.equal("0x2");
      expect(await rpc("eth_getTransactionByBlockHashAndIndex", [atFork.hash1, "0x0"])).to.deep.equal(await up("eth_getTransactionByHash", [deployTx]));
      expect(await rpc("eth_getTransactionByBlockNumberAndIndex", ["0x1", "0x0"])).to.deep.equal(await up("eth_getTransactionByHash", [deployTx]));
      const upstream3 = ((await up("eth_getBlockByNumber", ["0x3", false])) as { hash: Hex }).hash;
      expect(await rpc("eth_getBlockByHash", [upstream3, false])).to.equal(null);
      expect(await rpc("eth_getBlockTransactionCountByHash", [upstream3])).to.equal(null);
      expect(await rpc("eth_getTransactionByHash", [laterTx])).to.equal(null);
      expect(await rpc("eth_getTransactionReceipt", [laterTx])).to.equal(null);
      const upstreamLogs = await up("eth_getLogs", [{ fromBlock: "0x0", toBlock: "0x2", address: token }]);
      expect(upstreamLogs).to.have.length(2);
      expect(await rpc("eth_getLogs", [{ fromBlock: "0x0", toBlock: "latest", address: token }])).to.deep.equal(upstreamLogs);
    });

    it("runs new txs on the forked state and leaves the upstream untouched; a slot emptied here reads zero", async () => {
      const send = async (raw: Hex) => (await rpc("eth_sendRawTransaction", [raw])) as Hex;
      const nonce = Number(atFork.nonce0);
      // Account 0 holds 700 tokens at the fork block: all of them go to account 1 (its slot becomes zero).
      await send(
        await signed(fork, CHAIN_ID, 0, {
          nonce,
          to: token,
          data: encodeFunctionData({ abi: Token.abi, functionName: "transfer", args: [fork.accounts[1]!.address, 700n] }),
        }),
      );
      await send(await signed(fork, CHAIN_ID, 0, { nonce: nonce + 1, to: RECIPIENT, value: 7n }));
      await fork.preconf.seal();
      const tokensOf = async (request: Request, who: Hex, block = "latest") =>
        decodeBalance(await request("eth_call", [{ to: token, data: balanceOfCall(who) }, block]));
      expect(await tokensOf(rpc, fork.accounts[0]!.address)).to.equal(0n);
      expect(await tokensOf(rpc, fork.accounts[1]!.address)).to.equal(700n);
      expect(await tokensOf(rpc, HOLDER)).to.equal(300n);
      expect(BigInt((await rpc("eth_getBalance", [RECIPIENT, "latest"])) as string)).to.equal(BigInt(atFork.recipient) + 7n);
      // The fork block's state is still the upstream's.
      expect(await tokensOf(rpc, fork.accounts[0]!.address, "0x2")).to.equal(700n);
      expect(await tokensOf(up, fork.accounts[0]!.address)).to.equal(700n);
      expect(await up("eth_blockNumber")).to.equal("0x3");
    });

    it("state roots depend on the txs run, not on the reads made before them", async () => {
      const other = (await createTestChain({ fork: { url: server.url, blockNumber: 2 }, mining: "manual" })).provider;
      try {
        // Reads on one fork only: code, storage and balances of accounts the tx also touches.
        await rpc("eth_getBalance", [RECIPIENT, "pending"]);
        await rpc("eth_call", [{ to: token, data: balanceOfCall(HOLDER) }, "pending"]);
        await rpc("eth_getStorageAt", [token, "0x2", "pending"]);
        const raw = await signed(fork, CHAIN_ID, 0, {
          nonce: Number(atFork.nonce0),
          to: token,
          data: encodeFunctionData({ abi: Token.abi, functionName: "transfer", args: [RECIPIENT, 5n] }),
        });
        const sealed = [];
        for (const provider of [fork, other]) {
          await provider.request({ method: "eth_sendRawTransaction", params: [raw] });
          sealed.push(await provider.preconf.seal());
        }
        expect(sealed[0]!.block.header.stateRoot).to.deep.equal(sealed[1]!.block.header.stateRoot);
        expect(sealed[0]!.hash).to.equal(sealed[1]!.hash);
      } finally {
        await other.close();
      }
    });

    it("pre-confirms on top of the fork: a tx in a fragment is read at pending before the seal", async () => {
      const raw = await signed(fork, CHAIN_ID, 0, { nonce: Number(atFork.nonce0), to: RECIPIENT, value: 9n });
      const hash = await rpc("eth_sendRawTransaction", [raw]);
      const fragment = await fork.preconf.fragment();
      expect(fragment.transactions.map((record) => record.hash)).to.deep.equal([hash]);
      expect(BigInt((await rpc("eth_getBalance", [RECIPIENT, "pending"])) as string)).to.equal(BigInt(atFork.recipient) + 9n);
      expect(await rpc("eth_getBalance", [RECIPIENT, "latest"])).to.equal(atFork.recipient);
      expect(((await rpc("eth_getTransactionReceipt", [hash])) as { blockNumber: Hex }).blockNumber).to.equal("0x3");
    });

    it("BLOCKHASH of forked blocks is the upstream's", async () => {
      const reader = "0x00000000000000000000000000000000000b10c4";
      await rpc("hardhat_setCode", [reader, BLOCKHASH_READER]);
      const blockhash = (number: number, block: string) => rpc("eth_call", [{ to: reader, data: `0x${number.toString(16).padStart(64, "0")}` }, block]);
      // In the fork block itself (a state view of it), and in the open block on top of it.
      expect(await blockhash(1, "latest")).to.equal(atFork.hash1);
      await fork.preconf.fragment();
      expect(await blockhash(1, "pending")).to.equal(atFork.hash1);
      expect(await blockhash(2, "pending")).to.equal(atFork.hash2);
      // Blocks sealed on the fork are the fork's own.
      const sealed = await fork.preconf.seal();
      await fork.preconf.fragment();
      expect(await blockhash(3, "pending")).to.equal(sealed.hash);
    });

    it("dev methods edit forked accounts; a revert brings back the upstream's values", async () => {
      const snapshot = await rpc("evm_snapshot");
      await rpc("hardhat_setBalance", [RECIPIENT, "0x5"]);
      await rpc("hardhat_setStorageAt", [token, "0x2", `0x${"00".repeat(31)}07`]);
      await rpc("hardhat_setCode", [token, "0x00"]);
      expect(await rpc("eth_getBalance", [RECIPIENT, "latest"])).to.equal("0x5");
      expect(await rpc("eth_getStorageAt", [token, "0x2", "latest"])).to.equal(`0x${"00".repeat(31)}07`);
      expect(await rpc("eth_getCode", [token, "latest"])).to.equal("0x00");
      expect(await rpc("evm_revert", [snapshot])).to.equal(true);
      expect(await rpc("eth_getBalance", [RECIPIENT, "latest"])).to.equal(atFork.recipient);
      expect(await rpc("eth_getStorageAt", [token, "0x2", "latest"])).to.equal(atFork.slot);
      expect(await rpc("eth_getCode", [token, "latest"])).to.equal(atFork.code);
    });

    it("impersonates an upstream account", async () => {
      await rpc("hardhat_impersonateAccount", [RECIPIENT]);
      const hash = await rpc("eth_sendTransaction", [{ from: RECIPIENT, to: HOLDER, value: "0x3" }]);
      await fork.preconf.seal();
      expect(((await rpc("eth_getTransactionReceipt", [hash])) as { status: Hex }).status).to.equal("0x1");
      expect(await rpc("eth_getBalance", [HOLDER, "latest"])).to.equal("0x3");
    });

    it("a state dump of the fork loads again, into a new fork of the same block or the running one", async () => {
      const send = async (raw: Hex) => (await rpc("eth_sendRawTransaction", [raw])) as Hex;
      const nonce = Number(atFork.nonce0);
      await send(
        await signed(fork, CHAIN_ID, 0, {
          nonce,
          to: token,
          data: encodeFunctionData({ abi: Token.abi, functionName: "transfer", args: [fork.accounts[1]!.address, 700n] }),
        }),
      );
      await fork.preconf.seal();
      await rpc("hardhat_setBalance", [RECIPIENT, "0x5"]);
      await rpc("hardhat_setStorageAt", [token, "0x9", `0x${"00".repeat(31)}09`]);
      const pending = await send(await signed(fork, CHAIN_ID, 0, { nonce: nonce + 1, to: FRESH, value: 4n }));
      await fork.preconf.fragment();
      const dump = (await rpc("preconf_dumpState")) as { fork: unknown; accounts: Record<string, unknown> };
      expect(dump.fork).to.deep.equal({ blockNumber: "0x2", blockHash: atFork.hash2 });
      // Only what the fork wrote is in it (the token's untouched holder is the upstream's).
      expect(Object.keys(dump.accounts)).not.to.include(HOLDER.toLowerCase());

      const facts = async (request: Request) => ({
        block: await request("eth_getBlockByNumber", ["0x3", false]),
        tokens0: decodeBalance(await request("eth_call", [{ to: token, data: balanceOfCall(fork.accounts[0]!.address) }, "latest"])),
        tokens1: decodeBalance(await request("eth_call", [{ to: token, data: balanceOfCall(fork.accounts[1]!.address) }, "latest"])),
        holderTokens: decodeBalance(await request("eth_call", [{ to: token, data: balanceOfCall(HOLDER) }, "latest"])),
        recipient: await request("eth_getBalance", [RECIPIENT, "pending"]),
        recipientAtHead: await request("eth_getBalance", [RECIPIENT, "latest"]),
        slot9: await request("eth_getStorageAt", [token, "0x9", "pending"]),
        freshPending: await request("eth_getBalance", [FRESH, "pending"]),
        receipt: await request("eth_getTransactionReceipt", [pending]),
        code: await request("eth_getCode", [token, "latest"]),
      });
      const before = await facts(rpc);
      expect(before).to.deep.include({
        tokens0: 0n,
        tokens1: 700n,
        holderTokens: 300n,
        recipient: "0x5",
        // The edit came after block 3 and before the open block's first fragment: it is block 3's state (src/node/state/stateEdits.ts).
        recipientAtHead: "0x5",
        slot9: `0x${"00".repeat(31)}09`,
        freshPending: "0x4",
        code: atFork.code,
      });

      const loaded = (await createTestChain({ fork: { url: server.url, blockNumber: 2 }, state: dump as never, mining: "manual" })).provider;
      try {
        expect(await facts(requester(loaded))).to.deep.equal(before);
        // And it goes on: the next block follows the dumped one.
        expect((await loaded.preconf.seal()).block.header.number).to.equal(4n);
      } finally {
        await loaded.close();
      }
      await rpc("hardhat_setBalance", [RECIPIENT, "0x77"]);
      expect(await rpc("preconf_loadState", [dump])).to.equal(true);
      expect(await facts(rpc)).to.deep.equal(before);
    });

    it("a dump of a fork loads only into a fork of the same block", async () => {
      const dump = await rpc("preconf_dumpState");
      const { provider: local } = await createTestChain({ chainId: CHAIN_ID });
      try {
        const error = await rpcError(local, "preconf_loadState", [dump]);
        expect(error.data).to.deep.equal({
          field: "params[0].fork",
          reason: "the dump is of a fork of block 2: load it into a fork of that block (the fork option with the state option)",
        });
      } finally {
        await local.close();
      }
      const other = (await createTestChain({ fork: { url: server.url, blockNumber: 1 }, mining: "manual" })).provider;
      try {
        const error = await rpcError(other, "preconf_loadState", [dump]);
        expect(error.data).to.deep.equal({
          field: "params[0].fork",
          reason: `this chain forks block 1 (${atFork.hash1}); the dump is of a fork of block 2 (${atFork.hash2})`,
        });
        expect(await requester(other)("eth_blockNumber")).to.equal("0x1");
      } finally {
        await other.close();
      }
    });

    it("hardhat_reset with forking moves to another block of the upstream", async () => {
      await fork.preconf.seal();
      expect(await rpc("hardhat_reset", [{ forking: { jsonRpcUrl: server.url, blockNumber: 1 } }])).to.equal(true);
      expect(await rpc("eth_blockNumber")).to.equal("0x1");
      expect(await rpc("eth_getBalance", [RECIPIENT, "latest"])).to.equal(await up("eth_getBalance", [RECIPIENT, "0x1"]));
      expect(((await rpc("hardhat_metadata")) as { forkedNetwork: { forkBlockNumber: number } }).forkedNetwork.forkBlockNumber).to.equal(1);
      // A reset without params returns to that fork.
      await fork.preconf.seal();
      await rpc("anvil_reset", []);
      expect(await rpc("eth_blockNumber")).to.equal("0x1");
    });
  });

  it("a disk cache lets a second run ask the upstream nothing", async () => {
    let requests = 0;
    const proxy = createServer((req, res) => {
      requests++;
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        void fetch(server.url, { method: "POST", headers: { "content-type": "application/json" }, body: Buffer.concat(chunks) }).then(async (answer) =>
          res.writeHead(answer.status, { "content-type": "application/json" }).end(await answer.text()),
        );
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const cacheDir = mkdtempSync(join(tmpdir(), "preconf-fork-"));
    const run = async () => {
      const fork = (await createTestChain({ fork: { url, blockNumber: 2, cacheDir }, mining: "manual" })).provider;
      const rpc = requester(fork);
      const answers = [
        await rpc("eth_getBalance", [RECIPIENT, "latest"]),
        await rpc("eth_call", [{ to: token, data: balanceOfCall(HOLDER) }, "latest"]),
        await rpc("eth_getBlockByNumber", ["0x1", false]),
      ];
      await rpc("eth_sendRawTransaction", [await signed(fork, CHAIN_ID, 0, { nonce: Number(atFork.nonce0), to: RECIPIENT, value: 1n })]);
      await fork.preconf.seal();
      await fork.close();
      return answers;
    };
    try {
      const first = await run();
      expect(requests).to.be.greaterThan(0);
      requests = 0;
      expect(await run()).to.deep.equal(first);
      expect(requests).to.equal(0);
    } finally {
      proxy.close();
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });

  it("an upstream that is down, or lacks the block, is a clear error", async () => {
    const down = await createTestChain({ fork: { url: "http://127.0.0.1:1", blockNumber: 1 } }).then(
      () => undefined,
      (error: unknown) => error as { code: number; message: string },
    );
    expect(down?.code).to.equal(-32603);
    expect(down?.message).to.match(/^fork upstream http:\/\/127\.0\.0\.1:1 is unreachable \(.+\) after 4 attempts$/);
    const missing = await createTestChain({ fork: { url: server.url, blockNumber: 99 } }).then(
      () => undefined,
      (error: unknown) => error as { message: string },
    );
    expect(missing?.message).to.equal(`fork upstream ${server.url} has no block 99 (its latest is 3)`);
  });

  it("the fork block's hash: an upstream's uppercase hash is kept lowercase; one that is not 32 bytes of hex refuses the fork", async () => {
    // A proxy that rewrites the hash of every block the upstream answers.
    let rewrite = (hash: string) => hash;
    const proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        void fetch(server.url, { method: "POST", headers: { "content-type": "application/json" }, body: Buffer.concat(chunks) }).then(async (answer) => {
          const rewritten = JSON.stringify(JSON.parse(await answer.text()), (key, value: unknown) =>
            key === "hash" && typeof value === "string" ? rewrite(value) : value,
          );
          res.writeHead(answer.status, { "content-type": "application/json" }).end(rewritten);
        });
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    try {
      const upstreamHash = (
        (await requester((await createTestChain({ fork: { url: server.url, blockNumber: 2 } })).provider)("eth_getBlockByNumber", ["0x2", false])) as {
          hash: string;
        }
      ).hash;
      rewrite = (hash) => `0x${hash.slice(2).toUpperCase()}`;
      const fork = (await createTestChain({ fork: { url, blockNumber: 2 }, mining: "manual" })).provider;
      try {
        const rpc = requester(fork);
        await rpc("eth_sendRawTransaction", [await signed(fork, CHAIN_ID, 0, { nonce: Number(atFork.nonce0), to: RECIPIENT, value: 1n })]);
        await fork.preconf.seal();
        expect(((await rpc("eth_getBlockByNumber", ["0x3", false])) as { parentHash: string }).parentHash).to.equal(upstreamHash.toLowerCase());
      } finally {
        await fork.close();
      }
      for (const bad of ["0x1234", `0x${"a".repeat(63)}`, `0x${"g".repeat(64)}`]) {
        rewrite = () => bad;
        const refused = await createTestChain({ fork: { url, blockNumber: 2 } }).then(
          () => undefined,
          (error: unknown) => error as { message: string },
        );
        expect(refused?.message, bad).to.equal(`fork upstream ${url} answered block 2 without a 32-byte hash: "${bad}"`);
      }
    } finally {
      proxy.close();
    }
  });

  it("an upstream that goes down mid-run: what was read still answers, a new read is a clear error", async () => {
    const second = await startServer(upstream, { port: 0 });
    const fork = (await createTestChain({ fork: { url: second.url, blockNumber: 2 }, mining: "manual" })).provider;
    try {
      const rpc = requester(fork);
      expect(await rpc("eth_getBalance", [RECIPIENT, "latest"])).to.equal(atFork.recipient);
      await second.close();
      expect(await rpc("eth_getBalance", [RECIPIENT, "latest"])).to.equal(atFork.recipient);
      const error = await rpcError(fork, "eth_getBalance", [HOLDER, "latest"]);
      expect(error.code).to.equal(-32603);
      expect(error.message).to.match(new RegExp(`^fork upstream ${second.url} is unreachable \\(.+\\) after 4 attempts$`));
      const call = await rpcError(fork, "eth_call", [{ to: token, data: balanceOfCall(HOLDER) }, "latest"]);
      expect(call.message).to.match(/^fork upstream .* is unreachable/);
    } finally {
      await fork.close();
    }
  });

  it("refuses a fork option with a chain id, and a reset onto another chain", async () => {
    const { provider } = await createTestChain();
    try {
      const error = await rpcError(provider, "hardhat_reset", [{ forking: { jsonRpcUrl: server.url } }]);
      expect(error.code).to.equal(-32602);
      expect(error.data).to.deep.equal({
        field: "params[0].forking.jsonRpcUrl",
        reason: `the upstream's chain id ${CHAIN_ID} is not this chain's (31337): start a new provider with the fork option to fork another chain`,
      });
    } finally {
      await provider.close();
    }
    let thrown: Error | undefined;
    await createTestChain({ fork: { url: server.url }, chainId: 5 }).catch((error: Error) => (thrown = error));
    expect(thrown?.message).to.equal("Invalid hardhat-preconf option fork: a fork takes its chain id and blocks from the upstream: leave out chainId");
    thrown = undefined;
    await createTestChain({ fork: { url: server.url }, profile: "base" }).catch((error: Error) => (thrown = error));
    expect((thrown as Error | undefined)?.message).to.equal(
      `Invalid hardhat-preconf option profile: the base profile is chain 8453, but the fork upstream is chain ${CHAIN_ID}: leave out profile to run with the dev profile`,
    );
  });

  describe("configuration", () => {
    it("--fork-url, --fork-block-number, --fork-cache-dir, --fork-header, --fork-chain-id, --retries and --timeout become the fork option", () => {
      const command = parseNodeArgs(["--fork-url", "https://base.example/v2/key", "--fork-block-number", "123", "--fork-cache-dir", "/tmp/c"]);
      expect(command !== "help" && command.provider.fork).to.deep.equal({ url: "https://base.example/v2/key", blockNumber: 123n, cacheDir: "/tmp/c" });
      // anvil's spellings: url@block, -f, repeated headers.
      const anvil = parseNodeArgs([
        "-f",
        "https://base.example@77",
        "--fork-header",
        "X-Api-Key: k",
        "--fork-header",
        "Authorization: Bearer t",
        "--fork-chain-id",
        "8453",
        "--retries",
        "0",
        "--timeout",
        "900",
        "--fork-retry-backoff",
        "10",
      ]);
      expect(anvil !== "help" && anvil.provider.fork).to.deep.equal({
        url: "https://base.example",
        blockNumber: 77n,
        headers: { "X-Api-Key": "k", Authorization: "Bearer t" },
        chainId: 8453n,
        retries: 0,
        timeoutMs: 900,
        retryBackoffMs: 10,
      });
      expect(() => parseNodeArgs(["--fork-block-number", "1", "--fork-cache-dir", "/tmp/c"])).to.throw(
        "--fork-block-number or --fork-cache-dir need --fork-url",
      );
      expect(() => parseNodeArgs(["--fork-url", "http://x", "--fork-block-number", "latest"])).to.throw(
        '--fork-block-number must be a non-negative integer (decimal or 0x hex), got "latest"',
      );
      expect(() => parseNodeArgs(["--fork-url", "http://x", "--fork-header", "no colon"])).to.throw('--fork-header must be "Name: value", got "no colon"');
    });

    it("a fork's chain id given (--fork-chain-id) is not asked of the upstream", async () => {
      const asked: string[] = [];
      const proxy = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (chunk: Buffer) => chunks.push(chunk));
        req.on("end", () => {
          const body = JSON.parse(Buffer.concat(chunks).toString()) as { method: string } | { method: string }[];
          for (const call of Array.isArray(body) ? body : [body]) asked.push(call.method);
          void fetch(server.url, { method: "POST", headers: { "content-type": "application/json" }, body: Buffer.concat(chunks) }).then(async (answer) =>
            res.writeHead(answer.status, { "content-type": "application/json" }).end(await answer.text()),
          );
        });
      });
      await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
      const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      try {
        const { provider: forked } = await createTestChain({ fork: { url, blockNumber: 2n, chainId: CHAIN_ID }, mining: "manual" });
        expect(await forked.request({ method: "eth_chainId" })).to.equal(`0x${CHAIN_ID.toString(16)}`);
        await forked.close();
        expect(asked).to.include("eth_getBlockByNumber");
        expect(asked).to.not.include("eth_chainId");
      } finally {
        proxy.close();
      }
    });

    it("Hardhat's `forking` block becomes the fork option (the chain id is then the upstream's)", () => {
      const config = resolvePreconfConfig({ forking: { url: "https://base.example", blockNumber: 5, httpHeaders: { "x-key": "k" } } }, 8453);
      const options = providerOptionsOf(config);
      expect(options.fork).to.deep.equal({ url: "https://base.example", blockNumber: 5n, headers: { "x-key": "k" } });
      expect(options.chainId).to.equal(undefined);
      expect(providerOptionsOf(resolvePreconfConfig({ forking: { url: "https://base.example", enabled: false } }, undefined)).fork).to.equal(undefined);
      expect(validatePreconfConfig({ forking: { jsonRpcUrl: "https://base.example" } })).to.deep.equal([
        { path: ["forking", "url"], message: "Required" },
        { path: ["forking"], message: 'unknown option(s) "jsonRpcUrl"' },
      ]);
    });
  });

  it("a Hardhat network's preconf.forking serves a fork of the upstream", async () => {
    // Loaded with import(), as the plugin tests do: a require()d copy of Hardhat clashes with the first.
    const { createHardhatRuntimeEnvironment } = await import("hardhat/hre");
    const { default: hardhatPreconf } = await import("../src/hardhat/index.ts");
    const hre = await createHardhatRuntimeEnvironment({
      plugins: [hardhatPreconf],
      networks: {
        forked: { type: "http", url: "http://preconf.invalid", preconf: { clock: "fake", mining: "auto", forking: { url: server.url, blockNumber: 2 } } },
      },
    });
    const connection = await hre.network.create("forked");
    try {
      const request = (method: string, params: unknown[] = []) => connection.provider.request({ method, params });
      expect(await request("eth_chainId")).to.equal(`0x${CHAIN_ID.toString(16)}`);
      expect(await request("eth_getBalance", [RECIPIENT, "latest"])).to.equal(atFork.recipient);
      expect(await request("hardhat_reset", [{ forking: { jsonRpcUrl: server.url, blockNumber: 1 } }])).to.equal(true);
      expect(await request("eth_blockNumber")).to.equal("0x1");
    } finally {
      await connection.close();
    }
  });

  it("preconf node --fork-url serves the fork and pre-confirms on top of it; a down upstream exits 1 with the reason", async function () {
    // Two CLI processes, each compiling the sources through tsx: slow on a busy machine.
    this.timeout(90_000);
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "src/cli.ts", "node", "--port", "0", "--fork-url", server.url, "--fork-block-number", "2", "--fragment-interval", "20"],
      {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", () => {
          // The banner's last line.
          const match = /listening on (http:\/\/\S+)/.exec(output);
          if (match !== null) resolve(match[1]!);
        });
        void exited.then(() => reject(new Error(`exited early:\n${output}`)));
      });
      expect(output).to.include(`\nFork:              ${server.url} at block 2 (${atFork.hash2})\n`);
      expect(output).to.include(`\nChain ID:          ${CHAIN_ID}\n`);
      const call = async (method: string, params: unknown[]) => {
        const response = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
        });
        return ((await response.json()) as { result: unknown }).result;
      };
      expect(await call("eth_getBalance", [RECIPIENT, "0x2"])).to.equal(atFork.recipient);
      expect(await call("eth_getStorageAt", [token, "0x2", "0x2"])).to.equal(atFork.slot);
      const hash = await call("eth_sendRawTransaction", [await signed(upstream, CHAIN_ID, 0, { nonce: Number(atFork.nonce0), to: RECIPIENT, value: 11n })]);
      let receipt = null as { blockNumber: Hex; blockHash: Hex } | null;
      while (receipt === null) receipt = (await call("eth_getTransactionReceipt", [hash])) as typeof receipt;
      expect(BigInt(receipt.blockNumber) > 2n).to.equal(true);
      child.kill("SIGINT");
      expect(await exited).to.equal(0);
    } finally {
      child.kill("SIGKILL");
    }
    const down = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "src/cli.ts",
        "node",
        "--port",
        "0",
        "--fork-url",
        "http://127.0.0.1:1",
        "--fork-block-number",
        "1",
        "--retries",
        "1",
        "--fork-retry-backoff",
        "1",
      ],
      { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    down.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await new Promise((resolve) => down.once("exit", resolve))).to.equal(1);
    expect(stderr).to.match(/^preconf: fork upstream http:\/\/127\.0\.0\.1:1 is unreachable \(.+\) after 2 attempts\n$/);
  });
});
