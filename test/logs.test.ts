/**
 * eth_getLogs, eth_newFilter and eth_getFilterLogs refuse as go-ethereum does (eth/filters/api.go
 * and filter.go, read at v1.17.5): unknown block hash, reversed ranges, ranges past the head, too
 * many topics or alternatives. The head a range may reach is the open block, whose pre-confirmed
 * logs a range includes (docs/behaviour.md, "The RPC surface").
 */
import { expect } from "chai";

import { createTestChain, rpcError } from "./helpers/chain.ts";

import type { PreconfProvider } from "../src/index.ts";

const TOPIC = `0x${"11".repeat(32)}`;
const hex = (n: bigint | number) => `0x${n.toString(16)}`;

describe("eth_getLogs: go-ethereum's refusals", () => {
  let provider: PreconfProvider;
  let open: bigint;

  beforeEach(async () => {
    ({ provider } = await createTestChain({ mining: "manual" }));
    await provider.request({ method: "evm_mine" });
    await provider.request({ method: "evm_mine" });
    open = provider.chain.open.number;
    expect(open).to.equal(3n);
  });
  afterEach(() => provider.close());

  const refusal = (code: number, message: string) => ({ code, message, data: undefined });

  it("an unknown block hash is -32000 'unknown block' (geth's errUnknownBlock, anvil's too)", async () => {
    expect(await rpcError(provider, "eth_getLogs", [{ blockHash: `0x${"12".repeat(32)}` }])).to.deep.equal(refusal(-32000, "unknown block"));
  });

  it("a range that ends past the head is -32602 'block range extends beyond current head block'", async () => {
    for (const filter of [
      { fromBlock: "0x10", toBlock: "0x20" },
      { fromBlock: "0x0", toBlock: hex(open + 1n) },
      { toBlock: `0x${"f".repeat(64)}`, fromBlock: "latest" },
    ]) {
      expect(await rpcError(provider, "eth_getLogs", [filter]), JSON.stringify(filter)).to.deep.equal(
        refusal(-32602, "block range extends beyond current head block"),
      );
    }
    // The open block (pending) is the newest a range may reach.
    expect(await provider.request({ method: "eth_getLogs", params: [{ fromBlock: "0x0", toBlock: hex(open) }] })).to.deep.equal([]);
    expect(await provider.request({ method: "eth_getLogs", params: [{ fromBlock: "0x0", toBlock: "pending" }] })).to.deep.equal([]);
  });

  it("a range that starts after its end is -32602 'invalid block range params'", async () => {
    for (const filter of [
      { fromBlock: "0x2", toBlock: "0x1" },
      { fromBlock: "0x1", toBlock: "0x0" },
      { fromBlock: hex(open + 5n) },
      { fromBlock: "pending", toBlock: "latest" },
    ]) {
      expect(await rpcError(provider, "eth_getLogs", [filter]), JSON.stringify(filter)).to.deep.equal(refusal(-32602, "invalid block range params"));
    }
  });

  it("more than 4 topics is -32000 'exceed max topics'; more than 1000 alternatives or addresses, 'exceed max addresses or topics per search position'", async () => {
    expect(await rpcError(provider, "eth_getLogs", [{ topics: [null, null, null, null, null] }])).to.deep.equal(refusal(-32000, "exceed max topics"));
    expect(await rpcError(provider, "eth_newFilter", [{ topics: [TOPIC, null, null, null, TOPIC] }])).to.deep.equal(refusal(-32000, "exceed max topics"));
    const many = Array.from({ length: 1001 }, (_, i) => `0x${i.toString(16).padStart(40, "0")}`);
    const limit = refusal(-32000, "exceed max addresses or topics per search position");
    expect(await rpcError(provider, "eth_getLogs", [{ address: many }])).to.deep.equal(limit);
    expect(await rpcError(provider, "eth_getLogs", [{ topics: [Array.from({ length: 1001 }, () => TOPIC)] }])).to.deep.equal(limit);
    expect(await rpcError(provider, "eth_newFilter", [{ address: many }])).to.deep.equal(limit);
    // 4 topics and 1000 addresses are within the limits.
    expect(await provider.request({ method: "eth_getLogs", params: [{ address: many.slice(0, 1000), topics: [TOPIC, null, null, TOPIC] }] })).to.deep.equal([]);
  });

  it("blockHash with fromBlock or toBlock is -32602, with geth's reason", async () => {
    const error = await rpcError(provider, "eth_getLogs", [{ blockHash: `0x${"12".repeat(32)}`, fromBlock: "0x0" }]);
    expect(error).to.deep.equal({
      code: -32602,
      message: "Invalid params",
      data: { field: "params[0]", reason: "cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other" },
    });
  });

  it("a filter whose range ends past the head installs (it waits for blocks); its eth_getFilterLogs refuses as eth_getLogs", async () => {
    const id = await provider.request({ method: "eth_newFilter", params: [{ fromBlock: "0x0", toBlock: "0x10" }] });
    expect(await rpcError(provider, "eth_getFilterLogs", [id])).to.deep.equal(refusal(-32602, "block range extends beyond current head block"));
    expect(await provider.request({ method: "eth_getFilterChanges", params: [id] })).to.deep.equal([]);
  });
});
