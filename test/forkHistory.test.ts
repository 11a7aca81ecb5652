/**
 * A fork's history (docs/forking.md): logs (eth_getLogs and log filters) and eth_feeHistory over
 * ranges that reach the fork block or below are the upstream's there and the fork's own after it.
 * The upstream is a preconf chain served on 127.0.0.1. No internet.
 */
import { expect } from "chai";
import { encodeDeployData, encodeFunctionData } from "viem";
import { privateKeyToAccount } from "viem/accounts";

import { startServer } from "../src/index.ts";
import { BlockStore } from "../src/node/chain/blockStore.ts";
import { createTestChain } from "./helpers/chain.ts";
import { Token } from "./helpers/contracts.ts";

import type { Hex, TransactionSerializable } from "viem";
import type { PreconfProvider, RunningServer } from "../src/index.ts";

const CHAIN_ID = 4242;
const HOLDER = "0x00000000000000000000000000000000000a11ce" as Hex;
/** Blocks hardhat_mine adds to the upstream after block 2: a fork of its latest block is far from 0. */
const EMPTY_RUN = 0x100000n;

type Request = (method: string, params?: unknown[]) => Promise<unknown>;
const requester =
  (provider: PreconfProvider): Request =>
  (method, params = []) =>
    provider.request({ method, params });

interface FeeHistory {
  oldestBlock: Hex;
  baseFeePerGas: Hex[];
  gasUsedRatio: number[];
  reward: Hex[][];
  baseFeePerBlobGas: Hex[];
  blobGasUsedRatio: number[];
}

async function signed(provider: PreconfProvider, nonce: number, tx: Partial<TransactionSerializable>): Promise<Hex> {
  const account = privateKeyToAccount(provider.accounts[0]!.privateKey);
  return account.signTransaction({
    chainId: CHAIN_ID,
    nonce,
    gas: 1_000_000n,
    maxFeePerGas: 10n ** 11n,
    maxPriorityFeePerGas: 10n ** 9n,
    ...tx,
  } as TransactionSerializable);
}

const transfer = (amount: bigint) => encodeFunctionData({ abi: Token.abi, functionName: "transfer", args: [HOLDER, amount] });

describe("fork history: logs and fee history across the fork block", function () {
  this.timeout(20_000);
  let upstream: PreconfProvider;
  let server: RunningServer;
  let up: Request;
  let token: Hex;
  let fork: PreconfProvider;
  let rpc: Request;

  before(async () => {
    upstream = (await createTestChain({ chainId: CHAIN_ID, mining: "manual" })).provider;
    server = await startServer(upstream, { port: 0 });
    up = requester(upstream);
    // Block 1: the token (its mint is a Transfer log); block 2: a transfer; block 3, after the fork block: another.
    const deploy = (await up("eth_sendRawTransaction", [
      await signed(upstream, 0, { data: encodeDeployData({ abi: Token.abi, bytecode: Token.bytecode, args: ["T", "T", 1000n] }) }),
    ])) as Hex;
    await upstream.preconf.seal();
    token = ((await up("eth_getTransactionReceipt", [deploy])) as { contractAddress: Hex }).contractAddress;
    await up("eth_sendRawTransaction", [await signed(upstream, 1, { to: token, data: transfer(10n) })]);
    await upstream.preconf.seal();
    await up("eth_sendRawTransaction", [await signed(upstream, 2, { to: token, data: transfer(20n) })]);
    await upstream.preconf.seal();
  });

  after(async () => {
    await server.close();
    await upstream.close();
  });

  beforeEach(async () => {
    fork = (await createTestChain({ fork: { url: server.url, blockNumber: 2 }, mining: "manual" })).provider;
    rpc = requester(fork);
    // Block 3 of the fork: its own transfer (the upstream's block 3 is another block).
    await rpc("eth_sendRawTransaction", [await signed(fork, 2, { to: token, data: transfer(5n) })]);
    await fork.preconf.seal();
  });

  afterEach(async () => fork.close());

  it("eth_getLogs, eth_newFilter and eth_getFilterLogs see the upstream's logs up to the fork block, then the fork's own", async () => {
    const upstreamLogs = (await up("eth_getLogs", [{ fromBlock: "0x0", toBlock: "0x2", address: token }])) as { blockNumber: Hex }[];
    expect(upstreamLogs.map((log) => log.blockNumber)).to.deep.equal(["0x1", "0x2"]);
    const own = (await rpc("eth_getLogs", [{ fromBlock: "0x3", toBlock: "latest", address: token }])) as { blockNumber: Hex; blockHash: Hex }[];
    expect(own).to.have.length(1);
    expect(own[0]!.blockHash).to.equal(((await rpc("eth_getBlockByNumber", ["0x3", false])) as { hash: Hex }).hash);

    const all = await rpc("eth_getLogs", [{ fromBlock: "earliest", toBlock: "latest", address: token }]);
    expect(all).to.deep.equal([...upstreamLogs, ...own]);
    const filter = await rpc("eth_newFilter", [{ fromBlock: "earliest", address: token }]);
    expect(await rpc("eth_getFilterLogs", [filter])).to.deep.equal(all);
    // A range that ends at the fork block is the upstream's alone.
    const old = await rpc("eth_newFilter", [{ fromBlock: "0x1", toBlock: "0x2", address: token }]);
    expect(await rpc("eth_getFilterLogs", [old])).to.deep.equal(upstreamLogs);
    // The filter's changes are the blocks sealed after it was made: the fork's own.
    await rpc("eth_sendRawTransaction", [await signed(fork, 3, { to: token, data: transfer(6n) })]);
    await fork.preconf.seal();
    const changes = (await rpc("eth_getFilterChanges", [filter])) as { blockNumber: Hex }[];
    expect(changes.map((log) => log.blockNumber)).to.deep.equal(["0x4"]);
  });

  it("eth_feeHistory over the fork block merges the upstream's history with the fork's", async () => {
    await fork.preconf.seal();
    const merged = (await rpc("eth_feeHistory", ["0xa", "latest", [50]])) as FeeHistory;
    const before = (await up("eth_feeHistory", ["0x3", "0x2", [50]])) as FeeHistory;
    const after = (await rpc("eth_feeHistory", ["0x2", "latest", [50]])) as FeeHistory;
    expect(after.oldestBlock).to.equal("0x3");
    expect(merged).to.deep.equal({
      oldestBlock: "0x0",
      reward: [...before.reward, ...after.reward],
      baseFeePerGas: [...before.baseFeePerGas.slice(0, 3), ...after.baseFeePerGas],
      gasUsedRatio: [...before.gasUsedRatio, ...after.gasUsedRatio],
      baseFeePerBlobGas: [...before.baseFeePerBlobGas.slice(0, 3), ...after.baseFeePerBlobGas],
      blobGasUsedRatio: [...before.blobGasUsedRatio, ...after.blobGasUsedRatio],
    });
    // Block 3's tip, paid on the fork.
    expect(merged.reward[3]).to.deep.equal(["0x3b9aca00"]);
    // A range all at or below the fork block is the upstream's answer.
    expect(await rpc("eth_feeHistory", ["0x2", "0x1", [25, 75]])).to.deep.equal(await up("eth_feeHistory", ["0x2", "0x1", [25, 75]]));
  });

  it("a log range from block 0 on a fork far from genesis reads only the fork's own blocks locally", async () => {
    await up("hardhat_mine", [`0x${EMPTY_RUN.toString(16)}`]);
    const head = BigInt((await up("eth_blockNumber")) as Hex);
    const { provider: far } = await createTestChain({ fork: { url: server.url }, mining: "manual" });
    const read = BlockStore.prototype.byNumber;
    let reads = 0;
    try {
      expect(await far.request({ method: "eth_blockNumber" })).to.equal(`0x${head.toString(16)}`);
      await far.request({ method: "eth_sendRawTransaction", params: [await signed(far, 3, { to: token, data: transfer(7n) })] });
      await far.preconf.seal();
      // Counts the block store's reads by number (every chain read goes through it): a walk from 0 would make a million.
      const chain = far.chain;
      BlockStore.prototype.byNumber = function (this: BlockStore, number: bigint) {
        reads++;
        return read.call(this, number);
      };
      const logs = (await far.request({ method: "eth_getLogs", params: [{ fromBlock: "0x0", address: token }] })) as { blockNumber: Hex }[];
      expect(logs.map((log) => BigInt(log.blockNumber))).to.deep.equal([1n, 2n, 3n, head + 1n]);
      const filter = await far.request({ method: "eth_newFilter", params: [{ fromBlock: "earliest", address: token }] });
      expect(await far.request({ method: "eth_getFilterLogs", params: [filter] })).to.deep.equal(logs);
      // The chain's own log walk starts at its first block, whatever range it is asked.
      expect([...chain.logs(0n, chain.headNumber, false)].map(({ log }) => log.address)).to.deep.equal([token.toLowerCase()]);
      expect(reads).to.be.lessThan(20);
    } finally {
      BlockStore.prototype.byNumber = read;
      await far.close();
    }
  });
});
