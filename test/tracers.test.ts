/**
 * The tracers' shapes (docs/dev-methods.md, "Tracing"):
 * go-ethereum's current struct logs (eth/tracers/logger/logger.go at v1.17.5, the execution-apis
 * format Hardhat 3 answers too), Hardhat 2's with `traceFormat: "hardhat"` (hardhat-core's
 * edrRpcDebugTraceToHardhat), and geth's callTracer frames for SELFDESTRUCT and for calls that fail
 * before their code runs (eth/tracers/native/call.go; core/vm/evm.go, instructions.go).
 */
import { expect } from "chai";

import { parseNodeArgs } from "../src/cli.ts";
import { settleCommand } from "../src/cli/settle.ts";
import { createPreconfProvider, InvalidOptionsError } from "../src/index.ts";
import { createTestChain } from "./helpers/chain.ts";
import {
  ACCESS_RUNTIME,
  INVALID_RUNTIME,
  initCodeFor,
  RETURN_DATA_RUNTIME,
  SELFDESTRUCT_RUNTIME,
  UNPAYABLE_CALL_RUNTIME,
  UNPAYABLE_CREATE_RUNTIME,
} from "./helpers/bytecode.ts";

import type { Hex } from "viem";
import type { PreconfProvider } from "../src/index.ts";

type StructLog = Record<string, unknown> & { pc: number; op: string; gas: number; gasCost: number; depth: number };
interface Trace {
  gas: number;
  failed: boolean;
  returnValue: string;
  structLogs: StructLog[];
}
type Frame = Record<string, unknown> & { calls?: Frame[] };

const ACCESS = "0x00000000000000000000000000000000000ac0de";
const RETURNS = "0x00000000000000000000000000000000000ec40e";
const INVALID = "0x00000000000000000000000000000000000bad00";
const word = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
const ONE_ETHER = "0xde0b6b3a7640000";

async function call<T = unknown>(provider: PreconfProvider, method: string, params: unknown[] = []): Promise<T> {
  return (await provider.request({ method, params })) as T;
}

async function chainWith(options: { traceFormat?: "geth" | "hardhat" } = {}): Promise<{ provider: PreconfProvider; from: Hex }> {
  const { provider } = await createTestChain({ mining: "manual", ...options });
  for (const [address, code] of [
    [ACCESS, ACCESS_RUNTIME],
    [RETURNS, RETURN_DATA_RUNTIME],
    [INVALID, INVALID_RUNTIME],
  ]) {
    await call(provider, "hardhat_setCode", [address, code]);
  }
  await call(provider, "evm_mine");
  return { provider, from: provider.accounts[0]!.address };
}

/** Sends a tx and mines it; its hash and its receipt. */
async function mined(provider: PreconfProvider, tx: Record<string, unknown>): Promise<{ hash: Hex; receipt: { contractAddress: Hex | null; gasUsed: Hex } }> {
  const hash = await call<Hex>(provider, "eth_sendTransaction", [tx]);
  await call(provider, "evm_mine");
  return { hash, receipt: await call(provider, "eth_getTransactionReceipt", [hash]) };
}

describe("struct logs, go-ethereum's format (the default)", () => {
  let provider: PreconfProvider;
  let from: Hex;
  beforeEach(async () => ({ provider, from } = await chainWith()));
  afterEach(() => provider.close());

  it("each step: pc, op, gas, gasCost, depth, 0x stack items; storage only at SLOAD and SSTORE, 0x words; no refund while 0", async () => {
    const trace = await call<Trace>(provider, "debug_traceCall", [{ from, to: ACCESS, gas: "0x30000" }, "latest"]);
    const gas = 0x30000 - 21000;
    expect(trace.structLogs.slice(0, 4)).to.deep.equal([
      { pc: 0, op: "PUSH1", gas, gasCost: 3, depth: 1, stack: [] },
      { pc: 2, op: "SLOAD", gas: gas - 3, gasCost: 2100, depth: 1, stack: ["0x1"], storage: { [word(1)]: word(0) } },
      { pc: 3, op: "POP", gas: gas - 2103, gasCost: 2, depth: 1, stack: ["0x0"] },
      { pc: 4, op: "PUSH1", gas: gas - 2105, gasCost: 3, depth: 1, stack: [] },
    ]);
    const sstore = trace.structLogs.find((log) => log.op === "SSTORE")!;
    expect(sstore.storage).to.deep.equal({ [word(1)]: word(0), [word(2)]: word(42) });
    expect(Object.keys(trace)).to.deep.equal(["gas", "failed", "returnValue", "structLogs"]);
    expect(trace.returnValue).to.equal("0x");
  });

  it("a CALL-family step's gasCost includes the gas it forwards (geth's gasCall): all but one 64th of what is left", async () => {
    const trace = await call<Trace>(provider, "debug_traceCall", [{ from, to: ACCESS, gas: "0x30000" }, "latest"]);
    const staticCall = trace.structLogs.find((log) => log.op === "STATICCALL")!;
    // The precompile is warm (EIP-2929): the step's own cost is 100.
    const available = staticCall.gas - 100;
    expect(staticCall.gasCost).to.equal(100 + available - Math.floor(available / 64));
    const inside = trace.structLogs.filter((log) => log.depth === 2);
    expect(inside).to.deep.equal([]);
  });

  it("memory with enableMemory as 0x 32-byte words; returnData with enableReturnData", async () => {
    const trace = await call<Trace>(provider, "debug_traceCall", [{ from, to: RETURNS }, "latest", { enableMemory: true, enableReturnData: true }]);
    const pop = trace.structLogs.find((log) => log.op === "POP")!;
    expect(pop.memory).to.deep.equal([word(42)]);
    expect(pop.returnData).to.equal(word(42));
    expect(trace.structLogs[0]).to.not.have.property("memory");
    const plain = await call<Trace>(provider, "debug_traceCall", [{ from, to: RETURNS }, "latest"]);
    expect(plain.structLogs.every((log) => log.memory === undefined && log.returnData === undefined)).to.equal(true);
  });

  it("the step that runs out of gas carries geth's error; an INVALID step does not (it fails as it runs)", async () => {
    // 2,000 gas after the intrinsic 21,000: PUSH1 leaves 1,997, the cold SLOAD needs 2,100.
    const trace = await call<Trace>(provider, "debug_traceCall", [{ from, to: ACCESS, gas: `0x${(23_000).toString(16)}` }, "latest"]);
    expect(trace.failed).to.equal(true);
    expect(trace.returnValue).to.equal("0x");
    expect(trace.structLogs.at(-1)).to.deep.equal({
      pc: 2,
      op: "SLOAD",
      gas: 1997,
      gasCost: 2100,
      depth: 1,
      error: "out of gas",
      stack: ["0x1"],
      storage: { [word(1)]: word(0) },
    });
    const invalid = await call<Trace>(provider, "debug_traceCall", [{ from, to: INVALID }, "latest"]);
    expect(invalid.structLogs).to.have.length(1);
    expect(invalid.structLogs[0]).to.deep.include({ op: "INVALID", gasCost: 0 }).and.not.have.property("error");
    expect(invalid.failed).to.equal(true);
  });
});

describe("struct logs, Hardhat 2's format (traceFormat: hardhat)", () => {
  let provider: PreconfProvider;
  let from: Hex;
  beforeEach(async () => ({ provider, from } = await chainWith({ traceFormat: "hardhat" })));
  afterEach(() => provider.close());

  it("64-digit stack words, memory and the contract's storage on every step, Hardhat's key order; returnValue without 0x", async () => {
    const trace = await call<Trace>(provider, "debug_traceCall", [{ from, to: ACCESS, gas: "0x30000" }, "latest"]);
    const gas = 0x30000 - 21000;
    const slot = (n: number) => n.toString(16).padStart(64, "0");
    expect(trace.structLogs.slice(0, 3)).to.deep.equal([
      { depth: 1, gas, gasCost: 3, op: "PUSH1", pc: 0, memory: [], stack: [], storage: {} },
      { depth: 1, gas: gas - 3, gasCost: 2100, op: "SLOAD", pc: 2, memory: [], stack: [slot(1)], storage: { [slot(1)]: slot(0) } },
      // After the SLOAD its slot stays in every step's storage.
      { depth: 1, gas: gas - 2103, gasCost: 2, op: "POP", pc: 3, memory: [], stack: [slot(0)], storage: { [slot(1)]: slot(0) } },
    ]);
    expect(trace.structLogs.at(-1)!.storage).to.deep.equal({ [slot(1)]: slot(0), [slot(2)]: slot(42) });
    expect(Object.keys(trace)).to.deep.equal(["failed", "gas", "returnValue", "structLogs"]);
    expect(trace.returnValue).to.equal("");
  });

  it("disableMemory, disableStack and disableStorage leave those out; a failure is { message }", async () => {
    const trace = await call<Trace>(provider, "debug_traceCall", [
      { from, to: ACCESS, gas: `0x${(23_000).toString(16)}` },
      "latest",
      { disableMemory: true, disableStack: true, disableStorage: true },
    ]);
    expect(trace.structLogs.at(-1)).to.deep.equal({ depth: 1, gas: 1997, gasCost: 2100, op: "SLOAD", pc: 2, error: { message: "out of gas" } });
    const withData = await call<Trace>(provider, "debug_traceCall", [{ from, to: RETURNS }, "latest"]);
    expect(withData.structLogs.find((log) => log.op === "POP")!.memory).to.deep.equal([(42).toString(16).padStart(64, "0")]);
  });
});

describe("callTracer frames go-ethereum has and ethereumjs opens no message for", () => {
  let provider: PreconfProvider;
  let from: Hex;
  beforeEach(async () => ({ provider, from } = await chainWith()));
  afterEach(() => provider.close());

  it("SELFDESTRUCT: a frame from the contract to the beneficiary with its whole balance, no gas, after the calls before it", async () => {
    const { receipt } = await mined(provider, { from, data: initCodeFor(SELFDESTRUCT_RUNTIME), value: "0x5" });
    const doomed = receipt.contractAddress!;
    const { hash, receipt: destructed } = await mined(provider, { from, to: doomed, gas: "0x10000" });
    const frame = await call<Frame>(provider, "debug_traceTransaction", [hash, { tracer: "callTracer" }]);
    // go-ethereum's answer, keys in its order (EDR's and anvil's are the same).
    expect(frame).to.deep.equal({
      from,
      gas: "0x10000",
      gasUsed: destructed.gasUsed,
      to: doomed,
      input: "0x",
      calls: [{ from: doomed, gas: "0x0", gasUsed: "0x0", to: from, input: "0x", value: "0x5", type: "SELFDESTRUCT" }],
      value: "0x0",
      type: "CALL",
    });
    expect(JSON.stringify(Object.keys(frame))).to.equal(JSON.stringify(["from", "gas", "gasUsed", "to", "input", "calls", "value", "type"]));
  });

  it("a CALL without the balance for its value: a frame with geth's error, the gas it was given (forwarded + 2300 stipend), none used", async () => {
    const { receipt } = await mined(provider, { from, data: initCodeFor(UNPAYABLE_CALL_RUNTIME) });
    const contract = receipt.contractAddress!;
    const { hash } = await mined(provider, { from, to: contract, gas: "0x20000" });
    const frame = await call<Frame>(provider, "debug_traceTransaction", [hash, { tracer: "callTracer" }]);
    const trace = await call<Trace>(provider, "debug_traceTransaction", [hash]);
    const callStep = trace.structLogs.find((log) => log.op === "CALL")!;
    // The step's own cost: warm callee (the tx's sender, EIP-2929) 100 + value transfer 9,000.
    const forwarded = callStep.gasCost - 9100;
    expect(forwarded).to.equal(callStep.gas - 9100 - Math.floor((callStep.gas - 9100) / 64));
    expect(frame.calls).to.deep.equal([
      {
        from: contract,
        gas: `0x${(forwarded + 2300).toString(16)}`,
        gasUsed: "0x0",
        to: from,
        input: "0x",
        error: "insufficient balance for transfer",
        value: ONE_ETHER,
        type: "CALL",
      },
    ]);
    // CALL returned 0 and the contract returned that flag.
    expect(frame.output).to.equal(word(0));
    expect(frame).to.not.have.property("error");
  });

  it("a CALL without the balance for its value as the frame's last step: the failed frame's input is what memory held", async () => {
    // MSTORE 0x2a at 0, then CALL(gas, caller, 1 ether, in 0..32, out none) and the code ends: the frame
    // closes right after the failed call, after which its memory goes back to the frame pool
    // (ethereumjs/framePool.ts, zeroed there): the input must have been taken before.
    const runtime = "0x602a6000526000600060206000670de0b6b3a7640000335af1" as const;
    const { receipt } = await mined(provider, { from, data: initCodeFor(runtime) });
    const { hash } = await mined(provider, { from, to: receipt.contractAddress!, gas: "0x20000" });
    const frame = await call<Frame>(provider, "debug_traceTransaction", [hash, { tracer: "callTracer" }]);
    expect(frame.calls).to.have.length(1);
    expect(frame.calls![0]).to.deep.include({ input: word(0x2a), error: "insufficient balance for transfer", type: "CALL" });
  });

  it("a CREATE without the balance for its value: a CREATE frame with the error and no address", async () => {
    const { receipt } = await mined(provider, { from, data: initCodeFor(UNPAYABLE_CREATE_RUNTIME) });
    const contract = receipt.contractAddress!;
    const { hash } = await mined(provider, { from, to: contract, gas: "0x20000" });
    const frame = await call<Frame>(provider, "debug_traceTransaction", [hash, { tracer: "callTracer" }]);
    expect(frame.calls).to.have.length(1);
    const created = frame.calls![0]!;
    expect(created).to.deep.include({
      from: contract,
      gasUsed: "0x0",
      input: "0x",
      error: "insufficient balance for transfer",
      value: ONE_ETHER,
      type: "CREATE",
    });
    expect(created).to.not.have.property("to");
    expect(BigInt(created.gas as string)).to.be.greaterThan(0n);
  });

  it("a creation that reverts has no address; an invalid opcode is geth's text", async () => {
    const { hash } = await mined(provider, { from, data: initCodeFor(INVALID_RUNTIME).replace(/f3fe$/, "fd"), gas: "0x20000" });
    const frame = await call<Frame>(provider, "debug_traceTransaction", [hash, { tracer: "callTracer" }]);
    expect(frame).to.deep.include({ type: "CREATE", error: "execution reverted" });
    expect(frame).to.not.have.property("to");
    const invalid = await call<Frame>(provider, "debug_traceCall", [{ from, to: INVALID }, "latest", { tracer: "callTracer" }]);
    expect(invalid).to.deep.include({ error: "invalid opcode: INVALID", to: INVALID });
  });

  it("a CREATE whose init code (a view of its caller's pooled memory, framePool.ts) hits an undefined opcode: the byte it read, not what the caller wrote there later", async () => {
    // MSTORE8 0x0c at 0; CREATE(value 0, offset 0, length 1); POP; MSTORE8 0xff at 0; STOP. The
    // child's code is the caller's memory in place, and that memory is zeroed into the pool when the
    // caller ends: the frame's error must be read from it while the caller still runs.
    const factory = "0x00000000000000000000000000000000000fac70";
    await call(provider, "hardhat_setCode", [factory, "0x600c600053600160006000f05060ff60005300"]);
    const frame = await call<Frame>(provider, "debug_traceCall", [{ from, to: factory, gas: "0x20000" }, "latest", { tracer: "callTracer" }]);
    expect(frame.error).to.equal(undefined);
    expect(frame.calls).to.have.length(1);
    expect(frame.calls![0]).to.deep.include({ type: "CREATE", input: "0x0c", error: "invalid opcode: opcode 0xc not defined" });
  });
});

describe("the traceFormat option", () => {
  it("is an option of the provider and the --trace-format flag of preconf node; anything but geth or hardhat is refused", async () => {
    const parsed = parseNodeArgs(["--trace-format", "hardhat"]);
    expect(parsed !== "help" && parsed.provider.traceFormat).to.equal("hardhat");
    const plain = parseNodeArgs([]);
    expect(plain !== "help" && plain.provider.traceFormat).to.equal(undefined);
    // Checked with the provider's options, as every flag that sets one, and named by the flag.
    const parity = parseNodeArgs(["--trace-format", "parity"]);
    expect(() => parity !== "help" && settleCommand(parity)).to.throw(/^--trace-format "parity": must be geth or hardhat$/);
    const refused = await createPreconfProvider({ traceFormat: "parity" as never }).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(refused).to.be.instanceOf(InvalidOptionsError);
    expect(refused!.message).to.match(/^Invalid hardhat-preconf option traceFormat: /);
  });
});
