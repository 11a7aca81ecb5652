/**
 * The `base-denim` profile (docs/profiles.md, docs/flashblocks.md): Base after its Denim upgrade —
 * a block every 200 ms, five sharing one whole-second timestamp, the millisecond part in the
 * BaseTime predeploy written by tx[1], and the flashblock RPCs retired. On a fake clock.
 */
import { once } from "node:events";

import { expect } from "chai";
import { concat, createPublicClient, custom, keccak256, numberToHex, pad, toFunctionSelector } from "viem";

import WebSocket from "ws";

import { preconfChains } from "../src/index.ts";
import { subsecondTimeAfter } from "../src/node/time.ts";

import { createTestChain, rpcError, START_MS, serveEachTest } from "./helpers/chain.ts";
import { send, signTx } from "./helpers/sign.ts";

import type { Hex } from "viem";
import type { PreconfProvider, RunningServer, SubscriptionMessage } from "../src/index.ts";

const BASE_TIME = "0x4200000000000000000000000000000000000030";
const L1_BLOCK = "0x4200000000000000000000000000000000000015";
const DEPOSITOR = "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001";
const RECIPIENT = "0x000000000000000000000000000000000000dead";
const START_SECOND = BigInt(START_MS / 1000);
/** base/base's selectors: timestampMillisPart(), timestampMs(), setTimestampMillisPart(uint16). */
const TIMESTAMP_MILLIS_PART = "0x7b2fea99";
const TIMESTAMP_MS = "0x5745a677";
const SET_TIMESTAMP_MILLIS_PART = "0x86bdf394";

type Block = { number: Hex; hash: Hex; timestamp: Hex; transactions: Hex[] };

describe("base-denim: 200 ms blocks with a millisecond part", () => {
  let provider: PreconfProvider;
  const request = (method: string, params: unknown[] = []) => provider.request({ method, params });
  const block = (tag: Hex | "latest" | "pending") => request("eth_getBlockByNumber", [tag, false]) as Promise<Block>;
  const readBaseTime = async (data: Hex, at: Hex | "latest") => BigInt((await request("eth_call", [{ to: BASE_TIME, data }, at])) as Hex);
  const transfer = (nonce: number, value = 1n) => signTx(provider, 0, { chainId: 8453, nonce, to: RECIPIENT, value });

  beforeEach(async () => {
    ({ provider } = await createTestChain({ profile: "base-denim" }));
  });
  afterEach(() => provider.close());

  it("seals a block every 200 ms fragment: five per second share a timestamp, BaseTime reads 0, 200, 400, 600, 800", async () => {
    expect([provider.preconf.fragmentIntervalMs, provider.preconf.fragmentsPerBlock]).to.deep.equal([200, 1]);
    expect(await request("eth_chainId")).to.equal("0x2105");
    await provider.preconf.advance(10);
    expect((await block("latest")).number).to.equal("0xa");
    // Block n is 200·n ms after the genesis (a whole second): blocks 5 to 9 are the second after it.
    const seconds: bigint[] = [];
    const millis: bigint[] = [];
    for (let n = 1; n <= 10; n++) {
      const at = numberToHex(n);
      seconds.push(BigInt((await block(at)).timestamp));
      millis.push(await readBaseTime(TIMESTAMP_MILLIS_PART, at));
      expect(await readBaseTime(TIMESTAMP_MS, at)).to.equal(seconds.at(-1)! * 1000n + millis.at(-1)!);
    }
    const s = START_SECOND;
    expect(seconds).to.deep.equal([s, s, s, s, s + 1n, s + 1n, s + 1n, s + 1n, s + 1n, s + 2n]);
    expect(millis).to.deep.equal([200n, 400n, 600n, 800n, 0n, 200n, 400n, 600n, 800n, 0n]);
  });

  it("opens every block with the L1-attributes deposit, then the BaseTime deposit (base/base's tx[1])", async () => {
    await provider.preconf.advance(3);
    const third = await block("0x3");
    expect(third.transactions).to.have.length(2);
    const [l1Info, baseTime] = (await Promise.all(third.transactions.map((hash) => request("eth_getTransactionByHash", [hash])))) as Record<string, unknown>[];
    expect(l1Info).to.include({ type: "0x7e", from: DEPOSITOR, to: L1_BLOCK, transactionIndex: "0x0" });
    // setTimestampMillisPart(600), 1,000,000 gas, not a system tx; source hash keccak256(uint256(3) ++ keccak256(uint256(blockNumber))).
    expect(baseTime).to.include({
      type: "0x7e",
      from: DEPOSITOR,
      to: BASE_TIME,
      transactionIndex: "0x1",
      gas: "0xf4240",
      value: "0x0",
      mint: "0x0",
      isSystemTx: false,
      input: `${SET_TIMESTAMP_MILLIS_PART}${"0".repeat(61)}258`,
      sourceHash: keccak256(concat([pad(numberToHex(3)), keccak256(pad(numberToHex(3)))])),
    });
    const receipt = (await request("eth_getTransactionReceipt", [third.transactions[1]])) as Record<string, unknown>;
    expect(receipt).to.include({ status: "0x1", blockHash: third.hash });
  });

  it("a tx sent is in the next block, sealed within one 200 ms interval, after the two deposits", async () => {
    await provider.preconf.advance(2);
    const hash = await send(provider, await transfer(0, 5n));
    await provider.preconf.advance();
    const latest = await block("latest");
    expect(latest.number).to.equal("0x3");
    expect(latest.transactions).to.have.length(3);
    expect(latest.transactions[2]).to.equal(hash);
    expect(await request("eth_getTransactionReceipt", [hash])).to.include({ blockHash: latest.hash, blockNumber: "0x3", transactionIndex: "0x2" });
    expect(await request("preconf_transactionStatus", [hash])).to.include({ status: "sealed" });
    // No block is ever half-built between requests: pending is latest.
    expect(await block("pending")).to.deep.equal(latest);
    expect(await request("eth_getBalance", [RECIPIENT, "pending"])).to.equal("0x5");
  });

  it("eth_sendRawTransactionSync answers the sealed block's receipt", async () => {
    const raw = await transfer(0);
    const answer = request("eth_sendRawTransactionSync", [raw]);
    await provider.preconf.advance();
    const receipt = (await answer) as { blockHash: Hex; blockNumber: Hex };
    expect(receipt.blockNumber).to.equal("0x1");
    expect(receipt.blockHash).to.equal((await block("0x1")).hash);
  });

  it("flashblock subscriptions are accepted but never notified (Base's cutover); newHeads has every block", async () => {
    const messages: SubscriptionMessage[] = [];
    provider.on("message", (message: SubscriptionMessage) => messages.push(message));
    const ids = [
      await request("eth_subscribe", ["newFlashblocks"]),
      await request("eth_subscribe", ["newFlashblockTransactions", true]),
      await request("eth_subscribe", ["pendingLogs"]),
      await request("base_subscribe", ["newFlashblocks"]),
    ];
    const heads = await request("eth_subscribe", ["newHeads"]);
    await send(provider, await transfer(0));
    await provider.preconf.advance(5);
    const of = (id: unknown) => messages.filter((message) => message.data.subscription === id);
    for (const id of ids) expect(of(id), String(id)).to.have.length(0);
    expect(of(heads).map((message) => (message.data.result as { number: Hex }).number)).to.deep.equal(["0x1", "0x2", "0x3", "0x4", "0x5"]);
  });

  it("BaseTime takes its millisecond part only from the depositor, and only a multiple of 200 up to 800", async () => {
    await provider.preconf.advance();
    const set = (from: Hex, ms: number) => ({ from, to: BASE_TIME, data: `${SET_TIMESTAMP_MILLIS_PART}${ms.toString(16).padStart(64, "0")}` });
    const notDepositor = await rpcError(provider, "eth_call", [set(provider.accounts[0]!.address, 200), "latest"]);
    expect(notDepositor).to.deep.include({ code: 3, data: toFunctionSelector("BaseTime_NotDepositor()") });
    const invalid = await rpcError(provider, "eth_call", [set(DEPOSITOR, 100), "latest"]);
    expect(invalid).to.deep.include({ code: 3, data: toFunctionSelector("BaseTime_InvalidTimestampMillisPart()") });
    expect(await request("eth_call", [set(DEPOSITOR, 800), "latest"])).to.equal("0x");
  });

  it("evm_setNextBlockTimestamp may repeat the parent's second (one slot later); a later second starts at 0 ms", async () => {
    await provider.preconf.advance(1);
    const parent = await block("latest");
    expect(await readBaseTime(TIMESTAMP_MILLIS_PART, "latest")).to.equal(200n);
    await request("evm_setNextBlockTimestamp", [parent.timestamp]);
    await provider.preconf.advance(1);
    expect((await block("latest")).timestamp).to.equal(parent.timestamp);
    expect(await readBaseTime(TIMESTAMP_MILLIS_PART, "latest")).to.equal(400n);
    await request("evm_setNextBlockTimestamp", [numberToHex(BigInt(parent.timestamp) + 10n)]);
    await provider.preconf.advance(1);
    expect(BigInt((await block("latest")).timestamp)).to.equal(BigInt(parent.timestamp) + 10n);
    expect(await readBaseTime(TIMESTAMP_MILLIS_PART, "latest")).to.equal(0n);
  });

  it("faults: a reorg discards nothing (no block is half-built); under a stall pending is still latest", async () => {
    await send(provider, await transfer(0));
    await provider.preconf.advance();
    expect(await provider.preconf.injectFault({ kind: "reorg" })).to.deep.equal({ kind: "reorg", discarded: [] });
    await provider.preconf.injectFault({ kind: "stall", durationMs: 1000 });
    await send(provider, await transfer(1));
    await provider.preconf.advance(2);
    const latest = await block("latest");
    expect(latest.number).to.equal("0x3");
    expect(await block("pending")).to.deep.equal(latest);
    expect(await request("eth_getTransactionCount", [provider.accounts[0]!.address, "pending"])).to.equal("0x2");
  });

  it("a block gas limit must leave room for both deposits (2,000,000 gas), as an option and with evm_setBlockGasLimit", async () => {
    const error = await createTestChain({ profile: "base-denim", blockGasLimit: 1_999_999 }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(String(error)).to.equal(
      "InvalidOptionsError: Invalid hardhat-preconf option blockGasLimit: must be at least 2000000 on the base-denim profile (the L1-attributes and BaseTime deposits' gas)",
    );
    expect(await rpcError(provider, "evm_setBlockGasLimit", ["0x1e847f"])).to.deep.include({
      code: -32000,
      message: "Block gas limit must be at least 2000000 on an OP-stack profile (the L1-attributes and BaseTime deposits' gas)",
    });
    expect(await request("evm_setBlockGasLimit", ["0x1e8480"])).to.equal(true);
    await provider.preconf.advance(2);
    expect((await block("latest")).transactions).to.have.length(2);
  });

  it("preconfChains['base-denim']: Base's chain id, 200 ms blocks; a viem client sees a transfer one block later, latest and pending alike", async () => {
    expect(preconfChains["base-denim"]).to.include({ id: 8453, blockTime: 200, experimental_preconfirmationTime: 200 });
    const client = createPublicClient({ chain: preconfChains["base-denim"], transport: custom(provider), cacheTime: 0 });
    await send(provider, await transfer(0, 1000n));
    await provider.preconf.advance();
    expect(await client.getBalance({ address: RECIPIENT })).to.equal(1000n);
    expect(await client.getBalance({ address: RECIPIENT, blockTag: "latest" })).to.equal(1000n);
    expect(await client.getBlockNumber({ cacheTime: 0 })).to.equal(1n);
  });
});

describe("base-denim over the server: the raw /ws feed sends nothing", () => {
  let provider: PreconfProvider;
  let server: RunningServer;
  serveEachTest(
    (p, s) => {
      provider = p;
      server = s;
    },
    async () => (await createTestChain({ profile: "base-denim" })).provider,
  );

  it("connects, and stays silent while blocks are sealed", async () => {
    const socket = new WebSocket(`${server.url.replace(/^http/, "ws")}/ws`);
    const received: unknown[] = [];
    socket.on("message", (data) => received.push(data));
    await once(socket, "open");
    await send(provider, await signTx(provider, 0, { chainId: 8453, nonce: 0, to: RECIPIENT, value: 1n }));
    await provider.preconf.advance(3);
    // A round trip on a JSON-RPC socket of the same server: anything /ws had sent would be in by now.
    const rpc = new WebSocket(server.wsUrl);
    await once(rpc, "open");
    rpc.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }));
    const [answer] = (await once(rpc, "message")) as [Buffer];
    expect(JSON.parse(answer.toString("utf8"))).to.include({ result: "0x3" });
    expect(received).to.have.length(0);
    rpc.close();
    socket.close();
  });
});

describe("subsecondTimeAfter (time.ts)", () => {
  const parent = { timestamp: 100n, millisPart: 800 };

  it("is one slot after the parent, rolling into the next second", () => {
    expect(subsecondTimeAfter(parent, 100_000, 0n, 200)).to.deep.equal({ timestamp: 101n, millisPart: 0 });
    expect(subsecondTimeAfter({ timestamp: 101n, millisPart: 0 }, 100_000, 0n, 200)).to.deep.equal({ timestamp: 101n, millisPart: 200 });
  });

  it("follows the clock's slot when it is ahead (idle time, evm_increaseTime's offset)", () => {
    expect(subsecondTimeAfter(parent, 250_555, 0n, 200)).to.deep.equal({ timestamp: 250n, millisPart: 400 });
    expect(subsecondTimeAfter(parent, 250_555, 7n, 200)).to.deep.equal({ timestamp: 257n, millisPart: 400 });
  });

  it("a requested second starts at 0 ms; the parent's second gets the next slot, at most the last", () => {
    expect(subsecondTimeAfter(parent, 0, 0n, 200, 105n)).to.deep.equal({ timestamp: 105n, millisPart: 0 });
    expect(subsecondTimeAfter({ timestamp: 100n, millisPart: 200 }, 0, 0n, 200, 100n)).to.deep.equal({ timestamp: 100n, millisPart: 400 });
    expect(subsecondTimeAfter(parent, 0, 0n, 200, 100n)).to.deep.equal({ timestamp: 100n, millisPart: 800 });
  });
});
