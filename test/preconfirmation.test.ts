/**
 * The core scenario end to end, through viem and ethers v6 in process: deploy, send raw txs, see
 * them pre-confirmed after one fragment while `latest` is unchanged, then sealed after the block.
 */
import { expect } from "chai";
import { BrowserProvider, Contract, ContractFactory, Wallet } from "ethers";
import { parseEther } from "viem";

import { createTestChain, viemClients } from "./helpers/chain.ts";
import { Counter } from "./helpers/contracts.ts";
import { send, signTx } from "./helpers/sign.ts";

import type { PreconfProvider } from "../src/index.ts";

const ZERO_HASH = `0x${"00".repeat(32)}`;

describe("pre-confirmation, end to end", () => {
  let provider: PreconfProvider;
  afterEach(() => provider.close());

  it("viem: deploy, transact, pre-confirm in one fragment, seal after the block", async () => {
    ({ provider } = await createTestChain());
    const { account, publicClient, walletClient } = viemClients(provider);

    const deployHash = await walletClient.deployContract({ abi: Counter.abi, bytecode: Counter.bytecode });
    await provider.preconf.advance();
    const deployReceipt = await publicClient.getTransactionReceipt({ hash: deployHash });
    expect(deployReceipt.status).to.equal("success");
    expect(deployReceipt.blockHash).to.equal(ZERO_HASH);
    const address = deployReceipt.contractAddress!;
    const readCount = (blockTag: "pending" | "latest") => publicClient.readContract({ address, abi: Counter.abi, functionName: "count", blockTag });

    const recipient = provider.accounts[5]!.address;
    const latestBefore = await publicClient.getBalance({ address: recipient });
    // viem estimates against `latest` (its default block), where the counter does not exist yet.
    const incrementHash = await walletClient.writeContract({ address, abi: Counter.abi, functionName: "increment", gas: 100_000n });
    const transferHash = await walletClient.sendTransaction({ to: recipient, value: parseEther("1") });
    expect(await publicClient.getTransactionReceipt({ hash: transferHash }).catch(() => null)).to.equal(null);

    await provider.preconf.advance();
    const receipt = await publicClient.getTransactionReceipt({ hash: incrementHash });
    expect(receipt.status).to.equal("success");
    expect(receipt.blockNumber).to.equal(1n);
    expect(receipt.blockHash).to.equal(ZERO_HASH);
    expect(receipt.logs).to.have.length(1);
    expect(await publicClient.getBalance({ address: recipient, blockTag: "pending" })).to.equal(latestBefore + parseEther("1"));
    expect(await publicClient.getBalance({ address: recipient, blockTag: "latest" })).to.equal(latestBefore);
    expect(await publicClient.getTransactionCount({ address: account.address, blockTag: "pending" })).to.equal(3);
    expect(await publicClient.getTransactionCount({ address: account.address, blockTag: "latest" })).to.equal(0);
    expect(await readCount("pending")).to.equal(1n);
    expect(await publicClient.getBlockNumber()).to.equal(0n);

    await provider.preconf.advance(provider.preconf.fragmentsPerBlock - 2);
    expect(await publicClient.getBlockNumber()).to.equal(1n);
    const sealed = await publicClient.getBlock({ blockNumber: 1n });
    const sealedReceipt = await publicClient.getTransactionReceipt({ hash: incrementHash });
    expect(sealedReceipt.blockHash).to.equal(sealed.hash);
    expect(sealed.transactions).to.deep.equal([deployHash, incrementHash, transferHash]);
    expect(await publicClient.getBalance({ address: recipient })).to.equal(latestBefore + parseEther("1"));
    expect(await readCount("latest")).to.equal(1n);
    const logs = await publicClient.getContractEvents({ abi: Counter.abi, address, eventName: "Incremented", fromBlock: 0n });
    expect(logs.map((log) => (log.args as { newCount: bigint }).newCount)).to.deep.equal([1n]);
  });

  it("ethers v6: deploy, transact, pre-confirm, seal", async () => {
    ({ provider } = await createTestChain());
    const browser = new BrowserProvider(provider, { chainId: 31337, name: "preconf" }, { polling: true, pollingInterval: 1, cacheTimeout: -1 });
    const wallet = new Wallet(provider.accounts[0]!.privateKey, browser);

    const abi = JSON.stringify(Counter.abi);
    const deploying = new ContractFactory(abi, Counter.bytecode, wallet).deploy();
    const deployment = await deploying;
    await provider.preconf.advance();
    const address = await deployment.getAddress();
    expect(await browser.getCode(address, "pending")).to.not.equal("0x");
    expect(await browser.getCode(address, "latest")).to.equal("0x");

    const counter = new Contract(address, abi, wallet);
    // ethers estimates against `latest`, where the counter does not exist yet: give the gas.
    const sent = await counter.getFunction("increment")({ gasLimit: 100_000n });
    await provider.preconf.advance();
    const receipt = await browser.getTransactionReceipt(sent.hash);
    expect(receipt?.status).to.equal(1);
    expect(receipt?.blockHash).to.equal(ZERO_HASH);
    expect(await counter.getFunction("count").staticCall({ blockTag: "pending" })).to.equal(1n);
    expect(await browser.getTransactionCount(wallet.address, "pending")).to.equal(2);
    expect(await browser.getTransactionCount(wallet.address, "latest")).to.equal(0);

    await provider.preconf.advance(provider.preconf.fragmentsPerBlock);
    expect(await browser.getBlockNumber()).to.equal(1);
    const block = await browser.getBlock(1);
    expect((await browser.getTransactionReceipt(sent.hash))?.blockHash).to.equal(block?.hash);
    expect(await counter.getFunction("count").staticCall()).to.equal(1n);
  });

  it("nonce gaps: nonces 2, 1, 0 are all accepted and execute in order", async () => {
    ({ provider } = await createTestChain({ mining: "manual" }));
    const hashes = [];
    for (const nonce of [2, 1, 0]) hashes.push(await send(provider, await signTx(provider, 0, { nonce, value: BigInt(nonce + 1) })));
    expect(provider.chain.pool.size).to.equal(3);
    await provider.preconf.fragment();
    expect(provider.chain.pool.size).to.equal(0);
    expect(provider.chain.open.transactions.map((record) => record.tx.nonce)).to.deep.equal([0n, 1n, 2n]);
    expect(provider.chain.open.transactions.map((record) => record.hash)).to.deep.equal([...hashes].reverse());
  });

  it("a queued tx stays pooled until the gap fills", async () => {
    ({ provider } = await createTestChain({ mining: "manual" }));
    await send(provider, await signTx(provider, 0, { nonce: 1 }));
    await provider.preconf.fragment();
    expect(provider.chain.open.transactions).to.have.length(0);
    expect(await provider.request({ method: "eth_getTransactionCount", params: [provider.accounts[0]!.address, "pending"] })).to.equal("0x0");
    await send(provider, await signTx(provider, 0, { nonce: 0 }));
    expect(await provider.request({ method: "eth_getTransactionCount", params: [provider.accounts[0]!.address, "pending"] })).to.equal("0x2");
    await provider.preconf.fragment();
    expect(provider.chain.open.transactions.map((record) => record.tx.nonce)).to.deep.equal([0n, 1n]);
  });

  it("orders a fragment by effective tip, then arrival", async () => {
    ({ provider } = await createTestChain({ mining: "manual" }));
    const low = await send(provider, await signTx(provider, 0, { nonce: 0, maxPriorityFeePerGas: 1n }));
    const high = await send(provider, await signTx(provider, 1, { nonce: 0, maxPriorityFeePerGas: 5n, to: provider.accounts[2]!.address }));
    const tie = await send(provider, await signTx(provider, 2, { nonce: 0, maxPriorityFeePerGas: 1n, to: provider.accounts[3]!.address }));
    await provider.preconf.fragment();
    expect(provider.chain.open.transactions.map((record) => record.hash)).to.deep.equal([high, low, tie]);
  });

  it("a tx that does not fit the block's remaining gas waits for the next block", async () => {
    ({ provider } = await createTestChain({ mining: "manual", blockGasLimit: 50_000n }));
    await send(provider, await signTx(provider, 0, { nonce: 0, gas: 30_000n }));
    await send(provider, await signTx(provider, 1, { nonce: 0, gas: 30_000n, to: provider.accounts[2]!.address }));
    await provider.preconf.fragment();
    expect(provider.chain.open.transactions).to.have.length(1);
    await provider.preconf.seal();
    await provider.preconf.fragment();
    expect(provider.chain.open.transactions).to.have.length(1);
    expect(provider.chain.pool.size).to.equal(0);
  });
});
