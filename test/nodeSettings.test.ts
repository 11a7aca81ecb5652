/**
 * The provider options behind anvil's flags (`mining: "auto"`, `txOrder`, `genesisTimestamp`,
 * `autoImpersonate` and anvil_autoImpersonateAccount) and the hooks the CLI's log reads: executed
 * txs keep why they failed and their console.log calls (only while asked), the server tells an
 * observer what each request body called, and the wallet policy tells what it decided.
 */
import { expect } from "chai";
import { WebSocket } from "ws";
import { encodeFunctionData } from "viem";

import { startServer } from "../src/index.ts";
import { CONSOLE_ADDRESS } from "../src/node/execution/consoleLog.ts";
import { createTestChain, rpcError } from "./helpers/chain.ts";
import { CONSOLE_LOGGER_ABI, CONSOLE_LOGGER_BYTECODE } from "./helpers/consoleLogger.ts";
import { Reverter } from "./helpers/contracts.ts";

import type { PreconfProvider } from "../src/index.ts";
import type { TxRecord } from "../src/node/chain/records.ts";
import type { ServedRequest } from "../src/server/jsonrpc.ts";
import type { PromptEvent } from "../src/wallet/policy.ts";

const STRANGER = "0x1234567890123456789012345678901234567890";

describe("provider options behind anvil's flags", () => {
  let provider: PreconfProvider;
  afterEach(async () => provider?.close());

  const send = (from: string, tx: Record<string, unknown>) => provider.request({ method: "eth_sendTransaction", params: [{ from, ...tx }] }) as Promise<string>;

  it('mining "auto" is Hardhat\'s automine: each tx gets a fragment and a block at once, with no timer', async () => {
    const created = await createTestChain({ mining: "auto" });
    provider = created.provider;
    const clock = created.clock;
    expect(provider.chain.automine).to.equal(true);
    expect(provider.preconf.mining).to.equal("manual");
    const [alice] = provider.accounts;
    await send(alice!.address, { to: STRANGER, value: "0x1" });
    expect(await provider.request({ method: "eth_blockNumber" })).to.equal("0x1");
    await clock.tickAsync(10_000);
    expect(await provider.request({ method: "eth_blockNumber" })).to.equal("0x1");
  });

  it('txOrder "fifo" runs txs in the order they arrived; "fees" (the default) the highest tip first', async () => {
    for (const [txOrder, expected] of [
      ["fees", [1, 0]],
      ["fifo", [0, 1]],
    ] as const) {
      ({ provider } = await createTestChain({ mining: "manual", txOrder }));
      const [a, b] = provider.accounts;
      const low = await send(a!.address, { to: STRANGER, value: "0x1", maxPriorityFeePerGas: "0x1", maxFeePerGas: "0x174876e800" });
      const high = await send(b!.address, { to: STRANGER, value: "0x1", maxPriorityFeePerGas: "0x3b9aca00", maxFeePerGas: "0x174876e800" });
      const fragment = await provider.preconf.fragment();
      expect(
        fragment.transactions.map((record) => record.hash),
        txOrder,
      ).to.deep.equal(expected.map((i) => [low, high][i]));
      await provider.close();
    }
  });

  it("genesisTimestamp sets block 0's time, and later blocks go on from it as the clock moves (anvil's --timestamp)", async () => {
    const created = await createTestChain({ genesisTimestamp: 1_000_000_000, mining: "manual" });
    provider = created.provider;
    const clock = created.clock;
    const genesis = (await provider.request({ method: "eth_getBlockByNumber", params: ["0x0", false] })) as { timestamp: string };
    expect(BigInt(genesis.timestamp)).to.equal(1_000_000_000n);
    await clock.tickAsync(5_000);
    await provider.preconf.seal();
    const next = (await provider.request({ method: "eth_getBlockByNumber", params: ["latest", false] })) as { timestamp: string };
    expect(Number(next.timestamp)).to.be.within(1_000_000_001, 1_000_000_006);
    await provider.close();
    // A dump, a genesis file or a fork brings its own genesis block.
    const refused = await createTestChain({ genesisTimestamp: 5, fork: { url: "http://127.0.0.1:1" } }).catch((error: Error) => error.message);
    expect(refused).to.equal("Invalid hardhat-preconf option genesisTimestamp: the fork brings its own genesis block: leave out genesisTimestamp");
    ({ provider } = await createTestChain());
  });

  it("autoImpersonate: a send from any address goes out without its key; dev accounts still sign; anvil_autoImpersonateAccount toggles it", async () => {
    ({ provider } = await createTestChain({ mining: "auto", autoImpersonate: true }));
    const [alice] = provider.accounts;
    await provider.request({ method: "hardhat_setBalance", params: [STRANGER, "0xde0b6b3a7640000"] });
    const hash = await send(STRANGER, { to: alice!.address, value: "0x5" });
    expect(((await provider.request({ method: "eth_getTransactionReceipt", params: [hash] })) as { status: string }).status).to.equal("0x1");
    // A dev account's tx carries its real signature (recovered, not asserted).
    const signed = await send(alice!.address, { to: STRANGER, value: "0x1" });
    const tx = (await provider.request({ method: "eth_getTransactionByHash", params: [signed] })) as { s: string };
    expect(tx.s).to.not.equal("0x1");
    expect(await provider.request({ method: "anvil_autoImpersonateAccount", params: [false] })).to.equal(null);
    expect(await rpcError(provider, "eth_sendTransaction", [{ from: STRANGER, to: alice!.address }])).to.deep.equal({
      code: -32602,
      message: "Invalid params",
      data: { field: "params[0].from", reason: "not an account of this wallet" },
    });
  });
});

describe("what the engine keeps for a log", () => {
  let provider: PreconfProvider;
  afterEach(async () => provider?.close());

  async function deployAndFail(): Promise<TxRecord[]> {
    const [alice] = provider.accounts;
    const from = alice!.address;
    const records: TxRecord[] = [];
    provider.chain.on("fragment", (fragment) => records.push(...fragment.transactions));
    const deploy = (await provider.request({ method: "eth_sendTransaction", params: [{ from, data: CONSOLE_LOGGER_BYTECODE }] })) as string;
    await provider.preconf.fragment();
    const { contractAddress } = (await provider.request({ method: "eth_getTransactionReceipt", params: [deploy] })) as { contractAddress: string };
    for (const functionName of ["increment", "fail"] as const) {
      const data = encodeFunctionData({ abi: CONSOLE_LOGGER_ABI, functionName });
      await provider.request({ method: "eth_sendTransaction", params: [{ from, to: contractAddress, data, gas: "0x30000" }] });
      await provider.preconf.fragment();
    }
    return records;
  }

  it("a failed tx keeps the EVM's error and its return data; a successful one neither", async () => {
    ({ provider } = await createTestChain({ mining: "manual" }));
    const records = await deployAndFail();
    expect(records.map((record) => record.status)).to.deep.equal([1, 1, 0]);
    expect(records[0]!.failure).to.equal(undefined);
    expect(records[2]!.failure).to.deep.equal({
      error: "revert",
      returnData:
        "0x08c379a0000000000000000000000000000000000000000000000000000000000000002000000000000000000000000000000000000000000000000000000000000000046e6f706500000000000000000000000000000000000000000000000000000000",
    });
    // Out of gas is another failure.
    const [, bob] = provider.accounts;
    const reverter = (await provider.request({ method: "eth_sendTransaction", params: [{ from: bob!.address, data: Reverter.bytecode }] })) as string;
    await provider.preconf.fragment();
    const { contractAddress } = (await provider.request({ method: "eth_getTransactionReceipt", params: [reverter] })) as { contractAddress: string };
    const data = encodeFunctionData({ abi: Reverter.abi, functionName: "revertWithReason" });
    await provider.request({ method: "eth_sendTransaction", params: [{ from: bob!.address, to: contractAddress, data, gas: "0x5300" }] });
    const [outOfGas] = (await provider.preconf.fragment()).transactions;
    expect(outOfGas!.failure).to.deep.equal({ error: "out of gas", returnData: "0x" });
  });

  it("console.log calls are kept only while a log asks (Chain.captureConsoleLogs), in order, a reverted tx's too", async () => {
    ({ provider } = await createTestChain({ mining: "manual" }));
    expect((await deployAndFail()).map((record) => record.consoleCalls)).to.deep.equal([undefined, undefined, undefined]);
    await provider.close();
    ({ provider } = await createTestChain({ mining: "manual" }));
    provider.chain.captureConsoleLogs = true;
    const calls = (await deployAndFail()).map((record) => record.consoleCalls);
    expect(calls.map((list) => list?.length)).to.deep.equal([1, 1, 1]);
    // log(string) "deployed": the selector of log(string), then the ABI-encoded string.
    expect(calls[0]![0]!.slice(0, 10)).to.equal("0x41304fac");
    expect(calls[2]![0]!.slice(0, 10)).to.equal("0x319af333"); // log(string,address)
    expect(CONSOLE_ADDRESS).to.equal("0x000000000000000000636f6e736f6c652e6c6f67");
  });
});

describe("observers for a log", () => {
  let provider: PreconfProvider;
  afterEach(async () => provider?.close());

  it("the server tells onRequest each body's calls, HTTP and WebSocket, batches as one, errors with their code", async () => {
    ({ provider } = await createTestChain());
    const seen: ServedRequest[] = [];
    const server = await startServer(provider, { port: 0, onRequest: (request) => seen.push(request) });
    try {
      const post = (body: unknown) => fetch(server.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      await post({ jsonrpc: "2.0", id: 1, method: "eth_chainId" });
      await post([
        { jsonrpc: "2.0", id: 1, method: "eth_blockNumber" },
        { jsonrpc: "2.0", id: 2, method: "eth_nope" },
      ]);
      // Not JSON: nothing was called, nothing is told.
      await fetch(server.url, { method: "POST", headers: { "content-type": "application/json" }, body: "{" });
      const socket = new WebSocket(server.wsUrl);
      await new Promise((resolve) => socket.once("open", resolve));
      socket.send(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "net_version" }));
      await new Promise((resolve) => socket.once("message", resolve));
      socket.close();
      expect(seen).to.deep.equal([
        { transport: "http", batch: false, calls: [{ method: "eth_chainId" }] },
        {
          transport: "http",
          batch: true,
          calls: [{ method: "eth_blockNumber" }, { method: "eth_nope", error: { code: -32601, message: "Method not found", data: { method: "eth_nope" } } }],
        },
        { transport: "ws", batch: false, calls: [{ method: "net_version" }] },
      ]);
    } finally {
      await server.close();
    }
  });

  it("an observer that throws changes no answer", async () => {
    ({ provider } = await createTestChain());
    const server = await startServer(provider, {
      port: 0,
      onRequest: () => {
        throw new Error("stdout closed");
      },
    });
    try {
      const response = await fetch(server.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}',
      });
      expect(await response.json()).to.deep.equal({ jsonrpc: "2.0", id: 1, result: "0x7a69" });
    } finally {
      await server.close();
    }
  });

  it("the wallet policy tells its observers each decision, and a manual prompt while it waits", async () => {
    ({ provider } = await createTestChain({ clock: undefined }));
    const events: PromptEvent[] = [];
    const stop = provider.wallet.policy.observe((event) => events.push(event));
    const [alice] = provider.accounts;
    await provider.request({ method: "personal_sign", params: ["0x00", alice!.address] });
    provider.wallet.policy.manual();
    const asked = provider.request({ method: "personal_sign", params: ["0x01", alice!.address] });
    const waiting = await provider.wallet.policy.waitForPending();
    provider.wallet.policy.reject(waiting.id);
    await asked.catch(() => undefined);
    stop();
    provider.wallet.policy.manual(false);
    await provider.request({ method: "personal_sign", params: ["0x02", alice!.address] });
    expect(events.map((event) => [event.kind, event.request.method, event.kind === "decided" ? event.decision : undefined])).to.deep.equal([
      ["decided", "personal_sign", "approve"],
      ["waiting", "personal_sign", undefined],
      ["decided", "personal_sign", "reject"],
    ]);
  });
});
