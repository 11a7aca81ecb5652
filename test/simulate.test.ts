/**
 * eth_simulateV1 (docs/methods.md "eth_simulateV1"): blocks of calls on top of a block's state,
 * built as real blocks and thrown away, with go-ethereum's errors; through viem's simulateBlocks
 * and simulateCalls. fixtures/execution-apis/eth_simulateV1 (npm run conformance) holds geth's
 * answers byte for byte; test/conformance.test.ts replays them.
 */
import { expect } from "chai";
import { createPublicClient, custom, keccak256, numberToHex, pad, parseEther, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { simulateBlocks, simulateCalls } from "viem/actions";

import { HISTORY_STORAGE_ADDRESS } from "../src/node/state/genesisContracts.ts";
import { createTestChain, devChain } from "./helpers/chain.ts";

import type { Hex } from "viem";
import type { PreconfProvider } from "../src/index.ts";

type SimCall = { returnData: Hex; status: Hex; gasUsed: Hex; maxUsedGas: Hex; logs: unknown[]; error?: unknown };
type SimBlock = { number: Hex; hash: Hex; parentHash: Hex; timestamp: Hex; stateRoot: Hex; calls: SimCall[]; transactions: unknown[] };

const rpc = (provider: PreconfProvider, method: string, params: unknown[] = []) => provider.request({ method, params }) as Promise<never>;
const simulate = (provider: PreconfProvider, payload: unknown, block: unknown = "latest") =>
  rpc(provider, "eth_simulateV1", [payload, block]) as Promise<SimBlock[]>;

/** Code that returns the balance of `who`: PUSH20 who; BALANCE; PUSH1 0; MSTORE; PUSH1 32; PUSH1 0; RETURN. */
const balanceReader = (who: Hex) => `0x73${who.slice(2)}3160005260206000f3` as Hex;
/** Code that returns BLOCKHASH(NUMBER - 1). */
const PARENT_HASH_READER = "0x600143034060005260206000f3";
/** Code that reverts with no data. */
const REVERTER = "0x60006000fd";

const A = "0xc000000000000000000000000000000000000000";
const B = "0xc100000000000000000000000000000000000000";
const READER = "0xc200000000000000000000000000000000000000";

async function failure(promise: Promise<unknown>): Promise<{ code?: number; message?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code?: number; message?: string };
  }
  throw new Error("expected the request to fail");
}

describe("eth_simulateV1", () => {
  let provider: PreconfProvider;

  beforeEach(async () => {
    provider = (await createTestChain({ mining: "manual" })).provider;
    await provider.preconf.seal();
  });

  afterEach(() => provider.close());

  it("builds blocks after the base block: numbers, parents, the chain's 2 s block time, real hashes", async () => {
    const latest = (await rpc(provider, "eth_getBlockByNumber", ["latest", false])) as { number: Hex; hash: Hex; timestamp: Hex };
    const blocks = await simulate(provider, { blockStateCalls: [{}, {}] });
    expect(blocks.map((block) => BigInt(block.number))).to.deep.equal([BigInt(latest.number) + 1n, BigInt(latest.number) + 2n]);
    expect(blocks[0]!.parentHash).to.equal(latest.hash);
    expect(blocks[1]!.parentHash).to.equal(blocks[0]!.hash);
    expect(blocks.map((block) => BigInt(block.timestamp) - BigInt(latest.timestamp))).to.deep.equal([2n, 4n]);
    // A gap in the numbers is filled with empty blocks, one block time apart.
    const gap = await simulate(provider, { blockStateCalls: [{ blockOverrides: { number: numberToHex(BigInt(latest.number) + 3n) } }] });
    expect(gap.map((block) => BigInt(block.timestamp) - BigInt(latest.timestamp))).to.deep.equal([2n, 4n, 6n]);
    expect(gap.map((block) => block.calls.length)).to.deep.equal([0, 0, 0]);
  });

  it("runs calls in order on the state the previous ones left, across blocks, and throws the state away", async () => {
    const blocks = await simulate(provider, {
      blockStateCalls: [
        { stateOverrides: { [A]: { balance: toHex(parseEther("1")) } }, calls: [{ from: A, to: B, value: toHex(parseEther("0.25")) }] },
        { stateOverrides: { [READER]: { code: balanceReader(B) } }, calls: [{ to: READER }] },
      ],
    });
    expect(blocks[0]!.calls[0]).to.deep.include({ status: "0x1", gasUsed: "0x5208", maxUsedGas: "0x5208", returnData: "0x", logs: [] });
    expect(BigInt(blocks[1]!.calls[0]!.returnData)).to.equal(parseEther("0.25"));
    // Nothing of it is left on the chain.
    expect(await rpc(provider, "eth_getBalance", [B, "latest"])).to.equal("0x0");
    expect(await rpc(provider, "eth_getCode", [READER, "latest"])).to.equal("0x");
    const again = await simulate(provider, { blockStateCalls: [{ calls: [{ to: READER }] }] });
    expect(again[0]!.calls[0]!.returnData).to.equal("0x");
  });

  it("reports reverts (code 3, with data) and halts (-32015) per call, and goes on", async () => {
    const blocks = await simulate(provider, {
      blockStateCalls: [
        {
          stateOverrides: { [READER]: { code: REVERTER } },
          calls: [{ to: READER }, { to: READER, gas: "0x5208" }],
        },
      ],
    });
    const [reverted, halted] = blocks[0]!.calls;
    expect(reverted).to.deep.include({ status: "0x0", returnData: "0x", error: { message: "execution reverted", code: 3, data: "0x" } });
    // 21,000 gas leaves nothing for the code: out of gas.
    expect(halted).to.deep.include({ status: "0x0", error: { message: "out of gas", code: -32015 } });
  });

  it("traceTransfers reports ETH transfers as ERC-7528 logs; a failed call's are dropped", async () => {
    const blocks = await simulate(provider, {
      traceTransfers: true,
      blockStateCalls: [
        {
          stateOverrides: { [A]: { balance: "0x3e8" }, [READER]: { code: REVERTER } },
          calls: [
            { from: A, to: B, value: "0x64" },
            { from: A, to: READER, value: "0x1" },
          ],
        },
      ],
    });
    const block = blocks[0]!;
    expect(block.calls[0]!.logs).to.deep.equal([
      {
        address: "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
        topics: [keccak256(toHex("Transfer(address,address,uint256)")), pad(A), pad(B)],
        data: pad("0x64"),
        blockNumber: block.number,
        blockTimestamp: block.timestamp,
        transactionHash: block.transactions[0],
        transactionIndex: "0x0",
        blockHash: block.hash,
        logIndex: "0x0",
        removed: false,
      },
    ]);
    expect(block.calls[1]!.logs).to.deep.equal([]);
  });

  it("BLOCKHASH and EIP-2935's contract see the simulated blocks", async () => {
    const blocks = await simulate(provider, {
      blockStateCalls: [
        {},
        {
          stateOverrides: { [READER]: { code: PARENT_HASH_READER } },
          calls: [{ to: READER }, { to: HISTORY_STORAGE_ADDRESS, input: pad("0x0") }],
        },
      ],
    });
    expect(blocks[1]!.calls[0]!.returnData).to.equal(blocks[0]!.hash);
    const genesis = (await rpc(provider, "eth_getBlockByNumber", ["0x0", false])) as { hash: Hex };
    expect(blocks[1]!.calls[1]!.returnData).to.equal(genesis.hash);
  });

  it("validation: a real block's checks, with go-ethereum's codes", async () => {
    const [sender] = provider.accounts;
    const validated = (call: Record<string, unknown>) => simulate(provider, { validation: true, blockStateCalls: [{ calls: [call] }] });
    expect(await failure(validated({ from: sender!.address, to: B, nonce: "0x5", maxFeePerGas: toHex(10n ** 10n) }))).to.include({ code: -38011 });
    expect(await failure(validated({ from: A, to: B, value: "0x1", gas: "0x5208", maxFeePerGas: toHex(10n ** 10n) }))).to.include({
      code: -38014,
      message: `err: insufficient funds for gas * price + value: address ${A} have 0 want ${10n ** 10n * 21_000n + 1n} (supplied gas 21000)`,
    });
    expect(await failure(validated({ from: sender!.address, to: B }))).to.include({ code: -38012 });
    // Without validation the nonce is not checked and the base fee is 0.
    const loose = await simulate(provider, { blockStateCalls: [{ calls: [{ from: sender!.address, to: B, nonce: "0x5" }] }] });
    expect(loose[0]!.calls[0]).to.deep.include({ status: "0x1" });
    const nonceLow = simulate(provider, {
      validation: true,
      blockStateCalls: [
        {
          stateOverrides: { [A]: { nonce: "0x2", balance: toHex(parseEther("1")) } },
          calls: [{ from: A, to: B, nonce: "0x1", maxFeePerGas: toHex(10n ** 10n) }],
        },
      ],
    });
    expect(await failure(nonceLow)).to.include({ code: -38010 });
  });

  it("refuses what it cannot simulate, with go-ethereum's codes", async () => {
    const head = BigInt(await (rpc(provider, "eth_blockNumber") as Promise<Hex>));
    expect(await failure(simulate(provider, { blockStateCalls: [] }))).to.include({ code: -32602, message: "empty input" });
    expect(await failure(simulate(provider, { blockStateCalls: Array.from({ length: 257 }, () => ({})) }))).to.include({
      code: -38026,
      message: "too many blocks",
    });
    expect(await failure(simulate(provider, { blockStateCalls: [{ blockOverrides: { number: numberToHex(head + 300n) } }] }))).to.include({
      code: -38026,
      message: "too many blocks",
    });
    expect(await failure(simulate(provider, { blockStateCalls: [{ blockOverrides: { number: numberToHex(head) } }] }))).to.include({
      code: -38020,
      message: `block numbers must be in order: ${head} <= ${head}`,
    });
    const latest = (await rpc(provider, "eth_getBlockByNumber", ["latest", false])) as { timestamp: Hex };
    expect(await failure(simulate(provider, { blockStateCalls: [{ blockOverrides: { time: latest.timestamp } }] }))).to.include({ code: -38021 });
    expect(await failure(simulate(provider, { blockStateCalls: [{ blockOverrides: { gasLimit: "0x5208" }, calls: [{ to: B, gas: "0x5209" }] }] }))).to.include({
      code: -38015,
      message: "block gas limit reached: remaining: 21000, required: 21001",
    });
    expect(await failure(simulate(provider, { blockStateCalls: [{ stateOverrides: { [B]: { movePrecompileToAddress: A } } }] }))).to.include({
      code: -32000,
      message: `account ${B} is not a precompile`,
    });
    expect(await failure(simulate(provider, { blockStateCalls: [{ calls: [{ to: "0x12" }] }] }))).to.include({ code: -32602 });
  });

  it("returnFullTransactions: unsigned txs with their sender, V, R and S 0", async () => {
    const blocks = await simulate(provider, { returnFullTransactions: true, blockStateCalls: [{ calls: [{ from: A, to: B }] }] });
    expect(blocks[0]!.transactions[0]).to.deep.include({
      from: A,
      to: B,
      type: "0x2",
      v: "0x0",
      r: "0x0",
      s: "0x0",
      yParity: "0x0",
      blockHash: blocks[0]!.hash,
    });
  });
});

describe("eth_simulateV1 through viem", () => {
  let provider: PreconfProvider;

  beforeEach(async () => {
    provider = (await createTestChain({ mining: "manual" })).provider;
  });

  afterEach(() => provider.close());

  it("simulateCalls: a transfer and a read, with the sender's balance change traced", async () => {
    const account = privateKeyToAccount(provider.accounts[0]!.privateKey);
    const client = createPublicClient({ chain: devChain, transport: custom(provider) });
    const { results, assetChanges } = await simulateCalls(client, {
      account: account.address,
      calls: [{ to: B, value: parseEther("1") }, { to: B }],
      traceAssetChanges: true,
    });
    expect(results.map((result) => result.status)).to.deep.equal(["success", "success"]);
    expect(results[0]!.gasUsed).to.equal(21_000n);
    const eth = assetChanges.find((change) => change.token.address.toLowerCase() === "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee");
    expect(eth?.value.diff).to.equal(-parseEther("1"));
  });

  it("simulateBlocks: block overrides and state overrides over two blocks", async () => {
    const client = createPublicClient({ chain: devChain, transport: custom(provider) });
    const [first, second] = await simulateBlocks(client, {
      blocks: [
        {
          blockOverrides: { time: 2_000_000_000n, feeRecipient: B },
          stateOverrides: [{ address: A, balance: parseEther("2") }],
          calls: [{ account: A, to: B, value: 1n }],
        },
        { stateOverrides: [{ address: READER, code: balanceReader(B) }], calls: [{ to: READER }] },
      ],
    });
    expect(first!.timestamp).to.equal(2_000_000_000n);
    expect(first!.miner.toLowerCase()).to.equal(B);
    expect(second!.timestamp).to.equal(2_000_000_002n);
    expect(first!.calls[0]!.status).to.equal("success");
    expect(BigInt(second!.calls[0]!.data)).to.equal(1n);
  });
});

describe("eth_simulateV1 on Base after Denim: 200 ms blocks sharing seconds (base/base PR #5043)", () => {
  it("omitted times step 200 ms; a named time may equal the previous block's", async () => {
    const provider = (await createTestChain({ profile: "base-denim", mining: "manual" })).provider;
    try {
      const latest = (await rpc(provider, "eth_getBlockByNumber", ["latest", false])) as { timestamp: Hex };
      const blocks = await simulate(provider, { blockStateCalls: Array.from({ length: 6 }, () => ({})) });
      const seconds = blocks.map((block) => BigInt(block.timestamp) - BigInt(latest.timestamp));
      expect(seconds).to.deep.equal([0n, 0n, 0n, 0n, 1n, 1n]);
      const same = await simulate(provider, { blockStateCalls: [{ blockOverrides: { time: latest.timestamp } }] });
      expect(same[0]!.timestamp).to.equal(latest.timestamp);
      expect(await failure(simulate(provider, { blockStateCalls: [{ blockOverrides: { time: numberToHex(BigInt(latest.timestamp) - 1n) } }] }))).to.include({
        code: -38021,
      });
    } finally {
      await provider.close();
    }
  });
});

describe("state overrides: precompile moves (eth_call)", () => {
  it("moves ecrecover for one call only", async () => {
    const provider = (await createTestChain({ mining: "manual" })).provider;
    try {
      // ecrecover of a valid signature (hash, v, r, s) answers the signer; nothing at all answers empty input.
      const hash = keccak256(toHex("hardhat-preconf"));
      const account = privateKeyToAccount(provider.accounts[0]!.privateKey);
      const signature = await account.sign({ hash });
      const v = pad(toHex(Number.parseInt(signature.slice(130, 132), 16)));
      const input = `${hash}${v.slice(2)}${signature.slice(2, 66)}${signature.slice(66, 130)}` as Hex;
      const moved = "0x0000000000000000000000000000000000123456";
      const overrides = { "0x0000000000000000000000000000000000000001": { movePrecompileToAddress: moved } };
      expect(await rpc(provider, "eth_call", [{ to: moved, input }, "latest", overrides])).to.equal(pad(account.address.toLowerCase() as Hex));
      // At its own address it is gone for that call: the address has no code.
      expect(await rpc(provider, "eth_call", [{ to: "0x0000000000000000000000000000000000000001", input }, "latest", overrides])).to.equal("0x");
      // And back for the next call.
      expect(await rpc(provider, "eth_call", [{ to: "0x0000000000000000000000000000000000000001", input }, "latest"])).to.equal(
        pad(account.address.toLowerCase() as Hex),
      );
      expect(await rpc(provider, "eth_call", [{ to: moved, input }, "latest"])).to.equal("0x");
    } finally {
      await provider.close();
    }
  });

  it("keeps the fork's precompile addresses warm, as runTx and go-ethereum do: the moved-from address, not the moved-to one", async () => {
    const provider = (await createTestChain({ mining: "manual" })).provider;
    try {
      // GAS BALANCE(0x01) POP GAS SWAP1 SUB, returned: what BALANCE of 0x…01 cost, plus GAS's 2, PUSH1's 3 and POP's 2.
      const probe = "0x00000000000000000000000000000000000c0de1";
      await rpc(provider, "hardhat_setCode", [probe, "0x5a600131505a900360005260206000f3"]);
      const moved = "0x0000000000000000000000000000000000123456";
      const warm = pad(toHex(100 + 7));
      expect(await rpc(provider, "eth_call", [{ to: probe }, "latest"])).to.equal(warm);
      // EIP-2929 warms the fork's precompiles (go-ethereum ActivePrecompiles; precompiles.ts keeps `entries()` the fork's).
      expect(
        await rpc(provider, "eth_call", [{ to: probe }, "latest", { "0x0000000000000000000000000000000000000001": { movePrecompileToAddress: moved } }]),
      ).to.equal(warm);
    } finally {
      await provider.close();
    }
  });
});
