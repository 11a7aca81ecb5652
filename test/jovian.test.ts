/**
 * Jovian, as the OP specs define it (specs/protocol/jovian/), on every OP profile: the 17-byte
 * extraData, the minimum base fee, the DA footprint (header and receipts, the base-fee update, the
 * block limit), the setL1BlockValuesJovian() deposit byte for byte, and the L1 attributes at genesis.
 */
import { hexToBytes } from "@ethereumjs/util";
import { expect } from "chai";
import { createPublicClient, custom, encodePacked, keccak256, parseAbi, parseGwei, toBytes, toHex } from "viem";
import { base } from "viem/chains";
import { publicActionsL2 } from "viem/op-stack";

import { flzCompressLen } from "../src/node/opstack/l1Fee.ts";
import { nextBaseFee } from "../src/node/profiles/profiles.ts";
import { createTestChain } from "./helpers/chain.ts";
import { send, signTx } from "./helpers/sign.ts";

import type { Hex } from "viem";
import type { PreconfProvider, PreconfProviderOptions } from "../src/index.ts";

const L1_BLOCK = "0x4200000000000000000000000000000000000015";
const GPO = "0x420000000000000000000000000000000000000f";
const RECIPIENT = "0x000000000000000000000000000000000000dEaD" as Hex;

type Block = { number: Hex; extraData: Hex; gasLimit: Hex; gasUsed: Hex; baseFeePerGas: Hex; blobGasUsed: Hex; transactions: { input: Hex; hash: Hex }[] };

async function chainOf(options: PreconfProviderOptions): Promise<PreconfProvider> {
  return (await createTestChain({ mining: "manual", ...options })).provider;
}

const blockOf = (provider: PreconfProvider, tag: Hex | "latest", full = false) =>
  provider.request({ method: "eth_getBlockByNumber", params: [tag, full] }) as Promise<Block>;

const chainIdOf = (provider: PreconfProvider) => Number(provider.options.chainId);

/** `length` incompressible bytes, the same every run: a keccak256 chain from `seed`. */
function noise(length: number, seed: number): Hex {
  const words: Hex[] = [];
  let word = keccak256(toHex(seed));
  while (words.length * 32 < length) words.push((word = keccak256(word)));
  return `0x${words
    .map((w) => w.slice(2))
    .join("")
    .slice(0, length * 2)}` as Hex;
}

describe("Jovian", function () {
  this.timeout(30_000);

  it("extraData: version 1, u32 denominator, u32 elasticity, u64 minimum base fee, from the genesis on", async () => {
    const cases: [PreconfProviderOptions, Hex][] = [
      // Base today: 1000 / 5 (after Denim's × 10), 5,000,000 wei.
      [{ profile: "base" }, "0x01000003e80000000500000000004c4b40"],
      [{ profile: "base", hardfork: "cobalt" }, "0x01000000640000000500000000004c4b40"],
      [{ profile: "base-sepolia" }, "0x01000003e80000000f00000000004c4b40"],
      [{ profile: "optimism" }, "0x01000000fa000000020000000000000000"],
      [{ profile: "unichain" }, "0x01000000fa000000060000000000000000"],
    ];
    for (const [options, extraData] of cases) {
      const provider = await chainOf(options);
      await provider.preconf.seal();
      expect(hexToBytes((await blockOf(provider, "0x0")).extraData), JSON.stringify(options)).to.have.length(17);
      expect((await blockOf(provider, "0x0")).extraData, JSON.stringify(options)).to.equal(extraData);
      expect((await blockOf(provider, "0x1")).extraData, JSON.stringify(options)).to.equal(extraData);
      await provider.close();
    }
    // The dev chain's extraData stays empty.
    const dev = await chainOf({});
    expect((await blockOf(dev, "0x0")).extraData).to.equal("0x");
    await dev.close();
  });

  it("the minimum base fee: the base fee is clamped to it (Base: 5,000,000 wei)", async () => {
    const provider = await chainOf({ profile: "base", initialBaseFeePerGas: 5_000_100 });
    for (let i = 0; i < 3; i++) await provider.preconf.seal();
    // An empty block lowers the fee by 1/1000 of it (denominator 1000): 5,000,100 → below the minimum → 5,000,000.
    expect(BigInt((await blockOf(provider, "0x1")).baseFeePerGas)).to.equal(5_000_000n);
    expect(BigInt((await blockOf(provider, "0x3")).baseFeePerGas)).to.equal(5_000_000n);
    expect(await provider.request({ method: "eth_gasPrice" })).to.equal(toHex(5_000_000n + parseGwei("0.001")));
    await provider.close();
  });

  it("the DA footprint: in the header's blobGasUsed and the receipt's, with the scalar; the base fee moves on max(gasUsed, DA footprint)", async () => {
    const provider = await chainOf({ profile: "base" });
    await provider.preconf.seal();
    // 100 KB of incompressible calldata: little gas, a large DA footprint.
    const data = noise(100_000, 11);
    const raw = await signTx(provider, 0, { chainId: chainIdOf(provider), nonce: 0, to: RECIPIENT, value: 1n, gas: 4_100_000n, data });
    const hash = await send(provider, raw);
    await provider.preconf.seal();
    const receipt = (await provider.request({ method: "eth_getTransactionReceipt", params: [hash] })) as Record<string, Hex>;
    // daUsageEstimate = max(100, (-42,585,600 + 836,500 × fastlzSize(signed tx)) // 1e6), × 148 on Base Mainnet.
    const usage = (-42_585_600n + 836_500n * BigInt(flzCompressLen(hexToBytes(raw)))) / 1_000_000n;
    const footprint = (usage > 100n ? usage : 100n) * 148n;
    expect(receipt).to.include({ blobGasUsed: toHex(footprint), daFootprintGasScalar: toHex(148) });
    const block = await blockOf(provider, receipt.blockNumber!);
    // The deposits have no DA footprint: the block's is the tx's.
    expect(block.blobGasUsed).to.equal(toHex(footprint));
    expect(footprint).to.be.greaterThan(BigInt(block.gasUsed));
    expect(footprint).to.be.greaterThan(BigInt(block.gasLimit) / 5n);
    await provider.preconf.seal();
    const child = await blockOf(provider, "latest");
    const params = { denominator: 1000n, elasticity: 5n };
    const metered = { gasLimit: BigInt(block.gasLimit), gasUsed: footprint, baseFee: BigInt(block.baseFeePerGas) };
    expect(BigInt(child.baseFeePerGas)).to.equal(nextBaseFee(metered, params, 5_000_000n));
    // gasUsed alone (below the target) would have lowered it.
    expect(BigInt(child.baseFeePerGas)).to.be.greaterThan(BigInt(block.baseFeePerGas));
    await provider.close();
  });

  it("the DA footprint limit: a tx whose footprint would take the block's past its gas limit waits for the next block", async () => {
    // OP Mainnet: no DA scalar set, so the default 400; a 40M block holds about 100 KB of DA.
    const provider = await chainOf({ profile: "optimism" });
    await provider.preconf.seal();
    const first = await send(provider, await signTx(provider, 0, { chainId: 10, nonce: 0, to: RECIPIENT, gas: 3_000_000n, data: noise(70_000, 1) }));
    const second = await send(provider, await signTx(provider, 1, { chainId: 10, nonce: 0, to: RECIPIENT, gas: 3_000_000n, data: noise(70_000, 2) }));
    await provider.preconf.seal();
    await provider.preconf.seal();
    const receipts = (await Promise.all([first, second].map((hash) => provider.request({ method: "eth_getTransactionReceipt", params: [hash] })))) as Record<
      string,
      Hex
    >[];
    expect(receipts.map((receipt) => receipt.blockNumber)).to.deep.equal(["0x2", "0x3"]);
    expect(receipts[0]!.daFootprintGasScalar).to.equal(toHex(400));
    const block = await blockOf(provider, "0x2");
    expect(BigInt(block.blobGasUsed) + BigInt(receipts[1]!.blobGasUsed!)).to.be.greaterThan(BigInt(block.gasLimit));
    await provider.close();
  });

  it("setL1BlockValuesJovian(): 178 bytes, byte for byte the spec's layout (specs/protocol/jovian/l1-attributes.md)", async () => {
    for (const [profile, daScalar] of [
      ["base", 148],
      ["optimism", 400],
    ] as const) {
      const provider = await chainOf({ profile });
      await provider.request({ method: "preconf_setL1Fees", params: [{ operatorFeeScalar: toHex(7), operatorFeeConstant: toHex(9) }] });
      await provider.preconf.seal();
      const block = await blockOf(provider, "0x1", true);
      const input = block.transactions[0]!.input;
      const client = createPublicClient({ chain: base, transport: custom(provider) });
      const read = <T>(signature: string, functionName: string) =>
        client.readContract({ address: L1_BLOCK, abi: parseAbi([signature]), functionName, blockNumber: 1n } as never) as Promise<T>;
      const expected = encodePacked(
        ["bytes4", "uint32", "uint32", "uint64", "uint64", "uint64", "uint256", "uint256", "bytes32", "bytes32", "uint32", "uint64", "uint16"],
        [
          keccak256(toBytes("setL1BlockValuesJovian()")).slice(0, 10) as Hex,
          Number(profile === "base" ? 2269 : 5227),
          Number(profile === "base" ? 1_055_778 : 1_014_213),
          await read<bigint>("function sequenceNumber() view returns (uint64)", "sequenceNumber"),
          await read<bigint>("function timestamp() view returns (uint64)", "timestamp"),
          await read<bigint>("function number() view returns (uint64)", "number"),
          parseGwei("1"),
          1n,
          await read<Hex>("function hash() view returns (bytes32)", "hash"),
          `0x${"00".repeat(32)}`,
          7,
          9n,
          daScalar,
        ],
      );
      expect(input.slice(0, 10)).to.equal("0x3db6be2b");
      expect(hexToBytes(input)).to.have.length(178);
      expect(input, profile).to.equal(expected);
      expect(await read<number>("function daFootprintGasScalar() view returns (uint16)", "daFootprintGasScalar")).to.equal(daScalar);
      await provider.close();
    }
  });

  it("the L1 attributes are in L1Block from the genesis: viem's getL1BaseFee and estimateL1Fee are non-zero at block 0", async () => {
    for (const profile of ["base", "base-sepolia", "optimism", "unichain"] as const) {
      const provider = await chainOf({ profile });
      const client = createPublicClient({ chain: base, transport: custom(provider) }).extend(publicActionsL2());
      expect(await provider.request({ method: "eth_blockNumber" })).to.equal("0x0");
      expect(await client.getL1BaseFee({ blockNumber: 0n } as never), profile).to.equal(parseGwei("1"));
      const request = { account: provider.accounts[0]!.address, to: RECIPIENT, value: 1n, chain: null } as const;
      expect(await client.estimateL1Fee(request as never), profile).to.be.greaterThan(0n);
      // GasPriceOracle: isJovian() true.
      expect(await client.readContract({ address: GPO, abi: parseAbi(["function isJovian() view returns (bool)"]), functionName: "isJovian" })).to.equal(true);
      await provider.close();
    }
  });
});
