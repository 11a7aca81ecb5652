/**
 * Old sealed blocks' per-tx leftovers are cut past the recent window (compactRecords.ts): every
 * answer about them stays exactly what it was when they were sealed; the zero blooms of txs
 * without logs are one shared array. Fake clock, manual mining; memory is measured by the bench
 * (row M), never here.
 */
import { expect } from "chai";
import { encodeDeployData, encodeFunctionData } from "viem";

import { createTestChain } from "./helpers/chain.ts";
import { Token } from "./helpers/contracts.ts";
import { send, signTx } from "./helpers/sign.ts";

import type { PreconfProvider } from "../src/index.ts";
import type { Hex } from "../src/rpc/schema.ts";

async function call<T = unknown>(provider: PreconfProvider, method: string, params: unknown[] = []): Promise<T> {
  return (await provider.request({ method, params })) as T;
}

describe("compaction of old blocks' records", () => {
  let provider: PreconfProvider;
  afterEach(async () => {
    await provider.close();
  });

  it("answers about an old block exactly as when it was sealed, and shares the zero blooms", async () => {
    ({ provider } = await createTestChain({ mining: "manual" }));
    const deploy = await send(
      provider,
      await signTx(provider, 0, {
        nonce: 0,
        to: undefined,
        value: 0n,
        gas: 2_000_000n,
        data: encodeDeployData({ abi: Token.abi, bytecode: Token.bytecode, args: ["Token", "TOK", 10n ** 24n] }),
      }),
    );
    await provider.preconf.seal();
    const { contractAddress: token } = await call<{ contractAddress: Hex }>(provider, "eth_getTransactionReceipt", [deploy]);
    const transfer = encodeFunctionData({ abi: Token.abi, functionName: "transfer", args: [provider.accounts[2]!.address, 5n] });
    // Block 2: a plain transfer (no logs) and a token transfer (a log).
    const plain = await send(provider, await signTx(provider, 1, { nonce: 0 }));
    const withLog = await send(provider, await signTx(provider, 0, { nonce: 1, to: token, value: 0n, gas: 100_000n, data: transfer }));
    await provider.preconf.seal();
    const answers = async () => ({
      block: await call(provider, "eth_getBlockByNumber", ["0x2", true]),
      receipts: await call(provider, "eth_getBlockReceipts", ["0x2"]),
      plain: [await call(provider, "eth_getTransactionByHash", [plain]), await call(provider, "eth_getTransactionReceipt", [plain])],
      withLog: [await call(provider, "eth_getTransactionByHash", [withLog]), await call(provider, "eth_getTransactionReceipt", [withLog])],
      logs: await call(provider, "eth_getLogs", [{ fromBlock: "0x0", toBlock: "0x2", address: token }]),
    });
    const fresh = await answers();
    const second = await send(provider, await signTx(provider, 1, { nonce: 1 }));
    await provider.preconf.seal();
    expect(provider.chain.transaction(plain)!.logsBloom).to.not.equal(provider.chain.transaction(second)!.logsBloom);
    for (let i = 0; i < 200; i++) await provider.preconf.seal();
    expect(await answers()).to.deep.equal(fresh);
    // Past the window, the two empty blooms are one array; the token transfer's keeps its bits.
    expect(provider.chain.transaction(plain)!.logsBloom).to.equal(provider.chain.transaction(second)!.logsBloom);
    expect(provider.chain.transaction(withLog)!.logsBloom.some((byte) => byte !== 0)).to.equal(true);
  });
});
