/**
 * Budgets of one request: dry runs capped in gas (geth's --rpc.gascap) and in wall time (geth's
 * --rpc.evmtimeout), and an interpreter that lets the event loop turn while a heavy call runs.
 * No timing assertions: the tests check answers and the order in which things finish.
 */
import { expect } from "chai";

import { goDuration } from "../src/node/execution/evmBudget.ts";
import { createTestChain, rpcError } from "./helpers/chain.ts";
import { send, signTx } from "./helpers/sign.ts";

import type { PreconfProvider } from "../src/index.ts";

/** Init code `JUMPDEST PUSH0 JUMP`: loops until its gas runs out. */
const LOOP = "0x5b5f56";
/**
 * A chain where a call's gas is not bounded by EIP-7825 (Prague), the RPC gas cap (0: none) or a
 * 30M block: LOOP then runs for hours, not for the second or so the interpreter needs for 16M gas,
 * so the time budget, not the gas, ends it whatever the machine's speed.
 */
const UNBOUNDED_GAS = { hardfork: "prague", blockGasLimit: 10n ** 12n, rpcGasCap: 0 } as const;
/** Init code `GAS PUSH0 MSTORE PUSH1 32 PUSH0 RETURN`: answers the gas left. */
const GAS_LEFT = "0x5a5f5260205ff3";
const MAX_UINT64 = "0xffffffffffffffff";
/** Init code `CALLER BALANCE PUSH0 MSTORE PUSH1 32 PUSH0 RETURN`: answers the caller's balance. */
const BALANCE_OF_CALLER = "0x33315f5260205ff3";

describe("dry-run budgets", () => {
  let provider: PreconfProvider;
  afterEach(() => provider.close());

  it("eth_call's gas is capped at rpcGasCap (50,000,000 by default), as geth's --rpc.gascap", async () => {
    ({ provider } = await createTestChain());
    const left = BigInt((await provider.request({ method: "eth_call", params: [{ data: GAS_LEFT, gas: MAX_UINT64 }] })) as string);
    expect(left < 50_000_000n && left > 49_000_000n, `gas left ${left}`).to.equal(true);
    await provider.close();

    ({ provider } = await createTestChain({ rpcGasCap: 100_000 }));
    const capped = BigInt((await provider.request({ method: "eth_call", params: [{ data: GAS_LEFT, gas: MAX_UINT64 }] })) as string);
    expect(capped < 100_000n, `gas left ${capped}`).to.equal(true);
  });

  it("a looping eth_call with gas 2^64 - 1 answers geth's timeout error", async () => {
    ({ provider } = await createTestChain({ rpcEvmTimeoutMs: 300, ...UNBOUNDED_GAS }));
    expect(await rpcError(provider, "eth_call", [{ data: LOOP, gas: MAX_UINT64 }])).to.deep.equal({
      code: -32000,
      message: "execution aborted (timeout = 300ms)",
      data: undefined,
    });
    // So does a looping estimate, and on the pending state too; the chain still works after.
    expect((await rpcError(provider, "eth_estimateGas", [{ data: LOOP, gas: MAX_UINT64 }])).message).to.equal("execution aborted (timeout = 300ms)");
    expect((await rpcError(provider, "eth_call", [{ data: LOOP, gas: MAX_UINT64 }, "pending"])).message).to.equal("execution aborted (timeout = 300ms)");
    expect(await provider.request({ method: "eth_call", params: [{ data: GAS_LEFT }, "pending"] })).to.match(/^0x0{50}/);
  });

  it("while a looping call runs, other requests and fragments are answered first", async () => {
    ({ provider } = await createTestChain({ mining: "manual", rpcEvmTimeoutMs: 1_000, ...UNBOUNDED_GAS }));
    const order: string[] = [];
    const looping = provider.request({ method: "eth_call", params: [{ data: LOOP, gas: MAX_UINT64 }] }).catch(() => order.push("loop"));
    // Let the call start executing before the others are sent.
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all([
      provider.request({ method: "eth_blockNumber" }).then(() => order.push("blockNumber")),
      provider.preconf.fragment().then(() => order.push("fragment")),
    ]);
    await looping;
    expect(order).to.deep.equal(["blockNumber", "fragment", "loop"]);
  });

  for (const method of ["eth_call", "eth_estimateGas"] as const) {
    it(`a looping ${method} on the pending state holds no fragment: those due meanwhile seal on schedule, and the call still answers its timeout`, async () => {
      ({ provider } = await createTestChain({ rpcEvmTimeoutMs: 2_000, ...UNBOUNDED_GAS }));
      // Pre-confirmed state that the call must see: a tx in the open block's first fragment.
      await send(provider, await signTx(provider, 0, { nonce: 0 }));
      await provider.preconf.advance();
      const fragmentsPerBlock = provider.preconf.fragmentsPerBlock;
      const startBlock = Number(await provider.request({ method: "eth_blockNumber" }));
      const order: string[] = [];
      const looping = rpcError(provider, method, [{ data: LOOP, gas: MAX_UINT64 }, "pending"]).then((error) => {
        order.push("call");
        return error;
      });
      // Let the call take its snapshot and start executing before the fragments fall due.
      await new Promise((resolve) => setImmediate(resolve));
      await provider.preconf.advance(2 * fragmentsPerBlock);
      order.push("fragments");
      // Every fragment due was produced: two more blocks, while the call was still running.
      expect(Number(await provider.request({ method: "eth_blockNumber" }))).to.equal(startBlock + 2);
      expect((await looping).message).to.equal("execution aborted (timeout = 2s)");
      expect(order).to.deep.equal(["fragments", "call"]);
      // The pre-confirmed tx the call ran on top of was sealed meanwhile.
      expect(await provider.request({ method: "eth_getTransactionCount", params: [provider.accounts[0]!.address, "latest"] })).to.equal("0x1");
    });
  }

  for (const tag of ["latest", "pending"] as const) {
    it(`a looping call on ${tag} does not hold up another client's calls on the same block: they answer first`, async () => {
      ({ provider } = await createTestChain({ mining: "manual", rpcEvmTimeoutMs: 2_000, ...UNBOUNDED_GAS }));
      await send(provider, await signTx(provider, 0, { nonce: 0 }));
      await provider.preconf.fragment();
      const order: string[] = [];
      const looping = rpcError(provider, "eth_call", [{ data: LOOP, gas: MAX_UINT64 }, tag]).then((error) => {
        order.push("loop");
        return error;
      });
      await new Promise((resolve) => setImmediate(resolve));
      const others = await Promise.all([
        provider.request({ method: "eth_call", params: [{ data: GAS_LEFT }, tag] }),
        provider.request({ method: "eth_estimateGas", params: [{ to: provider.accounts[1]!.address }, tag] }),
      ]);
      order.push("others");
      expect(others[0]).to.match(/^0x0{50}/);
      expect(others[1]).to.equal("0x5208");
      expect((await looping).message).to.equal("execution aborted (timeout = 2s)");
      expect(order).to.deep.equal(["others", "loop"]);
    });
  }

  it("dry runs on pending read the pre-confirmed state, and a fragment later they read the next one", async () => {
    ({ provider } = await createTestChain({ mining: "manual" }));
    const from = provider.accounts[0]!.address;
    const balanceCall = { data: BALANCE_OF_CALLER, from };
    const pendingBalance = async () => BigInt((await provider.request({ method: "eth_call", params: [balanceCall, "pending"] })) as string);
    const first = await pendingBalance();
    await send(provider, await signTx(provider, 0, { nonce: 0, value: 10n ** 18n }));
    await provider.preconf.fragment();
    const second = await pendingBalance();
    expect(first - second > 10n ** 18n).to.equal(true);
    await send(provider, await signTx(provider, 0, { nonce: 1, value: 10n ** 18n }));
    await provider.preconf.fragment();
    expect(second - (await pendingBalance()) > 10n ** 18n).to.equal(true);
    // The same as the live state answers.
    expect(await pendingBalance()).to.equal(BigInt((await provider.request({ method: "eth_getBalance", params: [from, "pending"] })) as string));
  });

  it("filters and subscriptions are capped: one more is -32005 'limit exceeded', and freeing one makes room", async () => {
    ({ provider } = await createTestChain({ maxFilters: 2, maxSubscriptions: 2 }));
    const first = await provider.request({ method: "eth_newBlockFilter" });
    await provider.request({ method: "eth_newPendingTransactionFilter" });
    expect(await rpcError(provider, "eth_newFilter", [{}])).to.deep.equal({
      code: -32005,
      message: "limit exceeded",
      data: { reason: "too many filters", limit: 2 },
    });
    await provider.request({ method: "eth_uninstallFilter", params: [first] });
    await provider.request({ method: "eth_newFilter", params: [{}] });

    const sub = await provider.request({ method: "eth_subscribe", params: ["newFlashblocks"] });
    await provider.request({ method: "eth_subscribe", params: ["newHeads"] });
    expect(await rpcError(provider, "eth_subscribe", ["logs", {}])).to.deep.equal({
      code: -32005,
      message: "limit exceeded",
      data: { reason: "too many subscriptions", limit: 2 },
    });
    await provider.request({ method: "eth_unsubscribe", params: [sub] });
    await provider.request({ method: "eth_subscribe", params: ["logs", {}] });
  });

  it("durations are written as Go writes them", () => {
    expect([5000, 300, 1500, 90_000, 3_600_000].map(goDuration)).to.deep.equal(["5s", "300ms", "1.5s", "1m30s", "1h0m0s"]);
  });
});

describe("eth_call state overrides (geth's shape)", () => {
  let provider: PreconfProvider;
  afterEach(() => provider.close());
  const WHO = "0x00000000000000000000000000000000000000aa";
  /** Runtime code `PUSH0 SLOAD PUSH0 MSTORE PUSH1 32 PUSH0 RETURN`: answers storage slot 0. */
  const RETURN_SLOT_0 = "0x5f545f5260205ff3";

  it("balance, nonce, code, state and stateDiff apply to the call only", async () => {
    ({ provider } = await createTestChain());
    const slot0 = `0x${"00".repeat(32)}`;
    const seven = `0x${"00".repeat(31)}07`;
    const answer = await provider.request({
      method: "eth_call",
      params: [{ to: WHO }, "latest", { [WHO]: { code: RETURN_SLOT_0, stateDiff: { [slot0]: seven }, balance: "0x5", nonce: "0x3" } }],
    });
    expect(answer).to.equal(seven);
    const replaced = await provider.request({ method: "eth_call", params: [{ to: WHO }, "latest", { [WHO]: { code: RETURN_SLOT_0, state: {} } }] });
    expect(replaced).to.equal(slot0);
    // Nothing stays.
    expect(await provider.request({ method: "eth_getCode", params: [WHO, "latest"] })).to.equal("0x");
    expect(await provider.request({ method: "eth_getBalance", params: [WHO, "pending"] })).to.equal("0x0");
    expect(await provider.request({ method: "eth_getTransactionCount", params: [WHO, "pending"] })).to.equal("0x0");
  });

  it("anything else is -32602: garbage, unknown fields, state with stateDiff", async () => {
    ({ provider } = await createTestChain());
    for (const overrides of ["garbage", { [WHO]: { nonsense: "0x1" } }, { [WHO]: { state: {}, stateDiff: {} } }, { notAnAddress: {} }]) {
      const error = await rpcError(provider, "eth_call", [{ to: WHO }, "latest", overrides]);
      expect(error.code, JSON.stringify(overrides)).to.equal(-32602);
    }
  });

  it("a precompile move from an address that holds none is go-ethereum's -32000", async () => {
    ({ provider } = await createTestChain());
    const error = await rpcError(provider, "eth_call", [{ to: WHO }, "latest", { [WHO]: { movePrecompileToAddress: WHO } }]);
    expect(error).to.deep.include({ code: -32000, message: `account ${WHO.toLowerCase()} is not a precompile` });
  });
});

describe("budget flags of `preconf node`", () => {
  it("reach the provider and server options", async () => {
    const { parseNodeArgs } = await import("../src/cli.ts");
    const parsed = parseNodeArgs([
      "--rpc.gascap",
      "1000000",
      "--rpc.evmtimeout",
      "250",
      "--max-filters",
      "5",
      "--txpool.slots",
      "100",
      "--txpool.accountqueue",
      "3",
      "--txpool.lifetime",
      "60000",
      "--max-response",
      "1000",
      "--batch-timeout",
      "2000",
      "--ws-max-subscriptions",
      "7",
      "--allowed-hosts",
      "dev.test, box.lan",
    ]);
    if (parsed === "help") throw new Error("expected a command");
    expect(parsed.provider).to.deep.include({
      rpcGasCap: 1_000_000n,
      rpcEvmTimeoutMs: 250,
      maxFilters: 5,
      poolSlots: 100,
      poolAccountQueue: 3,
      poolLifetimeMs: 60_000,
    });
    expect(parsed.server).to.deep.equal({ maxResponseBytes: 1000, batchTimeoutMs: 2000, wsMaxSubscriptions: 7, allowedHosts: ["dev.test", "box.lan"] });
  });
});
