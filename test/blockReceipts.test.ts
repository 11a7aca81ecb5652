/**
 * eth_getBlockReceipts (execution-apis; go-ethereum's shape): a block's receipts by number, tag,
 * hash or EIP-1898 object, each exactly eth_getTransactionReceipt's; on the open block, its
 * pre-confirmed receipts (docs/behaviour.md). fixtures/execution-apis/eth_getBlockReceipts holds
 * geth's answers (test/conformance.test.ts).
 */
import { expect } from "chai";

import { createTestChain } from "./helpers/chain.ts";
import { send, signTx } from "./helpers/sign.ts";

import type { Hex } from "viem";
import type { PreconfProvider } from "../src/index.ts";

const rpc = <T>(provider: PreconfProvider, method: string, params: unknown[] = []) => provider.request({ method, params }) as Promise<T>;
type Receipt = { transactionHash: Hex; blockHash: Hex; blockNumber: Hex; transactionIndex: Hex };

describe("eth_getBlockReceipts", () => {
  let provider: PreconfProvider;

  beforeEach(async () => {
    provider = (await createTestChain({ mining: "manual" })).provider;
  });

  afterEach(() => provider.close());

  it("answers a sealed block's receipts in order, each as eth_getTransactionReceipt does, by number, tag, hash and EIP-1898", async () => {
    const hashes = [await send(provider, await signTx(provider, 0, { nonce: 0 })), await send(provider, await signTx(provider, 1, { nonce: 0 }))];
    await provider.preconf.seal();
    const block = await rpc<{ hash: Hex; number: Hex; transactions: Hex[] }>(provider, "eth_getBlockByNumber", ["latest", false]);
    const receipts = await rpc<Receipt[]>(provider, "eth_getBlockReceipts", [block.number]);
    expect(receipts.map((receipt) => receipt.transactionHash)).to.deep.equal(block.transactions);
    expect([...receipts.map((receipt) => receipt.transactionHash)].sort()).to.deep.equal([...hashes].sort());
    for (const receipt of receipts) expect(receipt).to.deep.equal(await rpc(provider, "eth_getTransactionReceipt", [receipt.transactionHash]));
    for (const selector of ["latest", block.hash, { blockHash: block.hash }, { blockNumber: block.number }]) {
      expect(await rpc(provider, "eth_getBlockReceipts", [selector]), JSON.stringify(selector)).to.deep.equal(receipts);
    }
    expect(await rpc(provider, "eth_getBlockReceipts", ["earliest"])).to.deep.equal([]);
  });

  it("answers the open block's pre-confirmed receipts on pending (block hash zero), null for unknown blocks", async () => {
    const hash = await send(provider, await signTx(provider, 0, { nonce: 0 }));
    await provider.preconf.fragment();
    const pending = await rpc<Receipt[]>(provider, "eth_getBlockReceipts", ["pending"]);
    expect(pending.map((receipt) => receipt.transactionHash)).to.deep.equal([hash]);
    expect(pending[0]!.blockHash).to.equal(`0x${"00".repeat(32)}`);
    expect(pending).to.deep.equal([await rpc(provider, "eth_getTransactionReceipt", [hash])]);
    const open = await rpc<{ number: Hex }>(provider, "eth_getBlockByNumber", ["pending", false]);
    expect(await rpc(provider, "eth_getBlockReceipts", [open.number])).to.deep.equal(pending);
    expect(await rpc(provider, "eth_getBlockReceipts", ["0x1000"])).to.equal(null);
    expect(await rpc(provider, "eth_getBlockReceipts", [`0x${"ab".repeat(32)}`])).to.equal(null);
    let error: unknown;
    await rpc(provider, "eth_getBlockReceipts", ["soon"]).catch((failure: unknown) => {
      error = failure;
    });
    expect(error).to.deep.include({ code: -32602 });
  });
});
