/** Dev methods (src/rpc/dev.ts): Hardhat's and anvil's semantics on the in-process provider. */
import { expect } from "chai";
import { encodeFunctionData } from "viem";

import { createTestChain, rpcError, START_MS } from "./helpers/chain.ts";
import { Counter } from "./helpers/contracts.ts";
import { send, signTx } from "./helpers/sign.ts";

import type { TestChain } from "./helpers/chain.ts";
import type { PreconfProvider, StateDump } from "../src/index.ts";

const STRANGER = "0x1234567890123456789012345678901234567890";
const WHALE = "0xab5801a7d398351b8be11c439e05c5b3259aec9b";

async function call<T = unknown>(provider: PreconfProvider, method: string, params: unknown[] = []): Promise<T> {
  return (await provider.request({ method, params })) as T;
}

async function latestBlock(provider: PreconfProvider): Promise<{ number: string; timestamp: string; hash: string }> {
  return call(provider, "eth_getBlockByNumber", ["latest", false]);
}

describe("dev methods", () => {
  let test: TestChain;
  let provider: PreconfProvider;
  let dev0: `0x${string}`;

  beforeEach(async () => {
    test = await createTestChain({ mining: "manual" });
    provider = test.provider;
    dev0 = provider.accounts[0]!.address;
  });
  afterEach(() => provider.close());

  describe("hardhat_metadata", () => {
    it("describes a non-forked Hardhat-compatible dev chain", async () => {
      const meta = await call<Record<string, unknown>>(provider, "hardhat_metadata");
      expect(meta.clientVersion).to.match(/^HardhatNetwork\//);
      expect(meta.chainId).to.equal(31337);
      expect(meta.latestBlockNumber).to.equal(0);
      expect(meta.latestBlockHash).to.equal((await latestBlock(provider)).hash);
      expect(meta.instanceId).to.match(/^0x[0-9a-f]{64}$/);
      expect(meta.forkedNetwork).to.equal(undefined);
      expect((await call<Record<string, unknown>>(provider, "hardhat_metadata")).instanceId).to.equal(meta.instanceId);
    });
  });

  describe("evm_snapshot / evm_revert", () => {
    it("answers string ids and restores state and blocks; an id is used up by its revert", async () => {
      const id = await call<string>(provider, "evm_snapshot");
      expect(id).to.equal("0x1");
      await call(provider, "hardhat_setBalance", [STRANGER, "0x64"]);
      await call(provider, "evm_mine");
      expect(await call(provider, "eth_blockNumber")).to.equal("0x1");

      expect(await call(provider, "evm_revert", [id])).to.equal(true);
      expect(await call(provider, "eth_blockNumber")).to.equal("0x0");
      expect(await call(provider, "eth_getBalance", [STRANGER, "latest"])).to.equal("0x0");
      expect(await call(provider, "evm_revert", [id])).to.equal(false);
      expect(await call(provider, "evm_snapshot")).to.equal("0x2");
    });

    it("anvil_snapshot and anvil_revert are aliases", async () => {
      const id = await call<string>(provider, "anvil_snapshot");
      await call(provider, "evm_mine");
      expect(await call(provider, "anvil_revert", [id])).to.equal(true);
      expect(await call(provider, "eth_blockNumber")).to.equal("0x0");
    });
  });

  describe("hardhat_reset", () => {
    it("returns to the chain as created: blocks, balances, pool, time offset, snapshots, impersonation, a new instanceId; the chain goes on", async () => {
      const genesis = await latestBlock(provider);
      const balance = await call(provider, "eth_getBalance", [dev0, "latest"]);
      const snapshot = await call<string>(provider, "evm_snapshot");
      await send(provider, await signTx(provider, 0, { nonce: 0 }));
      await call(provider, "evm_mine");
      await send(provider, await signTx(provider, 0, { nonce: 1 }));
      await call(provider, "hardhat_setBalance", [STRANGER, "0x64"]);
      await call(provider, "evm_increaseTime", [3600]);

      await call(provider, "hardhat_impersonateAccount", [WHALE]);
      const { instanceId } = await call<{ instanceId: string }>(provider, "hardhat_metadata");

      expect(await call(provider, "hardhat_reset")).to.equal(true);
      expect(await latestBlock(provider)).to.deep.include({ number: "0x0", hash: genesis.hash });
      expect((await call<{ instanceId: string }>(provider, "hardhat_metadata")).instanceId).to.not.equal(instanceId);
      expect(await call(provider, "hardhat_stopImpersonatingAccount", [WHALE])).to.equal(false);
      expect(await call(provider, "eth_getBalance", [dev0, "latest"])).to.equal(balance);
      expect(await call(provider, "eth_getBalance", [STRANGER, "pending"])).to.equal("0x0");
      expect(await call(provider, "eth_getTransactionCount", [dev0, "pending"])).to.equal("0x0");
      expect(await call(provider, "txpool_status")).to.deep.equal({ pending: "0x0", queued: "0x0" });
      expect(await call(provider, "evm_revert", [snapshot])).to.equal(false);

      // Nonce 0 again, and the next block follows the genesis at the clock's time (no offset).
      const hash = await send(provider, await signTx(provider, 0, { nonce: 0 }));
      await call(provider, "evm_mine");
      const block = await latestBlock(provider);
      expect(block.number).to.equal("0x1");
      expect(BigInt(block.timestamp)).to.be.lessThan(BigInt(genesis.timestamp) + 3600n);
      expect(await call<{ status: string }>(provider, "eth_getTransactionReceipt", [hash])).to.include({ status: "0x1" });
    });

    it("a chain started from a state dump resets to that dump", async () => {
      await send(provider, await signTx(provider, 0, { nonce: 0 }));
      await call(provider, "evm_mine");
      const dump = await call<StateDump>(provider, "preconf_dumpState");
      const loaded = (await createTestChain({ mining: "manual", state: dump })).provider;
      try {
        const head = await latestBlock(loaded);
        await send(loaded, await signTx(loaded, 0, { nonce: 1 }));
        await call(loaded, "evm_mine");
        expect(await call(loaded, "hardhat_reset")).to.equal(true);
        expect(await latestBlock(loaded)).to.deep.include({ number: "0x1", hash: head.hash });
        expect(await call(loaded, "eth_getTransactionCount", [dev0, "pending"])).to.equal("0x1");
      } finally {
        await loaded.close();
      }
    });

    it("takes an empty object; a malformed forking is refused with -32602 and nothing changes; anvil_reset is an alias", async () => {
      await call(provider, "evm_mine");
      const error = await rpcError(provider, "hardhat_reset", [{ forking: { jsonRpcUrl: "ftp://127.0.0.1:1" } }]);
      expect(error.code).to.equal(-32602);
      expect(error.data).to.deep.equal({ field: "params[0].forking.jsonRpcUrl", reason: "must be an http:// or https:// URL" });
      expect(await call(provider, "eth_blockNumber")).to.equal("0x1");
      expect((await rpcError(provider, "hardhat_reset", [{ unknown: 1 }])).code).to.equal(-32602);
      expect(await call(provider, "anvil_reset", [{}])).to.equal(true);
      expect(await call(provider, "eth_blockNumber")).to.equal("0x0");
    });
  });

  describe("mining", () => {
    it("evm_mine seals a block, at a given timestamp when asked", async () => {
      expect(await call(provider, "evm_mine")).to.equal("0");
      const target = START_MS / 1000 + 1000;
      await call(provider, "evm_mine", [target]);
      const block = await latestBlock(provider);
      expect(block.number).to.equal("0x2");
      expect(Number(block.timestamp)).to.equal(target);
    });

    it("hardhat_mine seals count blocks, interval seconds apart; anvil_mine is an alias", async () => {
      await call(provider, "hardhat_mine", ["0x3", "0x10"]);
      const third = await latestBlock(provider);
      const second = await call<{ timestamp: string }>(provider, "eth_getBlockByNumber", ["0x2", false]);
      expect(third.number).to.equal("0x3");
      expect(Number(third.timestamp) - Number(second.timestamp)).to.equal(16);
      await call(provider, "anvil_mine");
      expect(await call(provider, "eth_blockNumber")).to.equal("0x4");
    });

    it("mines pooled transactions", async () => {
      const hash = await call<string>(provider, "eth_sendTransaction", [{ from: dev0, to: STRANGER, value: "0x1" }]);
      await call(provider, "evm_mine");
      const receipt = await call<{ blockNumber: string; status: string }>(provider, "eth_getTransactionReceipt", [hash]);
      expect(receipt).to.include({ blockNumber: "0x1", status: "0x1" });
    });
  });

  describe("time", () => {
    it("evm_increaseTime answers the total offset as a decimal string and moves the next block", async () => {
      const before = Number((await latestBlock(provider)).timestamp);
      expect(await call(provider, "evm_increaseTime", [3600])).to.equal("3600");
      expect(await call(provider, "evm_increaseTime", ["0xe10"])).to.equal("7200");
      await call(provider, "evm_mine");
      expect(Number((await latestBlock(provider)).timestamp)).to.be.at.least(before + 7200);
    });

    it("evm_setNextBlockTimestamp sets the next block's time and refuses the past", async () => {
      const next = START_MS / 1000 + 500;
      await call(provider, "evm_setNextBlockTimestamp", [next]);
      await call(provider, "hardhat_mine");
      expect(Number((await latestBlock(provider)).timestamp)).to.equal(next);
      // Hardhat's (EDR's) texts and code: network helpers' users match on the message.
      expect(await rpcError(provider, "evm_setNextBlockTimestamp", [next])).to.deep.equal({
        code: -32000,
        message: `Timestamp ${next} is equal to the previous block's timestamp. Enable the 'allowBlocksWithSameTimestamp' option to allow this`,
        data: { field: "params[0]", timestamp: `0x${next.toString(16)}`, previousTimestamp: `0x${next.toString(16)}` },
      });
      expect(await rpcError(provider, "evm_mine", [next - 1])).to.include({
        code: -32000,
        message: `Timestamp ${next - 1} is lower than the previous block's timestamp ${next}`,
      });
    });
  });

  it("hardhat_mine checks its last block's time from a set next timestamp: past 2^52 is -32602 and nothing is mined", async () => {
    const limit = 2n ** 52n;
    await call(provider, "evm_setNextBlockTimestamp", [`0x${limit.toString(16)}`]);
    const error = await rpcError(provider, "hardhat_mine", ["0x2", `0x${(limit / 2n).toString(16)}`]);
    expect(error.code).to.equal(-32602);
    expect(await call(provider, "eth_blockNumber")).to.equal("0x0");
    await call(provider, "hardhat_mine", ["0x1"]);
    expect(BigInt((await latestBlock(provider)).timestamp)).to.equal(limit);
  });

  describe("automine and interval mining", () => {
    it("evm_setAutomine gives each tx a fragment and a block; hardhat_getAutomine reads it", async () => {
      expect(await call(provider, "hardhat_getAutomine")).to.equal(false);
      expect(await call(provider, "evm_setAutomine", [true])).to.equal(true);
      expect(await call(provider, "anvil_getAutomine")).to.equal(true);
      const hash = await call<string>(provider, "eth_sendTransaction", [{ from: dev0, to: STRANGER, value: "0x1" }]);
      const receipt = await call<{ blockNumber: string; blockHash: string }>(provider, "eth_getTransactionReceipt", [hash]);
      expect(receipt.blockNumber).to.equal("0x1");
      expect(receipt.blockHash).to.equal((await latestBlock(provider)).hash);
    });

    it("evm_setIntervalMining 0 is manual mode, any other value runs the fragment timer", async () => {
      await call(provider, "evm_setIntervalMining", [1000]);
      expect(provider.preconf.mining).to.equal("interval");
      await provider.preconf.advance(provider.preconf.fragmentsPerBlock);
      expect(await call(provider, "eth_blockNumber")).to.equal("0x1");
      await call(provider, "evm_setIntervalMining", [0]);
      expect(provider.preconf.mining).to.equal("manual");
      await provider.preconf.advance(provider.preconf.fragmentsPerBlock);
      expect(await call(provider, "eth_blockNumber")).to.equal("0x1");
    });
  });

  describe("state edits", () => {
    it("hardhat_setBalance is seen at latest and pending at once, and sealed into the next block", async () => {
      expect(await call(provider, "hardhat_setBalance", [STRANGER, "0xde0b6b3a7640000"])).to.equal(true);
      expect(await call(provider, "eth_getBalance", [STRANGER, "latest"])).to.equal("0xde0b6b3a7640000");
      expect(await call(provider, "eth_getBalance", [STRANGER, "pending"])).to.equal("0xde0b6b3a7640000");
      expect(await call(provider, "eth_blockNumber")).to.equal("0x0");
      await call(provider, "evm_mine");
      expect(await call(provider, "eth_getBalance", [STRANGER, "0x1"])).to.equal("0xde0b6b3a7640000");
      // An edit made after block 0 is block 0's state, as Hardhat answers (EDR's irregular state; src/node/state/stateEdits.ts).
      expect(await call(provider, "eth_getBalance", [STRANGER, "0x0"])).to.equal("0xde0b6b3a7640000");
    });

    it("hardhat_setCode installs runnable code", async () => {
      await call(provider, "hardhat_setCode", [STRANGER, Counter.deployedBytecode]);
      expect(await call(provider, "eth_getCode", [STRANGER])).to.equal(Counter.deployedBytecode);
    });

    it("hardhat_setNonce moves the nonce forward only", async () => {
      await call(provider, "hardhat_setNonce", [dev0, "0x5"]);
      expect(await call(provider, "eth_getTransactionCount", [dev0, "latest"])).to.equal("0x5");
      expect(await rpcError(provider, "hardhat_setNonce", [dev0, "0x1"])).to.include({
        code: -32000,
        message: "New nonce (1) must not be smaller than the existing nonce (5)",
      });
      const hash = await call<string>(provider, "eth_sendTransaction", [{ from: dev0, to: STRANGER }]);
      expect(await call<{ nonce: string }>(provider, "eth_getTransactionByHash", [hash])).to.include({ nonce: "0x5" });
    });

    it("hardhat_setStorageAt writes a 32-byte word at a slot (quantity or 32-byte key)", async () => {
      const word = `0x${"00".repeat(31)}2a`;
      await call(provider, "hardhat_setStorageAt", [STRANGER, "0x1", word]);
      expect(await call(provider, "eth_getStorageAt", [STRANGER, "0x1", "latest"])).to.equal(word);
      await call(provider, "anvil_setStorageAt", [STRANGER, `0x${"00".repeat(31)}02`, word]);
      expect(await call(provider, "eth_getStorageAt", [STRANGER, "0x2", "latest"])).to.equal(word);
      expect((await rpcError(provider, "hardhat_setStorageAt", [STRANGER, "0x1", "0x2a"])).code).to.equal(-32602);
    });

    it("anvil_ aliases edit the same state", async () => {
      await call(provider, "anvil_setBalance", [STRANGER, "0x10"]);
      await call(provider, "anvil_setNonce", [STRANGER, "0x3"]);
      await call(provider, "anvil_setCode", [STRANGER, "0x6000"]);
      expect(await call(provider, "eth_getBalance", [STRANGER])).to.equal("0x10");
      expect(await call(provider, "eth_getTransactionCount", [STRANGER])).to.equal("0x3");
      expect(await call(provider, "eth_getCode", [STRANGER])).to.equal("0x6000");
    });
  });

  describe("impersonation", () => {
    it("eth_sendTransaction from an impersonated address works until impersonation stops", async () => {
      await call(provider, "hardhat_setBalance", [WHALE, "0xde0b6b3a7640000"]);
      expect(await call(provider, "hardhat_impersonateAccount", [WHALE])).to.equal(true);
      const hash = await call<string>(provider, "eth_sendTransaction", [{ from: WHALE, to: STRANGER, value: "0x100" }]);
      expect(hash).to.match(/^0x[0-9a-f]{64}$/);
      await provider.preconf.fragment();
      const receipt = await call<{ from: string; status: string }>(provider, "eth_getTransactionReceipt", [hash]);
      expect(receipt).to.include({ from: WHALE, status: "0x1" });
      expect(await call(provider, "eth_getBalance", [STRANGER, "pending"])).to.equal("0x100");

      expect(await call(provider, "hardhat_stopImpersonatingAccount", [WHALE])).to.equal(true);
      expect(await call(provider, "hardhat_stopImpersonatingAccount", [WHALE])).to.equal(false);
      const refused = await rpcError(provider, "eth_sendTransaction", [{ from: WHALE, to: STRANGER }]);
      expect(refused.code).to.not.equal(undefined);
    });

    it("anvil_impersonateAccount deploys a contract from an impersonated address, automined", async () => {
      await call(provider, "anvil_setBalance", [WHALE, "0xde0b6b3a7640000"]);
      await call(provider, "anvil_impersonateAccount", [WHALE]);
      await call(provider, "evm_setAutomine", [true]);
      const hash = await call<string>(provider, "eth_sendTransaction", [{ from: WHALE, data: Counter.bytecode }]);
      const receipt = await call<{ contractAddress: string; status: string }>(provider, "eth_getTransactionReceipt", [hash]);
      expect(receipt.status).to.equal("0x1");
      expect(await call(provider, "eth_getCode", [receipt.contractAddress])).to.equal(Counter.deployedBytecode);
      expect(await call(provider, "anvil_stopImpersonatingAccount", [WHALE])).to.equal(true);
    });

    it("a contract can be the sender: calls and estimates from it, impersonated sends from it, its code still runs", async () => {
      // EIP-3607 refuses senders with code; geth's calls and Hardhat's impersonation do not.
      await call(provider, "hardhat_setCode", [WHALE, Counter.deployedBytecode]);
      await call(provider, "hardhat_setBalance", [WHALE, "0xde0b6b3a7640000"]);
      const increment = encodeFunctionData({ abi: Counter.abi, functionName: "increment" });
      const count = encodeFunctionData({ abi: Counter.abi, functionName: "count" });
      // The sender calls itself: its own code must execute (not read as empty during the call).
      expect(await call(provider, "eth_call", [{ from: WHALE, to: WHALE, data: count }, "latest"])).to.equal(`0x${"0".repeat(64)}`);
      expect(await call(provider, "eth_estimateGas", [{ from: WHALE, to: STRANGER, value: "0x1" }])).to.equal("0x5208");

      await call(provider, "hardhat_impersonateAccount", [WHALE]);
      const hash = await call<string>(provider, "eth_sendTransaction", [{ from: WHALE, to: WHALE, data: increment }]);
      await provider.preconf.fragment();
      expect(await call<{ status: string }>(provider, "eth_getTransactionReceipt", [hash])).to.include({ status: "0x1" });
      expect(await call(provider, "eth_call", [{ to: WHALE, data: count }, "pending"])).to.equal(`0x${"0".repeat(63)}1`);
      expect(await call(provider, "eth_getCode", [WHALE, "pending"])).to.equal(Counter.deployedBytecode);
      expect(await call(provider, "eth_getTransactionCount", [WHALE, "pending"])).to.equal("0x1");
    });

    it("an impersonated sender without funds is refused like any other", async () => {
      await call(provider, "hardhat_impersonateAccount", [WHALE]);
      const error = await rpcError(provider, "eth_sendTransaction", [{ from: WHALE, to: STRANGER, value: "0x1", gas: "0x5208" }]);
      expect(error.message).to.equal("insufficient funds for gas * price + value");
    });
  });

  describe("pool", () => {
    it("txpool_content and txpool_status split pending from queued (nonce gap)", async () => {
      await call(provider, "eth_sendTransaction", [{ from: dev0, to: STRANGER, nonce: "0x0" }]);
      await call(provider, "eth_sendTransaction", [{ from: dev0, to: STRANGER, nonce: "0x2" }]);
      expect(await call(provider, "txpool_status")).to.deep.equal({ pending: "0x1", queued: "0x1" });
      const content = await call<{ pending: Record<string, Record<string, { nonce: string }>>; queued: Record<string, Record<string, { nonce: string }>> }>(
        provider,
        "txpool_content",
      );
      const [sender] = Object.keys(content.pending);
      expect(sender?.toLowerCase()).to.equal(dev0);
      expect(content.pending[sender!]!["0"]!.nonce).to.equal("0x0");
      expect(content.queued[sender!]!["2"]!.nonce).to.equal("0x2");
    });

    it("hardhat_dropTransaction drops a pooled tx, refuses an executed one; anvil_dropTransaction is an alias", async () => {
      const pooled = await call<string>(provider, "eth_sendTransaction", [{ from: dev0, to: STRANGER }]);
      expect(await call(provider, "hardhat_dropTransaction", [pooled])).to.equal(true);
      expect(await call(provider, "anvil_dropTransaction", [pooled])).to.equal(false);
      expect(await call(provider, "txpool_status")).to.deep.equal({ pending: "0x0", queued: "0x0" });

      const executed = await call<string>(provider, "eth_sendTransaction", [{ from: dev0, to: STRANGER }]);
      await provider.preconf.fragment();
      expect((await rpcError(provider, "hardhat_dropTransaction", [executed])).code).to.equal(-32602);
    });
  });
});
