/**
 * Osaka execution on every profile whose ladder runs it (docs/profiles.md): CLZ (EIP-7939), MODEXP's
 * bounds and price (EIP-7823, EIP-7883), P256VERIFY at 0x100 (EIP-7951; RIP-7212's 3,450 gas on OP
 * chains before their Osaka fork), EIP-7825's per-tx cap with deposits exempt; and the OP stack's
 * precompile input bounds (Jovian, and Karst's 300 bn256 pairs on OP Mainnet and Unichain).
 */
import { RLP } from "@ethereumjs/rlp";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { expect } from "chai";
import { concat, keccak256, numberToHex, pad, toHex } from "viem";

import { createTestChain, rpcError } from "./helpers/chain.ts";
import { send, signTx } from "./helpers/sign.ts";

import type { Hex } from "viem";
import type { PreconfProvider, PreconfProviderOptions } from "../src/index.ts";

const PROBE = "0x00000000000000000000000000000000000c0de1";

/**
 * Runtime code that STATICCALLs `target` with its calldata and returns [gas the callee used,
 * success, the callee's first output word]: GAS before the call's arguments, GAS after it, minus the
 * 15 gas of the pushes between, the warm call's 100 and the second GAS's 2.
 */
function probeCode(target: number): Hex {
  const addr = target.toString(16).padStart(4, "0");
  return `0x365f5f375f610220525a6020610200365f61${addr}5afa5a8203607590036101c0526101e05250606061${"01c0"}f3` as Hex;
}

/** Runtime code returning CLZ of the first calldata word. */
const CLZ_OF_INPUT = "0x5f351e5f5260205ff3";
/** Runtime code returning the gas between two GAS readings around PUSH1 1, CLZ, POP (3 + CLZ + 2 + 2). */
const CLZ_GAS = "0x5a60011e505a90035f5260205ff3";

/**
 * go-ethereum's P256VERIFY vector (core/vm/contracts_test.go, `BenchmarkPrecompiledP256Verify`,
 * RIP-7212's reference implementation's): hash, r, s, x, y of a valid secp256r1 signature.
 */
const P256_VALID = ("0x" +
  "4cee90eb86eaa050036147a12d49004b6b9c72bd725d39d4785011fe190f0b4d" +
  "a73bd4903f0ce3b639bbbf6e8e80d16931ff4bcf5993d58468e8fb19086e8cac" +
  "36dbcd03009df8c59286b162af3bd7fcc0450c9aa81be5d10d312af6c66b1d60" +
  "4aebd3099c618202fcfe16ae7770b0c49ab5eadf74b754204a3bb6060e44eff3" +
  "7618b065f9832de4ca6ca971a7a1adc826d0f7c00181a5fb2ddf79ae00b4e10e") as Hex;
/** The same with the hash's first byte changed: not a valid signature. */
const P256_INVALID = `0x3c${P256_VALID.slice(4)}` as Hex;

interface Probe {
  gas: bigint;
  success: boolean;
  output: bigint;
}

async function probe(provider: PreconfProvider, target: number, input: Hex, gas = 30_000_000n): Promise<Probe> {
  const out = (await provider.request({
    method: "eth_call",
    params: [{ to: PROBE, data: input, gas: toHex(gas) }, "latest", { [PROBE]: { code: probeCode(target) } }],
  })) as Hex;
  const word = (i: number) => BigInt(`0x${out.slice(2 + 64 * i, 66 + 64 * i)}`);
  return { gas: word(0), success: word(1) === 1n, output: word(2) };
}

const runCode = (provider: PreconfProvider, code: Hex, data: Hex = "0x") =>
  provider.request({ method: "eth_call", params: [{ to: PROBE, data }, "latest", { [PROBE]: { code } }] }) as Promise<Hex>;

/** MODEXP's input: lengths, then base, exponent and modulus. */
const modexpInput = (base: Hex, exp: Hex, mod: Hex): Hex =>
  concat([pad(numberToHex((base.length - 2) / 2)), pad(numberToHex((exp.length - 2) / 2)), pad(numberToHex((mod.length - 2) / 2)), base, exp, mod]);

async function chainOf(options: PreconfProviderOptions): Promise<PreconfProvider> {
  return (await createTestChain({ mining: "manual", ...options })).provider;
}

describe("Osaka execution", function () {
  this.timeout(60_000);

  it("the probe measures a precompile's gas exactly (SHA256: 60 + 12 per word, Ethereum's since Frontier)", async () => {
    const provider = await chainOf({});
    expect(await probe(provider, 2, `0x${"ab".repeat(64)}`)).to.deep.include({ gas: 60n + 12n * 2n, success: true });
    await provider.close();
  });

  it("CLZ: EIP-7939's cases, 5 gas; an invalid opcode before Osaka", async () => {
    for (const options of [{}, { profile: "base" as const }, { profile: "optimism" as const }, { profile: "unichain" as const }]) {
      const provider = await chainOf(options);
      const clz = async (word: string) => BigInt(await runCode(provider, CLZ_OF_INPUT, `0x${word}`));
      // EIP-7939 "Test Cases": 0 → 256, the top bit set → 0, all ones → 0, 0x40… → 1, 0x7f…f → 1, 1 → 255.
      expect(await clz("00".repeat(32)), JSON.stringify(options)).to.equal(256n);
      expect(await clz(`80${"00".repeat(31)}`)).to.equal(0n);
      expect(await clz("ff".repeat(32))).to.equal(0n);
      expect(await clz(`40${"00".repeat(31)}`)).to.equal(1n);
      expect(await clz(`7f${"ff".repeat(31)}`)).to.equal(1n);
      expect(await clz(`${"00".repeat(31)}01`)).to.equal(255n);
      expect(BigInt(await runCode(provider, CLZ_GAS))).to.equal(3n + 5n + 2n + 2n);
      await provider.close();
    }
    for (const options of [{ hardfork: "prague" }, { profile: "base" as const, hardfork: "jovian" }, { profile: "optimism" as const, hardfork: "jovian" }]) {
      const provider = await chainOf(options);
      const error = await rpcError(provider, "eth_call", [{ to: PROBE, data: "0x" }, "latest", { [PROBE]: { code: CLZ_OF_INPUT } }]);
      expect(error.message, JSON.stringify(options)).to.match(/invalid opcode/);
      await provider.close();
    }
  });

  it("an Osaka fork scheduled at a block: CLZ from that block on, in blocks and in calls on older blocks", async () => {
    const cases: PreconfProviderOptions[] = [
      { hardfork: "prague", forkSchedule: { osaka: { block: 3 } } },
      { profile: "optimism", forkSchedule: { karst: { block: 3 } } },
    ];
    for (const options of cases) {
      const provider = await chainOf(options);
      for (let i = 0; i < 3; i++) await provider.preconf.seal();
      const clzAt = (block: Hex) =>
        provider.request({ method: "eth_call", params: [{ to: PROBE, data: `0x${"00".repeat(31)}01` }, block, { [PROBE]: { code: CLZ_OF_INPUT } }] });
      expect(BigInt((await clzAt("0x3")) as Hex), JSON.stringify(options)).to.equal(255n);
      const before = await clzAt("0x2").then(
        () => "ran",
        (error: Error) => error.message,
      );
      expect(before, JSON.stringify(options)).to.match(/invalid opcode/);
      await provider.close();
    }
  });

  it("debug_traceTransaction replays a tx of a fork's first block under that fork, not its parent's", async () => {
    const provider = await chainOf({ hardfork: "prague", forkSchedule: { osaka: { block: 2 } } });
    await provider.preconf.seal();
    // Initcode PUSH1 1, CLZ, POP, STOP: runs from Osaka on, an invalid opcode before.
    const hash = await send(provider, await signTx(provider, 0, { nonce: 0, to: null, data: "0x60011e5000", gas: 100_000n, value: 0n }));
    await provider.preconf.seal();
    const receipt = (await provider.request({ method: "eth_getTransactionReceipt", params: [hash] })) as { blockNumber: Hex; status: Hex };
    expect(receipt).to.include({ blockNumber: "0x2", status: "0x1" });
    const trace = (await provider.request({ method: "debug_traceTransaction", params: [hash] })) as { failed: boolean; structLogs: { op: string }[] };
    expect(trace.failed).to.equal(false);
    expect(trace.structLogs.map(({ op }) => op)).to.deep.equal(["PUSH1", "CLZ", "POP", "STOP"]);
    await provider.close();
  });

  it("a fork scheduled at or before the genesis' time is refused: the chain starts at it with hardfork instead", async () => {
    const error = await createTestChain({
      profile: "base",
      hardfork: "cobalt",
      genesisTimestamp: 1_900_000_000n,
      forkSchedule: { denim: { timestamp: 1_900_000_000n } },
    }).then(
      () => undefined,
      (caught: Error) => caught.message,
    );
    expect(error).to.equal(
      "Invalid hardhat-preconf option forkSchedule.denim: timestamp 1900000000 is not after the genesis (1900000000): start the chain at denim with hardfork instead",
    );
  });

  it("P256VERIFY at 0x100: 6,900 gas from Osaka (EIP-7951), 3,450 on OP chains before it (RIP-7212), none on Ethereum before Osaka", async () => {
    const cases: [PreconfProviderOptions, bigint | undefined][] = [
      [{}, 6900n],
      [{ profile: "base" }, 6900n],
      [{ profile: "base", hardfork: "azul" }, 6900n],
      [{ profile: "base", hardfork: "jovian" }, 3450n],
      [{ profile: "base-sepolia", hardfork: "jovian" }, 3450n],
      [{ profile: "optimism" }, 6900n],
      [{ profile: "optimism", hardfork: "jovian" }, 3450n],
      [{ profile: "unichain" }, 6900n],
      [{ profile: "unichain", hardfork: "jovian" }, 3450n],
      [{ hardfork: "prague" }, undefined],
    ];
    for (const [options, price] of cases) {
      const provider = await chainOf(options);
      const valid = await probe(provider, 0x100, P256_VALID);
      const invalid = await probe(provider, 0x100, P256_INVALID);
      const label = JSON.stringify(options);
      if (price === undefined) {
        // No precompile: a call to an empty, cold account (EIP-2929: 2,600 to access instead of a
        // precompile's 100), which runs nothing and returns nothing.
        expect(valid, label).to.deep.equal({ gas: 2500n, success: true, output: 0n });
      } else {
        // Warm, as every precompile, and charged its price.
        expect(valid, label).to.deep.equal({ gas: price, success: true, output: 1n });
        // An invalid signature: empty output, the price still charged (EIP-7951, RIP-7212).
        expect(invalid, label).to.deep.equal({ gas: price, success: true, output: 0n });
      }
      await provider.close();
    }
  });

  it("MODEXP: EIP-7883's price (500 minimum, three times the old formula) and EIP-7823's 1024-byte bound, from Osaka on", async () => {
    const small = modexpInput("0x03", "0x01", "0x05");
    const wide = modexpInput(`0x${"ff".repeat(32)}`, `0x${"ff".repeat(32)}`, `0x${"fe".repeat(32)}`);
    const oversized = modexpInput(`0x${"01".repeat(1025)}`, "0x01", "0x05");
    const osaka = await chainOf({});
    // 1-byte operands: max(500, 16 × 1); 32-byte ones with a 256-bit exponent: 16 × 255 (EIP-7883).
    expect(await probe(osaka, 5, small)).to.deep.include({ gas: 500n, success: true, output: 3n << 248n });
    expect(await probe(osaka, 5, wide)).to.deep.include({ gas: 4080n, success: true });
    // A base of 1025 bytes: the call fails, using all the gas it was given.
    const refused = await probe(osaka, 5, oversized, 1_000_000n);
    expect(refused.success).to.equal(false);
    expect(refused.gas).to.be.greaterThan(900_000n);
    await osaka.close();
    // EIP-2565's price before Osaka: max(200, 4² × 255 / 3) for the wide case.
    const prague = await chainOf({ hardfork: "prague" });
    expect(await probe(prague, 5, small)).to.deep.include({ gas: 200n, success: true });
    expect(await probe(prague, 5, wide)).to.deep.include({ gas: 1360n, success: true });
    expect(await probe(prague, 5, oversized, 1_000_000n)).to.include({ success: true });
    await prague.close();
    // Base from Azul: Osaka's MODEXP (docs.base.org specs/upgrades/azul/exec-engine); Jovian: the old one.
    const base = await chainOf({ profile: "base" });
    expect((await probe(base, 5, small)).gas).to.equal(500n);
    await base.close();
    const jovian = await chainOf({ profile: "base", hardfork: "jovian" });
    expect((await probe(jovian, 5, small)).gas).to.equal(200n);
    await jovian.close();
  });

  it("EIP-7825: a tx above 2^24 gas is refused from Osaka on; a deposit is exempt (docs.base.org specs/upgrades/azul/exec-engine)", async () => {
    const provider = await chainOf({ profile: "base" });
    const raw = await signTx(provider, 0, { chainId: 8453, nonce: 0, gas: 2n ** 24n + 1n });
    expect(await rpcError(provider, "eth_sendRawTransaction", [raw])).to.deep.include({
      code: -32000,
      message: "transaction gas limit too high (cap: 16777216, tx: 16777217)",
    });
    // A deposit of 17,000,000 gas runs and succeeds, using what its call needs.
    const user = "0x00000000000000000000000000000000000000aa";
    const body = RLP.encode([
      hexToBytes(keccak256("0x01")),
      hexToBytes(user),
      hexToBytes(user),
      hexToBytes("0x05"),
      new Uint8Array(),
      hexToBytes(toHex(17_000_000n)),
      new Uint8Array(),
      new Uint8Array(),
    ]);
    const deposit = bytesToHex(Uint8Array.from([0x7e, ...body]));
    const hash = await send(provider, deposit as Hex);
    await provider.preconf.seal();
    expect(await provider.request({ method: "eth_getTransactionReceipt", params: [hash] })).to.include({ status: "0x1", gasUsed: toHex(21_000) });
    // OP Mainnet before Karst had no cap.
    await provider.close();
    const jovian = await chainOf({ profile: "optimism", hardfork: "jovian" });
    expect(await send(jovian, await signTx(jovian, 0, { chainId: 10, nonce: 0, gas: 2n ** 24n + 1n }))).to.match(/^0x[0-9a-f]{64}$/);
    await jovian.close();
  });

  it("bn256Pairing's input bound: 427 pairs from Jovian (Base today too), 300 from Karst (OP Mainnet, Unichain)", async () => {
    // Points at infinity: a valid pairing check of k pairs (true), 45,000 + 34,000 × k gas (EIP-1108).
    const pairs = (k: number) => `0x${"00".repeat(192 * k)}` as Hex;
    const price = (k: number) => 45_000n + 34_000n * BigInt(k);
    const jovian = await chainOf({ profile: "optimism", hardfork: "jovian" });
    expect(await probe(jovian, 8, pairs(427), 16_000_000n)).to.deep.include({ gas: price(427), success: true, output: 1n });
    expect(await probe(jovian, 8, pairs(428), 16_000_000n)).to.include({ success: false });
    await jovian.close();
    const karst = await chainOf({ profile: "optimism" });
    expect(await probe(karst, 8, pairs(300), 16_000_000n)).to.deep.include({ gas: price(300), success: true, output: 1n });
    expect(await probe(karst, 8, pairs(301), 16_000_000n)).to.include({ success: false });
    await karst.close();
    // Base's Azul keeps Jovian's bound (base/base base-revm precompiles/provider.rs).
    const base = await chainOf({ profile: "base" });
    expect(await probe(base, 8, pairs(301), 16_000_000n)).to.deep.include({ gas: price(301), success: true });
    await base.close();
    // Ethereum bounds it only by gas.
    const dev = await chainOf({});
    expect(await probe(dev, 8, pairs(428), 16_000_000n)).to.deep.include({ gas: price(428), success: true });
    await dev.close();
  });

  it("BLS12-381 MSM and pairing input bounds from Jovian (specs/protocol/jovian/exec-engine.md)", async () => {
    // One pair past each bound (points at infinity, valid on Ethereum): refused with all the gas on OP chains.
    const op = await chainOf({ profile: "optimism" });
    const dev = await chainOf({});
    for (const [address, bound, unit] of [
      [0x0c, 288_960, 160],
      [0x0e, 278_784, 288],
      [0x0f, 156_672, 384],
    ] as const) {
      const over = `0x${"00".repeat(bound + unit)}` as Hex;
      expect((await probe(op, address, over, 16_000_000n)).success, `0x${address.toString(16)}`).to.equal(false);
      expect((await probe(dev, address, over, 16_000_000n)).success, `0x${address.toString(16)} on dev`).to.equal(true);
    }
    await op.close();
    await dev.close();
  });
});
