/**
 * Flashblocks as Base serves them (docs/flashblocks.md): the raw `/ws` feed, `base_subscribe` over
 * WebSocket, and injected faults (stall, reorg, dropConnections, pendingUnavailable), on a fake clock.
 */
import { once } from "node:events";
import { brotliDecompressSync } from "node:zlib";

import { expect } from "chai";
import { createPublicClient, custom } from "viem";
import WebSocket from "ws";

import { preconfChainOf, preconfChains } from "../src/index.ts";

import { createTestChain, rpcError, serveEachTest } from "./helpers/chain.ts";
import { send, signTx } from "./helpers/sign.ts";

import type { PreconfProvider, RunningServer, SubscriptionMessage } from "../src/index.ts";

const ZERO_HASH = `0x${"00".repeat(32)}`;
const RECIPIENT = "0x000000000000000000000000000000000000dead";

/** A WebSocket client that keeps every message it receives (decoded JSON; Brotli frames decompressed). */
async function connect(url: string): Promise<{ socket: WebSocket; messages: Record<string, unknown>[]; binary: boolean[]; closed: Promise<unknown> }> {
  const socket = new WebSocket(url);
  const messages: Record<string, unknown>[] = [];
  const binary: boolean[] = [];
  socket.on("message", (data, isBinary) => {
    binary.push(isBinary);
    const buffer = data as Buffer;
    messages.push(JSON.parse((isBinary ? brotliDecompressSync(buffer) : buffer).toString("utf8")) as Record<string, unknown>);
  });
  const closed = once(socket, "close");
  await once(socket, "open");
  return { socket, messages, binary, closed };
}

/** Waits (in real time) until `predicate` holds: WebSocket frames arrive asynchronously. */
async function until(predicate: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function call(socket: WebSocket, id: number, method: string, params: unknown[]): void {
  socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
}

describe("flashblocks: the raw /ws feed and base_subscribe over WebSocket", () => {
  let provider: PreconfProvider;
  let server: RunningServer;
  serveEachTest((p, s) => {
    provider = p;
    server = s;
  });
  const wsUrl = (path: string) => server.url.replace(/^http/, "ws") + path;

  it("/ws: one snake_case Base payload per fragment, base on index 0, receipts and new balances in metadata", async () => {
    const feed = await connect(wsUrl("/ws"));
    const raw = await signTx(provider, 0, { nonce: 0, to: RECIPIENT, value: 5n });
    const hash = await send(provider, raw);
    await provider.preconf.advance(2);
    await until(() => feed.messages.length === 2);
    const [first, second] = feed.messages as {
      payload_id: string;
      index: number;
      base?: Record<string, unknown>;
      diff: Record<string, unknown>;
      metadata: { block_number: number; receipts: Record<string, unknown>; new_account_balances: Record<string, string> };
    }[];
    expect(feed.binary).to.deep.equal([false, false]);
    const pending = (await provider.request({ method: "eth_getBlockByNumber", params: ["pending", false] })) as Record<string, string>;
    const parent = (await provider.request({ method: "eth_getBlockByNumber", params: ["0x0", false] })) as Record<string, string>;
    expect(first!.index).to.equal(0);
    expect(first!.payload_id).to.match(/^0x[0-9a-f]{16}$/);
    expect(first!.base).to.deep.equal({
      parent_beacon_block_root: ZERO_HASH,
      parent_hash: parent.hash,
      fee_recipient: pending.miner,
      prev_randao: pending.mixHash,
      block_number: "0x1",
      gas_limit: pending.gasLimit,
      timestamp: pending.timestamp,
      extra_data: "0x",
      base_fee_per_gas: pending.baseFeePerGas,
    });
    expect(first!.diff).to.deep.include({ transactions: [raw], gas_used: "0x5208", logs_bloom: pending.logsBloom, withdrawals: [] });
    expect(first!.diff).to.include.keys("state_root", "receipts_root", "block_hash", "withdrawals_root");
    expect(first!.metadata.block_number).to.equal(1);
    expect(first!.metadata.receipts).to.deep.equal({ [hash]: { Eip1559: { status: "0x1", cumulativeGasUsed: "0x5208", logs: [] } } });
    const sender = provider.accounts[0]!.address.toLowerCase();
    expect(first!.metadata.new_account_balances[sender]).to.equal(await provider.request({ method: "eth_getBalance", params: [sender, "pending"] }));
    expect(first!.metadata.new_account_balances[RECIPIENT]).to.equal("0x5");
    expect(second).to.deep.include({ index: 1, payload_id: first!.payload_id });
    expect(second).to.not.have.property("base");
    expect(second!.diff).to.deep.include({ transactions: [], gas_used: "0x5208" });
    expect(second!.metadata).to.deep.include({ receipts: {}, new_account_balances: {} });
    feed.socket.close();
  });

  it("/ws?compress=brotli: the same payloads as Brotli-compressed binary frames", async () => {
    const text = await connect(wsUrl("/ws"));
    const brotli = await connect(wsUrl("/ws?compress=brotli"));
    await provider.preconf.advance(2);
    await until(() => text.messages.length === 2 && brotli.messages.length === 2);
    expect(brotli.binary).to.deep.equal([true, true]);
    expect(brotli.messages).to.deep.equal(text.messages);
    text.socket.close();
    brotli.socket.close();
  });

  it("base_subscribe over WebSocket: newFlashblocks block objects, notified as base_subscription", async () => {
    const client = await connect(wsUrl("/"));
    call(client.socket, 1, "base_subscribe", ["newFlashblocks"]);
    call(client.socket, 2, "eth_subscribe", ["newFlashblocks"]);
    await until(() => client.messages.length === 2);
    const [baseId, ethId] = [client.messages[0]!.result, client.messages[1]!.result];
    await provider.preconf.advance();
    await until(() => client.messages.length === 4);
    const notes = client.messages.slice(2) as { method: string; params: { subscription: string; result: { number: string; hash: string } } }[];
    const byId = new Map(notes.map((note) => [note.params.subscription, note]));
    expect(byId.get(baseId as string)!.method).to.equal("base_subscription");
    expect(byId.get(ethId as string)!.method).to.equal("eth_subscription");
    expect(byId.get(baseId as string)!.params.result).to.include({ number: "0x1", hash: ZERO_HASH });
    client.socket.close();
  });

  it("dropConnections disconnects every WebSocket client (JSON-RPC and /ws); new connections are served", async () => {
    const rpc = await connect(wsUrl("/"));
    const feed = await connect(wsUrl("/ws"));
    expect(await provider.preconf.injectFault({ kind: "dropConnections" })).to.deep.equal({ kind: "dropConnections" });
    await rpc.closed;
    await feed.closed;
    const again = await connect(wsUrl("/"));
    call(again.socket, 1, "eth_chainId", []);
    await until(() => again.messages.length === 1);
    expect(again.messages[0]!.result).to.equal("0x7a69");
    again.socket.close();
  });
});

describe("flashblocks: injected faults", () => {
  let provider: PreconfProvider;
  let messages: SubscriptionMessage[];
  const of = (id: unknown) => messages.filter((message) => message.data.subscription === id).map((message) => message.data.result);
  const request = (method: string, params: unknown[] = []) => provider.request({ method, params });
  const transfer = (nonce: number, value = 1n) => signTx(provider, 0, { nonce, to: RECIPIENT, value });
  const balance = (tag: string) => request("eth_getBalance", [RECIPIENT, tag]);

  beforeEach(async () => {
    ({ provider } = await createTestChain());
    messages = [];
    provider.on("message", (message: SubscriptionMessage) => messages.push(message));
  });

  afterEach(() => provider.close());

  it("stall: fragments keep executing, but pending and the subscriptions freeze for durationMs, then catch up in order", async () => {
    const id = await request("eth_subscribe", ["newFlashblocks"]);
    const first = await send(provider, await transfer(0, 1n));
    await provider.preconf.advance();
    expect(await provider.preconf.injectFault({ kind: "stall", durationMs: 600 })).to.deep.equal({ kind: "stall" });
    const second = await send(provider, await transfer(1, 2n));
    await provider.preconf.advance();
    // Executed (our own lifecycle says so), but not visible in the pending view Base's RPC serves.
    expect(await request("preconf_transactionStatus", [second])).to.include({ status: "preconfirmed" });
    expect(await request("eth_getTransactionReceipt", [second])).to.equal(null);
    expect(await request("eth_getTransactionByHash", [second])).to.equal(null);
    expect(await balance("pending")).to.equal("0x1");
    const pending = (await request("eth_getBlockByNumber", ["pending", false])) as { transactions: string[] };
    expect(pending.transactions).to.deep.equal([first]);
    expect(of(id)).to.have.length(1);
    await provider.preconf.advance(2);
    // The stall is over: the held flashblocks arrive in order, each with the block as it was then.
    const blocks = of(id) as { transactions: { hash: string }[] }[];
    expect(blocks).to.have.length(4);
    expect(blocks.map((block) => block.transactions.length)).to.deep.equal([1, 2, 2, 2]);
    expect(await balance("pending")).to.equal("0x3");
    expect(await request("eth_getTransactionReceipt", [second])).to.include({ transactionHash: second });
  });

  it("stall: once the canonical chain passes the frozen block, pending is latest", async () => {
    await send(provider, await transfer(0));
    await provider.preconf.advance();
    await provider.preconf.injectFault({ kind: "stall", durationMs: 5000 });
    await provider.preconf.advance(provider.preconf.fragmentsPerBlock);
    const latest = (await request("eth_getBlockByNumber", ["latest", false])) as { hash: string; number: string };
    expect(latest.number).to.equal("0x1");
    expect(await request("eth_getBlockByNumber", ["pending", false])).to.deep.equal(latest);
  });

  it("reorg: the open block's pre-confirmations are discarded, txs back to the pool; the replacement payload re-includes them", async () => {
    const blocks = await request("eth_subscribe", ["newFlashblocks"]);
    const hash = await send(provider, await transfer(0, 7n));
    await provider.preconf.advance();
    const before = (await request("eth_getBlockByNumber", ["pending", false])) as { number: string };
    expect(await balance("pending")).to.equal("0x7");
    const payloadBefore = provider.chain.open.payloadId;
    expect(await provider.preconf.injectFault({ kind: "reorg" })).to.deep.equal({ kind: "reorg", discarded: [hash] });
    // A rebuilt payload: a new payload id, its flashblocks counting from index 0 again.
    expect(provider.chain.open.payloadId).to.not.equal(payloadBefore);
    expect(provider.chain.open.fragments).to.have.length(0);
    // Gone from the pending view, back in the mempool.
    expect(await request("eth_getTransactionReceipt", [hash])).to.equal(null);
    expect(await request("eth_getTransactionByHash", [hash])).to.include({ hash, blockHash: null, blockNumber: null });
    expect(await request("base_transactionStatus", [hash])).to.deep.equal({ status: "Known" });
    expect(await balance("pending")).to.equal("0x0");
    const reopened = (await request("eth_getBlockByNumber", ["pending", false])) as { number: string; transactions: string[] };
    expect(reopened).to.include({ number: "0x0" });
    await provider.preconf.advance();
    const replaced = of(blocks) as { number: string; transactions: { hash: string }[] }[];
    expect(replaced).to.have.length(2);
    expect(replaced[1]!.number).to.equal(before.number);
    expect(await request("eth_getTransactionReceipt", [hash])).to.include({ transactionHash: hash, blockNumber: before.number });
    expect(await balance("pending")).to.equal("0x7");
  });

  it("reorg with txs: drop: the discarded txs are gone, the sender's pending nonce is back", async () => {
    const hash = await send(provider, await transfer(0));
    await provider.preconf.advance();
    expect(await request("eth_getTransactionCount", [provider.accounts[0]!.address, "pending"])).to.equal("0x1");
    await provider.preconf.injectFault({ kind: "reorg", txs: "drop" });
    expect(await request("eth_getTransactionByHash", [hash])).to.equal(null);
    expect(await request("base_transactionStatus", [hash])).to.deep.equal({ status: "Unknown" });
    expect(await request("eth_getTransactionCount", [provider.accounts[0]!.address, "pending"])).to.equal("0x0");
    await provider.preconf.advance(provider.preconf.fragmentsPerBlock);
    expect(await request("eth_getTransactionByHash", [hash])).to.equal(null);
  });

  it("pendingUnavailable: pending answers as latest (or eth_getBlockByNumber null) and pre-confirmed txs are not found, for durationMs", async () => {
    const id = await request("eth_subscribe", ["newFlashblockTransactions"]);
    const hash = await send(provider, await transfer(0, 9n));
    await provider.preconf.advance();
    await provider.preconf.injectFault({ kind: "pendingUnavailable", durationMs: 400 });
    const latest = await request("eth_getBlockByNumber", ["latest", false]);
    expect(await request("eth_getBlockByNumber", ["pending", false])).to.deep.equal(latest);
    // Nor is the open block found by its number.
    expect(await request("eth_getBlockByNumber", ["0x1", false])).to.equal(null);
    expect(await balance("pending")).to.equal("0x0");
    expect(await request("eth_getTransactionReceipt", [hash])).to.equal(null);
    await provider.preconf.injectFault({ kind: "pendingUnavailable", durationMs: 400, block: "null" });
    expect(await request("eth_getBlockByNumber", ["pending", false])).to.equal(null);
    const second = await send(provider, await transfer(1, 1n));
    await provider.preconf.advance();
    // Flashblocks of a reset feed are lost, not held.
    expect(of(id)).to.deep.equal([hash]);
    await provider.preconf.advance();
    expect(await request("eth_getBlockByNumber", ["pending", false])).to.include({ number: "0x1" });
    expect(await balance("pending")).to.equal("0xa");
    expect(await request("eth_getTransactionReceipt", [second])).to.include({ transactionHash: second });
  });

  it("bad faults are -32602 and change nothing", async () => {
    for (const fault of [
      { kind: "meteor" },
      { kind: "stall" },
      { kind: "stall", durationMs: 0 },
      { kind: "stall", durationMs: 1.5 },
      { kind: "reorg", txs: "keep" },
      { kind: "dropConnections", extra: 1 },
    ]) {
      expect((await rpcError(provider, "preconf_injectFault", [fault])).code, JSON.stringify(fault)).to.equal(-32602);
    }
    await send(provider, await transfer(0, 4n));
    await provider.preconf.advance();
    expect(await balance("pending")).to.equal("0x4");
  });
});

describe("flashblocks: viem chain definitions", () => {
  let provider: PreconfProvider;
  beforeEach(async () => {
    ({ provider } = await createTestChain());
  });
  afterEach(() => provider.close());

  it("preconfChains.dev has experimental_preconfirmationTime, so viem reads pending: a balance changes within one fragment", async () => {
    expect(preconfChains.dev).to.include({ id: 31337, experimental_preconfirmationTime: 200, blockTime: 2000 });
    // One per profile, with its chain id and cadence as it runs today: Base's blocks are its 200 ms
    // fragments since Denim, nothing is pre-confirmed before a block.
    expect(preconfChains.base).to.include({ id: 8453, blockTime: 200 });
    expect(preconfChains.base).not.to.have.property("experimental_preconfirmationTime");
    expect(preconfChains["base-sepolia"]).to.include({ id: 84532, blockTime: 200 });
    expect(preconfChains.optimism).to.include({ id: 10, experimental_preconfirmationTime: 250, blockTime: 2000 });
    expect(preconfChains.unichain).to.include({ id: 130, experimental_preconfirmationTime: 200, blockTime: 1000 });
    expect(preconfChainOf(provider)).to.deep.include({ id: 31337, experimental_preconfirmationTime: 200, rpcUrls: preconfChains.dev.rpcUrls });
    const client = createPublicClient({ chain: preconfChains.dev, transport: custom(provider), cacheTime: 0 });
    expect(client.experimental_blockTag).to.equal("pending");
    const before = await client.getBalance({ address: RECIPIENT });
    await send(provider, await signTx(provider, 0, { nonce: 0, to: RECIPIENT, value: 1000n }));
    await provider.preconf.advance();
    expect(await client.getBalance({ address: RECIPIENT })).to.equal(before + 1000n);
    // The sealed chain has not moved yet: a client without the preconf chain would still see the old balance.
    expect(await client.getBalance({ address: RECIPIENT, blockTag: "latest" })).to.equal(before);
  });

  it("with a reorg injected, the viem client sees the pre-confirmed tx disappear (back in the pool), then re-included", async () => {
    const client = createPublicClient({ chain: preconfChains.dev, transport: custom(provider), cacheTime: 0 });
    const hash = await send(provider, await signTx(provider, 0, { nonce: 0, to: RECIPIENT, value: 1000n }));
    await provider.preconf.advance();
    expect((await client.getTransactionReceipt({ hash })).status).to.equal("success");
    await provider.preconf.injectFault({ kind: "reorg" });
    expect(await client.getBalance({ address: RECIPIENT })).to.equal(0n);
    let notFound: unknown;
    await client.getTransactionReceipt({ hash }).catch((error: unknown) => (notFound = error));
    expect((notFound as Error).name).to.equal("TransactionReceiptNotFoundError");
    // Its documented fate: back in the mempool (no block yet), pre-confirmed again by the next fragment.
    expect(await client.getTransaction({ hash })).to.include({ hash, blockNumber: null, blockHash: null });
    await provider.preconf.advance();
    expect(await client.getBalance({ address: RECIPIENT })).to.equal(1000n);
    expect((await client.getTransactionReceipt({ hash })).status).to.equal("success");
  });
});

describe("flashblocks: Base's pending rules on standard methods", () => {
  let provider: PreconfProvider;
  const request = (method: string, params: unknown[] = []) => provider.request({ method, params });
  const sender = () => provider.accounts[0]!.address;
  /** Init code that returns NUMBER then TIMESTAMP: what header a call runs with. */
  const HEADER_PROBE = "0x435f524260205260405ff3";

  beforeEach(async () => {
    ({ provider } = await createTestChain());
  });
  afterEach(() => provider.close());

  it("geth's rules (dev): the pending nonce counts pooled txs, pending calls run in the open block", async () => {
    expect(provider.chain.baseRpc).to.equal(false);
    await send(provider, await signTx(provider, 0, { nonce: 0 }));
    expect(await request("eth_getTransactionCount", [sender(), "pending"])).to.equal("0x1");
    await provider.preconf.advance();
    const open = (await request("eth_getBlockByNumber", ["pending", false])) as { number: string; timestamp: string };
    const out = (await request("eth_call", [{ data: HEADER_PROBE }, "pending"])) as string;
    expect([BigInt(`0x${out.slice(2, 66)}`), BigInt(`0x${out.slice(66, 130)}`)]).to.deep.equal([BigInt(open.number), BigInt(open.timestamp)]);
  });

  /** A provider on the `base` profile (chain id 8453) as of Cobalt, its last fork with flashblocks: Base's rules. */
  async function onBase(): Promise<void> {
    await provider.close();
    ({ provider } = await createTestChain({ profile: "base", hardfork: "cobalt" }));
    expect(provider.chain.baseRpc).to.equal(true);
  }

  it("Base's rules (base profile): pending nonce = canonical nonce + pre-confirmed txs (pool not counted), so two back-to-back sends collide", async () => {
    await onBase();
    const nonce = async () => Number(await request("eth_getTransactionCount", [sender(), "pending"]));
    const first = await signTx(provider, 0, { chainId: 8453, nonce: await nonce(), value: 1n });
    await send(provider, first);
    // The first is only pooled: Base's pending nonce does not count it, so the dapp reuses nonce 0.
    expect(await nonce()).to.equal(0);
    const second = await signTx(provider, 0, { chainId: 8453, nonce: await nonce(), value: 2n });
    expect(await rpcError(provider, "eth_sendRawTransaction", [second])).to.deep.include({ code: -32000, message: "replacement transaction underpriced" });
    // Fragment 0 of an OP block carries only the L1-attributes deposit; fragment 1 pre-confirms it.
    await provider.preconf.advance(2);
    expect(await nonce()).to.equal(1);
    await provider.preconf.advance(provider.preconf.fragmentsPerBlock);
    expect(await nonce()).to.equal(1);
  });

  it("under a stall, Base's pending nonce is the frozen view's; base_transactionStatus and preconf_transactionStatus stay live (the sequencer's)", async () => {
    await onBase();
    const nonce = async () => Number(await request("eth_getTransactionCount", [sender(), "pending"]));
    await provider.preconf.advance(); // fragment 0: the deposits only
    await provider.preconf.injectFault({ kind: "stall", durationMs: 600 });
    const hash = await send(provider, await signTx(provider, 0, { chainId: 8453, nonce: 0, to: RECIPIENT, value: 1n }));
    await provider.preconf.advance();
    // Pre-confirmed by the sequencer, not in the pending view Base's RPC node serves from its feed.
    expect(await request("eth_getTransactionReceipt", [hash])).to.equal(null);
    expect(await nonce()).to.equal(0);
    // Base's RPC nodes ask the sequencer, whose pool no longer holds it.
    expect(await request("base_transactionStatus", [hash])).to.deep.equal({ status: "Unknown" });
    expect(await request("preconf_transactionStatus", [hash])).to.include({ status: "preconfirmed" });
    await provider.preconf.advance(2);
    expect(await nonce()).to.equal(1);
  });

  it("under a stall, geth's pending nonce (dev) counts the node's own pre-confirmed and pooled txs: live", async () => {
    await provider.preconf.advance();
    await provider.preconf.injectFault({ kind: "stall", durationMs: 600 });
    await send(provider, await signTx(provider, 0, { nonce: 0 }));
    await provider.preconf.advance();
    await send(provider, await signTx(provider, 0, { nonce: 1 }));
    expect(await request("eth_getTransactionCount", [sender(), "pending"])).to.equal("0x2");
  });

  it("Base's rules (base profile): pending calls run with the latest sealed header over the pre-confirmed state", async () => {
    await onBase();
    await send(provider, await signTx(provider, 0, { chainId: 8453, nonce: 0, to: RECIPIENT, value: 3n }));
    await provider.preconf.advance(2);
    const latest = (await request("eth_getBlockByNumber", ["latest", false])) as { number: string; timestamp: string };
    const out = (await request("eth_call", [{ data: HEADER_PROBE }, "pending"])) as string;
    expect([BigInt(`0x${out.slice(2, 66)}`), BigInt(`0x${out.slice(66, 130)}`)]).to.deep.equal([BigInt(latest.number), BigInt(latest.timestamp)]);
    // The state is the pre-confirmed one: the transfer is visible to a pending call.
    expect(await request("eth_getBalance", [RECIPIENT, "pending"])).to.equal("0x3");
    expect(await request("eth_estimateGas", [{ from: sender(), to: RECIPIENT, value: "0x1" }, "pending"])).to.equal("0x5208");
  });
});

describe("flashblocks: the fragment gas schedule", () => {
  let provider: PreconfProvider;
  beforeEach(async () => {
    // Base as of Cobalt (flashblocks), with a 30M block gas limit.
    ({ provider } = await createTestChain({ profile: "base", hardfork: "cobalt", blockGasLimit: 30_000_000, mining: "manual" }));
  });
  afterEach(() => provider.close());

  it("fragment 0 carries no user tx; fragment j fills the block up to j/10 of its gas limit (Base's docs), unused gas carrying over", async () => {
    expect(provider.chain.fragmentGasSchedule).to.equal(true);
    const first = await provider.preconf.fragment();
    // 0: system only (the L1-attributes deposit), using `deposit` gas.
    expect(first.transactions.map((record) => record.tx.type)).to.deep.equal([0x7e]);
    const deposit = first.cumulativeGasUsed;
    // 30M gas, 10 fragments: fragment j may bring the block up to j × 3M gas. A tx 1 gas above what
    // fragment 3 leaves (9M − deposit) waits for fragment 4; under j/9 fragment 3 would have taken it.
    const big = await send(provider, await signTx(provider, 0, { chainId: 8453, nonce: 0, gas: 9_000_000n - deposit + 1n }));
    const small = await send(provider, await signTx(provider, 1, { chainId: 8453, nonce: 0, to: RECIPIENT }));
    const included: string[][] = [];
    for (let i = 1; i <= 4; i++) included.push((await provider.preconf.fragment()).transactions.map((record) => record.hash));
    // 1: the transfer fits 3M, the big tx does not; 2: 6M, still not; 3: 9M minus the deposit and the
    // transfer: not yet; 4: 12M.
    expect(included).to.deep.equal([[small], [], [], [big]]);
  });

  it("the last fragment of a block brings it up to (n−1)/n of its gas limit: a tx above that waits for a block made at once", async () => {
    // OP Mainnet before Karst: 8 fragments per block, no per-tx cap.
    await provider.close();
    ({ provider } = await createTestChain({ profile: "optimism", hardfork: "jovian", blockGasLimit: 30_000_000, mining: "manual" }));
    const huge = await send(provider, await signTx(provider, 0, { chainId: 10, nonce: 0, gas: 27_500_000n }));
    // Fragments 0 … 7 of block 1 (the eighth seals it): 27.5M never fits 7/8 of 30M (26.25M).
    for (let i = 0; i < 8; i++) expect((await provider.preconf.fragment()).transactions.map((record) => record.hash)).not.to.include(huge);
    expect(await provider.request({ method: "eth_blockNumber" })).to.equal("0x1");
    // A block made of one fragment (evm_mine) may fill it.
    await provider.request({ method: "evm_mine" });
    expect(await provider.request({ method: "eth_getTransactionReceipt", params: [huge] })).to.include({ blockNumber: "0x2" });
  });

  it("off (the dev profile): the first fragment takes whatever fits the block", async () => {
    await provider.close();
    ({ provider } = await createTestChain());
    expect(provider.chain.fragmentGasSchedule).to.equal(false);
    const big = await send(provider, await signTx(provider, 0, { nonce: 0, gas: 10_000_000n }));
    expect((await provider.preconf.fragment()).transactions.map((record) => record.hash)).to.deep.equal([big]);
  });
});

describe("flashblocks: a reorg on an OP profile", () => {
  it("discards the user txs to the pool; the rebuilt block derives its L1-attributes deposit again", async () => {
    const { provider } = await createTestChain({ profile: "base", hardfork: "cobalt" });
    try {
      const hash = await send(provider, await signTx(provider, 0, { chainId: 8453, nonce: 0, to: RECIPIENT, value: 2n }));
      await provider.preconf.advance(2);
      expect(provider.chain.open.transactions.map((record) => record.tx.type)).to.deep.equal([0x7e, 2]);
      expect(await provider.preconf.injectFault({ kind: "reorg" })).to.deep.equal({ kind: "reorg", discarded: [hash] });
      await provider.preconf.advance(2);
      expect(provider.chain.open.transactions.map((record) => record.tx.type)).to.deep.equal([0x7e, 2]);
      expect(await provider.request({ method: "eth_getBalance", params: [RECIPIENT, "pending"] })).to.equal("0x2");
    } finally {
      await provider.close();
    }
  });
});
