/**
 * The status companion (base_transactionStatus, preconf_transactionStatus) and EIP-7966's
 * eth_sendRawTransactionSync (docs/behaviour.md, "Pre-confirmation companions"), on a fake clock.
 */
import { expect } from "chai";
import { keccak256, parseEther } from "viem";
import { signTx } from "./helpers/sign.ts";

import { createTestChain, rpcError } from "./helpers/chain.ts";

import type { Hex } from "viem";
import type { PreconfProvider } from "../src/index.ts";
import type { TestChain } from "./helpers/chain.ts";

const RECIPIENT = "0x000000000000000000000000000000000000dEaD";

function signedTransfer(provider: PreconfProvider, nonce: number): Promise<Hex> {
  return signTx(provider, 0, { nonce, to: RECIPIENT, value: parseEther("1") });
}

describe("transaction status", () => {
  let chain: TestChain;
  let provider: PreconfProvider;
  const status = (method: string, hash: Hex) => provider.request({ method, params: [hash] });

  beforeEach(async () => {
    chain = await createTestChain();
    provider = chain.provider;
  });

  afterEach(() => provider.close());

  it("base_transactionStatus is Known while the tx is in the mempool, Unknown once pre-confirmed and once sealed (Base)", async () => {
    const hash = (await provider.request({ method: "eth_sendRawTransaction", params: [await signedTransfer(provider, 0)] })) as Hex;
    expect(await status("base_transactionStatus", hash)).to.deep.equal({ status: "Known" });
    await provider.preconf.advance();
    expect(await status("preconf_transactionStatus", hash)).to.include({ status: "preconfirmed" });
    expect(await status("base_transactionStatus", hash)).to.deep.equal({ status: "Unknown" });
    await provider.preconf.advance(provider.preconf.fragmentsPerBlock);
    expect(await provider.request({ method: "eth_blockNumber" })).to.not.equal("0x0");
    expect(await status("base_transactionStatus", hash)).to.deep.equal({ status: "Unknown" });
  });

  it("base_transactionStatus is Unknown for a random hash; malformed hashes are -32602", async () => {
    expect(await status("base_transactionStatus", keccak256("0x1234"))).to.deep.equal({ status: "Unknown" });
    expect((await rpcError(provider, "base_transactionStatus", ["0x12"])).code).to.equal(-32602);
  });

  it("preconf_transactionStatus follows a tx: pending, preconfirmed, sealed", async () => {
    const hash = (await provider.request({ method: "eth_sendRawTransaction", params: [await signedTransfer(provider, 0)] })) as Hex;
    expect(await status("preconf_transactionStatus", hash)).to.deep.equal({ status: "pending" });
    await provider.preconf.advance();
    expect(await status("preconf_transactionStatus", hash)).to.deep.equal({ status: "preconfirmed", blockNumber: "0x1", fragmentIndex: "0x0" });
    await provider.preconf.advance(provider.preconf.fragmentsPerBlock);
    expect(await status("preconf_transactionStatus", hash)).to.deep.equal({ status: "sealed", blockNumber: "0x1", fragmentIndex: "0x0" });
  });

  it("preconf_transactionStatus: queued behind a nonce gap, pending once it fills, unknown otherwise", async () => {
    const gapped = (await provider.request({ method: "eth_sendRawTransaction", params: [await signedTransfer(provider, 1)] })) as Hex;
    expect(await status("preconf_transactionStatus", gapped)).to.deep.equal({ status: "queued" });
    expect(await status("base_transactionStatus", gapped)).to.deep.equal({ status: "Known" });
    await provider.request({ method: "eth_sendRawTransaction", params: [await signedTransfer(provider, 0)] });
    expect(await status("preconf_transactionStatus", gapped)).to.deep.equal({ status: "pending" });
    expect(await status("preconf_transactionStatus", keccak256("0xabcd"))).to.deep.equal({ status: "unknown" });
  });
});

describe("eth_sendRawTransactionSync (EIP-7966)", () => {
  let chain: TestChain;
  let provider: PreconfProvider;

  beforeEach(async () => {
    chain = await createTestChain();
    provider = chain.provider;
  });

  afterEach(() => provider.close());

  it("returns the receipt within one fragment", async () => {
    const raw = await signedTransfer(provider, 0);
    const started = chain.clock.now;
    const pending = provider.request({ method: "eth_sendRawTransactionSync", params: [raw] });
    await provider.preconf.advance();
    const receipt = (await pending) as Record<string, unknown>;
    expect(chain.clock.now - started).to.equal(provider.preconf.fragmentIntervalMs);
    expect(receipt).to.include({ status: "0x1", blockNumber: "0x1", blockHash: `0x${"00".repeat(32)}`, gasUsed: "0x5208" });
    expect(receipt).to.deep.equal(await provider.request({ method: "eth_getTransactionReceipt", params: [receipt.transactionHash] }));
  });

  it("accepts a timeout in ms (number or hex); above 6000 ms is -32602", async () => {
    const raw = await signedTransfer(provider, 0);
    const tooLong = await rpcError(provider, "eth_sendRawTransactionSync", [raw, 6001]);
    expect(tooLong.code).to.equal(-32602);
    expect((await rpcError(provider, "eth_sendRawTransactionSync", [raw, "0x1771"])).code).to.equal(-32602);
    expect((await rpcError(provider, "eth_sendRawTransactionSync", [raw, -1])).code).to.equal(-32602);
    // Refused before submission: the tx was never pooled.
    expect(provider.chain.pool.size).to.equal(0);
    const pending = provider.request({ method: "eth_sendRawTransactionSync", params: [raw, 6000] });
    await provider.preconf.advance();
    expect(await pending).to.have.property("status", "0x1");
  });

  it("times out with code 4 after 2000 ms of the provider's clock by default, the tx staying pooled", async () => {
    provider.preconf.setMining("manual");
    const raw = await signedTransfer(provider, 0);
    const outcome = provider.request({ method: "eth_sendRawTransactionSync", params: [raw] }).then(
      () => undefined,
      (error: unknown) => error as { code: number; message: string; data: unknown },
    );
    await provider.preconf.idle();
    await chain.clock.tickAsync(1999);
    let settled = false;
    void outcome.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).to.equal(false);
    await chain.clock.tickAsync(1);
    const error = await outcome;
    expect(error?.code).to.equal(4);
    expect(error?.message).to.include("2000ms");
    expect(await provider.request({ method: "base_transactionStatus", params: [error?.data] })).to.deep.equal({ status: "Known" });
  });

  it("answers admission errors at once", async () => {
    const raw = await signedTransfer(provider, 0);
    await provider.request({ method: "eth_sendRawTransaction", params: [raw] });
    expect(await rpcError(provider, "eth_sendRawTransactionSync", [raw])).to.deep.equal({ code: -32000, message: "already known", data: undefined });
  });
});
