/**
 * Block parameters: numbers given as JSON numbers wherever a block is named (Hardhat's and anvil's
 * eth_getBlockByNumber accept `1` beside `"0x1"`), and the state at block 0 (served like any kept
 * block: docs/behaviour.md, "The RPC surface").
 */
import { expect } from "chai";

import { createTestChain, rpcError } from "./helpers/chain.ts";

import type { PreconfProvider } from "../src/index.ts";

const STRANGER = "0x1234567890123456789012345678901234567890";

async function call<T = unknown>(provider: PreconfProvider, method: string, params: unknown[] = []): Promise<T> {
  return (await provider.request({ method, params })) as T;
}

describe("block parameters", () => {
  let provider: PreconfProvider;
  let dev: string;

  beforeEach(async () => {
    ({ provider } = await createTestChain({ mining: "manual" }));
    dev = provider.accounts[0]!.address;
    await call(provider, "eth_sendTransaction", [{ from: dev, to: STRANGER, value: "0x7" }]);
    await call(provider, "evm_mine");
    await call(provider, "evm_mine");
  });
  afterEach(() => provider.close());

  it("a JSON number names the same block as its hex quantity, in every place a block is named", async () => {
    for (const [method, asNumber, asHex] of [
      ["eth_getBalance", [STRANGER, 1], [STRANGER, "0x1"]],
      ["eth_getBalance", [STRANGER, { blockNumber: 1 }], [STRANGER, { blockNumber: "0x1" }]],
      ["eth_getTransactionCount", [dev, 1], [dev, "0x1"]],
      ["eth_getCode", [STRANGER, 0], [STRANGER, "0x0"]],
      ["eth_getStorageAt", [STRANGER, "0x0", 1], [STRANGER, "0x0", "0x1"]],
      ["eth_call", [{ to: STRANGER }, 1], [{ to: STRANGER }, "0x1"]],
      ["eth_getBlockByNumber", [1, false], ["0x1", false]],
      ["eth_getBlockTransactionCountByNumber", [1], ["0x1"]],
      ["eth_getTransactionByBlockNumberAndIndex", [1, "0x0"], ["0x1", "0x0"]],
      ["eth_getLogs", [{ fromBlock: 0, toBlock: 2 }], [{ fromBlock: "0x0", toBlock: "0x2" }]],
      ["eth_feeHistory", ["0x2", 2, [50]], ["0x2", "0x2", [50]]],
    ] as const) {
      expect(await call(provider, method, [...asNumber]), `${method} ${JSON.stringify(asNumber)}`).to.deep.equal(await call(provider, method, [...asHex]));
    }
    expect(await call(provider, "eth_getBalance", [STRANGER, 1])).to.equal("0x7");
    expect(await call(provider, "eth_getBalance", [STRANGER, 0])).to.equal("0x0");
  });

  it("a JSON number that is negative, fractional or past 2^53 - 1 is -32602, naming the parameter", async () => {
    for (const bad of [-1, 1.5, 2 ** 53, "1", true]) {
      const error = await rpcError(provider, "eth_getBalance", [STRANGER, bad]);
      expect(error).to.deep.include({ code: -32602, message: "Invalid params" });
      expect((error.data as { field: string }).field).to.equal("params[1]");
    }
    expect(await rpcError(provider, "eth_getLogs", [{ fromBlock: -1 }])).to.deep.include({ code: -32602, message: "Invalid params" });
  });

  it("state at block 0 is served by number, tag and hash, as every kept block's", async () => {
    const genesis = await call<{ hash: string }>(provider, "eth_getBlockByNumber", ["0x0", false]);
    for (const at of ["0x0", 0, "earliest", { blockHash: genesis.hash }, { blockNumber: "0x0" }]) {
      expect(await call(provider, "eth_getBalance", [STRANGER, at])).to.equal("0x0");
      expect(await call(provider, "eth_getTransactionCount", [dev, at])).to.equal("0x0");
      expect(await call(provider, "eth_call", [{ from: dev, to: STRANGER }, at])).to.equal("0x");
      expect(await call(provider, "eth_estimateGas", [{ from: dev, to: STRANGER, value: "0x1" }, at])).to.equal("0x5208");
    }
  });
});
