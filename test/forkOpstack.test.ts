/**
 * Forking an OP-stack chain (docs/forking.md): an upstream on the `base` profile, served on
 * 127.0.0.1, is forked by a chain that picks the profile from the upstream's chain id and goes on
 * with the L1-attributes deposit and the L1 fees the upstream's L1Block holds at the fork block.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { expect } from "chai";
import { parseGwei, serializeTransaction, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";

import { main } from "../src/cli.ts";
import { providerOptionsOf, resolvePreconfConfig } from "../src/hardhat/config.ts";
import { startServer } from "../src/index.ts";
import { createTestChain } from "./helpers/chain.ts";

import type { Hex, TransactionSerializableEIP1559 } from "viem";
import type { PreconfProvider, RunningServer } from "../src/index.ts";

const GPO = "0x420000000000000000000000000000000000000f";
const L1_BLOCK = "0x4200000000000000000000000000000000000015";
const L1_FEE_VAULT = "0x420000000000000000000000000000000000001a";
const DEPOSITOR = "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001";
const RECIPIENT = "0x000000000000000000000000000000000000dEaD" as Hex;
/** The upstream's L1 fees: none of them the base profile's own. */
const UPSTREAM_L1 = {
  baseFee: toHex(parseGwei("7")),
  blobBaseFee: "0x3",
  baseFeeScalar: toHex(1234),
  blobBaseFeeScalar: toHex(56_789),
  operatorFeeScalar: toHex(11),
  operatorFeeConstant: toHex(1000),
};

type Request = (method: string, params?: unknown[]) => Promise<unknown>;
const requester =
  (provider: PreconfProvider): Request =>
  (method, params = []) =>
    provider.request({ method, params });

/** ABI-encodes GasPriceOracle's `getL1Fee(bytes)` (selector 0x49948e0e) of `data`. */
function getL1FeeCall(data: Hex): Hex {
  const bytes = data.slice(2);
  const length = (bytes.length / 2).toString(16).padStart(64, "0");
  return `0x49948e0e${"20".padStart(64, "0")}${length}${bytes.padEnd(Math.ceil(bytes.length / 64) * 64, "0")}` as Hex;
}

describe("fork of an OP-stack chain", function () {
  this.timeout(20_000);
  let upstream: PreconfProvider;
  let server: RunningServer;
  let up: Request;

  before(async () => {
    upstream = (await createTestChain({ profile: "base", mining: "manual" })).provider;
    server = await startServer(upstream, { port: 0 });
    up = requester(upstream);
    await up("preconf_setL1Fees", [UPSTREAM_L1]);
    // Block 1: a tx, so that the L1FeeVault holds something the fork must keep.
    const account = privateKeyToAccount(upstream.accounts[1]!.privateKey);
    const tx = {
      chainId: 8453,
      type: "eip1559",
      nonce: 0,
      to: RECIPIENT,
      value: 1n,
      gas: 30_000n,
      maxFeePerGas: 10n ** 11n,
      maxPriorityFeePerGas: 10n ** 9n,
    } as const;
    await up("eth_sendRawTransaction", [await account.signTransaction(tx)]);
    await upstream.preconf.seal();
    await upstream.preconf.seal();
  });

  after(async () => {
    await server.close();
    await upstream.close();
  });

  it("runs with the upstream's profile, and a new tx pre-confirms with the L1 fee getL1Fee gives at the fork block", async () => {
    const { provider: fork } = await createTestChain({ fork: { url: server.url, blockNumber: 2 } });
    const rpc = requester(fork);
    try {
      expect(fork.options.profile).to.equal("base");
      expect(await rpc("eth_chainId")).to.equal("0x2105");
      // The L1 fees go on from the upstream's L1Block at the fork block.
      expect(await rpc("preconf_getL1Fees")).to.deep.equal(await up("preconf_getL1Fees"));
      const vaultAtFork = BigInt((await up("eth_getBalance", [L1_FEE_VAULT, "0x2"])) as Hex);
      expect(vaultAtFork > 0n).to.equal(true);
      expect(await rpc("eth_getBalance", [L1_FEE_VAULT, "latest"])).to.equal(toHex(vaultAtFork));

      const account = privateKeyToAccount(fork.accounts[0]!.privateKey);
      const nonce = Number(await rpc("eth_getTransactionCount", [account.address, "latest"]));
      const tx: TransactionSerializableEIP1559 = {
        chainId: 8453,
        type: "eip1559",
        nonce,
        to: RECIPIENT,
        value: 5n,
        gas: 30_000n,
        maxFeePerGas: 10n ** 11n,
        maxPriorityFeePerGas: 10n ** 9n,
      };
      const hash = (await rpc("eth_sendRawTransaction", [await account.signTransaction(tx)])) as Hex;
      // Base since Denim: a block per 200 ms fragment, the tx in the first one after the send.
      await fork.preconf.advance(1);
      const receipt = (await rpc("eth_getTransactionReceipt", [hash])) as Record<string, Hex>;
      expect(receipt.blockNumber).to.equal("0x3");
      expect(receipt.status).to.equal("0x1");
      expect(receipt).to.include({
        l1GasPrice: UPSTREAM_L1.baseFee,
        l1BlobBaseFee: UPSTREAM_L1.blobBaseFee,
        l1BaseFeeScalar: UPSTREAM_L1.baseFeeScalar,
        l1BlobBaseFeeScalar: UPSTREAM_L1.blobBaseFeeScalar,
        operatorFeeScalar: UPSTREAM_L1.operatorFeeScalar,
        operatorFeeConstant: UPSTREAM_L1.operatorFeeConstant,
      });
      // GasPriceOracle.getL1Fee of the tx's unsigned bytes, at the fork block, on the upstream and on the fork.
      const getL1Fee = { to: GPO, data: getL1FeeCall(serializeTransaction(tx)) };
      const upstreamFee = (await up("eth_call", [getL1Fee, "0x2"])) as Hex;
      expect(BigInt(upstreamFee) > 0n).to.equal(true);
      expect(BigInt(receipt.l1Fee!)).to.equal(BigInt(upstreamFee));
      expect(BigInt((await rpc("eth_call", [getL1Fee, "0x2"])) as Hex)).to.equal(BigInt(upstreamFee));

      // The block opened with the L1-attributes and BaseTime deposits, and the fee went to the upstream's vault.
      const block = (await rpc("eth_getBlockByNumber", ["0x3", true])) as { transactions: { type: Hex; from: Hex; to: Hex; hash: Hex }[] };
      expect(block.transactions.map(({ type, from, to }) => ({ type, from, to }))).to.deep.equal([
        { type: "0x7e", from: DEPOSITOR, to: L1_BLOCK },
        { type: "0x7e", from: DEPOSITOR, to: "0x4200000000000000000000000000000000000030" },
        { type: "0x2", from: account.address.toLowerCase(), to: RECIPIENT.toLowerCase() },
      ]);
      expect(await rpc("eth_getBalance", [L1_FEE_VAULT, "latest"])).to.equal(toHex(vaultAtFork + BigInt(receipt.l1Fee!)));
      // The upstream is untouched.
      expect(await up("eth_blockNumber")).to.equal("0x2");
    } finally {
      await fork.close();
    }
  });

  it("runs with the dev profile when asked, and refuses another chain's OP-stack profile", async () => {
    const { provider: dev } = await createTestChain({ fork: { url: server.url, blockNumber: 2 }, profile: "dev", mining: "manual" });
    try {
      expect(dev.options.profile).to.equal("dev");
      await dev.preconf.seal();
      const block = (await dev.request({ method: "eth_getBlockByNumber", params: ["0x3", false] })) as { transactions: Hex[] };
      expect(block.transactions).to.deep.equal([]);
      // A dump of it loads into a dev-profile fork only: OP-stack profiles have no state dumps.
      const dump = await dev.request({ method: "preconf_dumpState" });
      let refused: Error | undefined;
      await createTestChain({ fork: { url: server.url, blockNumber: 2 }, state: dump as never }).catch((error: Error) => (refused = error));
      expect(refused?.message).to.equal(
        "Invalid hardhat-preconf option state: state dumps are not supported on the base profile (OP-stack blocks hold deposit txs that a dump cannot load back)",
      );
    } finally {
      await dev.close();
    }
    let thrown: Error | undefined;
    await createTestChain({ fork: { url: server.url }, profile: "optimism" }).catch((error: Error) => (thrown = error));
    expect(thrown?.message).to.equal(
      "Invalid hardhat-preconf option profile: the optimism profile is chain 10, but the fork upstream is chain 8453: leave out profile to run with the base profile",
    );
  });

  it("Hardhat's forking block and preconf node --fork-url leave the profile to the upstream", async () => {
    expect(providerOptionsOf(resolvePreconfConfig({ forking: { url: server.url } }, undefined)).profile).to.equal(undefined);
    expect(providerOptionsOf(resolvePreconfConfig({ forking: { url: server.url }, profile: "dev" }, undefined)).profile).to.equal("dev");
    // --dump-state is refused once the upstream turns out to be an OP-stack chain.
    const dir = mkdtempSync(join(tmpdir(), "fork-op-"));
    let stderr = "";
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => {
      stderr += chunk;
      return true;
    }) as typeof process.stderr.write;
    try {
      expect(await main(["node", "--port", "0", "--fork-url", server.url, "--dump-state", join(dir, "state.json")])).to.equal(2);
    } finally {
      process.stderr.write = write;
      rmSync(dir, { recursive: true, force: true });
    }
    expect(stderr).to.equal("preconf: --dump-state: not supported on the base profile: OP-stack blocks hold deposit txs that a dump cannot load back\n");
  });

  it("a reset to another block of the fork goes on with the L1 fees of that block", async () => {
    const { provider: fork } = await createTestChain({ fork: { url: server.url, blockNumber: 2 }, mining: "manual" });
    try {
      await fork.request({ method: "preconf_setL1Fees", params: [{ baseFee: "0x5" }] });
      expect(await fork.request({ method: "hardhat_reset", params: [{ forking: { jsonRpcUrl: server.url, blockNumber: 0 } }] })).to.equal(true);
      // Block 0 is the upstream's genesis: its L1Block holds the base profile's genesis L1 fees.
      expect(await fork.request({ method: "preconf_getL1Fees" })).to.deep.equal({
        baseFee: toHex(parseGwei("1")),
        blobBaseFee: "0x1",
        baseFeeScalar: toHex(2269),
        blobBaseFeeScalar: toHex(1_055_778),
        operatorFeeScalar: "0x0",
        operatorFeeConstant: "0x0",
        daFootprintGasScalar: toHex(148),
      });
      expect(await fork.request({ method: "hardhat_reset", params: [{ forking: { jsonRpcUrl: server.url, blockNumber: 1 } }] })).to.equal(true);
      expect(await fork.request({ method: "preconf_getL1Fees" })).to.deep.equal(await up("preconf_getL1Fees"));
      await fork.request({ method: "preconf_setL1Fees", params: [{ baseFee: "0x5" }] });
      // A reset without params: back to the fork block, and its L1 fees.
      expect(await fork.request({ method: "hardhat_reset", params: [] })).to.equal(true);
      expect(await fork.request({ method: "preconf_getL1Fees" })).to.deep.equal(await up("preconf_getL1Fees"));
    } finally {
      await fork.close();
    }
  });
});
