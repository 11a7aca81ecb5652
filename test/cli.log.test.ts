/**
 * The pieces of `preconf node`'s log in process: console.sol calldata decoded as Hardhat prints it,
 * failures described (Error(string), panics, custom errors, out of gas), ether written exactly,
 * colours only on a terminal (and never with NO_COLOR), repeated request lines collapsed (rewritten
 * in place on a terminal, counted once the run ends elsewhere), -v adding fragments and empty
 * blocks, and --quiet attaching nothing (no formatting work at all).
 */
import { expect } from "chai";
import { encodeAbiParameters, encodeFunctionData, parseAbi, toFunctionSelector } from "viem";

import { decodeConsoleCall } from "../src/cli/consoleLog.ts";
import { colorsFor, describeFailure, formatEther } from "../src/cli/format.ts";
import { NodeLog } from "../src/cli/log.ts";
import { createTestChain } from "./helpers/chain.ts";
import { CONSOLE_LOGGER_BYTECODE } from "./helpers/consoleLogger.ts";

import type { LogSettings } from "../src/cli/flags.ts";
import type { Hex } from "../src/node/common/types.ts";

const console_ = parseAbi([
  "function log()",
  "function log(string)",
  "function log(uint256)",
  "function log(int256)",
  "function log(bool)",
  "function log(address)",
  "function logBytes(bytes)",
  "function logBytes4(bytes4)",
  "function log(string,uint256)",
  "function log(uint256,bool,address,string)",
  "function log(string,string,string)",
]);

const settings = (overrides: Partial<LogSettings> = {}): LogSettings => ({
  level: 0,
  json: false,
  color: "never",
  consoleLogs: true,
  traces: false,
  ...overrides,
});

function capture(isTTY = false) {
  let text = "";
  return { out: { write: (chunk: string) => (text += chunk), isTTY }, text: () => text };
}

describe("CLI log: console.log decoding", () => {
  it("decodes console.sol's overloads as Hardhat prints them, a format string first", () => {
    expect(decodeConsoleCall(encodeFunctionData({ abi: console_, functionName: "log", args: [] }))).to.equal("");
    expect(decodeConsoleCall(encodeFunctionData({ abi: console_, functionName: "log", args: ["hello"] }))).to.equal("hello");
    expect(decodeConsoleCall(encodeFunctionData({ abi: console_, functionName: "log", args: ["count is %s", 7n] }))).to.equal("count is 7");
    expect(decodeConsoleCall(encodeFunctionData({ abi: console_, functionName: "log", args: ["%s and %s", "a", "b"] }))).to.equal("a and b");
    expect(
      decodeConsoleCall(encodeFunctionData({ abi: console_, functionName: "log", args: [1n, true, "0x70997970c51812dc3a010c7d01b50e0d17dc79c8", "x"] })),
    ).to.equal("1 true 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 x");
    expect(decodeConsoleCall(encodeFunctionData({ abi: console_, functionName: "logBytes4", args: ["0xdeadbeef"] }))).to.equal("0xdeadbeef");
    expect(decodeConsoleCall(encodeFunctionData({ abi: console_, functionName: "logBytes", args: ["0x0102"] }))).to.equal("0x0102");
  });

  it("decodes the selectors early console.sol computed from `uint`/`int` spellings", () => {
    const legacy = `${toFunctionSelector("log(uint)").slice(0, 10)}${encodeAbiParameters([{ type: "uint256" }], [42n]).slice(2)}` as Hex;
    expect(toFunctionSelector("log(uint)")).to.not.equal(toFunctionSelector("log(uint256)"));
    expect(decodeConsoleCall(legacy)).to.equal("42");
  });

  it("answers undefined for calldata that is no console.sol overload, or is cut short", () => {
    expect(decodeConsoleCall("0x12345678")).to.equal(undefined);
    const cut = encodeFunctionData({ abi: console_, functionName: "log", args: ["hello"] }).slice(0, 40) as Hex;
    expect(decodeConsoleCall(cut)).to.equal(undefined);
  });
});

describe("CLI log: values", () => {
  it("describes failures: a reason, a panic, a custom error's data, an empty revert, another EVM error", () => {
    const reason = encodeFunctionData({ abi: parseAbi(["function Error(string)"]), functionName: "Error", args: ["nope"] });
    const panic = encodeFunctionData({ abi: parseAbi(["function Panic(uint256)"]), functionName: "Panic", args: [0x11n] });
    const custom = encodeFunctionData({
      abi: parseAbi(["function Unauthorized(address,uint256)"]),
      functionName: "Unauthorized",
      args: ["0x0000000000000000000000000000000000000001", 42n],
    });
    expect(describeFailure({ error: "revert", returnData: reason })).to.equal("reverted: nope");
    expect(describeFailure({ error: "revert", returnData: panic })).to.equal("reverted: panic 0x11 (arithmetic overflow or underflow)");
    expect(describeFailure({ error: "revert", returnData: custom })).to.equal(`reverted with data ${custom}`);
    expect(describeFailure({ error: "revert", returnData: "0x" })).to.equal("reverted (no reason)");
    expect(describeFailure({ error: "out of gas", returnData: "0x" })).to.equal("failed: out of gas");
    expect(describeFailure(undefined)).to.equal("failed");
  });

  it("writes ether exactly, without trailing zeros", () => {
    expect(formatEther(10n ** 18n)).to.equal("1 ETH");
    expect(formatEther(15n * 10n ** 17n)).to.equal("1.5 ETH");
    expect(formatEther(1n)).to.equal("0.000000000000000001 ETH");
    expect(formatEther(0n)).to.equal("0 ETH");
  });

  it("colours only on a terminal or when asked, never with NO_COLOR", () => {
    expect(colorsFor("auto", true, {}).green("x")).to.equal("\u001b[32mx\u001b[39m");
    expect(colorsFor("auto", false, {}).green("x")).to.equal("x");
    expect(colorsFor("auto", true, { NO_COLOR: "1" }).green("x")).to.equal("x");
    expect(colorsFor("always", false, {}).red("x")).to.equal("\u001b[31mx\u001b[39m");
    expect(colorsFor("never", true, {}).red("x")).to.equal("x");
  });
});

describe("CLI log: request lines", () => {
  const colors = colorsFor("never", false, {});
  const served = (method: string) => ({ transport: "http" as const, batch: false, calls: [{ method }] });

  it("off a terminal, a run of the same line is counted once it ends", () => {
    const { out, text } = capture(false);
    const log = new NodeLog(settings(), out, colors);
    for (const method of ["eth_blockNumber", "eth_blockNumber", "eth_blockNumber", "eth_chainId", "eth_chainId"]) log.request(served(method));
    log.flush();
    expect(text()).to.equal("eth_blockNumber\neth_blockNumber (×3)\neth_chainId\neth_chainId (×2)\n");
  });

  it("on a terminal, the line is rewritten in place with its count", () => {
    const { out, text } = capture(true);
    const log = new NodeLog(settings(), out, colors);
    for (let i = 0; i < 3; i++) log.request(served("eth_blockNumber"));
    log.flush();
    expect(text()).to.equal("eth_blockNumber\n\u001b[1A\reth_blockNumber (×2)\u001b[K\n\u001b[1A\reth_blockNumber (×3)\u001b[K\n");
  });

  it("-vv adds a failed call's error data", () => {
    const { out, text } = capture();
    const log = new NodeLog(settings({ level: 2 }), out, colors);
    log.request({ transport: "ws", batch: false, calls: [{ method: "eth_call", error: { code: 3, message: "execution reverted", data: "0x01" } }] });
    expect(text()).to.equal('eth_call  error 3: execution reverted\n  data "0x01"\n');
  });
});

describe("CLI log: attached to a chain", () => {
  it("-v prints every fragment and empty blocks; the default only blocks with txs", async () => {
    for (const [level, expected] of [
      [0, ""],
      [1, "fragment 1.0: 0 txs, block gas 0\nBlock 1 sealed: 0 txs, gas 0, 1 fragment, hash "],
    ] as const) {
      const { provider } = await createTestChain({ mining: "manual" });
      const { out, text } = capture();
      const log = new NodeLog(settings({ level }), out, colorsFor("never", false, {}));
      log.attach(provider);
      await provider.preconf.fragment();
      await provider.preconf.seal();
      log.detach();
      await provider.close();
      if (expected === "") expect(text()).to.equal("");
      else expect(text()).to.match(new RegExp(`^${expected}0x[0-9a-f]{64}\\n$`));
    }
  });

  it("--print-traces prints each pre-confirmed tx's call tree, its failed frame with the reason", async () => {
    const { provider } = await createTestChain({ mining: "manual" });
    const { out, text } = capture();
    const log = new NodeLog(settings({ traces: true }), out, colorsFor("never", false, {}));
    log.attach(provider);
    const [alice] = provider.accounts;
    const from = alice!.address;
    const deploy = (await provider.request({ method: "eth_sendTransaction", params: [{ from, data: CONSOLE_LOGGER_BYTECODE }] })) as string;
    await provider.preconf.fragment();
    const { contractAddress } = (await provider.request({ method: "eth_getTransactionReceipt", params: [deploy] })) as { contractAddress: string };
    const failing = (await provider.request({
      method: "eth_sendTransaction",
      params: [{ from, to: contractAddress, data: "0xa9cc4718", gas: "0x30000" }],
    })) as string;
    await provider.preconf.fragment();
    for (let i = 0; i < 100 && !text().includes(`Trace of ${failing}`); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    log.detach();
    await provider.close();
    const lines = text().split("\n");
    const at = lines.indexOf(`Trace of ${failing}`);
    expect(at).to.be.greaterThan(-1);
    expect(lines[at + 1]).to.match(/^ {2}CALL 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 → 0x[0-9a-fA-F]{40} 0xa9cc4718 gas [\d,]+ execution reverted: nope$/);
    expect(lines[at + 2]).to.match(/^ {4}STATICCALL 0x[0-9a-fA-F]{40} → 0x000000000000000000636F6e736F6c652e6c6f67 0x319af333 gas [\d,]+$/);
  });

  it("--quiet attaches nothing: no chain listener, no policy observer, no console.log capture", async () => {
    const { provider } = await createTestChain({ mining: "manual" });
    const before = { fragment: provider.chain.listenerCount("fragment"), sealed: provider.chain.listenerCount("sealed") };
    const log = new NodeLog(settings({ level: -1 }), capture().out, colorsFor("never", false, {}));
    expect(log.active).to.equal(false);
    log.attach(provider);
    expect({ fragment: provider.chain.listenerCount("fragment"), sealed: provider.chain.listenerCount("sealed") }).to.deep.equal(before);
    expect(provider.chain.captureConsoleLogs).to.equal(false);
    // Attached, the log asks for console.log calls; detached, it stops.
    const loud = new NodeLog(settings(), capture().out, colorsFor("never", false, {}));
    loud.attach(provider);
    expect(provider.chain.captureConsoleLogs).to.equal(true);
    expect(provider.chain.listenerCount("fragment")).to.equal(before.fragment + 1);
    loud.detach();
    expect(provider.chain.captureConsoleLogs).to.equal(false);
    expect(provider.chain.listenerCount("fragment")).to.equal(before.fragment);
    await provider.close();
  });
});
