/**
 * Hardhat's header overrides mapped onto fragments (hardhat_setNextBlockBaseFeePerGas,
 * hardhat_setPrevRandao, hardhat_setCoinbase, evm_setBlockGasLimit), the pool and logging methods,
 * allowBlocksWithSameTimestamp, and nonce filling of concurrent eth_sendTransaction.
 */
import { expect } from "chai";

import { createTestChain, rpcError, START_MS } from "./helpers/chain.ts";
import { send, signTx } from "./helpers/sign.ts";

import type { PreconfProvider } from "../src/index.ts";

const STRANGER = "0x1234567890123456789012345678901234567890";
const RANDAO = `0x${"ab".repeat(32)}`;

async function call<T = unknown>(provider: PreconfProvider, method: string, params: unknown[] = []): Promise<T> {
  return (await provider.request({ method, params })) as T;
}

type BlockJson = { number: string; timestamp: string; baseFeePerGas: string; miner: string; mixHash: string; gasLimit: string; hash: string };
const block = (provider: PreconfProvider, tag: string) => call<BlockJson>(provider, "eth_getBlockByNumber", [tag, false]);

describe("dev methods: next-block header overrides", () => {
  let provider: PreconfProvider;
  let dev0: `0x${string}`;

  beforeEach(async () => {
    provider = (await createTestChain({ mining: "manual" })).provider;
    dev0 = provider.accounts[0]!.address;
  });
  afterEach(() => provider.close());

  it("hardhat_setNextBlockBaseFeePerGas: the open block (no fragment yet) takes it, for one block only", async () => {
    expect(await call(provider, "hardhat_setNextBlockBaseFeePerGas", ["0x0"])).to.equal(true);
    expect(await call(provider, "eth_gasPrice")).to.equal("0x3b9aca00"); // 0 + the 1 gwei tip
    await call(provider, "evm_mine");
    expect((await block(provider, "latest")).baseFeePerGas).to.equal("0x0");
    // The block after computes its base fee from its parent again (EIP-1559 from 0 stays 0).
    await call(provider, "hardhat_setNextBlockBaseFeePerGas", ["0x64"]);
    await call(provider, "evm_mine");
    await call(provider, "evm_mine");
    const [withOverride, after] = [await block(provider, "0x2"), await block(provider, "0x3")];
    expect(withOverride.baseFeePerGas).to.equal("0x64");
    expect(after.baseFeePerGas).to.equal(`0x${(100n - 100n / 8n).toString(16)}`);
  });

  it("an override made once the open block pre-confirmed something applies to the next block", async () => {
    await send(provider, await signTx(provider, 0, { nonce: 0 }));
    await provider.preconf.fragment();
    const before = (await block(provider, "pending")).baseFeePerGas;
    await call(provider, "hardhat_setNextBlockBaseFeePerGas", ["0x7"]);
    await call(provider, "hardhat_setCoinbase", [STRANGER]);
    expect((await block(provider, "pending")).baseFeePerGas).to.equal(before);
    await call(provider, "evm_mine");
    expect((await block(provider, "0x1")).baseFeePerGas).to.equal(before);
    expect((await block(provider, "0x1")).miner).to.equal("0x0000000000000000000000000000000000000000");
    await call(provider, "evm_mine");
    expect((await block(provider, "0x2")).baseFeePerGas).to.equal("0x7");
    expect((await block(provider, "0x2")).miner).to.equal(STRANGER);
  });

  it("an override survives a time change that re-opens the open block, and evm_setNextBlockTimestamp survives an override", async () => {
    const next = START_MS / 1000 + 1000;
    await call(provider, "evm_setNextBlockTimestamp", [next]);
    await call(provider, "hardhat_setNextBlockBaseFeePerGas", ["0x5"]);
    await call(provider, "evm_increaseTime", [10]);
    await call(provider, "evm_mine");
    const mined = await block(provider, "latest");
    expect(mined.baseFeePerGas).to.equal("0x5");
    expect(Number(mined.timestamp)).to.equal(next);
  });

  it("hardhat_setPrevRandao sets the next block's mixHash (prevrandao) once", async () => {
    expect(await call(provider, "hardhat_setPrevRandao", [RANDAO])).to.equal(true);
    await call(provider, "evm_mine");
    await call(provider, "evm_mine");
    expect((await block(provider, "0x1")).mixHash).to.equal(RANDAO);
    expect((await block(provider, "0x2")).mixHash).to.not.equal(RANDAO);
    expect((await rpcError(provider, "hardhat_setPrevRandao", ["0x01"])).code).to.equal(-32602);
  });

  it("hardhat_setCoinbase holds for every later block and is what eth_coinbase answers", async () => {
    await call(provider, "hardhat_setCoinbase", [STRANGER]);
    expect(await call(provider, "eth_coinbase")).to.equal(STRANGER);
    await send(provider, await signTx(provider, 0, { nonce: 0 }));
    await call(provider, "evm_mine");
    await call(provider, "evm_mine");
    expect((await block(provider, "0x1")).miner).to.equal(STRANGER);
    expect((await block(provider, "0x2")).miner).to.equal(STRANGER);
    // The tip went to the new coinbase.
    expect(BigInt(await call<string>(provider, "eth_getBalance", [STRANGER, "latest"]))).to.be.greaterThan(0n);
  });

  it("evm_setBlockGasLimit: later blocks take it, admission checks it, pooled txs above it are dropped; 0 is refused", async () => {
    await send(provider, await signTx(provider, 0, { nonce: 0, gas: 100_000n }));
    expect(await call(provider, "evm_setBlockGasLimit", ["0x13880"])).to.equal(true); // 80,000
    expect(await call(provider, "eth_pendingTransactions")).to.deep.equal([]);
    await call(provider, "evm_mine");
    expect((await block(provider, "latest")).gasLimit).to.equal("0x13880");
    expect(await rpcError(provider, "eth_sendRawTransaction", [await signTx(provider, 0, { nonce: 0, gas: 90_000n })])).to.deep.include({
      code: -32000,
      message: "exceeds block gas limit",
    });
    expect(await rpcError(provider, "evm_setBlockGasLimit", ["0x0"])).to.deep.equal({
      code: -32000,
      message: "Block gas limit must be greater than 0",
      data: { field: "params[0]" },
    });
  });

  it("evm_snapshot / evm_revert restore coinbase, gas limit and pending overrides", async () => {
    const id = await call<string>(provider, "evm_snapshot");
    await call(provider, "hardhat_setCoinbase", [STRANGER]);
    await call(provider, "evm_setBlockGasLimit", ["0x13880"]);
    await call(provider, "hardhat_setNextBlockBaseFeePerGas", ["0x0"]);
    await call(provider, "evm_revert", [id]);
    expect(await call(provider, "eth_coinbase")).to.equal("0x0000000000000000000000000000000000000000");
    await call(provider, "evm_mine");
    const mined = await block(provider, "latest");
    expect(mined.gasLimit).to.equal("0x3938700");
    expect(mined.baseFeePerGas).to.not.equal("0x0");
  });

  it("eth_pendingTransactions lists pre-confirmed txs of the open block, then pooled ones; none once sealed", async () => {
    const first = await send(provider, await signTx(provider, 0, { nonce: 0 }));
    await provider.preconf.fragment();
    const second = await send(provider, await signTx(provider, 0, { nonce: 1 }));
    const pending = await call<{ hash: string; from: string }[]>(provider, "eth_pendingTransactions");
    expect(pending.map((tx) => tx.hash)).to.deep.equal([first, second]);
    expect(pending[0]!.from).to.equal(dev0);
    // evm_mine seals the open block; the pooled tx goes into the next one.
    await call(provider, "evm_mine");
    expect((await call<{ hash: string }[]>(provider, "eth_pendingTransactions")).map((tx) => tx.hash)).to.deep.equal([second]);
    await call(provider, "evm_mine");
    expect(await call(provider, "eth_pendingTransactions")).to.deep.equal([]);
  });

  it("hardhat_setMinGasPrice is refused while EIP-1559 is active (EDR's text); hardhat_setLoggingEnabled is accepted", async () => {
    expect(await rpcError(provider, "hardhat_setMinGasPrice", ["0x1"])).to.deep.equal({
      code: -32000,
      message: "hardhat_setMinGasPrice is not supported when EIP-1559 is active",
      data: undefined,
    });
    expect(await call(provider, "hardhat_setLoggingEnabled", [false])).to.equal(true);
    expect((await rpcError(provider, "hardhat_setLoggingEnabled", ["no"])).code).to.equal(-32602);
  });
});

describe("allowBlocksWithSameTimestamp", () => {
  it("lets a block take its parent's timestamp (set explicitly, or when the clock has not moved)", async () => {
    const { provider } = await createTestChain({ mining: "manual", allowBlocksWithSameTimestamp: true });
    try {
      await call(provider, "evm_mine");
      const first = Number((await block(provider, "latest")).timestamp);
      await call(provider, "evm_mine"); // the fake clock has not moved
      expect(Number((await block(provider, "latest")).timestamp)).to.equal(first);
      await call(provider, "evm_mine", [first]);
      expect(Number((await block(provider, "latest")).timestamp)).to.equal(first);
      expect(await rpcError(provider, "evm_setNextBlockTimestamp", [first - 1])).to.include({
        code: -32000,
        message: `Timestamp ${first - 1} is lower than the previous block's timestamp ${first}`,
      });
    } finally {
      await provider.close();
    }
  });

  it("is off by default: the next block is a second later", async () => {
    const { provider } = await createTestChain({ mining: "manual" });
    try {
      await call(provider, "evm_mine");
      await call(provider, "evm_mine");
      expect(Number((await block(provider, "0x2")).timestamp)).to.equal(Number((await block(provider, "0x1")).timestamp) + 1);
    } finally {
      await provider.close();
    }
  });
});

describe("eth_sendTransaction nonce filling", () => {
  it("two un-awaited sends from one account get consecutive nonces (automine and fragments)", async () => {
    for (const automine of [true, false]) {
      const { provider } = await createTestChain({ mining: "manual" });
      try {
        provider.chain.setAutomine(automine);
        const [from, to] = [provider.accounts[0]!.address, provider.accounts[1]!.address];
        const sends = [0, 1, 2].map(() => provider.request({ method: "eth_sendTransaction", params: [{ from, to, value: "0x1" }] }) as Promise<string>);
        const hashes = await Promise.all(sends);
        await provider.preconf.fragment();
        const nonces = await Promise.all(hashes.map(async (hash) => (await call<{ nonce: string }>(provider, "eth_getTransactionByHash", [hash])).nonce));
        expect(nonces).to.deep.equal(["0x0", "0x1", "0x2"]);
      } finally {
        await provider.close();
      }
    }
  });
});
