/**
 * eth_getProof (EIP-1186) in go-ethereum's shape (internal/ethapi/api.go GetProof, read at v1.17.5):
 * every proof is checked with @ethereumjs/mpt's own verification against the block's stateRoot —
 * existing and absent accounts, existing and absent slots, at latest, at older blocks and at
 * `pending` (docs/behaviour.md, "The RPC surface").
 */
import { verifyMerkleProof } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { bytesToBigInt, bytesToHex, createAccountFromRLP, hexToBytes, KECCAK256_NULL_S, KECCAK256_RLP_S, setLengthLeft } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { expect } from "chai";

import { startServer } from "../src/index.ts";
import { createTestChain, rpcError } from "./helpers/chain.ts";
import { ACCESS_RUNTIME, initCodeFor } from "./helpers/bytecode.ts";

import type { Hex } from "viem";
import type { PreconfProvider } from "../src/index.ts";

interface Proof {
  address: Hex;
  accountProof: Hex[];
  balance: Hex;
  codeHash: Hex;
  nonce: Hex;
  storageHash: Hex;
  storageProof: { key: Hex; value: Hex; proof: Hex[] }[];
}

const ABSENT = "0x00000000000000000000000000000000000000aa";
const SLOT_2 = `0x${"2".padStart(64, "0")}` as Hex;

async function call<T = unknown>(provider: PreconfProvider, method: string, params: unknown[] = []): Promise<T> {
  return (await provider.request({ method, params })) as T;
}

const keccakHex = (bytes: Uint8Array) => bytesToHex(keccak_256(bytes));

/**
 * Checks `proof` against `stateRoot` with @ethereumjs/mpt: the account proof's root is the block's,
 * it proves the account fields answered (or the account's absence), and each storage proof proves
 * its value under the storage hash answered.
 */
async function verify(proof: Proof, stateRoot: Hex): Promise<void> {
  expect(keccakHex(hexToBytes(proof.accountProof[0]!)), "account proof root").to.equal(stateRoot);
  const leaf = await verifyMerkleProof(hexToBytes(proof.address), proof.accountProof.map(hexToBytes), { useKeyHashing: true });
  if (leaf === null) {
    // Absent: reported as an empty account.
    expect([proof.balance, proof.nonce, proof.codeHash, proof.storageHash]).to.deep.equal(["0x0", "0x0", KECCAK256_NULL_S, KECCAK256_RLP_S]);
  } else {
    const account = createAccountFromRLP(leaf);
    expect(proof.balance).to.equal(`0x${account.balance.toString(16)}`);
    expect(proof.nonce).to.equal(`0x${account.nonce.toString(16)}`);
    expect(proof.codeHash).to.equal(bytesToHex(account.codeHash));
    expect(proof.storageHash).to.equal(bytesToHex(account.storageRoot));
  }
  for (const { key, value, proof: nodes } of proof.storageProof) {
    if (proof.storageHash === KECCAK256_RLP_S) {
      // No storage: go-ethereum's empty proof.
      expect([value, nodes]).to.deep.equal(["0x0", []]);
      continue;
    }
    expect(keccakHex(hexToBytes(nodes[0]!)), `storage proof root of ${key}`).to.equal(proof.storageHash);
    const slot = setLengthLeft(hexToBytes(`0x${BigInt(key).toString(16).padStart(64, "0")}`), 32);
    const stored = await verifyMerkleProof(slot, nodes.map(hexToBytes), { useKeyHashing: true });
    expect(stored === null ? "0x0" : `0x${bytesToBigInt(RLP.decode(stored) as Uint8Array).toString(16)}`, `value of ${key}`).to.equal(value);
  }
}

const stateRootOf = async (provider: PreconfProvider, block: string) =>
  (await call<{ stateRoot: Hex }>(provider, "eth_getBlockByNumber", [block, false])).stateRoot;

describe("eth_getProof", () => {
  let provider: PreconfProvider;
  let dev: Hex;
  let contract: Hex;

  afterEach(() => provider.close());

  describe("on sealed blocks", () => {
    beforeEach(async () => {
      ({ provider } = await createTestChain({ mining: "manual" }));
      dev = provider.accounts[0]!.address;
      await call(provider, "eth_sendTransaction", [{ from: dev, data: initCodeFor(ACCESS_RUNTIME) }]);
      await call(provider, "evm_mine"); // block 1: the contract, no storage yet
      contract = (
        await call<{ contractAddress: Hex }>(provider, "eth_getTransactionReceipt", [
          (await call<{ transactions: Hex[] }>(provider, "eth_getBlockByNumber", ["0x1", false])).transactions[0],
        ])
      ).contractAddress;
      await call(provider, "eth_sendTransaction", [{ from: dev, to: contract }]);
      await call(provider, "evm_mine"); // block 2: slot 2 = 42
    });

    it("a contract's account and slots verify against the latest block's stateRoot; keys are echoed as geth does", async () => {
      const proof = await call<Proof>(provider, "eth_getProof", [contract, [SLOT_2, "0x1", "7"], "latest"]);
      expect(Object.keys(proof)).to.deep.equal(["address", "accountProof", "balance", "codeHash", "nonce", "storageHash", "storageProof"]);
      expect(proof.address).to.equal(contract);
      expect(proof.nonce).to.equal("0x1");
      expect(proof.codeHash).to.equal(keccakHex(hexToBytes(ACCESS_RUNTIME)));
      // A 32-byte key as given; a shorter one (with or without 0x) as a quantity.
      expect(proof.storageProof.map(({ key, value }) => [key, value])).to.deep.equal([
        [SLOT_2, "0x2a"],
        ["0x1", "0x0"],
        ["0x7", "0x0"],
      ]);
      await verify(proof, await stateRootOf(provider, "latest"));
      // The check can fail: against block 1's root this proof does not verify.
      const against1 = await verify(proof, await stateRootOf(provider, "0x1")).then(
        () => "verified",
        (error: Error) => error.message,
      );
      expect(against1).to.match(/^account proof root/);
      expect(await call(provider, "eth_getProof", [contract, [SLOT_2]])).to.deep.equal(await call(provider, "eth_getProof", [contract, [SLOT_2], "0x2"]));
    });

    it("an account that does not exist is proven absent and reported empty; so is every account at block 0", async () => {
      const absent = await call<Proof>(provider, "eth_getProof", [ABSENT, [SLOT_2], "latest"]);
      expect(absent.storageProof).to.deep.equal([{ key: SLOT_2, value: "0x0", proof: [] }]);
      await verify(absent, await stateRootOf(provider, "latest"));
      const atGenesis = await call<Proof>(provider, "eth_getProof", [contract, [], "0x0"]);
      await verify(atGenesis, await stateRootOf(provider, "0x0"));
      expect(atGenesis.codeHash).to.equal(KECCAK256_NULL_S);
      const devAtGenesis = await call<Proof>(provider, "eth_getProof", [dev, [], 0]);
      expect(devAtGenesis.balance).to.equal(`0x${(10_000n * 10n ** 18n).toString(16)}`);
      await verify(devAtGenesis, await stateRootOf(provider, "0x0"));
    });

    it("an older block proves its own state: the contract before its slot was written has no storage (empty proofs)", async () => {
      const before = await call<Proof>(provider, "eth_getProof", [contract, [SLOT_2], "0x1"]);
      expect(before.storageHash).to.equal(KECCAK256_RLP_S);
      expect(before.storageProof).to.deep.equal([{ key: SLOT_2, value: "0x0", proof: [] }]);
      await verify(before, await stateRootOf(provider, "0x1"));
      const block = await call<{ hash: Hex; stateRoot: Hex }>(provider, "eth_getBlockByNumber", ["0x2", false]);
      await verify(await call<Proof>(provider, "eth_getProof", [contract, [SLOT_2], { blockHash: block.hash }]), block.stateRoot);
    });

    it("refuses as go-ethereum: too many keys, bad hex, keys over 32 bytes (-32602); an unknown block (-32000)", async () => {
      const keys = Array.from({ length: 1025 }, (_, i) => `0x${i.toString(16)}`);
      expect(await rpcError(provider, "eth_getProof", [contract, keys])).to.deep.equal({
        code: -32602,
        message: "Invalid params",
        data: { field: "params[1]", reason: "too many storage keys requested (max 1024, got 1025)" },
      });
      expect(await rpcError(provider, "eth_getProof", [contract, ["0x1", "0xzz"]])).to.deep.equal({
        code: -32602,
        message: "Invalid params",
        data: { field: "params[1][1]", reason: 'invalid hex in storage key: "0xzz"' },
      });
      const long = `0x${"1".repeat(65)}`;
      expect(await rpcError(provider, "eth_getProof", [contract, [long]])).to.deep.equal({
        code: -32602,
        message: "Invalid params",
        data: { field: "params[1][0]", reason: `storage key too long (want at most 32 bytes): "${long}"` },
      });
      expect(await rpcError(provider, "eth_getProof", [contract, [], "0x10"])).to.deep.include({ code: -32000, message: "header not found" });
    });
  });

  it("on a fork: the upstream's proof at or before the fork block (its keys echoed as asked), none after it", async () => {
    ({ provider } = await createTestChain({ mining: "manual" }));
    dev = provider.accounts[0]!.address;
    await call(provider, "eth_sendTransaction", [{ from: dev, data: initCodeFor(ACCESS_RUNTIME) }]);
    await call(provider, "evm_mine");
    contract = (
      await call<{ contractAddress: Hex }>(provider, "eth_getTransactionReceipt", [
        (await call<{ transactions: Hex[] }>(provider, "eth_getBlockByNumber", ["0x1", false])).transactions[0],
      ])
    ).contractAddress;
    await call(provider, "eth_sendTransaction", [{ from: dev, to: contract }]);
    await call(provider, "evm_mine");
    const server = await startServer(provider, { port: 0 });
    const { provider: fork } = await createTestChain({ fork: { url: server.url, blockNumber: 2 }, mining: "manual" });
    try {
      await call(fork, "evm_mine");
      const atFork = await call<Proof>(fork, "eth_getProof", [contract, ["0x2"], "0x2"]);
      expect(atFork).to.deep.equal(await call(provider, "eth_getProof", [contract, ["0x2"], "0x2"]));
      await verify(atFork, await stateRootOf(fork, "0x2"));
      expect(await rpcError(fork, "eth_getProof", [contract, [], "latest"])).to.deep.equal({
        code: -32000,
        message: "eth_getProof is not supported after the fork block",
        data: { forkBlock: "0x2" },
      });
    } finally {
      await fork.close();
      await server.close();
    }
  });

  it("pending proves the pre-confirmed state: the root its block seals with when nothing more is pre-confirmed", async () => {
    ({ provider } = await createTestChain());
    dev = provider.accounts[0]!.address;
    const stranger = "0x1234567890123456789012345678901234567890";
    await call(provider, "eth_sendTransaction", [{ from: dev, to: stranger, value: "0x2a" }]);
    await provider.preconf.advance();
    const open = provider.chain.open.number;
    const pending = await call<Proof>(provider, "eth_getProof", [stranger, [], "pending"]);
    expect(pending.balance).to.equal("0x2a");
    // Not in latest yet.
    expect((await call<Proof>(provider, "eth_getProof", [stranger, [], "latest"])).balance).to.equal("0x0");
    await provider.preconf.seal();
    await verify(pending, await stateRootOf(provider, `0x${open.toString(16)}`));
  });
});
