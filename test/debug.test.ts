/** debug_traceTransaction / debug_traceCall: go-ethereum's struct logger and callTracer shapes. */
import { expect } from "chai";
import { encodeFunctionData } from "viem";

import { createTestChain, rpcError } from "./helpers/chain.ts";
import { Counter, Reverter } from "./helpers/contracts.ts";

import type { PreconfProvider } from "../src/index.ts";

type StructLog = { pc: number; op: string; gas: number; gasCost: number; depth: number; stack?: string[]; memory?: string[]; storage?: Record<string, string> };
type Trace = { gas: number; failed: boolean; returnValue: string; structLogs: StructLog[] };
type Frame = {
  type: string;
  from: string;
  to?: string;
  gas: string;
  gasUsed: string;
  input: string;
  output?: string;
  error?: string;
  revertReason?: string;
  value?: string;
  calls?: Frame[];
};

async function call<T = unknown>(provider: PreconfProvider, method: string, params: unknown[] = []): Promise<T> {
  return (await provider.request({ method, params })) as T;
}

describe("debug_traceTransaction and debug_traceCall", () => {
  let provider: PreconfProvider;
  let from: `0x${string}`;

  async function sendAndMine(
    tx: Record<string, string>,
  ): Promise<{ hash: string; receipt: { gasUsed: string; status: string; contractAddress: string | null } }> {
    const hash = await call<string>(provider, "eth_sendTransaction", [{ from, ...tx }]);
    await call(provider, "evm_mine");
    return { hash, receipt: await call(provider, "eth_getTransactionReceipt", [hash]) };
  }

  beforeEach(async () => {
    provider = (await createTestChain({ mining: "manual" })).provider;
    from = provider.accounts[0]!.address;
  });
  afterEach(() => provider.close());

  it("struct logs of a mined tx: ops, 1-based depth, stack, SSTORE storage; gas is the receipt's", async () => {
    const { receipt: deployed } = await sendAndMine({ data: Counter.bytecode });
    const counter = deployed.contractAddress!;
    // Another tx earlier in the same block, replayed before the traced one.
    await call<string>(provider, "eth_sendTransaction", [{ from, to: counter, data: encodeFunctionData({ abi: Counter.abi, functionName: "increment" }) }]);
    const second = await call<string>(provider, "eth_sendTransaction", [
      { from, to: counter, data: encodeFunctionData({ abi: Counter.abi, functionName: "increment" }) },
    ]);
    await call(provider, "evm_mine");
    const receipt = await call<{ gasUsed: string; blockNumber: string; transactionIndex: string }>(provider, "eth_getTransactionReceipt", [second]);
    expect(receipt.transactionIndex).to.equal("0x1");

    const trace = await call<Trace>(provider, "debug_traceTransaction", [second]);
    expect(trace.failed).to.equal(false);
    expect(trace.gas).to.equal(Number(receipt.gasUsed));
    expect(trace.structLogs[0]).to.deep.include({ pc: 0, op: "PUSH1", depth: 1, stack: [] });
    expect(trace.structLogs.at(-1)!.op).to.equal("STOP");
    const store = trace.structLogs.find((log) => log.op === "SSTORE")!;
    // The count went from 1 (the earlier tx of the block) to 2; keys and values are 0x words (geth's format since v1.17.3).
    expect(Object.values(store.storage!)).to.deep.equal([`0x${"0".repeat(63)}2`]);
    const load = trace.structLogs.find((log) => log.op === "SLOAD")!;
    expect(Object.values(load.storage!)).to.deep.equal([`0x${"0".repeat(63)}1`]);
    for (const log of trace.structLogs) {
      expect(log.memory).to.equal(undefined);
      expect(log.stack!.every((item) => /^0x[0-9a-f]+$/.test(item))).to.equal(true);
    }
    const withMemory = await call<Trace>(provider, "debug_traceTransaction", [second, { enableMemory: true, disableStack: true, disableStorage: true }]);
    expect(withMemory.structLogs.some((log) => (log.memory ?? []).length > 0)).to.equal(true);
    expect(withMemory.structLogs.every((log) => log.stack === undefined && log.storage === undefined)).to.equal(true);
  });

  it("a reverted tx: failed, the revert data as returnValue, REVERT last; callTracer gives the reason", async () => {
    const { receipt } = await sendAndMine({ data: Reverter.bytecode });
    const data = encodeFunctionData({ abi: Reverter.abi, functionName: "revertWithReason" });
    const { hash, receipt: failed } = await sendAndMine({ to: receipt.contractAddress!, data, gas: "0x186a0" });
    expect(failed.status).to.equal("0x0");

    const trace = await call<Trace>(provider, "debug_traceTransaction", [hash]);
    expect(trace.failed).to.equal(true);
    expect(trace.gas).to.equal(Number(failed.gasUsed));
    expect(trace.structLogs.at(-1)!.op).to.equal("REVERT");
    expect(trace.returnValue.startsWith("0x08c379a0")).to.equal(true);

    const frame = await call<Frame>(provider, "debug_traceTransaction", [hash, { tracer: "callTracer" }]);
    expect(frame).to.deep.include({
      type: "CALL",
      from,
      to: receipt.contractAddress,
      gas: "0x186a0",
      gasUsed: failed.gasUsed,
      input: data,
      error: "execution reverted",
      revertReason: "nope",
      value: "0x0",
    });
    expect(frame.output!.startsWith("0x08c379a0")).to.equal(true);
  });

  it("a pre-confirmed tx (open block) is traced too", async () => {
    const hash = await call<string>(provider, "eth_sendTransaction", [{ from, data: Counter.bytecode }]);
    await provider.preconf.fragment();
    const frame = await call<Frame>(provider, "debug_traceTransaction", [hash, { tracer: "callTracer" }]);
    const receipt = await call<{ contractAddress: string }>(provider, "eth_getTransactionReceipt", [hash]);
    expect(frame.type).to.equal("CREATE");
    expect(frame.to).to.equal(receipt.contractAddress);
    expect(frame.error).to.equal(undefined);
  });

  it("debug_traceCall traces a call on a block's state; unknown tx and tracer are -32000", async () => {
    const { receipt } = await sendAndMine({ data: Counter.bytecode });
    const data = encodeFunctionData({ abi: Counter.abi, functionName: "count" });
    const trace = await call<Trace>(provider, "debug_traceCall", [{ from, to: receipt.contractAddress, data }, "latest"]);
    expect(trace.failed).to.equal(false);
    expect(trace.returnValue).to.equal(`0x${"0".repeat(64)}`);
    expect(trace.structLogs.at(-1)!.op).to.equal("RETURN");
    const frame = await call<Frame>(provider, "debug_traceCall", [{ from, to: receipt.contractAddress, data }, "latest", { tracer: "callTracer" }]);
    expect(frame).to.deep.include({ type: "CALL", output: `0x${"0".repeat(64)}` });

    expect(await rpcError(provider, "debug_traceTransaction", [`0x${"11".repeat(32)}`])).to.include({ code: -32000, message: "transaction not found" });
    expect(await rpcError(provider, "debug_traceCall", [{ from, to: receipt.contractAddress, data }, "latest", { tracer: "prestateTracer" }])).to.include({
      code: -32000,
      message: "tracer not found",
    });
  });
});
