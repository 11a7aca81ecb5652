/**
 * eth_feeHistory: go-ethereum's answers (eth/gasprice/feehistory.go, internal/ethapi/api.go
 * FeeHistory, read at v1.17.5) for the edge cases, its blob fields and its reward algorithm; the
 * open block as `pending` (docs/behaviour.md, "The RPC surface").
 */
import { expect } from "chai";
import { parseGwei } from "viem";

import { createTestChain, rpcError } from "./helpers/chain.ts";
import { send, signTx } from "./helpers/sign.ts";

import type { PreconfProvider } from "../src/index.ts";

interface History {
  oldestBlock: string;
  reward?: string[][];
  baseFeePerGas?: string[];
  gasUsedRatio: number[] | null;
  baseFeePerBlobGas?: string[];
  blobGasUsedRatio?: number[];
}

const gwei = (n: number) => `0x${parseGwei(String(n)).toString(16)}`;

async function history(provider: PreconfProvider, params: unknown[]): Promise<History> {
  return (await provider.request({ method: "eth_feeHistory", params })) as History;
}

describe("eth_feeHistory", () => {
  let provider: PreconfProvider;
  afterEach(() => provider.close());

  describe("on sealed blocks", () => {
    beforeEach(async () => {
      ({ provider } = await createTestChain({ mining: "manual" }));
      // Block 1: two transfers of 21,000 gas, effective tips 1 and 7 gwei (base fee 1 gwei, fee cap 10).
      await send(provider, await signTx(provider, 0, { nonce: 0, maxPriorityFeePerGas: parseGwei("7") }));
      await send(provider, await signTx(provider, 1, { nonce: 0, maxPriorityFeePerGas: parseGwei("1") }));
      await provider.request({ method: "evm_mine" });
      // Blocks 2 and 3: empty.
      await provider.request({ method: "evm_mine" });
      await provider.request({ method: "evm_mine" });
    });

    it("answers geth's fields: one more base fee and blob base fee than blocks, the ratios, rewards by gas-weighted percentile", async () => {
      const answer = await history(provider, ["0x2", "0x2", [0, 49, 50, 51, 100]]);
      const block = (n: number) =>
        provider.request({ method: "eth_getBlockByNumber", params: [`0x${n}`, false] }) as Promise<{
          baseFeePerGas: string;
          gasUsed: string;
          gasLimit: string;
        }>;
      const [one, two, three] = [await block(1), await block(2), await block(3)];
      expect(answer).to.deep.equal({
        oldestBlock: "0x1",
        // geth's thresholds are uint64(gasUsed * p / 100) of 42,000 gas: 0, 20,580, 21,000, 21,420, 42,000;
        // the first tx (1 gwei) covers 21,000 of them.
        reward: [
          [gwei(1), gwei(1), gwei(1), gwei(7), gwei(7)],
          ["0x0", "0x0", "0x0", "0x0", "0x0"],
        ],
        baseFeePerGas: [one.baseFeePerGas, two.baseFeePerGas, three.baseFeePerGas],
        gasUsedRatio: [Number(one.gasUsed) / Number(one.gasLimit), 0],
        // Prague, no blobs: the minimum blob base fee (1 wei, EIP-4844) and ratio 0.
        baseFeePerBlobGas: ["0x1", "0x1", "0x1"],
        blobGasUsedRatio: [0, 0],
      });
      expect(one.gasUsed).to.equal("0xa410");
    });

    it("a block count of 0 is geth's empty answer, whatever else is asked", async () => {
      for (const params of [
        ["0x0", "latest", []],
        [0, "latest"],
        ["0", "0x100", [101]],
      ]) {
        expect(await history(provider, params)).to.deep.equal({ oldestBlock: "0x0", gasUsedRatio: null });
      }
    });

    it("the block count is a hex quantity, a decimal string or a JSON number (geth's HexOrDecimal64); more than 1024 is 1024", async () => {
      const hex = await history(provider, ["0x2", "latest", [50]]);
      expect(await history(provider, [2, "latest", [50]])).to.deep.equal(hex);
      expect(await history(provider, ["2", "latest", [50]])).to.deep.equal(hex);
      const all = await history(provider, [5000, "latest"]);
      expect(all.oldestBlock).to.equal("0x0");
      expect(all.gasUsedRatio).to.have.length(4);
      expect(await rpcError(provider, "eth_feeHistory", ["0x1ffffffffffffffff", "latest"])).to.deep.include({ code: -32602 });
      expect(await rpcError(provider, "eth_feeHistory", [-1, "latest"])).to.deep.include({ code: -32602 });
    });

    it("more blocks than the chain has start at block 0; no percentiles, or none, is no reward field", async () => {
      for (const percentiles of [[], undefined]) {
        const answer = await history(provider, percentiles === undefined ? ["0x64", "latest"] : ["0x64", "latest", percentiles]);
        expect(answer.oldestBlock).to.equal("0x0");
        expect(answer.gasUsedRatio).to.have.length(4);
        expect(answer.baseFeePerGas).to.have.length(5);
        expect(answer.baseFeePerBlobGas).to.have.length(5);
        expect(answer).to.not.have.property("reward");
      }
      expect((await history(provider, ["0x2", "earliest", [50]])).oldestBlock).to.equal("0x0");
      expect((await history(provider, ["0x2", "earliest", [50]])).reward).to.deep.equal([["0x0"]]);
    });

    it("a newest block past the head is geth's 'request beyond head block' (-32000)", async () => {
      expect(await rpcError(provider, "eth_feeHistory", ["0x2", "0x100", []])).to.deep.equal({
        code: -32000,
        message: "request beyond head block: requested 256, head 3",
        data: undefined,
      });
      // The open block is `pending`, not a number past the head.
      expect((await rpcError(provider, "eth_feeHistory", ["0x1", 4])).message).to.equal("request beyond head block: requested 4, head 3");
    });

    it("percentiles out of range, not ascending or more than 100 are geth's 'invalid reward percentile' (-32000)", async () => {
      for (const [percentiles, message] of [
        [[50, 10], "invalid reward percentile: #0:50.000000 >= #1:10.000000"],
        [[10, 50, 50], "invalid reward percentile: #1:50.000000 >= #2:50.000000"],
        [[101], "invalid reward percentile: 101.000000"],
        [[-1], "invalid reward percentile: -1.000000"],
        [[0.5, 100.25], "invalid reward percentile: 100.250000"],
        [Array.from({ length: 101 }, (_, i) => i / 2), "invalid reward percentile: over the query limit 100"],
      ] as const) {
        expect(await rpcError(provider, "eth_feeHistory", ["0x1", "latest", percentiles])).to.deep.equal({ code: -32000, message, data: undefined });
      }
      // Percentiles must be numbers: the params are wrong (-32602).
      expect(await rpcError(provider, "eth_feeHistory", ["0x1", "latest", ["50"]])).to.deep.include({ code: -32602 });
    });
  });

  it("pending is the open block once it pre-confirmed a tx: its gas so far, its tips, and the base fee its successor will have", async () => {
    ({ provider } = await createTestChain());
    await provider.preconf.seal();
    await send(provider, await signTx(provider, 0, { nonce: 0, maxPriorityFeePerGas: parseGwei("3") }));
    await provider.preconf.advance();
    const open = provider.chain.open;
    expect(open.transactions).to.have.length(1);
    const answer = await history(provider, ["0x2", "pending", [50]]);
    expect(answer.oldestBlock).to.equal(`0x${(open.number - 1n).toString(16)}`);
    expect(answer.gasUsedRatio).to.deep.equal([0, 21000 / Number(open.header.gasLimit)]);
    expect(answer.reward).to.deep.equal([["0x0"], [gwei(3)]]);
    expect(answer.baseFeePerGas![1]).to.equal(`0x${open.header.baseFeePerGas.toString(16)}`);
    // Nothing more is pre-confirmed: the sealed block's successor opens with the announced base fee.
    await provider.preconf.seal();
    expect(answer.baseFeePerGas![2]).to.equal(`0x${provider.chain.open.header.baseFeePerGas.toString(16)}`);
    expect(answer.baseFeePerBlobGas).to.deep.equal(["0x1", "0x1", "0x1"]);
    // Before a fragment, pending is the latest block (docs/behaviour.md).
    expect((await history(provider, ["0x1", "pending"])).oldestBlock).to.equal(`0x${(provider.chain.open.number - 1n).toString(16)}`);
  });
});
