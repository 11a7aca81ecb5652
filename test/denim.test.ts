/**
 * Base as it runs today, since its Denim upgrade (docs/profiles.md, docs/flashblocks.md; `base-denim`
 * is an alias): a block every 200 ms, five sharing one whole-second timestamp, the millisecond part
 * in the BaseTime predeploy written by tx[1] and in Base's `timestampMs` / `blockTimestampMs` RPC
 * fields, and the flashblock RPCs retired; and the cutover, scheduled on a local chain. On a fake clock.
 */
import { once } from "node:events";

import { expect } from "chai";
import { concat, createPublicClient, custom, encodeFunctionData, hexToBytes, keccak256, numberToHex, pad, toFunctionSelector } from "viem";

import WebSocket from "ws";

import { preconfChains } from "../src/index.ts";
import { decodeFeeParams } from "../src/node/opstack/feeParams.ts";
import { subsecondTimeAfter } from "../src/node/common/time.ts";

import { createTestChain, rpcError, START_MS, serveEachTest } from "./helpers/chain.ts";
import { Counter } from "./helpers/contracts.ts";
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

describe("base (Denim): 200 ms blocks with a millisecond part", () => {
  let provider: PreconfProvider;
  const request = (method: string, params: unknown[] = []) => provider.request({ method, params });
  const block = (tag: Hex | "latest" | "pending") => request("eth_getBlockByNumber", [tag, false]) as Promise<Block>;
  const readBaseTime = async (data: Hex, at: Hex | "latest") => BigInt((await request("eth_call", [{ to: BASE_TIME, data }, at])) as Hex);
  const transfer = (nonce: number, value = 1n) => signTx(provider, 0, { chainId: 8453, nonce, to: RECIPIENT, value });

  beforeEach(async () => {
    ({ provider } = await createTestChain({ profile: "base" }));
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

  it("under automine a block takes the clock's time when its tx arrives, however long the chain sat idle", async () => {
    await provider.close();
    const chain = await createTestChain({ profile: "base", mining: "auto" });
    provider = chain.provider;
    await send(provider, await transfer(0));
    chain.clock.tick(10_000);
    await send(provider, await transfer(1));
    const latest = await block("latest");
    expect(latest.number).to.equal("0x2");
    expect(BigInt(latest.timestamp)).to.equal(START_SECOND + 10n);
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
      "InvalidOptionsError: Invalid hardhat-preconf option blockGasLimit: must be at least 2000000 on the base profile (the L1-attributes and BaseTime deposits' gas)",
    );
    expect(await rpcError(provider, "evm_setBlockGasLimit", ["0x1e847f"])).to.deep.include({
      code: -32000,
      message: "Block gas limit must be at least 2000000 on an OP-stack profile (the L1-attributes and BaseTime deposits' gas)",
    });
    expect(await request("evm_setBlockGasLimit", ["0x1e8480"])).to.equal(true);
    await provider.preconf.advance(2);
    expect((await block("latest")).transactions).to.have.length(2);
  });

  it("preconfChains.base: Base's chain id, 200 ms blocks and no pre-confirmation time; a viem client sees a transfer one block later", async () => {
    expect(preconfChains.base).to.include({ id: 8453, blockTime: 200 });
    expect(preconfChains.base).not.to.have.property("experimental_preconfirmationTime");
    expect(preconfChains["base-denim"]).to.include({ id: 8453, blockTime: 200 });
    const client = createPublicClient({ chain: preconfChains.base, transport: custom(provider), cacheTime: 0 });
    await send(provider, await transfer(0, 1000n));
    await provider.preconf.advance();
    expect(await client.getBalance({ address: RECIPIENT })).to.equal(1000n);
    expect(await client.getBalance({ address: RECIPIENT, blockTag: "latest" })).to.equal(1000n);
    expect(await client.getBlockNumber({ cacheTime: 0 })).to.equal(1n);
  });
});

describe("base (Denim): Base's millisecond RPC fields", () => {
  let provider: PreconfProvider;
  const request = (method: string, params: unknown[] = []) => provider.request({ method, params });
  type Json = Record<string, unknown>;

  beforeEach(async () => {
    ({ provider } = await createTestChain({ profile: "base" }));
  });
  afterEach(() => provider.close());

  it("timestampMs on blocks and newHeads; blockTimestampMs on txs and on logs, in receipts on the nested logs only (quantities)", async () => {
    const messages: SubscriptionMessage[] = [];
    provider.on("message", (message: SubscriptionMessage) => messages.push(message));
    const heads = await request("eth_subscribe", ["newHeads"]);
    const deploy = await signTx(provider, 0, { chainId: 8453, nonce: 0, to: undefined, value: 0n, gas: 300_000n, data: Counter.bytecode });
    await send(provider, deploy);
    await provider.preconf.advance(3);
    const counter = ((await request("eth_getTransactionReceipt", [keccak256(deploy)])) as { contractAddress: Hex }).contractAddress;
    const increment = await send(
      provider,
      await signTx(provider, 0, {
        chainId: 8453,
        nonce: 1,
        to: counter,
        value: 0n,
        gas: 100_000n,
        data: encodeFunctionData({ abi: Counter.abi, functionName: "increment" }),
      }),
    );
    await provider.preconf.advance();
    const receipt = (await request("eth_getTransactionReceipt", [increment])) as Json & { logs: Json[]; blockNumber: Hex };
    const mined = (await request("eth_getBlockByNumber", [receipt.blockNumber, true])) as Json & { transactions: Json[]; timestamp: Hex };
    const ms = await provider.request({ method: "eth_call", params: [{ to: BASE_TIME, data: TIMESTAMP_MS }, receipt.blockNumber] });
    // Block 4, 800 ms after a whole-second genesis: 200 ms per block; BaseTime.timestampMs() agrees.
    expect(receipt.blockNumber).to.equal("0x4");
    expect(BigInt(mined.timestamp)).to.equal(START_SECOND);
    expect(mined.timestampMs).to.equal(numberToHex(BigInt(ms as Hex)));
    expect(mined.timestampMs).to.equal(numberToHex(START_SECOND * 1000n + 800n));
    const tx = mined.transactions.find((entry) => entry.hash === increment)!;
    expect(tx.blockTimestampMs).to.equal(mined.timestampMs);
    expect(await request("eth_getTransactionByHash", [increment])).to.include({ blockTimestampMs: mined.timestampMs });
    expect(receipt).not.to.have.property("blockTimestampMs");
    expect(receipt.logs).to.have.length(1);
    expect(receipt.logs[0]).to.include({ blockTimestampMs: mined.timestampMs, blockTimestamp: mined.timestamp });
    const logs = (await request("eth_getLogs", [{ fromBlock: receipt.blockNumber, toBlock: receipt.blockNumber }])) as Json[];
    expect(logs[0]).to.include({ blockTimestampMs: mined.timestampMs });
    // Every header newHeads delivered has its timestampMs, 200 ms apart.
    const stamps = messages.filter((m) => m.data.subscription === heads).map((m) => BigInt((m.data.result as { timestampMs: Hex }).timestampMs));
    expect(stamps).to.have.length(4);
    expect(stamps.slice(1).map((stamp, i) => stamp - stamps[i]!)).to.deep.equal([200n, 200n, 200n]);
    // The genesis has no BaseTime deposit: no timestampMs.
    expect(await request("eth_getBlockByNumber", ["0x0", false])).not.to.have.property("timestampMs");
  });
});

describe("the Denim cutover, scheduled on a local chain (forkSchedule)", () => {
  type Json = Record<string, unknown>;
  const request = (provider: PreconfProvider, method: string, params: unknown[] = []) => provider.request({ method, params });
  const blockAt = async (provider: PreconfProvider, number: number) =>
    (await request(provider, "eth_getBlockByNumber", [numberToHex(number), false])) as Json & {
      timestamp: Hex;
      gasLimit: Hex;
      gasUsed: Hex;
      baseFeePerGas: Hex;
      extraData: Hex;
      transactions: Hex[];
    };

  it("at the block it names: 2 s blocks of ten flashblocks before, then a block per 200 ms fragment from .000, gas limit ÷ 10, denominator × 10", async () => {
    const { provider } = await createTestChain({ profile: "base", forkSchedule: { denim: { block: 3 } } });
    expect(provider.options.hardfork).to.equal("cobalt");
    const messages: SubscriptionMessage[] = [];
    provider.on("message", (message: SubscriptionMessage) => messages.push(message));
    const flashblocks = await request(provider, "eth_subscribe", ["newFlashblocks"]);
    expect(provider.preconf.fragmentsPerBlock).to.equal(10);
    expect(await request(provider, "eth_getCode", [BASE_TIME, "latest"])).to.equal("0x");
    await provider.preconf.advance(20); // blocks 1 and 2: cobalt, 2 s each
    expect(messages.filter((m) => m.data.subscription === flashblocks)).to.have.length(20);
    const [one, two] = [await blockAt(provider, 1), await blockAt(provider, 2)];
    // Opened at 0 s (a second after the genesis at the least) and at 2 s.
    expect([BigInt(one.timestamp), BigInt(two.timestamp)]).to.deep.equal([START_SECOND + 1n, START_SECOND + 2n]);
    for (const block of [one, two]) {
      expect(block.gasLimit).to.equal(numberToHex(400_000_000));
      expect(decodeFeeParams(hexToBytes(block.extraData))).to.deep.equal({ denominator: 100n, elasticity: 5n, minBaseFee: 5_000_000n });
      expect(block.transactions).to.have.length(1); // the L1-attributes deposit alone
      expect(block).not.to.have.property("timestampMs");
    }
    // Block 3 is Denim's first: one fragment, sealed at once, at a whole second (.000).
    expect(provider.preconf.fragmentsPerBlock).to.equal(1);
    await provider.preconf.advance(1);
    const first = await blockAt(provider, 3);
    expect(BigInt(first.timestamp)).to.equal(START_SECOND + 4n);
    expect(first.timestampMs).to.equal(numberToHex((START_SECOND + 4n) * 1000n));
    expect(first.gasLimit).to.equal(numberToHex(40_000_000));
    expect(decodeFeeParams(hexToBytes(first.extraData))).to.deep.equal({ denominator: 1000n, elasticity: 5n, minBaseFee: 5_000_000n });
    expect(first.transactions).to.have.length(2); // the L1-attributes and BaseTime deposits
    expect(((await request(provider, "eth_getCode", [BASE_TIME, "0x3"])) as string).length).to.be.greaterThan(100);
    expect(await request(provider, "eth_getCode", [BASE_TIME, "0x2"])).to.equal("0x");
    // The first Denim block's base fee follows its parent's parameters (denominator 100, 400M gas).
    const baseFee = BigInt(two.baseFeePerGas);
    const target = 400_000_000n / 5n;
    expect(BigInt(first.baseFeePerGas)).to.equal(baseFee - (baseFee * (target - BigInt(two.gasUsed))) / target / 100n);
    // Then five blocks a second, each 200 ms after the last; no flashblock is sent any more.
    await provider.preconf.advance(5);
    const seconds = [];
    for (let n = 4; n <= 8; n++) seconds.push(BigInt((await blockAt(provider, n)).timestampMs as Hex) - (START_SECOND + 4n) * 1000n);
    expect(seconds).to.deep.equal([200n, 400n, 600n, 800n, 1000n]);
    expect(messages.filter((m) => m.data.subscription === flashblocks)).to.have.length(20);
    // The block after the first Denim block: denominator 1000 on a 40M block.
    const second = await blockAt(provider, 4);
    const target4 = 40_000_000n / 5n;
    const fee3 = BigInt(first.baseFeePerGas);
    expect(BigInt(second.baseFeePerGas)).to.equal(fee3 - (fee3 * (target4 - BigInt(first.gasUsed))) / target4 / 1000n);
    await provider.close();
  });

  it("at a timestamp: the first block at or after it, at .000; evm_snapshot / evm_revert back across it scales again", async () => {
    const { provider } = await createTestChain({ profile: "base", forkSchedule: { denim: { timestamp: START_SECOND + 3n } } });
    await provider.preconf.advance(20); // blocks 1 and 2, at +1 s and +2 s
    const id = await request(provider, "evm_snapshot");
    await provider.preconf.advance(1); // block 3, opened at +4 s: the first at or after +3 s
    const first = await blockAt(provider, 3);
    expect(BigInt(first.timestamp)).to.equal(START_SECOND + 4n);
    expect(first.timestampMs).to.equal(numberToHex((START_SECOND + 4n) * 1000n));
    expect(first.gasLimit).to.equal(numberToHex(40_000_000));
    expect((await blockAt(provider, 2)).gasLimit).to.equal(numberToHex(400_000_000));
    expect(await request(provider, "evm_revert", [id])).to.equal(true);
    await provider.preconf.advance(2);
    for (const n of [3, 4]) expect((await blockAt(provider, n)).gasLimit, `block ${n}`).to.equal(numberToHex(40_000_000));
    await provider.close();
  });

  it("a tx sent across the cutover is pre-confirmed in a flashblock, then sealed; after it, sealed within 200 ms", async () => {
    const { provider } = await createTestChain({ profile: "base", forkSchedule: { denim: { block: 2 } } });
    const before = await send(provider, await signTx(provider, 0, { chainId: 8453, nonce: 0, to: RECIPIENT, value: 1n }));
    await provider.preconf.advance(2);
    expect(await request(provider, "eth_getTransactionReceipt", [before])).to.include({ blockNumber: "0x1", blockHash: `0x${"00".repeat(32)}` });
    await provider.preconf.advance(8);
    const after = await send(provider, await signTx(provider, 0, { chainId: 8453, nonce: 1, to: RECIPIENT, value: 1n }));
    await provider.preconf.advance(1);
    const receipt = (await request(provider, "eth_getTransactionReceipt", [after])) as Json;
    expect(receipt).to.include({ blockNumber: "0x2", transactionIndex: "0x2" });
    expect(receipt.blockHash).not.to.equal(`0x${"00".repeat(32)}`);
    await provider.close();
  });

  it("refuses a fork it cannot schedule, with the field and the ladder", async () => {
    const refusal = (options: Parameters<typeof createTestChain>[0]) =>
      createTestChain(options).then(
        () => "created",
        (error: unknown) => String(error),
      );
    expect(await refusal({ profile: "base", forkSchedule: { karst: { block: 3 } } })).to.equal(
      'InvalidOptionsError: Invalid hardhat-preconf option forkSchedule.karst: the base profile has no fork "karst" (its ladder: jovian, azul, beryl, cobalt, denim)',
    );
    expect(await refusal({ profile: "base", hardfork: "denim", forkSchedule: { cobalt: { block: 3 } } })).to.equal(
      "InvalidOptionsError: Invalid hardhat-preconf option forkSchedule.cobalt: cobalt is not after denim, the fork the chain starts at",
    );
    // The ladder's first fork: no fork before it to start the chain at (this was a TypeError).
    expect(await refusal({ profile: "base", forkSchedule: { jovian: { block: 4 } } })).to.equal(
      "InvalidOptionsError: Invalid hardhat-preconf option forkSchedule.jovian: jovian is the first fork of the base profile: the chain starts at it (leave it out)",
    );
    expect(await refusal({ profile: "base", forkSchedule: { denim: { block: 0 } } })).to.equal(
      "InvalidOptionsError: Invalid hardhat-preconf option forkSchedule.denim: block 0 is the genesis: start the chain at denim with hardfork instead",
    );
    expect(await refusal({ profile: "base", forkSchedule: { azul: { block: 9 }, denim: { block: 3 } } })).to.equal(
      "InvalidOptionsError: Invalid hardhat-preconf option forkSchedule.denim: activates before a fork that comes before it on the ladder",
    );
    expect(await refusal({ profile: "base", hardfork: "karst" })).to.equal(
      'InvalidOptionsError: Invalid hardhat-preconf option hardfork: the base profile has no fork "karst" (one of jovian, azul, beryl, cobalt, denim, prague, osaka)',
    );
  });
});

describe("base (Denim) over the server: the raw /ws feed sends nothing", () => {
  let provider: PreconfProvider;
  let server: RunningServer;
  serveEachTest(
    (p, s) => {
      provider = p;
      server = s;
    },
    async () => (await createTestChain({ profile: "base" })).provider,
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
