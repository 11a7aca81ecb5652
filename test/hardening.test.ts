/**
 * Hostile input that used to corrupt state: a dump whose time no block can hold, a dump that fails
 * half-way, and balances past 2^256 - 1. Each refusal changes nothing; fake clock throughout.
 */
import { expect } from "chai";

import { createTestChain, rpcError } from "./helpers/chain.ts";
import { send, signTx } from "./helpers/sign.ts";

import type { PreconfProvider } from "../src/index.ts";
import type { StateDump } from "../src/node/state/stateDump.ts";
import type { Hex } from "../src/rpc/schema.ts";

const MAX_UINT256 = (1n << 256n) - 1n;
const MAX_TIMESTAMP = 2n ** 52n;
const COINBASE = "0x00000000000000000000000000000000000000c0";

async function call<T = unknown>(provider: PreconfProvider, method: string, params: unknown[] = []): Promise<T> {
  return (await provider.request({ method, params })) as T;
}

/** What a client sees of the chain: a refused load must leave all of it as it was. */
async function view(provider: PreconfProvider): Promise<unknown> {
  return {
    pending: await call(provider, "eth_getBlockByNumber", ["pending", true]),
    latest: await call(provider, "eth_getBlockByNumber", ["latest", true]),
    pool: await call(provider, "txpool_content"),
    balance: await call(provider, "eth_getBalance", [provider.accounts[0]!.address, "pending"]),
  };
}

describe("preconf_loadState: time checked as the dev methods check it, and applied atomically", () => {
  let provider: PreconfProvider;
  let dump: StateDump;
  let before: unknown;
  afterEach(() => provider.close());
  beforeEach(async () => {
    ({ provider } = await createTestChain({ mining: "manual" }));
    await send(provider, await signTx(provider, 0, { nonce: 0 }));
    await provider.preconf.seal();
    dump = await provider.preconf.dumpState();
    // The running chain moves on: an open block with a fragment, a pooled tx.
    await send(provider, await signTx(provider, 0, { nonce: 1 }));
    await provider.preconf.fragment();
    await send(provider, await signTx(provider, 1, { nonce: 1 }));
    before = await view(provider);
  });

  const refusals: [string, (dump: StateDump) => void, string][] = [
    ["time.offset = 2^256 - 1", (d) => void (d.time.offset = `0x${MAX_UINT256.toString(16)}` as Hex), "params[0].time.offset"],
    ["time.offset past the latest timestamp", (d) => void (d.time.offset = `0x${MAX_TIMESTAMP.toString(16)}` as Hex), "params[0].time.offset"],
    [
      "time.nextTimestamp past the latest timestamp",
      (d) => void (d.time.nextTimestamp = `0x${(MAX_TIMESTAMP + 1n).toString(16)}` as Hex),
      "params[0].time.nextTimestamp",
    ],
  ];
  for (const [name, corrupt, field] of refusals) {
    it(`refuses ${name} with -32602 and changes nothing`, async () => {
      corrupt(dump);
      const error = await rpcError(provider, "preconf_loadState", [dump]);
      expect(error.code).to.equal(-32602);
      expect((error.data as { field: string }).field).to.equal(field);
      expect(await view(provider)).to.deep.equal(before);
      // The chain still seals.
      await provider.preconf.seal();
      expect(await call(provider, "eth_blockNumber")).to.equal("0x2");
    });
  }

  it("a dump at the latest timestamp loads and still seals", async () => {
    dump.time.nextTimestamp = `0x${MAX_TIMESTAMP.toString(16)}` as Hex;
    expect(await call(provider, "preconf_loadState", [dump])).to.equal(true);
    await provider.preconf.seal();
    const block = await call<{ timestamp: Hex }>(provider, "eth_getBlockByNumber", ["latest", false]);
    expect(BigInt(block.timestamp)).to.equal(MAX_TIMESTAMP);
  });
});

describe("balances never exceed 2^256 - 1", () => {
  let provider: PreconfProvider;
  afterEach(() => provider.close());

  it("the fee credit to a fee recipient at 2^256 - 1 saturates, and the node still loads its own dump", async () => {
    ({ provider } = await createTestChain({ mining: "manual", coinbase: COINBASE }));
    await call(provider, "hardhat_setBalance", [COINBASE, `0x${MAX_UINT256.toString(16)}`]);
    await send(provider, await signTx(provider, 0, { nonce: 0 }));
    await provider.preconf.seal();
    expect(await call(provider, "eth_getBalance", [COINBASE, "latest"])).to.equal(`0x${MAX_UINT256.toString(16)}`);
    const dump = await provider.preconf.dumpState();
    expect(await call(provider, "preconf_loadState", [dump])).to.equal(true);
    expect(await call(provider, "eth_getBalance", [COINBASE, "latest"])).to.equal(`0x${MAX_UINT256.toString(16)}`);
  });

  it("hardhat_setBalance above 2^256 - 1 is refused with -32602", async () => {
    ({ provider } = await createTestChain());
    const error = await rpcError(provider, "hardhat_setBalance", [COINBASE, `0x1${"0".repeat(64)}`]);
    expect(error.code).to.equal(-32602);
    expect(await call(provider, "eth_getBalance", [COINBASE, "pending"])).to.equal("0x0");
  });
});

describe("anvil_loadState: gunzip output bounded", () => {
  let provider: PreconfProvider;
  afterEach(() => provider.close());

  it("a gzip bomb is -32602 without inflating it whole, and changes nothing", async () => {
    ({ provider } = await createTestChain());
    const { gzipSync } = await import("node:zlib");
    const { MAX_INFLATED_DUMP_BYTES } = await import("../src/rpc/state.ts");
    const bomb = gzipSync(Buffer.alloc(MAX_INFLATED_DUMP_BYTES + 1, 0x20), { level: 1 });
    const head = await call(provider, "eth_getBlockByNumber", ["latest", false]);
    const error = await rpcError(provider, "anvil_loadState", [`0x${bomb.toString("hex")}`]);
    expect(error.code).to.equal(-32602);
    expect((error.data as { reason: string }).reason).to.equal(`the gzipped dump inflates to more than ${MAX_INFLATED_DUMP_BYTES} bytes`);
    expect(await call(provider, "eth_getBlockByNumber", ["latest", false])).to.deep.equal(head);
  });
});

describe("the pool is bounded as geth's (slots, per-sender queue, lifetime)", () => {
  let provider: PreconfProvider;
  afterEach(() => provider.close());

  it("when full, a tx no dearer than the cheapest is 'transaction underpriced'; a dearer one evicts the cheapest", async () => {
    ({ provider } = await createTestChain({ mining: "manual", poolSlots: 2 }));
    await send(provider, await signTx(provider, 0, { nonce: 0 }));
    const cheapest = await send(provider, await signTx(provider, 1, { nonce: 0 }));
    const error = await rpcError(provider, "eth_sendRawTransaction", [await signTx(provider, 2, { nonce: 0 })]);
    expect([error.code, error.message]).to.deep.equal([-32000, "transaction underpriced"]);
    const dearer = await send(provider, await signTx(provider, 3, { nonce: 0, maxFeePerGas: 20n * 10n ** 9n }));
    expect(await call(provider, "eth_getTransactionByHash", [cheapest])).to.equal(null);
    expect(await call(provider, "eth_getTransactionByHash", [dearer])).to.not.equal(null);
    expect(await call(provider, "txpool_status")).to.deep.equal({ pending: "0x2", queued: "0x0" });
  });

  it("a sender's txs behind a nonce gap are capped at poolAccountQueue: one more is 'account limit exceeded'", async () => {
    ({ provider } = await createTestChain({ mining: "manual", poolAccountQueue: 2 }));
    await send(provider, await signTx(provider, 0, { nonce: 2 }));
    await send(provider, await signTx(provider, 0, { nonce: 3 }));
    const error = await rpcError(provider, "eth_sendRawTransaction", [await signTx(provider, 0, { nonce: 4 })]);
    expect([error.code, error.message]).to.deep.equal([-32000, "account limit exceeded"]);
    // Executable ones are not queued: nonce 0 still gets in.
    await send(provider, await signTx(provider, 0, { nonce: 0 }));
  });

  it("a tx that can never pay the base fee (fee cap 0, unfunded sender) leaves after poolLifetimeMs", async () => {
    ({ provider } = await createTestChain({ poolLifetimeMs: 10_000 }));
    const { privateKeyToAccount, generatePrivateKey } = await import("viem/accounts");
    const stranger = privateKeyToAccount(generatePrivateKey());
    const raw = await stranger.signTransaction({
      chainId: 31337,
      nonce: 0,
      to: COINBASE,
      gas: 100_000n,
      maxFeePerGas: 0n,
      maxPriorityFeePerGas: 0n,
      data: `0x${"ab".repeat(1000)}`,
      type: "eip1559",
    });
    const hash = await send(provider, raw);
    await provider.preconf.advance(10);
    expect(await call(provider, "eth_getTransactionByHash", [hash])).to.not.equal(null);
    await provider.preconf.advance(50);
    expect(await call(provider, "eth_getTransactionByHash", [hash])).to.equal(null);
  });
});

describe("the wallet's request log and prompts are bounded", () => {
  let provider: PreconfProvider;
  afterEach(() => provider.close());

  it("large params are logged as a note of their size; the log keeps the newest requests; the policy still sees the params", async () => {
    const { MAX_LOGGED_REQUESTS, MAX_LOGGED_PARAMS_BYTES } = await import("../src/wallet/wallet.ts");
    ({ provider } = await createTestChain());
    const big = `0x${"ab".repeat(MAX_LOGGED_PARAMS_BYTES)}`;
    let seen = 0;
    provider.wallet.policy.use((request) => {
      seen = JSON.stringify(request.params).length;
      return "reject";
    });
    await rpcError(provider, "personal_sign", [big, provider.accounts[0]!.address]);
    expect(seen).to.be.greaterThan(MAX_LOGGED_PARAMS_BYTES);
    expect(provider.wallet.lastRequest?.params).to.match(/^\[params of \d+ bytes, not logged\]$/);
    for (let i = 0; i < MAX_LOGGED_REQUESTS + 5; i++) await provider.request({ method: "wallet_getPermissions" });
    expect(provider.wallet.requestCount).to.equal(MAX_LOGGED_REQUESTS);
  });

  it("manual-mode prompts waiting at once are capped: one more is -32005", async () => {
    const { MAX_PENDING_PROMPTS } = await import("../src/wallet/policy.ts");
    ({ provider } = await createTestChain());
    provider.wallet.policy.manual();
    const waiting: Promise<unknown>[] = [];
    for (let i = 0; i < MAX_PENDING_PROMPTS; i++)
      waiting.push(provider.request({ method: "personal_sign", params: ["0x00", provider.accounts[0]!.address] }).catch(() => undefined));
    await new Promise((resolve) => setImmediate(resolve));
    const error = await rpcError(provider, "personal_sign", ["0x00", provider.accounts[0]!.address]);
    expect(error).to.deep.equal({ code: -32005, message: "limit exceeded", data: { reason: "too many wallet prompts waiting", limit: MAX_PENDING_PROMPTS } });
    provider.wallet.policy.reset();
    await Promise.all(waiting);
  });
});

describe("properties: hostile dumps and heavy calls", () => {
  const SEED = process.env.FC_SEED === undefined ? 0x14 : Number(process.env.FC_SEED);
  const runs = (base: number) => (process.env.FC_RUNS === undefined ? base : Number(process.env.FC_RUNS));
  let provider: PreconfProvider;
  afterEach(() => provider.close());

  it("a dump with hostile time, balances or blocks loads, or is -32602 and changes nothing", async () => {
    const fc = (await import("fast-check")).default;
    ({ provider } = await createTestChain({ mining: "manual" }));
    await send(provider, await signTx(provider, 0, { nonce: 0 }));
    await provider.preconf.seal();
    await send(provider, await signTx(provider, 0, { nonce: 1 }));
    await provider.preconf.fragment();
    const base = await provider.preconf.dumpState();
    const big = fc.bigInt({ min: 0n, max: MAX_UINT256 }).map((value) => `0x${value.toString(16)}` as Hex);
    const edit = fc.oneof(
      big.map((value) => (d: StateDump) => void (d.time.offset = value)),
      big.map((value) => (d: StateDump) => void (d.time.nextTimestamp = value)),
      big.map((value) => (d: StateDump) => void (d.open!.header.timestamp = value)),
      big.map((value) => (d: StateDump) => void (Object.values(d.accounts)[0]!.balance = value)),
      fc.nat({ max: 2 }).map((n) => (d: StateDump) => void d.blocks.splice(1 + n, 1)),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 3 }), async (edits) => {
        const dump = structuredClone(base);
        for (const apply of edits) apply(dump);
        const before = await view(provider);
        try {
          expect(await call(provider, "preconf_loadState", [dump])).to.equal(true);
        } catch (error) {
          expect((error as { code: number }).code, String(error)).to.equal(-32602);
          expect(await view(provider)).to.deep.equal(before);
        }
        // Whatever happened, the chain still seals, and loads its own dump again.
        await provider.preconf.seal();
        expect(await call(provider, "preconf_loadState", [await provider.preconf.dumpState()])).to.equal(true);
        await call(provider, "preconf_loadState", [base]);
      }),
      { numRuns: runs(15), seed: SEED },
    );
  });

  it("any init code with gas 2^64 - 1 answers a result or a -32000 error within the time budget", async () => {
    const fc = (await import("fast-check")).default;
    ({ provider } = await createTestChain({ rpcEvmTimeoutMs: 100 }));
    // Bytecode biased towards jumps, calls and pushes, so that loops and recursion are common.
    const op = fc.oneof(fc.constantFrom(0x5b, 0x56, 0x57, 0x5f, 0x60, 0x30, 0x5a, 0xf1, 0xfa, 0xf4, 0x80, 0x3d), fc.integer({ min: 0, max: 255 }));
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 24 }), async (code) => {
        const data = `0x${Buffer.from(code).toString("hex")}`;
        try {
          await call(provider, "eth_call", [{ data, gas: "0xffffffffffffffff" }]);
        } catch (error) {
          expect((error as { code: number }).code, String(error)).to.equal(-32000);
        }
      }),
      { numRuns: runs(40), seed: SEED },
    );
  });
});
