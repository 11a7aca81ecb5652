/**
 * Replayed txs (a test file reverting to a snapshot and sending the same txs again, as
 * `loadFixture` does): a raw tx admitted before is neither decoded nor its sender recovered again
 * (pool/decodedTxs.ts), a payload the wallet signed before is not signed again
 * (ethereumjs/preparedSigner.ts `SignedTxs`); every pool rule still runs, and a new provider
 * pays in full. Counted on the native signer's ecrecover and ecsign (common/crypto.ts).
 */
import { genTransactionsTrieRoot } from "@ethereumjs/block";
import { Common, Mainnet } from "@ethereumjs/common";
import { createTx } from "@ethereumjs/tx";
import { expect } from "chai";
import { keccak256, toHex } from "viem";

import { nativeCrypto } from "../src/node/common/crypto.ts";
import { LruMemo } from "../src/node/common/lruMemo.ts";
import { preparedKey, SignedTxs } from "../src/node/ethereumjs/preparedSigner.ts";
import { DecodedTxs } from "../src/node/pool/decodedTxs.ts";
import { encodingKept, MAX_KEPT_ENCODING } from "../src/node/pool/txBytes.ts";
import { txCommonOf } from "../src/node/pool/admission.ts";
import { createTestChain, rpcError } from "./helpers/chain.ts";
import { send, signTx } from "./helpers/sign.ts";

import type { CustomCrypto } from "@ethereumjs/common";
import type { AccessListBytes } from "@ethereumjs/tx";
import type { PreconfProvider } from "../src/index.ts";
import type { Hex } from "viem";

/** Counts the ecrecover and ecsign calls of the providers created from now on (their Common copies nativeCrypto()'s functions). */
function countSignatureWork(): { recoveries: number; signatures: number; restore(): void } {
  const crypto = nativeCrypto();
  const { ecrecover, ecsign } = crypto;
  if (ecrecover === undefined || ecsign === undefined) throw new Error("the native secp256k1 addon did not load");
  const counts = {
    recoveries: 0,
    signatures: 0,
    restore() {
      Object.assign(crypto, { ecrecover, ecsign });
    },
  };
  crypto.ecrecover = (...args: Parameters<NonNullable<CustomCrypto["ecrecover"]>>) => {
    counts.recoveries++;
    return ecrecover(...args);
  };
  crypto.ecsign = ((...args: Parameters<NonNullable<CustomCrypto["ecsign"]>>) => {
    counts.signatures++;
    return ecsign(...args);
  }) as CustomCrypto["ecsign"];
  return counts;
}

const call = <T>(provider: PreconfProvider, method: string, params: unknown[] = []) => provider.request({ method, params }) as Promise<T>;

describe("admission of replayed txs", () => {
  let provider: PreconfProvider;
  let counts: ReturnType<typeof countSignatureWork>;

  beforeEach(async () => {
    counts = countSignatureWork();
    ({ provider } = await createTestChain({ mining: "auto" }));
  });
  afterEach(async () => {
    counts.restore();
    await provider.close();
  });

  /** `rounds` × (revert to a snapshot, send `raws`): the hashes of each round. */
  async function replay(target: PreconfProvider, raws: Hex[], rounds: number): Promise<Hex[][]> {
    let snapshot = await call<Hex>(target, "evm_snapshot");
    const hashes: Hex[][] = [];
    for (let round = 0; round < rounds; round++) {
      await call(target, "evm_revert", [snapshot]);
      snapshot = await call<Hex>(target, "evm_snapshot");
      const sent: Hex[] = [];
      for (const raw of raws) sent.push(await send(target, raw));
      hashes.push(sent);
    }
    return hashes;
  }

  it("recovers each raw tx's sender once over 10 replays (30 sends: 3 recoveries, not 30); a new provider recovers again", async () => {
    const raws = await Promise.all([0, 1, 2].map((nonce) => signTx(provider, 0, { nonce })));
    const hashes = await replay(provider, raws, 10);
    expect(counts.recoveries).to.equal(3);
    for (const round of hashes) expect(round).to.deep.equal(raws.map((raw) => keccak256(raw)));
    const receipt = await call<{ status: Hex; from: Hex }>(provider, "eth_getTransactionReceipt", [hashes[9]![2]]);
    expect(receipt).to.include({ status: "0x1", from: provider.accounts[0]!.address.toLowerCase() });

    const { provider: fresh } = await createTestChain({ mining: "auto" });
    try {
      await replay(fresh, raws, 2);
      expect(counts.recoveries).to.equal(6);
    } finally {
      await fresh.close();
    }
  });

  it("runs every pool rule on a replayed tx: nonce too low once mined, insufficient funds after the balance changed", async () => {
    const raw = await signTx(provider, 0, { nonce: 0, value: 10n ** 18n });
    const snapshot = await call<Hex>(provider, "evm_snapshot");
    await send(provider, raw);
    const tooLow = await rpcError(provider, "eth_sendRawTransaction", [raw]);
    expect(tooLow).to.deep.include({ code: -32000, message: "nonce too low" });

    await call(provider, "evm_revert", [snapshot]);
    const sender = provider.accounts[0]!.address;
    await call(provider, "hardhat_setBalance", [sender, toHex(10n ** 18n)]);
    const poor = await rpcError(provider, "eth_sendRawTransaction", [raw]);
    expect(poor).to.deep.include({ code: -32000, message: "insufficient funds for gas * price + value" });
    expect(counts.recoveries).to.equal(1);
  });

  it("decodes a replayed raw tx again once the hardfork moved: Osaka's gas cap refuses it as on a chain that never saw it", async () => {
    // A tx decoded under Prague is remembered with Prague's tx Common; the same bytes after time
    // travel into Osaka must meet EIP-7825's cap, which ethereumjs checks while decoding.
    const osakaAt = 1_700_100_000;
    const errorAtOsaka = async (target: PreconfProvider, replayed: boolean) => {
      const raw = await signTx(target, 0, { nonce: 0, gas: 20_000_000n });
      const snapshot = await call<Hex>(target, "evm_snapshot");
      if (replayed) await send(target, raw);
      await call(target, "evm_revert", [snapshot]);
      await call(target, "evm_setNextBlockTimestamp", [toHex(osakaAt)]);
      return rpcError(target, "eth_sendRawTransaction", [raw]);
    };
    const options = { mining: "auto" as const, hardfork: "prague", forkSchedule: { osaka: { timestamp: BigInt(osakaAt) } } };
    const chains = [(await createTestChain(options)).provider, (await createTestChain(options)).provider];
    try {
      const replayed = await errorAtOsaka(chains[0]!, true);
      expect(replayed).to.deep.include({ code: -32000, message: "transaction gas limit too high (cap: 16777216, tx: 20000000)" });
      expect(replayed).to.deep.equal(await errorAtOsaka(chains[1]!, false));
    } finally {
      for (const chain of chains) await chain.close();
    }
  });

  it("signs an eth_sendTransaction payload once over 10 replays, to the same tx a new provider signs", async () => {
    const from = provider.accounts[0]!.address;
    const request = { from, to: provider.accounts[1]!.address, value: "0x1", gas: "0x5208" };
    let snapshot = await call<Hex>(provider, "evm_snapshot");
    const hashes = new Set<Hex>();
    for (let round = 0; round < 10; round++) {
      await call(provider, "evm_revert", [snapshot]);
      snapshot = await call<Hex>(provider, "evm_snapshot");
      hashes.add(await call<Hex>(provider, "eth_sendTransaction", [request]));
    }
    expect(counts.signatures).to.equal(1);
    expect(hashes.size).to.equal(1);
    // Another payload is signed.
    await call<Hex>(provider, "eth_sendTransaction", [{ ...request, value: "0x2" }]);
    expect(counts.signatures).to.equal(2);

    const { provider: fresh } = await createTestChain({ mining: "auto" });
    try {
      expect(await call<Hex>(fresh, "eth_sendTransaction", [request])).to.equal([...hashes][0]);
      expect(counts.signatures).to.equal(3);
    } finally {
      await fresh.close();
    }
    expect(counts.recoveries).to.equal(0);
  });
});

describe("the seal and a raw tx's own bytes (txBytes.ts)", () => {
  it("takes a small raw tx's bytes, or the encoding a signed tx was hashed from, for the transactions trie instead of encoding it again, and encodes a large one", async () => {
    const { provider } = await createTestChain({ mining: "manual" });
    try {
      const small = await signTx(provider, 0, { nonce: 0 });
      const large = await signTx(provider, 0, { nonce: 1, gas: 1_000_000n, data: toHex(new Uint8Array(MAX_KEPT_ENCODING)) });
      await send(provider, small);
      await send(provider, large);
      // A tx our wallet signs, and an impersonated sender's, keep the encoding admission made of them for their hashes.
      const signed = await call<Hex>(provider, "eth_sendTransaction", [
        { from: provider.accounts[0]!.address, to: provider.accounts[1]!.address, value: "0x1" },
      ]);
      const stranger = "0x1234567890123456789012345678901234567890";
      await call(provider, "hardhat_setBalance", [stranger, "0xde0b6b3a7640000"]);
      await call(provider, "hardhat_impersonateAccount", [stranger]);
      const impersonated = await call<Hex>(provider, "eth_sendTransaction", [{ from: stranger, to: provider.accounts[1]!.address, value: "0x2" }]);
      const txs = [...provider.chain.pool.all()].map((entry) => entry.tx);
      expect(txs.map((tx) => encodingKept(tx))).to.deep.equal([true, false, true, true]);
      await provider.preconf.seal();
      expect(txs.map((tx) => encodingKept(tx))).to.deep.equal([false, false, false, false]);
      const block = await call<{ transactions: Hex[]; transactionsRoot: Hex }>(provider, "eth_getBlockByNumber", ["latest", false]);
      expect(block.transactions).to.deep.equal([keccak256(small), keccak256(large), signed, impersonated]);
      expect(keccak256(txs[2]!.serialize())).to.equal(signed);
      expect(block.transactionsRoot).to.equal(toHex(await genTransactionsTrieRoot(txs)));
    } finally {
      await provider.close();
    }
  });
});

describe("the memos' bounds and keys", () => {
  it("LruMemo forgets the least recently used entry past its entry and weight bounds", () => {
    const memo = new LruMemo<string, number>(3, 10);
    memo.set("a", 1, 4);
    memo.set("b", 2, 4);
    memo.set("c", 3, 1);
    expect(memo.get("a")).to.equal(1); // a is now the most recent
    memo.set("d", 4, 1); // 4 entries: b goes
    expect([memo.get("b"), memo.size]).to.deep.equal([undefined, 3]);
    memo.set("e", 5, 6); // 4 entries, then weight 4 + 1 + 6 = 11 > 10: c, then a go
    expect([memo.get("c"), memo.get("a"), memo.get("d"), memo.get("e")]).to.deep.equal([undefined, undefined, 4, 5]);
    memo.set("huge", 6, 11); // heavier than the bound: not kept
    expect([memo.get("huge"), memo.size]).to.deep.equal([undefined, 2]);
  });

  it("DecodedTxs answers a tx only for the Common it was decoded on", () => {
    const common = txCommonOf(new Common({ chain: Mainnet, hardfork: "prague" }));
    const other = txCommonOf(new Common({ chain: Mainnet, hardfork: "prague" }));
    const tx = createTx({ type: 2, gasLimit: 21000n, maxFeePerGas: 1n, v: 0n, r: 1n, s: 1n }, { common });
    const decoded = new DecodedTxs();
    decoded.remember("0x01", tx, "0x00000000000000000000000000000000000000aa", 100);
    expect(decoded.get("0x01", common)?.tx).to.equal(tx);
    expect(decoded.get("0x01", other)).to.equal(undefined);
  });

  it("SignedTxs weighs a signed tx by its whole message, access list included", () => {
    // eth_sendTransaction takes an access list of up to the request body's 5 MiB, and the wallet
    // signs it before admission refuses it as oversized: its weight must count it.
    const common = txCommonOf(new Common({ chain: Mainnet, hardfork: "prague" }));
    const key = preparedKey("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
    const slot = new Uint8Array(32);
    // 13 × 10,000 storage keys: ~4.1 MiB of message each, two of them past the 8 MiB bound.
    const keys = Array.from({ length: 10_000 }, () => slot);
    const accessList: AccessListBytes = Array.from({ length: 13 }, (_, i) => [new Uint8Array(20).fill(i), keys]);
    const unsigned = (nonce: bigint) => createTx({ type: 1, nonce, gasLimit: 30_000_000n, gasPrice: 1n, accessList }, { common });
    const signedTxs = new SignedTxs();
    const first = signedTxs.sign(unsigned(0n), key);
    expect(signedTxs.sign(unsigned(0n), key)).to.equal(first);
    signedTxs.sign(unsigned(1n), key);
    const again = signedTxs.sign(unsigned(0n), key);
    expect(again).to.not.equal(first);
    expect(again.serialize()).to.deep.equal(first.serialize());
  });
});
