/**
 * Subscriptions as EIP-1193 `message` events (docs/behaviour.md, "Pre-confirmation companions") and polling filters, on a fake clock.
 */
import { expect } from "chai";
import { encodeDeployData, encodeFunctionData, keccak256, parseGwei, toEventSelector } from "viem";
import { privateKeyToAccount } from "viem/accounts";

import { createTestChain, rpcError } from "./helpers/chain.ts";
import { Counter } from "./helpers/contracts.ts";
import { warningsDuring } from "./helpers/warnings.ts";

import type { Hex } from "viem";
import type { PreconfProvider, SubscriptionMessage } from "../src/index.ts";

const RECIPIENT = "0x000000000000000000000000000000000000dEaD";
const ZERO_HASH = `0x${"00".repeat(32)}`;
const INCREMENTED = toEventSelector("Incremented(address,uint256)");
/** Counter's first deployment by account 0 (nonce 0). */
const COUNTER = "0x5fbdb2315678afecb367f032d93f642f64180aa3";

function sign(provider: PreconfProvider, nonce: number, fields: { to?: Hex; data?: Hex; gas?: bigint; value?: bigint }): Promise<Hex> {
  return privateKeyToAccount(provider.accounts[0]!.privateKey).signTransaction({
    chainId: 31337,
    type: "eip1559",
    nonce,
    gas: fields.gas ?? 21000n,
    maxFeePerGas: parseGwei("10"),
    maxPriorityFeePerGas: parseGwei("1"),
    ...(fields.to !== undefined && { to: fields.to }),
    ...(fields.data !== undefined && { data: fields.data }),
    ...(fields.value !== undefined && { value: fields.value }),
  });
}

const transfer = (provider: PreconfProvider, nonce: number) => sign(provider, nonce, { to: RECIPIENT, value: 1n });
const deployCounter = (provider: PreconfProvider) =>
  sign(provider, 0, { data: encodeDeployData({ abi: Counter.abi, bytecode: Counter.bytecode }), gas: 500_000n });
const increment = (provider: PreconfProvider, nonce: number) =>
  sign(provider, nonce, { to: COUNTER, data: encodeFunctionData({ abi: Counter.abi, functionName: "increment" }), gas: 100_000n });

describe("subscriptions (EIP-1193 message events)", () => {
  let provider: PreconfProvider;
  let messages: SubscriptionMessage[];
  const onMessage = (message: SubscriptionMessage) => messages.push(message);
  const of = (id: unknown) => messages.filter((message) => message.data.subscription === id).map((message) => message.data.result);
  const subscribe = (...params: unknown[]) => provider.request({ method: "eth_subscribe", params });
  const send = (raw: Hex) => provider.request({ method: "eth_sendRawTransaction", params: [raw] }) as Promise<Hex>;

  beforeEach(async () => {
    ({ provider } = await createTestChain());
    messages = [];
    provider.on("message", onMessage);
  });

  afterEach(() => provider.close());

  it("newFlashblocks: per fragment, the accumulated pending block as a standard block object (hydrated, hash zero)", async () => {
    const id = await subscribe("newFlashblocks");
    const hash = await send(await transfer(provider, 0));
    await provider.preconf.advance();
    const pendingAfterFirst = await provider.request({ method: "eth_getBlockByNumber", params: ["pending", true] });
    const second = await send(await transfer(provider, 1));
    await provider.preconf.advance();
    await provider.preconf.advance();
    const blocks = of(id) as { number: string; hash: string; gasUsed: string; transactions: { hash: string; blockHash: null; blockNumber: string }[] }[];
    expect(blocks).to.have.length(3);
    expect(messages[0]).to.deep.include({ type: "eth_subscription" });
    // The same block number repeats as its flashblocks arrive; the transactions accumulate.
    expect(blocks.map((block) => block.number)).to.deep.equal(["0x1", "0x1", "0x1"]);
    expect(blocks.map((block) => block.hash)).to.deep.equal([ZERO_HASH, ZERO_HASH, ZERO_HASH]);
    expect(blocks.map((block) => block.transactions.map((tx) => tx.hash))).to.deep.equal([[hash], [hash, second], [hash, second]]);
    expect(blocks.map((block) => block.gasUsed)).to.deep.equal(["0x5208", "0xa410", "0xa410"]);
    expect(blocks[0]).to.deep.equal(pendingAfterFirst);
    expect(blocks[1]!.transactions[1]).to.include({ hash: second, blockHash: null, blockNumber: "0x1", transactionIndex: "0x1" });
  });

  it("base_subscribe answers the same subscriptions (the namespace one Base release used)", async () => {
    const id = await provider.request({ method: "base_subscribe", params: ["newFlashblocks"] });
    await provider.preconf.advance();
    expect(of(id)).to.have.length(1);
    expect(of(id)[0]).to.include({ number: "0x1", hash: ZERO_HASH });
    expect(await provider.request({ method: "base_unsubscribe", params: [id] })).to.equal(true);
  });

  it("newFlashblockTransactions: hashes; with true, each tx with its logs and receipt fields (Base's TransactionWithLogs)", async () => {
    const hashes = await subscribe("newFlashblockTransactions");
    const full = await subscribe("newFlashblockTransactions", true);
    await send(await deployCounter(provider));
    const incremented = await send(await increment(provider, 1));
    await provider.preconf.advance();
    expect(of(hashes)).to.have.length(2);
    expect(of(hashes)[1]).to.equal(incremented);
    const receipt = (await provider.request({ method: "eth_getTransactionReceipt", params: [incremented] })) as Record<string, unknown>;
    const tx = of(full)[1] as Record<string, unknown> & { logs: { topics: string[] }[] };
    expect(tx).to.include({ hash: incremented, status: "0x1", blockNumber: "0x1", blockHash: null, to: COUNTER, contractAddress: null });
    // gasUsed is a JSON number in Base's type; cumulativeGasUsed and logsBloom as in the receipt.
    expect(tx.gasUsed).to.equal(Number(receipt.gasUsed));
    expect(tx).to.include({ cumulativeGasUsed: receipt.cumulativeGasUsed, logsBloom: receipt.logsBloom });
    expect(tx.logs).to.deep.equal(receipt.logs);
    expect(tx).to.include.keys("input", "nonce", "gasPrice", "transactionIndex");
    expect(tx).to.not.have.property("transactionHash");
    expect(tx.logs[0]!.topics[0]).to.equal(INCREMENTED);
    expect((of(full)[0] as { contractAddress: string }).contractAddress).to.equal(COUNTER);
  });

  it("newFlashblockTransactions with a filter object: only txs with a matching log, with all their logs", async () => {
    const counter = await subscribe("newFlashblockTransactions", { address: COUNTER, topics: [INCREMENTED] });
    const elsewhere = await subscribe("newFlashblockTransactions", { address: RECIPIENT });
    await send(await deployCounter(provider));
    const first = await send(await increment(provider, 1));
    await send(await transfer(provider, 2));
    const second = await send(await increment(provider, 3));
    await provider.preconf.advance();
    expect((of(counter) as { hash: string }[]).map((tx) => tx.hash)).to.deep.equal([first, second]);
    expect(of(counter)[0]).to.include({ status: "0x1", blockHash: null });
    expect(of(elsewhere)).to.deep.equal([]);
    expect(await rpcError(provider, "eth_subscribe", ["newFlashblockTransactions", { address: COUNTER, fromBlock: "0x0" }])).to.deep.include({ code: -32602 });
  });

  it("pendingLogs: one log per notification, filtered by address and topics", async () => {
    const all = await subscribe("pendingLogs");
    const counter = await subscribe("pendingLogs", { address: COUNTER, topics: [INCREMENTED] });
    const elsewhere = await subscribe("pendingLogs", { address: RECIPIENT });
    const otherTopic = await subscribe("pendingLogs", { topics: [keccak256("0x01")] });
    await send(await deployCounter(provider));
    await send(await increment(provider, 1));
    await send(await increment(provider, 2));
    await provider.preconf.advance();
    expect(of(all)).to.have.length(2);
    expect(of(counter)).to.have.length(2);
    expect(of(elsewhere)).to.have.length(0);
    expect(of(otherTopic)).to.have.length(0);
    expect(of(counter)[1]).to.deep.include({ address: COUNTER, blockHash: ZERO_HASH, blockNumber: "0x1", logIndex: "0x1", removed: false });
  });

  it("newHeads at each seal, logs of sealed blocks with their hash, newPendingTransactions on admission", async () => {
    const heads = await subscribe("newHeads");
    const logs = await subscribe("logs", { address: COUNTER });
    const pending = await subscribe("newPendingTransactions");
    const pendingFull = await subscribe("newPendingTransactions", true);
    const deployed = await send(await deployCounter(provider));
    await send(await increment(provider, 1));
    expect(of(pending)).to.have.length(2);
    expect(of(pending)[0]).to.equal(deployed);
    expect(of(pendingFull)[0]).to.include({ hash: deployed, blockHash: null });
    await provider.preconf.advance();
    expect(of(heads)).to.have.length(0);
    expect(of(logs)).to.have.length(0);
    await provider.preconf.advance(provider.preconf.fragmentsPerBlock - 1);
    await provider.preconf.advance(provider.preconf.fragmentsPerBlock);
    const sealed = (await provider.request({ method: "eth_getBlockByNumber", params: ["0x1", false] })) as Record<string, unknown>;
    expect(of(heads)).to.have.length(2);
    const head = of(heads)[0] as Record<string, unknown>;
    expect(head).to.include({ number: "0x1", hash: sealed.hash, parentHash: sealed.parentHash, stateRoot: sealed.stateRoot });
    expect(head).to.not.have.property("transactions");
    expect(of(logs)).to.have.length(1);
    expect(of(logs)[0]).to.include({ blockHash: sealed.hash, address: COUNTER });
  });

  it("eth_unsubscribe stops a subscription; unknown ids answer false; bad params are -32602", async () => {
    const id = await subscribe("newFlashblocks");
    await provider.preconf.advance();
    expect(await provider.request({ method: "eth_unsubscribe", params: [id] })).to.equal(true);
    await provider.preconf.advance();
    expect(of(id)).to.have.length(1);
    expect(await provider.request({ method: "eth_unsubscribe", params: [id] })).to.equal(false);
    expect((await rpcError(provider, "eth_subscribe", ["newThings"])).code).to.equal(-32602);
    expect((await rpcError(provider, "eth_subscribe", ["newHeads", true])).code).to.equal(-32602);
    expect(await rpcError(provider, "eth_subscribe", ["pendingLogs", { address: "0x12" }])).to.deep.include({ code: -32602 });
  });

  it("a throwing listener never breaks the chain nor the other listeners", async () => {
    provider.prependListener("message", () => {
      throw new Error("listener bug");
    });
    const warnings = await warningsDuring(async () => {
      const id = await subscribe("newFlashblockTransactions");
      const hash = await send(await transfer(provider, 0));
      await provider.preconf.advance();
      expect(of(id)).to.deep.equal([hash]);
      await provider.preconf.advance(provider.preconf.fragmentsPerBlock);
      expect(await provider.request({ method: "eth_blockNumber" })).to.equal("0x1");
    });
    expect(warnings.some((message) => message.includes("listener bug"))).to.equal(true);
  });

  it("close() drops every subscription", async () => {
    await subscribe("newFlashblocks");
    await provider.close();
    expect(messages).to.have.length(0);
  });
});

describe("filters (polling)", () => {
  let provider: PreconfProvider;
  const request = (method: string, params: unknown[] = []) => provider.request({ method, params });
  const send = (raw: Hex) => request("eth_sendRawTransaction", [raw]) as Promise<Hex>;

  beforeEach(async () => {
    ({ provider } = await createTestChain());
  });

  afterEach(() => provider.close());

  it("eth_newBlockFilter answers the hashes of blocks sealed since the last poll", async () => {
    const id = await request("eth_newBlockFilter");
    expect(await request("eth_getFilterChanges", [id])).to.deep.equal([]);
    await provider.preconf.advance(provider.preconf.fragmentsPerBlock * 2);
    const one = (await request("eth_getBlockByNumber", ["0x1", false])) as { hash: string };
    const two = (await request("eth_getBlockByNumber", ["0x2", false])) as { hash: string };
    expect(await request("eth_getFilterChanges", [id])).to.deep.equal([one.hash, two.hash]);
    expect(await request("eth_getFilterChanges", [id])).to.deep.equal([]);
  });

  it("eth_newPendingTransactionFilter answers admitted tx hashes once", async () => {
    const id = await request("eth_newPendingTransactionFilter");
    const hash = await send(await transfer(provider, 0));
    expect(await request("eth_getFilterChanges", [id])).to.deep.equal([hash]);
    expect(await request("eth_getFilterChanges", [id])).to.deep.equal([]);
  });

  it("eth_newFilter: new sealed logs per poll, every match with eth_getFilterLogs", async () => {
    await send(await deployCounter(provider));
    await send(await increment(provider, 1));
    await provider.preconf.advance(provider.preconf.fragmentsPerBlock);
    const id = await request("eth_newFilter", [{ address: COUNTER, fromBlock: "earliest" }]);
    expect(await request("eth_getFilterChanges", [id])).to.deep.equal([]);
    await send(await increment(provider, 2));
    await provider.preconf.advance();
    // Pre-confirmed only: a polling filter reports logs once their block is sealed.
    expect(await request("eth_getFilterChanges", [id])).to.deep.equal([]);
    await provider.preconf.advance(provider.preconf.fragmentsPerBlock);
    const changes = (await request("eth_getFilterChanges", [id])) as { blockNumber: string }[];
    expect(changes.map((log) => log.blockNumber)).to.deep.equal(["0x2"]);
    const all = (await request("eth_getFilterLogs", [id])) as { blockNumber: string }[];
    expect(all.map((log) => log.blockNumber)).to.deep.equal(["0x1", "0x2"]);
  });

  it("eth_uninstallFilter; unknown filters are -32000 filter not found", async () => {
    const id = await request("eth_newBlockFilter");
    expect(await request("eth_uninstallFilter", [id])).to.equal(true);
    expect(await request("eth_uninstallFilter", [id])).to.equal(false);
    expect(await rpcError(provider, "eth_getFilterChanges", [id])).to.deep.equal({ code: -32000, message: "filter not found", data: undefined });
    const blocks = await request("eth_newBlockFilter");
    expect((await rpcError(provider, "eth_getFilterLogs", [blocks])).message).to.equal("filter not found");
  });

  it("drops filters not polled for 5 minutes", async () => {
    const { clock, provider: manual } = await createTestChain({ mining: "manual" });
    try {
      const id = await manual.request({ method: "eth_newBlockFilter" });
      await clock.tickAsync(5 * 60 * 1000 + 1);
      expect((await rpcError(manual, "eth_getFilterChanges", [id])).message).to.equal("filter not found");
    } finally {
      await manual.close();
    }
  });
});
