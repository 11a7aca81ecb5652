/** eth_sendRawTransaction admission: every error of docs/behaviour.md ("Node errors") with its exact code, message and data. */
import { expect } from "chai";
import { keccak256, parseGwei, toHex } from "viem";

import { createTestChain, rpcError } from "./helpers/chain.ts";
import { FEE_CAP, send, signTx, TIP } from "./helpers/sign.ts";

import type { PreconfProvider } from "../src/index.ts";

describe("eth_sendRawTransaction admission", () => {
  let provider: PreconfProvider;
  let sender: string;

  beforeEach(async () => {
    ({ provider } = await createTestChain({ mining: "manual" }));
    sender = provider.accounts[0]!.address;
  });
  afterEach(() => provider.close());

  /** Everything a rejected tx must leave untouched. */
  async function observable() {
    return {
      pool: provider.chain.pool.size,
      open: provider.chain.open.transactions.length,
      nonce: await provider.request({ method: "eth_getTransactionCount", params: [sender, "pending"] }),
      balance: await provider.request({ method: "eth_getBalance", params: [sender, "pending"] }),
    };
  }

  async function expectRejected(raw: string, code: number, message: string, data?: unknown) {
    const before = await observable();
    const error = await rpcError(provider, "eth_sendRawTransaction", [raw]);
    expect({ code: error.code, message: error.message }).to.deep.equal({ code, message });
    if (data !== undefined) expect(error.data).to.deep.equal(data);
    expect(await observable()).to.deep.equal(before);
    return error;
  }

  it("accepts a signed transfer and returns its 32-byte hash at once", async () => {
    const raw = await signTx(provider, 0, { nonce: 0 });
    expect(await send(provider, raw)).to.equal(keccak256(raw));
    expect(provider.chain.pool.size).to.equal(1);
  });

  it("nonce too low: below the pre-confirmed nonce, with { nextNonce, txNonce }", async () => {
    await send(provider, await signTx(provider, 0, { nonce: 0 }));
    await provider.preconf.fragment();
    await expectRejected(await signTx(provider, 0, { nonce: 0, value: 2n }), -32000, "nonce too low", { nextNonce: "0x1", txNonce: "0x0" });
  });

  it("insufficient funds for gas * price + value, with { balance, cost }", async () => {
    const value = 10_000n * 10n ** 18n;
    const cost = 21000n * FEE_CAP + value;
    await expectRejected(await signTx(provider, 0, { nonce: 0, value }), -32000, "insufficient funds for gas * price + value", {
      balance: toHex(10_000n * 10n ** 18n),
      cost: toHex(cost),
    });
  });

  it("counts the sender's other pooled txs in the balance check", async () => {
    const balance = 10_000n * 10n ** 18n;
    const half = balance / 2n;
    await send(provider, await signTx(provider, 0, { nonce: 0, value: half }));
    const error = await expectRejected(await signTx(provider, 0, { nonce: 1, value: half }), -32000, "insufficient funds for gas * price + value");
    expect(error.data).to.deep.equal({ balance: toHex(balance), cost: toHex(2n * (half + 21000n * FEE_CAP)) });
  });

  it("already known: the same tx twice", async () => {
    const raw = await signTx(provider, 0, { nonce: 0 });
    await send(provider, raw);
    await expectRejected(raw, -32000, "already known");
  });

  describe("replacement (same sender and nonce)", () => {
    beforeEach(async () => {
      await send(provider, await signTx(provider, 0, { nonce: 0, maxFeePerGas: parseGwei("10"), maxPriorityFeePerGas: parseGwei("2") }));
    });
    const minimums = { minMaxFeePerGas: toHex(parseGwei("11")), minMaxPriorityFeePerGas: toHex(parseGwei("2.2")) };

    it("refuses a 9 % bump of both fees", async () => {
      const raw = await signTx(provider, 0, { nonce: 0, value: 2n, maxFeePerGas: parseGwei("10.9"), maxPriorityFeePerGas: parseGwei("2.18") });
      await expectRejected(raw, -32000, "replacement transaction underpriced", minimums);
    });

    it("refuses a 10 % bump of only one fee field", async () => {
      const feeOnly = await signTx(provider, 0, { nonce: 0, value: 2n, maxFeePerGas: parseGwei("11"), maxPriorityFeePerGas: parseGwei("2") });
      await expectRejected(feeOnly, -32000, "replacement transaction underpriced", minimums);
      const tipOnly = await signTx(provider, 0, { nonce: 0, value: 2n, maxFeePerGas: parseGwei("10"), maxPriorityFeePerGas: parseGwei("2.2") });
      await expectRejected(tipOnly, -32000, "replacement transaction underpriced", minimums);
    });

    it("accepts a 10 % bump of both, and the replaced tx leaves the pool", async () => {
      const raw = await signTx(provider, 0, { nonce: 0, value: 2n, maxFeePerGas: parseGwei("11"), maxPriorityFeePerGas: parseGwei("2.2") });
      const hash = await send(provider, raw);
      expect(provider.chain.pool.size).to.equal(1);
      expect(provider.chain.pool.get(hash)).to.not.equal(undefined);
      await provider.preconf.fragment();
      const receipt = (await provider.request({ method: "eth_getTransactionReceipt", params: [hash] })) as { status: string };
      expect(receipt.status).to.equal("0x1");
    });
  });

  it("invalid sender: a chain id other than the node's", async () => {
    await expectRejected(await signTx(provider, 0, { nonce: 0, chainId: 1 }), -32000, "invalid sender");
  });

  it("refuses unprotected (pre-EIP-155) legacy txs over RPC", async () => {
    const raw = await signTx(provider, 0, { nonce: 0, type: "legacy", gasPrice: FEE_CAP, chainId: undefined });
    await expectRejected(raw, -32000, "only replay-protected (EIP-155) transactions allowed over RPC");
  });

  it("accepts unprotected legacy txs when allowUnprotectedTxs is set", async () => {
    const { provider: lenient } = await createTestChain({ mining: "manual", allowUnprotectedTxs: true });
    const raw = await signTx(lenient, 0, { nonce: 0, type: "legacy", gasPrice: FEE_CAP, chainId: undefined });
    expect(await send(lenient, raw)).to.equal(keccak256(raw));
    await lenient.close();
  });

  it("intrinsic gas too low", async () => {
    await expectRejected(await signTx(provider, 0, { nonce: 0, gas: 20999n }), -32000, "intrinsic gas too low", {
      gas: toHex(20999n),
      intrinsicGas: toHex(21000n),
    });
  });

  it("exceeds block gas limit (below EIP-7825's cap)", async () => {
    await provider.close();
    ({ provider } = await createTestChain({ mining: "manual", blockGasLimit: 10_000_000 }));
    await expectRejected(await signTx(provider, 0, { nonce: 0, gas: 10_000_001n }), -32000, "exceeds block gas limit", {
      gas: toHex(10_000_001n),
      blockGasLimit: toHex(10_000_000n),
    });
  });

  it("transaction gas limit too high: EIP-7825's 2^24 cap from Osaka on, checked before the block gas limit as geth does", async () => {
    // go-ethereum core/txpool/validation.go: the Osaka cap, then the block gas limit.
    await expectRejected(await signTx(provider, 0, { nonce: 0, gas: 60_000_001n }), -32000, "transaction gas limit too high (cap: 16777216, tx: 60000001)");
    await provider.close();
    ({ provider } = await createTestChain({ mining: "manual", hardfork: "prague" }));
    await expectRejected(await signTx(provider, 0, { nonce: 0, gas: 60_000_001n }), -32000, "exceeds block gas limit");
    expect(await send(provider, await signTx(provider, 0, { nonce: 0, gas: 30_000_000n }))).to.match(/^0x[0-9a-f]{64}$/);
  });

  it("max priority fee per gas higher than max fee per gas", async () => {
    // No library signs a tx whose tip exceeds its cap: re-encode a signed one with the tip raised.
    const { createFeeMarket1559Tx } = await import("@ethereumjs/tx");
    const { hexToBytes, bytesToHex } = await import("@ethereumjs/util");
    const tx = createFeeMarket1559Tx(
      { chainId: 31337n, nonce: 0n, gasLimit: 21000n, to: provider.accounts[1]!.address, value: 1n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n },
      { common: provider.chain.common },
    );
    const signed = tx.sign(hexToBytes(provider.accounts[0]!.privateKey));
    const { RLP } = await import("@ethereumjs/rlp");
    const fields = RLP.decode(signed.serialize().slice(1)) as Uint8Array[];
    fields[2] = Uint8Array.of(5); // maxPriorityFeePerGas 5 > maxFeePerGas 1
    const raw = bytesToHex(Uint8Array.of(2, ...RLP.encode(fields)));
    await expectRejected(raw, -32000, "max priority fee per gas higher than max fee per gas");
  });

  it("transaction underpriced: a tip below the pool minimum", async () => {
    const { provider: strict } = await createTestChain({ mining: "manual", minPriorityFeePerGas: TIP });
    const raw = await signTx(strict, 0, { nonce: 0, maxPriorityFeePerGas: TIP - 1n });
    const error = await rpcError(strict, "eth_sendRawTransaction", [raw]);
    expect(error).to.deep.equal({ code: -32000, message: "transaction underpriced", data: { tip: toHex(TIP - 1n), minTip: toHex(TIP) } });
    expect(strict.chain.pool.size).to.equal(0);
    await strict.close();
  });

  it("garbage bytes are an RLP error, not a crash", async () => {
    const error = await expectRejected("0xc0ffee", -32000, "rlp: invalid transaction encoding");
    expect(error.data).to.have.property("reason").that.is.a("string");
    await expectRejected("0x", -32000, "typed transaction too short");
    await expectRejected("0x05aabb", -32000, "transaction type not supported");
  });

  it("malformed params are -32602 Invalid params", async () => {
    for (const params of [["0xzz"], ["0x123"], [42], [], ["0x00", "extra"], "0x00"]) {
      const error = await rpcError(provider, "eth_sendRawTransaction", params);
      expect(error.code, JSON.stringify(params)).to.equal(-32602);
      expect(error.message).to.equal("Invalid params");
    }
  });

  it("accepts legacy (EIP-155), 2930 and 1559 txs", async () => {
    await send(provider, await signTx(provider, 0, { nonce: 0, type: "legacy", gasPrice: FEE_CAP }));
    await send(provider, await signTx(provider, 0, { nonce: 1, type: "eip2930", gasPrice: FEE_CAP, accessList: [] }));
    await send(provider, await signTx(provider, 0, { nonce: 2 }));
    await provider.preconf.fragment();
    expect(provider.chain.open.transactions.map((record) => record.tx.type)).to.deep.equal([0, 1, 2]);
  });

  it("accepts an EIP-7702 tx and delegates the authority's code", async () => {
    const { privateKeyToAccount } = await import("viem/accounts");
    const authority = privateKeyToAccount(provider.accounts[2]!.privateKey);
    const target = provider.accounts[3]!.address;
    const authorization = await authority.signAuthorization({ chainId: 31337, address: target, nonce: 0 });
    const raw = await signTx(provider, 0, { nonce: 0, type: "eip7702", gas: 100_000n, authorizationList: [authorization], to: authority.address });
    const hash = await send(provider, raw);
    await provider.preconf.fragment();
    const receipt = (await provider.request({ method: "eth_getTransactionReceipt", params: [hash] })) as { status: string; type: string };
    expect(receipt).to.include({ status: "0x1", type: "0x4" });
    const code = await provider.request({ method: "eth_getCode", params: [authority.address, "pending"] });
    expect(code).to.equal(`0xef0100${target.slice(2)}`);
  });
});
