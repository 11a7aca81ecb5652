/**
 * OP-stack profiles: predeploys, the L1-attributes deposit, the L1 data fee and its vaults, deposit
 * txs, the gas cap. Base runs here as of Cobalt (flashblocks, fragment 0 with the deposits alone);
 * Denim's differences are test/denim.test.ts', Jovian's fee market test/jovian.test.ts'.
 */
import { expect } from "chai";
import FakeTimers from "@sinonjs/fake-timers";
import { RLP } from "@ethereumjs/rlp";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { createPublicClient, createWalletClient, custom, parseEther, parseGwei, serializeTransaction, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { base } from "viem/chains";
import { publicActionsL2 } from "viem/op-stack";

import { createPreconfProvider } from "../src/index.ts";
import { keccak256 } from "../src/node/common/crypto.ts";
import { flzCompressLen, l1CostOfSize } from "../src/node/opstack/l1Fee.ts";
import { nextBaseFee } from "../src/node/profiles/profiles.ts";
import { decodeFeeParams } from "../src/node/opstack/feeParams.ts";
import { START_MS } from "./helpers/chain.ts";

import type { Hex } from "viem";
import type { PreconfProvider } from "../src/index.ts";
import type { ProfileName } from "../src/node/profiles/profiles.ts";

const GPO = "0x420000000000000000000000000000000000000f";
const L1_BLOCK = "0x4200000000000000000000000000000000000015";
const SEQUENCER_FEE_VAULT = "0x4200000000000000000000000000000000000011";
const BASE_FEE_VAULT = "0x4200000000000000000000000000000000000019";
const L1_FEE_VAULT = "0x420000000000000000000000000000000000001a";
const DEPOSITOR = "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001";

type Json = Record<string, unknown>;

/** Base pinned at Cobalt (its last fork with flashblocks); other profiles as they run today. */
async function opProvider(profile: ProfileName = "base", options: { hardfork?: string; blockGasLimit?: number } = {}): Promise<PreconfProvider> {
  const hardfork = options.hardfork ?? (profile === "base" ? "cobalt" : undefined);
  return createPreconfProvider({ profile, clock: FakeTimers.createClock(START_MS), mining: "manual", ...options, ...(hardfork !== undefined && { hardfork }) });
}

const call = (provider: PreconfProvider, data: Hex, block: Hex | "latest" | "pending" = "latest") =>
  provider.request({ method: "eth_call", params: [{ to: GPO, data }, block] }) as Promise<Hex>;

const balanceOf = async (provider: PreconfProvider, address: string, block: Hex | "latest" | "pending" = "latest") =>
  BigInt((await provider.request({ method: "eth_getBalance", params: [address, block] })) as Hex);

/** ABI-encodes `getL1Fee(bytes)` (selector 0x49948e0e) or `getL1GasUsed(bytes)` (0xde26c4a1) of `data`. */
function encodeBytesCall(selector: Hex, data: Uint8Array): Hex {
  const length = data.length.toString(16).padStart(64, "0");
  const padded = Buffer.concat([Buffer.from(data), Buffer.alloc((32 - (data.length % 32)) % 32)]).toString("hex");
  return `${selector}${"20".padStart(64, "0")}${length}${padded}` as Hex;
}

/** A deposit tx's raw bytes: 0x7E || rlp([sourceHash, from, to, mint, value, gas, isSystemTx, data]). */
function rawDeposit(fields: { from: Hex; to: Hex | null; mint: bigint; value: bigint; gas: bigint; data?: Hex; seed?: number; isSystemTx?: boolean }): Hex {
  const n = (value: bigint) => (value === 0n ? new Uint8Array() : hexToBytes(toHex(value)));
  const body = RLP.encode([
    keccak256(Uint8Array.of(fields.seed ?? 1)),
    hexToBytes(fields.from),
    fields.to === null ? new Uint8Array() : hexToBytes(fields.to),
    n(fields.mint),
    n(fields.value),
    n(fields.gas),
    fields.isSystemTx === true ? Uint8Array.of(1) : new Uint8Array(),
    hexToBytes(fields.data ?? "0x"),
  ]);
  return bytesToHex(Uint8Array.from([0x7e, ...body])) as Hex;
}

describe("OP-stack profiles", function () {
  this.timeout(20_000);

  it("take chain id and cadence from the profile; explicit options win; dev is unchanged", async () => {
    const cases: [ProfileName, string, number, number, string?][] = [
      ["dev", "0x7a69", 200, 10],
      ["base", "0x2105", 200, 1],
      ["base", "0x2105", 200, 10, "cobalt"],
      ["base-sepolia", "0x14a34", 200, 1],
      ["base-sepolia", "0x14a34", 200, 10, "cobalt"],
      ["optimism", "0xa", 250, 8],
      ["unichain", "0x82", 200, 5],
    ];
    for (const [profile, chainId, interval, perBlock, hardfork] of cases) {
      const provider = await createPreconfProvider({ profile, clock: FakeTimers.createClock(START_MS), ...(hardfork !== undefined && { hardfork }) });
      expect(await provider.request({ method: "eth_chainId" }), profile).to.equal(chainId);
      expect([provider.preconf.fragmentIntervalMs, provider.preconf.fragmentsPerBlock], profile).to.deep.equal([interval, perBlock]);
      await provider.close();
    }
    const custom = await createPreconfProvider({ profile: "base", chainId: 99, fragmentsPerBlock: 3, clock: FakeTimers.createClock(START_MS) });
    expect(await custom.request({ method: "eth_chainId" })).to.equal("0x63");
    expect(custom.preconf.fragmentsPerBlock).to.equal(3);
    await custom.close();
    const dev = await createPreconfProvider({ clock: FakeTimers.createClock(START_MS) });
    expect(await dev.request({ method: "eth_getCode", params: [GPO, "latest"] })).to.equal("0x");
    await dev.close();
  });

  it("install the predeploys in the genesis, with the SequencerFeeVault as coinbase", async () => {
    const provider = await opProvider();
    for (const address of [
      GPO,
      L1_BLOCK,
      SEQUENCER_FEE_VAULT,
      BASE_FEE_VAULT,
      L1_FEE_VAULT,
      "0x4200000000000000000000000000000000000006",
      "0x4200000000000000000000000000000000000016",
    ]) {
      expect(((await provider.request({ method: "eth_getCode", params: [address, "earliest"] })) as string).length, address).to.be.greaterThan(100);
    }
    await provider.preconf.seal();
    const block = (await provider.request({ method: "eth_getBlockByNumber", params: ["latest", false] })) as Json;
    expect(block.miner).to.equal(SEQUENCER_FEE_VAULT);
    // GasPriceOracle: decimals() = 6, isEcotone() and isFjord() true.
    expect(BigInt(await call(provider, "0x313ce567"))).to.equal(6n);
    expect(BigInt(await call(provider, "0x4ef6e224"))).to.equal(1n);
    expect(BigInt(await call(provider, "0x960e3a23"))).to.equal(1n);
    await provider.close();
  });

  it("open every block with the L1-attributes deposit, alone in fragment 0", async () => {
    const provider = await opProvider();
    const wallet = privateKeyToAccount(provider.accounts[0]!.privateKey);
    const raw = await wallet.signTransaction({
      chainId: 8453,
      nonce: 0,
      to: provider.accounts[1]!.address,
      value: 1n,
      gas: 21000n,
      maxFeePerGas: parseGwei("10"),
      maxPriorityFeePerGas: 1n,
    });
    const hash = await provider.request({ method: "eth_sendRawTransaction", params: [raw] });
    const first = await provider.preconf.fragment();
    expect(first.transactions).to.have.length(1);
    expect(first.transactions[0]!.from).to.equal(DEPOSITOR);
    const second = await provider.preconf.fragment();
    expect(second.transactions.map((record) => record.hash)).to.deep.equal([hash]);
    await provider.preconf.seal();
    await provider.preconf.seal(); // an empty block still has its deposit
    for (const number of ["0x1", "0x2"]) {
      const block = (await provider.request({ method: "eth_getBlockByNumber", params: [number, true] })) as { transactions: Json[]; timestamp: Hex };
      const deposit = block.transactions[0]!;
      expect(deposit).to.include({ type: "0x7e", from: DEPOSITOR, to: L1_BLOCK, mint: "0x0", isSystemTx: false, gas: "0xf4240", gasPrice: "0x0" });
      // setL1BlockValuesJovian(), 178 bytes (byte for byte in test/jovian.test.ts).
      expect((deposit.input as string).slice(0, 10)).to.equal("0x3db6be2b");
      expect((deposit.input as string).length).to.equal(2 + 178 * 2);
      const receipt = (await provider.request({ method: "eth_getTransactionReceipt", params: [deposit.hash] })) as Json;
      expect(receipt).to.include({ type: "0x7e", status: "0x1", depositReceiptVersion: "0x1", effectiveGasPrice: "0x0" });
      expect(receipt.depositNonce).to.equal(number === "0x1" ? "0x0" : "0x1");
      // L1Block.number(): the simulated L1 moves with the clock, one block per 12 s.
      const l1Number = await provider.request({ method: "eth_call", params: [{ to: L1_BLOCK, data: "0x8381f58a" }, number] });
      expect(BigInt(l1Number as Hex)).to.equal(BigInt(block.timestamp) / 12n);
    }
    await provider.close();
  });

  it("answer viem's publicActionsL2 with non-zero L1 fees", async () => {
    const provider = await opProvider();
    await provider.preconf.seal();
    const client = createPublicClient({ chain: base, transport: custom(provider) }).extend(publicActionsL2());
    const account = provider.accounts[0]!.address;
    const request = { account, to: provider.accounts[1]!.address, value: 1n, chain: base } as const;
    expect(await client.getL1BaseFee()).to.equal(parseGwei("1"));
    expect(await client.estimateL1Gas(request)).to.be.greaterThan(0n);
    const l1Fee = await client.estimateL1Fee(request);
    expect(l1Fee).to.be.greaterThan(0n);
    expect(await client.estimateTotalFee(request)).to.be.greaterThan(l1Fee);
    await provider.close();
  });

  it("charge the L1 fee to the sender, credit every fee to its vault and conserve ether", async () => {
    const provider = await opProvider();
    await provider.preconf.seal();
    const sender = provider.accounts[0]!.address;
    const to = provider.accounts[1]!.address;
    const watched = [sender, to, SEQUENCER_FEE_VAULT, BASE_FEE_VAULT, L1_FEE_VAULT];
    const before = await Promise.all(watched.map((address) => balanceOf(provider, address)));
    const wallet = createWalletClient({ account: privateKeyToAccount(provider.accounts[0]!.privateKey), chain: base, transport: custom(provider) });
    const value = parseEther("1");
    const hash = await wallet.sendTransaction({ to, value, maxPriorityFeePerGas: parseGwei("0.01") });
    await provider.preconf.fragment(); // fragment 0: the L1-attributes deposit only
    await provider.preconf.fragment();
    await provider.preconf.seal();
    const receipt = (await provider.request({ method: "eth_getTransactionReceipt", params: [hash] })) as Record<string, Hex>;
    const tx = (await provider.request({ method: "eth_getTransactionByHash", params: [hash] })) as Record<string, Hex>;
    const block = (await provider.request({ method: "eth_getBlockByNumber", params: [receipt.blockNumber, false] })) as Record<string, Hex>;
    const after = await Promise.all(watched.map((address) => balanceOf(provider, address)));
    const [gasUsed, price, l1Fee, baseFee] = [
      BigInt(receipt.gasUsed!),
      BigInt(receipt.effectiveGasPrice!),
      BigInt(receipt.l1Fee!),
      BigInt(block.baseFeePerGas!),
    ];
    expect(l1Fee).to.be.greaterThan(0n);
    expect(receipt).to.include({
      l1GasPrice: toHex(parseGwei("1")),
      l1BaseFeeScalar: toHex(2269),
      l1BlobBaseFee: "0x1",
      l1BlobBaseFeeScalar: toHex(1_055_778),
    });
    expect(BigInt(receipt.l1GasUsed!)).to.equal(1600n); // the 100-byte minimum × 16
    // GasPriceOracle.getL1Fee of the tx's unsigned bytes at its block gives the receipt's fee.
    const unsigned = serializeTransaction({
      chainId: 8453,
      type: "eip1559",
      nonce: Number(tx.nonce),
      to,
      value,
      gas: BigInt(tx.gas!),
      maxFeePerGas: BigInt(tx.maxFeePerGas!),
      maxPriorityFeePerGas: BigInt(tx.maxPriorityFeePerGas!),
    });
    expect(BigInt(await call(provider, encodeBytesCall("0x49948e0e", hexToBytes(unsigned)), receipt.blockNumber!))).to.equal(l1Fee);
    const delta = after.map((balance, i) => balance - before[i]!);
    expect(-delta[0]!).to.equal(gasUsed * price + value + l1Fee);
    expect(delta[1]).to.equal(value);
    expect(delta[2]).to.equal(gasUsed * (price - baseFee));
    expect(delta[3]).to.equal(gasUsed * baseFee);
    expect(delta[4]).to.equal(l1Fee);
    expect(delta.reduce((sum, change) => sum + change, 0n)).to.equal(0n);
    await provider.close();
  });

  it("count FastLZ in Solidity as in TypeScript, and price getL1Fee by Fjord's formula", async () => {
    const provider = await opProvider();
    await provider.preconf.seal();
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 256;
    const inputs = [
      new Uint8Array(0),
      new Uint8Array(12).fill(1),
      new Uint8Array(300),
      Uint8Array.from({ length: 500 }, random),
      Uint8Array.from({ length: 2000 }, (_, i) => (i % 40 < 20 ? i % 7 : random())),
    ];
    const fees = {
      l1BaseFee: parseGwei("1"),
      l1BlobBaseFee: 1n,
      baseFeeScalar: 2269n,
      blobBaseFeeScalar: 1_055_778n,
      operatorFeeScalar: 0n,
      operatorFeeConstant: 0n,
      daFootprintGasScalar: 148n,
    };
    for (const input of inputs) {
      // flzCompressLen(bytes) is public on our GasPriceOracle (selector 0x8f52e0d6 checked below).
      const onChain = BigInt(
        (await provider.request({
          method: "eth_call",
          params: [{ to: GPO, data: encodeBytesCall(selectorOf("flzCompressLen(bytes)"), input) }, "latest"],
        })) as Hex,
      );
      expect(onChain, `length ${input.length}`).to.equal(BigInt(flzCompressLen(input)));
      const fee = BigInt(await call(provider, encodeBytesCall("0x49948e0e", input)));
      expect(fee).to.equal(l1CostOfSize(onChain + 68n, fees).fee);
    }
    expect(flzCompressLen(new Uint8Array(2000))).to.be.lessThan(100);
    await provider.close();
  });

  it("mint a deposit's ether in the next fragment, even when its call fails", async () => {
    const provider = await opProvider();
    await provider.preconf.seal();
    const user = "0x00000000000000000000000000000000000000aa";
    const mint = parseEther("2");
    const hash = (await provider.request({
      method: "eth_sendRawTransaction",
      params: [rawDeposit({ from: user, to: user, mint, value: parseEther("1"), gas: 100_000n })],
    })) as Hex;
    expect(await balanceOf(provider, user)).to.equal(0n);
    const fragment = await provider.preconf.fragment();
    expect(fragment.transactions.map((record) => record.from)).to.deep.equal([DEPOSITOR, user]);
    expect(fragment.transactions[1]!.hash).to.equal(hash);
    expect(await provider.request({ method: "eth_getBalance", params: [user, "pending"] })).to.equal(toHex(mint));
    const receipt = (await provider.request({ method: "eth_getTransactionReceipt", params: [hash] })) as Json;
    expect(receipt).to.include({ type: "0x7e", status: "0x1", depositNonce: "0x0", depositReceiptVersion: "0x1", gasUsed: "0x5208", from: user });
    expect(receipt).not.to.have.property("l1Fee");
    const tx = (await provider.request({ method: "eth_getTransactionByHash", params: [hash] })) as Json;
    expect(tx).to.include({ type: "0x7e", mint: toHex(mint), value: toHex(parseEther("1")), nonce: "0x0", isSystemTx: false });
    // Value above the balance: the call fails, the mint stays, the nonce moves, all its gas is used.
    const failing = (await provider.request({
      method: "eth_sendRawTransaction",
      params: [rawDeposit({ from: user, to: DEPOSITOR, mint: 5n, value: parseEther("100"), gas: 50_000n, seed: 2 })],
    })) as Hex;
    await provider.preconf.fragment();
    const failed = (await provider.request({ method: "eth_getTransactionReceipt", params: [failing] })) as Json;
    expect(failed).to.include({ status: "0x0", gasUsed: toHex(50_000), depositNonce: "0x1" });
    expect(await provider.request({ method: "eth_getBalance", params: [user, "pending"] })).to.equal(toHex(mint + 5n));
    expect(await provider.request({ method: "eth_getTransactionCount", params: [user, "pending"] })).to.equal("0x2");
    const again = rawDeposit({ from: user, to: DEPOSITOR, mint: 5n, value: parseEther("100"), gas: 50_000n, seed: 2 });
    expect(await rejection(provider.request({ method: "eth_sendRawTransaction", params: [again] }))).to.include({ code: -32000, message: "already known" });
    await provider.preconf.seal();
    await provider.close();
  });

  it("refuse a block gas limit below the L1-attributes deposit's gas, and tracing a tx, with clear errors", async () => {
    const provider = await opProvider("optimism");
    try {
      const error = await provider.request({ method: "evm_setBlockGasLimit", params: ["0x7a120"] }).catch((caught: unknown) => caught);
      expect(error).to.include({ code: -32000, message: "Block gas limit must be at least 1000000 on an OP-stack profile (the L1-attributes deposit's gas)" });
      expect(await provider.request({ method: "evm_setBlockGasLimit", params: ["0xf4240"] })).to.equal(true);
      await provider.preconf.seal();
      const block = (await provider.request({ method: "eth_getBlockByNumber", params: ["0x1", false] })) as { transactions: Hex[] };
      const traced = await provider.request({ method: "debug_traceTransaction", params: [block.transactions[0]] }).catch((caught: unknown) => caught);
      expect(traced).to.include({ code: -32000, message: "debug_traceTransaction is not supported on OP-stack profiles" });
    } finally {
      await provider.close();
    }
  });

  it("include pending txs in a block mined at once (evm_mine, hardhat_mine) or made of one fragment", async () => {
    for (const options of [{ mining: "manual" as const }, { mining: "manual" as const, hardhatMine: true }, { fragmentsPerBlock: 1 }]) {
      const { hardhatMine: _, ...rest } = { hardhatMine: undefined, ...options };
      const provider = await createPreconfProvider({ profile: "base", clock: FakeTimers.createClock(START_MS), ...rest });
      const [from, to] = provider.accounts;
      const hash = await provider.request({ method: "eth_sendTransaction", params: [{ from: from!.address, to: to!.address, value: "0x1" }] });
      if ("hardhatMine" in options) await provider.request({ method: "hardhat_mine", params: ["0x3"] });
      else if (options.mining === "manual") await provider.request({ method: "evm_mine" });
      else await provider.preconf.advance(1);
      const receipt = (await provider.request({ method: "eth_getTransactionReceipt", params: [hash] })) as Json | null;
      expect(receipt?.blockNumber, JSON.stringify(options)).to.equal("0x1");
      await provider.close();
    }
  });

  it("refuse a block gas limit without room for the L1-attributes deposit (and BaseTime's from Denim on)", async () => {
    const refusal = (options: Parameters<typeof createPreconfProvider>[0]) =>
      createPreconfProvider({ clock: FakeTimers.createClock(START_MS), ...options }).then(
        () => undefined,
        (e: unknown) => String(e),
      );
    expect(await refusal({ profile: "optimism", blockGasLimit: 999_999 })).to.equal(
      "InvalidOptionsError: Invalid hardhat-preconf option blockGasLimit: must be at least 1000000 on the optimism profile (the L1-attributes deposit's gas)",
    );
    expect(await refusal({ profile: "base", blockGasLimit: 1_999_999 })).to.equal(
      "InvalidOptionsError: Invalid hardhat-preconf option blockGasLimit: must be at least 2000000 on the base profile (the L1-attributes and BaseTime deposits' gas)",
    );
    // Base before Denim has no BaseTime deposit, unless Denim is scheduled.
    const cobalt = await createPreconfProvider({ profile: "base", hardfork: "cobalt", blockGasLimit: 1_000_000, clock: FakeTimers.createClock(START_MS) });
    await cobalt.close();
    expect(await refusal({ profile: "base", hardfork: "cobalt", forkSchedule: { denim: { block: 5 } }, blockGasLimit: 1_999_999 })).to.match(
      /must be at least 2000000/,
    );
    const dev = await createPreconfProvider({ blockGasLimit: 999_999, clock: FakeTimers.createClock(START_MS) });
    await dev.close();
  });

  it("refuse a system deposit, which op-geth no longer supports (Regolith)", async () => {
    const provider = await opProvider();
    const raw = rawDeposit({ from: DEPOSITOR, to: L1_BLOCK, mint: 0n, value: 0n, gas: 100_000n, isSystemTx: true });
    expect(await rejection(provider.request({ method: "eth_sendRawTransaction", params: [raw] }))).to.include({
      code: -32000,
      message: `system tx not supported: address ${DEPOSITOR}`,
    });
    await provider.preconf.seal();
    const block = (await provider.request({ method: "eth_getBlockByNumber", params: ["latest", false] })) as Json;
    expect(block.transactions).to.have.length(1); // the L1-attributes deposit only
    await provider.close();
  });

  it("refuse a deposit that could never fit a block, and hold one that does not fit this block for the next", async () => {
    // Above EIP-7825's 2^24 cap: deposits are exempt (docs.base.org specs/upgrades/azul/exec-engine).
    const provider = await opProvider("base", { blockGasLimit: 30_000_000 });
    const user = "0x00000000000000000000000000000000000000aa";
    // 30,000,000 gas per block, 1,000,000 of them the L1-attributes deposit's.
    const huge = rawDeposit({ from: user, to: user, mint: 1n, value: 0n, gas: 29_000_001n });
    expect(await rejection(provider.request({ method: "eth_sendRawTransaction", params: [huge] }))).to.deep.include({
      code: -32000,
      message: "exceeds block gas limit",
    });
    const first = await provider.request({
      method: "eth_sendRawTransaction",
      params: [rawDeposit({ from: user, to: user, mint: 1n, value: 0n, gas: 20_000_000n, seed: 3 })],
    });
    const second = await provider.request({
      method: "eth_sendRawTransaction",
      params: [rawDeposit({ from: user, to: user, mint: 1n, value: 0n, gas: 20_000_000n, seed: 4 })],
    });
    await provider.preconf.seal();
    await provider.preconf.seal();
    const blockOf = async (hash: unknown) => ((await provider.request({ method: "eth_getTransactionReceipt", params: [hash] })) as Json).blockNumber;
    expect([await blockOf(first), await blockOf(second)]).to.deep.equal(["0x1", "0x2"]);
    expect(await balanceOf(provider, user)).to.equal(2n);
    await provider.close();
  });

  it("refuse gas above 2^24 where EIP-7825 is active, with go-ethereum's text", async () => {
    // Base enforced the cap before Azul (as a policy) and after (Osaka): at Jovian too.
    const provider = await opProvider("base", { hardfork: "jovian" });
    const wallet = privateKeyToAccount(provider.accounts[0]!.privateKey);
    const raw = await wallet.signTransaction({
      chainId: 8453,
      nonce: 0,
      to: provider.accounts[1]!.address,
      value: 1n,
      gas: 2n ** 24n + 1n,
      maxFeePerGas: parseGwei("10"),
      maxPriorityFeePerGas: 1n,
    });
    expect(await rejection(provider.request({ method: "eth_sendRawTransaction", params: [raw] }))).to.include({
      code: -32000,
      message: "transaction gas limit too high (cap: 16777216, tx: 16777217)",
    });
    // Estimates search below the cap (geth's DoEstimateGas), whatever gas the request names.
    expect(
      await provider.request({
        method: "eth_estimateGas",
        params: [{ from: provider.accounts[0]!.address, to: provider.accounts[1]!.address, gas: toHex(2n ** 24n + 1n) }],
      }),
    ).to.equal("0x5208");
    await provider.close();
    // OP Mainnet before Karst (its Osaka) had no cap.
    const optimism = await opProvider("optimism", { hardfork: "jovian" });
    const signed = await wallet.signTransaction({
      chainId: 10,
      nonce: 0,
      to: optimism.accounts[1]!.address,
      value: 1n,
      gas: 2n ** 24n + 1n,
      maxFeePerGas: parseGwei("10"),
      maxPriorityFeePerGas: 1n,
    });
    expect(await optimism.request({ method: "eth_sendRawTransaction", params: [signed] })).to.match(/^0x[0-9a-f]{64}$/);
    await optimism.close();
  });

  it("move the base fee by the EIP-1559 parameters of the parent's extraData", async () => {
    for (const profile of ["base", "optimism"] as const) {
      const provider = await opProvider(profile);
      await provider.preconf.seal();
      await provider.preconf.seal();
      const [parent, child] = (await Promise.all(
        ["0x1", "0x2"].map((n) => provider.request({ method: "eth_getBlockByNumber", params: [n, false] })),
      )) as Record<string, Hex>[];
      const params = decodeFeeParams(hexToBytes(parent!.extraData!))!;
      const expected = nextBaseFee(
        { gasLimit: BigInt(parent!.gasLimit!), gasUsed: BigInt(parent!.gasUsed!), baseFee: BigInt(parent!.baseFeePerGas!) },
        params,
        params.minBaseFee,
      );
      expect(BigInt(child!.baseFeePerGas!), profile).to.equal(expected);
      expect(expected, profile).to.be.lessThan(BigInt(parent!.baseFeePerGas!));
      // eth_gasPrice: the open block's base fee (the profile's rule applied to the head) plus the suggested tip.
      const open = nextBaseFee(
        { gasLimit: BigInt(child!.gasLimit!), gasUsed: BigInt(child!.gasUsed!), baseFee: BigInt(child!.baseFeePerGas!) },
        params,
        params.minBaseFee,
      );
      // op-geth's suggested tip while blocks have room: 0.001 gwei (eth/gasprice/gasprice.go DefaultMinSuggestedPriorityFee).
      expect(await provider.request({ method: "eth_gasPrice" })).to.equal(toHex(open + parseGwei("0.001")));
      expect(await provider.request({ method: "eth_maxPriorityFeePerGas" })).to.equal(toHex(parseGwei("0.001")));
      await provider.close();
    }
    // Base before Denim: denominator 100, elasticity 5 — a block 1/5 full keeps its fee; an empty one drops it by 1 %.
    const cobalt = { denominator: 100n, elasticity: 5n };
    expect(nextBaseFee({ gasLimit: 30_000_000n, gasUsed: 6_000_000n, baseFee: 1000n }, cobalt, 0n)).to.equal(1000n);
    expect(nextBaseFee({ gasLimit: 30_000_000n, gasUsed: 0n, baseFee: 1000n }, cobalt, 0n)).to.equal(990n);
  });

  it("set the simulated L1's fees with preconf_setL1Fees, from the next block on", async () => {
    const provider = await opProvider();
    await provider.preconf.seal();
    expect(await provider.request({ method: "preconf_setL1Fees", params: [{ baseFee: toHex(parseGwei("30")), blobBaseFeeScalar: "0x0" }] })).to.deep.equal({
      baseFee: toHex(parseGwei("30")),
      blobBaseFee: "0x1",
      baseFeeScalar: toHex(2269),
      blobBaseFeeScalar: "0x0",
      operatorFeeScalar: "0x0",
      operatorFeeConstant: "0x0",
      daFootprintGasScalar: toHex(148),
    });
    expect(BigInt(await call(provider, "0x519b4bd3"))).to.equal(parseGwei("1")); // l1BaseFee(): this block's
    await provider.preconf.seal();
    expect(BigInt(await call(provider, "0x519b4bd3"))).to.equal(parseGwei("30"));
    expect(await rejection(provider.request({ method: "preconf_setL1Fees", params: [{ baseFeeScalar: toHex(2n ** 32n) }] }))).to.include({ code: -32602 });
    await provider.close();
    const dev = await createPreconfProvider({ clock: FakeTimers.createClock(START_MS) });
    expect(await rejection(dev.request({ method: "preconf_setL1Fees", params: [{}] }))).to.include({ code: -32601 });
    await dev.close();
  });

  it("refuse deposits on dev and blob txs on OP profiles", async () => {
    const dev = await createPreconfProvider({ clock: FakeTimers.createClock(START_MS) });
    expect(
      await rejection(
        dev.request({ method: "eth_sendRawTransaction", params: [rawDeposit({ from: DEPOSITOR, to: null, mint: 1n, value: 0n, gas: 21_000n })] }),
      ),
    ).to.include({ code: -32000, message: "transaction type not supported" });
    await dev.close();
    const provider = await opProvider();
    expect(await rejection(provider.request({ method: "eth_sendRawTransaction", params: ["0x03c0"] }))).to.include({
      code: -32000,
      message: "transaction type not supported",
    });
    await provider.close();
  });

  it("revert blocks with deposits (evm_snapshot / evm_revert)", async () => {
    const provider = await opProvider();
    await provider.preconf.seal();
    const id = await provider.request({ method: "evm_snapshot" });
    await provider.request({
      method: "eth_sendRawTransaction",
      params: [rawDeposit({ from: DEPOSITOR, to: null, mint: 1n, value: 0n, gas: 100_000n, seed: 9 })],
    });
    await provider.request({ method: "preconf_setL1Fees", params: [{ baseFee: "0x5" }] });
    await provider.preconf.seal();
    await provider.preconf.seal();
    expect(await provider.request({ method: "evm_revert", params: [id] })).to.equal(true);
    expect(await provider.request({ method: "eth_blockNumber" })).to.equal("0x1");
    expect(await provider.request({ method: "preconf_getL1Fees" })).to.include({ baseFee: toHex(parseGwei("1")) });
    await provider.preconf.seal();
    const block = (await provider.request({ method: "eth_getBlockByNumber", params: ["latest", false] })) as { transactions: Hex[] };
    expect(block.transactions).to.have.length(1);
    await provider.close();
  });
});

/** The error a request is rejected with (fails when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<Json> {
  try {
    await promise;
  } catch (error) {
    return error as Json;
  }
  throw new Error("expected a rejection");
}

function selectorOf(signature: string): Hex {
  return bytesToHex(keccak256(new TextEncoder().encode(signature)).subarray(0, 4)) as Hex;
}

describe("OP-stack profiles: admission and limits", function () {
  it("require the balance for gas × price + value + the L1 fee", async () => {
    const provider = await opProvider();
    await provider.preconf.seal();
    const poor = privateKeyToAccount(`0x${"11".repeat(32)}`);
    const fee = parseGwei("1");
    const l2Cost = 21_000n * fee + 1n;
    await provider.request({ method: "hardhat_setBalance", params: [poor.address, toHex(l2Cost)] });
    const raw = await poor.signTransaction({
      chainId: 8453,
      nonce: 0,
      to: provider.accounts[1]!.address,
      value: 1n,
      gas: 21_000n,
      maxFeePerGas: fee,
      maxPriorityFeePerGas: 0n,
    });
    const error = await rejection(provider.request({ method: "eth_sendRawTransaction", params: [raw] }));
    expect(error).to.include({ code: -32000, message: "insufficient funds for gas * price + value" });
    const l1Fee = BigInt((error.data as { cost: Hex }).cost) - l2Cost;
    expect(l1Fee).to.equal(
      l1CostOfSize(0n, {
        l1BaseFee: parseGwei("1"),
        l1BlobBaseFee: 1n,
        baseFeeScalar: 2269n,
        blobBaseFeeScalar: 1_055_778n,
        operatorFeeScalar: 0n,
        operatorFeeConstant: 0n,
        daFootprintGasScalar: 148n,
      }).fee,
    );
    await provider.request({ method: "hardhat_setBalance", params: [poor.address, toHex(l2Cost + l1Fee)] });
    expect(await provider.request({ method: "eth_sendRawTransaction", params: [raw] })).to.match(/^0x[0-9a-f]{64}$/);
    await provider.close();
  });

  it("refuse state dumps, which could not load their deposits back", async () => {
    const provider = await opProvider();
    expect(await rejection(provider.request({ method: "preconf_dumpState" }))).to.include({
      code: -32000,
      message: "state dumps are not supported on OP-stack profiles",
    });
    await provider.close();
  });
});

describe("OP-stack L1 fee arithmetic (op-geth's core/types/rollup_cost_test.go vectors)", () => {
  it("FastLZ lengths", () => {
    const contractCall = hexToBytes(
      "0x02f901550a758302df1483be21b88304743f94f80e51afb613d764fa61751affd3313c190a86bb870151bd62fd12adb8e41ef24f3f000000000000000000000000000000000000000000000000000000000000006e000000000000000000000000af88d065e77c8cc2239327c5edb3a432268e5831000000000000000000000000000000000000000000000000000000000003c1e5000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000a000000000000000000000000000000000000000000000000000000000000000148c89ed219d02f1a5be012c689b4f5b731827bebe000000000000000000000000c001a033fd89cb37c31b2cba46b6466e040c61fc9b2a3675a7f5f493ebd5ad77c497f8a07cdf65680e238392693019b4092f610222e71b7cec06449cb922b93b6a12744e",
    );
    expect(flzCompressLen(new Uint8Array())).to.equal(0);
    expect(flzCompressLen(new Uint8Array(1000).fill(1))).to.equal(21);
    expect(flzCompressLen(new Uint8Array(1000))).to.equal(21);
    expect(flzCompressLen(contractCall)).to.equal(202);
  });

  it("Fjord's cost: the Solidity parity case and the minimum size", () => {
    const fees = {
      l1BaseFee: 2_000_000n,
      l1BlobBaseFee: 3_000_000n,
      baseFeeScalar: 20n,
      blobBaseFeeScalar: 15n,
      operatorFeeScalar: 0n,
      operatorFeeConstant: 0n,
      daFootprintGasScalar: 400n,
    };
    expect(l1CostOfSize(235n, fees)).to.include({ fee: 105_484n, gasUsed: 2463n });
    // Up to 170 bytes the 100-byte minimum applies: 100 × 16 L1 gas.
    expect(l1CostOfSize(170n, fees).gasUsed).to.equal(1600n);
    expect(l1CostOfSize(171n, fees).gasUsed).to.be.greaterThan(1600n);
  });
});

describe("OP-stack profiles: the CLI flag and oversized deposits", () => {
  it("--profile picks the profile; an unknown one or a dump with an OP profile is a usage error", async () => {
    const { parseNodeArgs } = await import("../src/cli.ts");
    const { settleCommand } = await import("../src/cli/settle.ts");
    const settled = (args: string[]) => {
      const command = parseNodeArgs(args);
      if (command === "help") throw new Error("expected a command");
      return settleCommand(command);
    };
    expect(settled(["--profile", "unichain"]).provider.profile).to.equal("unichain");
    expect(() => settled(["--profile", "arbitrum"])).to.throw('--profile "arbitrum": must be dev, base, base-sepolia, base-denim, optimism or unichain');
    expect(() => settled(["--profile", "optimsm"])).to.throw(
      '--profile "optimsm": must be dev, base, base-sepolia, base-denim, optimism or unichain (did you mean optimism?)',
    );
    expect(() => settled(["--profile", "base", "--dump-state", "x.json"])).to.throw(
      "--dump-state is not supported with --profile base: OP-stack blocks hold deposit txs that a dump cannot load back",
    );
    expect(() => settled(["--optimism", "--state", "x.json"])).to.throw("--state is not supported with --profile optimism");
  });

  it("refuses a deposit above the pool's size limit, as any tx", async () => {
    const provider = await opProvider();
    const raw = rawDeposit({ from: DEPOSITOR, to: null, mint: 0n, value: 0n, gas: 21_000n, data: bytesToHex(new Uint8Array(140_000)) as Hex });
    expect(await rejection(provider.request({ method: "eth_sendRawTransaction", params: [raw] }))).to.include({ code: -32000, message: "oversized data" });
    await provider.close();
  });
});

describe("OP-stack profiles: reset and sync sends", () => {
  it("hardhat_reset restores the profile's L1 fees and predeploys; eth_sendRawTransactionSync waits for a deposit", async () => {
    const provider = await createPreconfProvider({ profile: "base", hardfork: "cobalt", clock: FakeTimers.createClock(START_MS) });
    await provider.request({ method: "preconf_setL1Fees", params: [{ baseFee: "0x7" }] });
    await provider.request({ method: "hardhat_reset", params: [] });
    expect(await provider.request({ method: "preconf_getL1Fees" })).to.include({ baseFee: toHex(parseGwei("1")) });
    expect(((await provider.request({ method: "eth_getCode", params: [GPO, "latest"] })) as string).length).to.be.greaterThan(100);
    const user = "0x00000000000000000000000000000000000000bb";
    const sync = provider.request({
      method: "eth_sendRawTransactionSync",
      params: [rawDeposit({ from: user, to: user, mint: 3n, value: 0n, gas: 30_000n, seed: 5 })],
    });
    await provider.preconf.advance(2);
    const receipt = (await sync) as Json;
    expect(receipt).to.include({ type: "0x7e", status: "0x1", depositNonce: "0x0" });
    expect(await provider.request({ method: "eth_getBalance", params: [user, "pending"] })).to.equal("0x3");
    await provider.close();
  });
});

describe("OP-stack priority-fee suggestion (op-geth's SuggestOptimismPriorityFee)", () => {
  it("is the minimum while the head has room, else 10 % over the head's median tip", async () => {
    const { suggestOptimismPriorityFee } = await import("../src/node/opstack/gasPrice.ts");
    const head = (gasUsed: bigint, records: { gasUsed: bigint; price: bigint; deposit?: boolean }[]) =>
      ({
        block: { header: { gasUsed, gasLimit: 1_000_000n, baseFeePerGas: 100n } },
        transactions: records.map((r) => ({ gasUsed: r.gasUsed, effectiveGasPrice: r.price, depositNonce: r.deposit === true ? 0n : undefined })),
      }) as never;
    expect(suggestOptimismPriorityFee(head(500_000n, [{ gasUsed: 400_000n, price: 10n ** 12n }]))).to.equal(1_000_000n);
    const full = head(990_000n, [
      { gasUsed: 50_000n, price: 0n, deposit: true },
      { gasUsed: 30_000n, price: 100n + 2_000_000n },
      { gasUsed: 30_000n, price: 100n + 3_000_000n },
      { gasUsed: 30_000n, price: 100n + 5_000_000n },
    ]);
    expect(suggestOptimismPriorityFee(full)).to.equal(3_300_000n);
  });
});

describe("OP-stack predeploys answer their public interfaces", () => {
  it("WETH9, L2ToL1MessagePasser, the fee vaults, L1BlockNumber and L1Block's guard", async () => {
    const provider = await opProvider();
    await provider.preconf.seal();
    const { parseAbi } = await import("viem");
    const client = createPublicClient({ chain: base, transport: custom(provider) });
    const weth = "0x4200000000000000000000000000000000000006";
    const read = (address: Hex, signature: string, functionName: string, args: unknown[] = []) =>
      client.readContract({ address, abi: parseAbi([signature]), functionName, args } as never) as Promise<unknown>;
    expect(await read(weth, "function symbol() view returns (string)", "symbol")).to.equal("WETH");
    expect(await read(weth, "function decimals() view returns (uint8)", "decimals")).to.equal(18);
    expect(await read("0x4200000000000000000000000000000000000016", "function messageNonce() view returns (uint256)", "messageNonce")).to.equal(1n << 240n);
    for (const vault of [SEQUENCER_FEE_VAULT, BASE_FEE_VAULT, L1_FEE_VAULT, "0x420000000000000000000000000000000000001b"] as Hex[]) {
      expect(await read(vault, "function minWithdrawalAmount() view returns (uint256)", "minWithdrawalAmount"), vault).to.equal(parseEther("10"));
    }
    const l1Number = await read(L1_BLOCK, "function number() view returns (uint64)", "number");
    expect(await read("0x4200000000000000000000000000000000000013", "function getL1BlockNumber() view returns (uint256)", "getL1BlockNumber")).to.equal(
      l1Number,
    );
    expect(await read(L1_BLOCK, "function DEPOSITOR_ACCOUNT() view returns (address)", "DEPOSITOR_ACCOUNT")).to.equal(
      "0xDeaDDEaDDeAdDeAdDEAdDEaddeAddEAdDEAd0001",
    );
    // Only the depositor account sets the L1 attributes.
    const error = await rejection(
      provider.request({
        method: "eth_call",
        params: [{ from: provider.accounts[0]!.address, to: L1_BLOCK, data: `0x098999be${"00".repeat(172)}` }, "latest"],
      }),
    );
    expect(String(error.message)).to.match(/^execution reverted/);
    expect(String(error.data)).to.include(Buffer.from("L1Block: only the depositor account can set L1 block values").toString("hex"));
    // WETH9: a deposit through the tx path wraps ether.
    const wallet = createWalletClient({ account: privateKeyToAccount(provider.accounts[0]!.privateKey), chain: base, transport: custom(provider) });
    await wallet.sendTransaction({ to: weth, value: 5n, data: "0xd0e30db0" });
    await provider.preconf.fragment();
    await provider.preconf.fragment();
    const pending = await client.readContract({
      address: weth,
      abi: parseAbi(["function balanceOf(address) view returns (uint256)"]),
      functionName: "balanceOf",
      args: [provider.accounts[0]!.address],
      blockTag: "pending",
    });
    expect(pending).to.equal(5n);
    await provider.close();
  });
});

describe("OP-stack operator fee (Jovian)", () => {
  it("charges gas × scalar × 100 + constant to the sender and credits the OperatorFeeVault", async () => {
    const provider = await opProvider();
    const OPERATOR_FEE_VAULT = "0x420000000000000000000000000000000000001b";
    await provider.request({ method: "preconf_setL1Fees", params: [{ operatorFeeScalar: toHex(2), operatorFeeConstant: toHex(1000) }] });
    await provider.preconf.seal();
    const sender = provider.accounts[0]!.address;
    const watched = [sender, provider.accounts[1]!.address, SEQUENCER_FEE_VAULT, BASE_FEE_VAULT, L1_FEE_VAULT, OPERATOR_FEE_VAULT];
    const before = await Promise.all(watched.map((address) => balanceOf(provider, address)));
    // GasPriceOracle.getOperatorFee(21000) = 21000 × 2 × 100 + 1000 (specs/protocol/jovian/exec-engine.md).
    const operatorFee = 21_000n * 2n * 100n + 1000n;
    expect(BigInt(await call(provider, `0x275aedd2${toHex(21_000n, { size: 32 }).slice(2)}` as Hex))).to.equal(operatorFee);
    const client = createPublicClient({ chain: base, transport: custom(provider) }).extend(publicActionsL2());
    const request = { account: sender, to: provider.accounts[1]!.address, value: 1n, chain: base } as const;
    expect(await client.estimateOperatorFee(request)).to.equal(operatorFee);
    const wallet = createWalletClient({ account: privateKeyToAccount(provider.accounts[0]!.privateKey), chain: base, transport: custom(provider) });
    const hash = await wallet.sendTransaction({ to: provider.accounts[1]!.address, value: 1n, gas: 50_000n });
    await provider.preconf.fragment();
    await provider.preconf.fragment();
    const receipt = (await provider.request({ method: "eth_getTransactionReceipt", params: [hash] })) as Record<string, Hex>;
    expect(receipt).to.include({ operatorFeeScalar: toHex(2), operatorFeeConstant: toHex(1000) });
    const after = await Promise.all(watched.map((address) => balanceOf(provider, address, "pending")));
    const delta = after.map((balance, i) => balance - before[i]!);
    expect(delta[5]).to.equal(operatorFee);
    expect(-delta[0]!).to.equal(BigInt(receipt.gasUsed!) * BigInt(receipt.effectiveGasPrice!) + 1n + BigInt(receipt.l1Fee!) + operatorFee);
    expect(delta.reduce((sum, change) => sum + change, 0n)).to.equal(0n);
    await provider.close();
  });
});
