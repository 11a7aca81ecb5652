/**
 * hardhat_mine(n) without building empty blocks (EDR's reservations): every read answers one
 * consistent chain of n blocks, whatever n is.
 */
import { expect } from "chai";
import { createTestChain, rpcError } from "./helpers/chain.ts";
import { send, signTx } from "./helpers/sign.ts";

import type { PreconfProvider } from "../src/index.ts";

async function call<T = unknown>(provider: PreconfProvider, method: string, params: unknown[] = []): Promise<T> {
  return (await provider.request({ method, params })) as T;
}

type BlockJson = { number: string; hash: string; parentHash: string; timestamp: string; transactions: string[]; baseFeePerGas: string; stateRoot: string };
const block = (provider: PreconfProvider, tag: string) => call<BlockJson>(provider, "eth_getBlockByNumber", [tag, false]);
const hex = (value: number | bigint) => `0x${value.toString(16)}`;

describe("hardhat_mine of many blocks", () => {
  let provider: PreconfProvider;

  beforeEach(async () => {
    provider = (await createTestChain({ mining: "manual" })).provider;
  });
  afterEach(() => provider.close());

  it("mines 1,000,000 blocks: number, head, any block by number and hash, timestamps interval apart", async () => {
    const start = Number((await block(provider, "latest")).timestamp);
    expect(await call(provider, "hardhat_mine", [hex(1_000_000), hex(2)])).to.equal(true);
    expect(await call(provider, "eth_blockNumber")).to.equal(hex(1_000_000));

    const head = await block(provider, "latest");
    const first = await block(provider, "0x1");
    const middle = await block(provider, hex(500_000));
    expect(Number(first.timestamp)).to.be.at.least(start + 1);
    expect(Number(middle.timestamp)).to.equal(Number(first.timestamp) + 2 * 499_999);
    expect(Number(head.timestamp)).to.equal(Number(first.timestamp) + 2 * 999_999);
    expect(middle.transactions).to.deep.equal([]);
    // A reserved block has the state of the block before the run (block 2): it makes no system call (docs/dev-methods.md).
    expect(middle.stateRoot).to.equal((await block(provider, "0x2")).stateRoot);
    expect(middle.stateRoot).to.not.equal(first.stateRoot);
    // The same block, read again and by hash; the head's parent is the block before it.
    expect(await block(provider, hex(500_000))).to.deep.equal(middle);
    expect(await call(provider, "eth_getBlockByHash", [middle.hash, false])).to.deep.equal(middle);
    expect(head.parentHash).to.equal((await block(provider, hex(999_999))).hash);
    // Past the head: the open block (pending, by its number), then nothing.
    expect((await block(provider, hex(1_000_001))).parentHash).to.equal(head.hash);
    expect(await block(provider, hex(1_000_002))).to.equal(null);
  });

  it("logs, fee history and BLOCKHASH see the reserved blocks", async () => {
    await send(provider, await signTx(provider, 0, { nonce: 0 }));
    await call(provider, "hardhat_mine", [hex(100_000)]);
    expect(await call(provider, "eth_getLogs", [{ fromBlock: "0x0", toBlock: "latest" }])).to.deep.equal([]);
    const history = await call<{ oldestBlock: string; baseFeePerGas: string[]; gasUsedRatio: number[] }>(provider, "eth_feeHistory", ["0x5", hex(50_000), []]);
    expect(history.oldestBlock).to.equal(hex(49_996));
    expect(history.gasUsedRatio).to.deep.equal([0, 0, 0, 0, 0]);
    expect(history.baseFeePerGas).to.have.length(6);
    // BLOCKHASH(head - 1) through a call: PUSH3 <n> BLOCKHASH PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN.
    const n = 99_999;
    const code = `0x62${n.toString(16).padStart(6, "0")}4060005260206000f3`;
    const answer = await call<string>(provider, "eth_call", [{ data: code }, "latest"]);
    expect(answer).to.equal((await block(provider, hex(n))).hash);
  });

  it("evm_revert to before a big mine drops the reserved blocks; mining again continues from the snapshot", async () => {
    const id = await call<string>(provider, "evm_snapshot");
    await call(provider, "hardhat_mine", [hex(1_000)]);
    const reserved = await block(provider, hex(500));
    expect(await call(provider, "evm_revert", [id])).to.equal(true);
    expect(await call(provider, "eth_blockNumber")).to.equal("0x0");
    expect(await call(provider, "eth_getBlockByHash", [reserved.hash, false])).to.equal(null);
    await call(provider, "hardhat_mine", [hex(10)]);
    expect(await call(provider, "eth_blockNumber")).to.equal(hex(10));
    expect((await block(provider, hex(5))).number).to.equal(hex(5));
  });

  it("10^9 blocks: mined, read at both ends and reverted without walking the run", async () => {
    const id = await call<string>(provider, "evm_snapshot");
    await call(provider, "hardhat_mine", [hex(1_000_000_000)]);
    expect(await call(provider, "eth_blockNumber")).to.equal(hex(1_000_000_000));
    const built = await block(provider, hex(123_456_789));
    expect(built.number).to.equal(hex(123_456_789));
    expect(await call(provider, "evm_revert", [id])).to.equal(true);
    expect(await call(provider, "eth_blockNumber")).to.equal("0x0");
    expect(await call(provider, "eth_getBlockByHash", [built.hash, false])).to.equal(null);
    expect(await block(provider, hex(123_456_789))).to.equal(null);
  });

  it("pooled txs go into the first blocks; short runs are built block by block", async () => {
    await send(provider, await signTx(provider, 0, { nonce: 0 }));
    await call(provider, "hardhat_mine", [hex(3), hex(5)]);
    const blocks = await Promise.all([1, 2, 3].map((n) => block(provider, hex(n))));
    expect(blocks.map((b) => b.transactions.length)).to.deep.equal([1, 0, 0]);
    expect(Number(blocks[2]!.timestamp) - Number(blocks[1]!.timestamp)).to.equal(5);
    expect(blocks[2]!.parentHash).to.equal(blocks[1]!.hash);
  });

  it("more than 10^9 blocks at once is -32602", async () => {
    expect((await rpcError(provider, "hardhat_mine", [hex(1_000_000_001)])).code).to.equal(-32602);
  });
});
