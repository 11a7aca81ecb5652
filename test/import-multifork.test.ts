/**
 * Imports fixtures/chains/multifork (made by scripts/generate-multifork-chain.ts with ethereumjs'
 * own block builder): PoW blocks 1-3, the merge at block 4 (terminal total difficulty reached by
 * block 3), then Shanghai, Cancun and Prague by timestamp. The import must reach the producer's
 * head and state, show each fork's header fields from its first block on, and continue with
 * fragments and a sealed Prague block on top.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { RLP } from "@ethereumjs/rlp";
import { bytesToHex, concatBytes } from "@ethereumjs/util";
import { sha256 } from "@noble/hashes/sha2.js";
import { expect } from "chai";

import { InvalidOptionsError } from "../src/index.ts";
import { createTestChain } from "./helpers/chain.ts";

import type { GethGenesis } from "@ethereumjs/common";
import type { PreconfProvider } from "../src/index.ts";
import type { Hex } from "../src/rpc/schema.ts";

const DIR = resolve(fileURLToPath(import.meta.url), "../../fixtures/chains/multifork");

interface Expected {
  headNumber: Hex;
  headHash: Hex;
  stateRoot: Hex;
  forks: { terminalTotalDifficulty: Hex; mergeBlock: number; shanghaiTime: number; cancunTime: number; pragueTime: number };
  blocks: { number: Hex; hash: Hex; hardfork: string; timestamp: Hex; stateRoot: Hex; transactions: Hex[] }[];
  keys: Record<"alice" | "bob" | "carol", Hex>;
  addresses: Record<"alice" | "bob" | "carol" | "miner" | "validator" | "sink" | "store" | "store2" | "cancun", Hex>;
  balances: Record<string, Hex>;
  storage: { address: Hex; slot: Hex; value: Hex; note: string }[];
  code: Record<"bob" | "store2", Hex>;
}

interface RpcBlock {
  number: Hex;
  hash: Hex;
  parentHash: Hex;
  stateRoot: Hex;
  timestamp: Hex;
  difficulty: Hex;
  nonce: Hex;
  mixHash: Hex;
  gasLimit: Hex;
  gasUsed: Hex;
  baseFeePerGas?: Hex;
  withdrawalsRoot?: Hex;
  withdrawals?: { index: Hex; address: Hex; amount: Hex }[];
  blobGasUsed?: Hex;
  excessBlobGas?: Hex;
  parentBeaconBlockRoot?: Hex;
  requestsHash?: Hex;
  transactions: Hex[];
}

const genesisJson = (): GethGenesis => JSON.parse(readFileSync(resolve(DIR, "genesis.json"), "utf8")) as GethGenesis;
const chainRlp = () => new Uint8Array(readFileSync(resolve(DIR, "chain.rlp")));
const expected = JSON.parse(readFileSync(resolve(DIR, "expected.json"), "utf8")) as Expected;

const getBlock = (provider: PreconfProvider, tag: string | number) =>
  provider.request({ method: "eth_getBlockByNumber", params: [typeof tag === "number" ? `0x${tag.toString(16)}` : tag, false] }) as Promise<RpcBlock>;

/** EIP-1559's base fee rule (elasticity 2, change denominator 8). */
function nextBaseFee(parent: RpcBlock): bigint {
  const base = BigInt(parent.baseFeePerGas!);
  const target = BigInt(parent.gasLimit) / 2n;
  const used = BigInt(parent.gasUsed);
  if (used === target) return base;
  if (used > target) {
    const delta = (base * (used - target)) / target / 8n;
    return base + (delta > 1n ? delta : 1n);
  }
  return base - (base * (target - used)) / target / 8n;
}

/** EIP-7685: the requests hash of a block without requests is sha256 of nothing. */
const EMPTY_REQUESTS_HASH = bytesToHex(sha256(new Uint8Array()));

/** Flips the first byte of header field `field` of the block at `index` (0 = block 1). */
function corrupt(chain: Uint8Array, index: number, field: number): Uint8Array {
  const blocks: Uint8Array[][][] = [];
  let rest = chain;
  while (rest.length > 0) {
    const { data, remainder } = RLP.decode(rest, true);
    blocks.push(data as unknown as Uint8Array[][]);
    rest = remainder;
  }
  const header = blocks[index]![0]!;
  const value = Uint8Array.from(header[field]!);
  value[0] = value[0]! ^ 0xff;
  header[field] = value;
  return concatBytes(...blocks.map((block) => RLP.encode(block)));
}

async function importError(genesis: GethGenesis, chain: Uint8Array): Promise<Error> {
  try {
    const { provider } = await createTestChain({ genesis, chain, mining: "manual" });
    await provider.close();
  } catch (error) {
    return error as Error;
  }
  throw new Error("the import was expected to fail");
}

describe("chain option: generated multi-fork chain (PoW, Paris, Shanghai, Cancun, Prague)", function () {
  this.timeout(60_000);
  let provider: PreconfProvider;
  let blocks: RpcBlock[];

  before(async () => {
    ({ provider } = await createTestChain({
      genesis: genesisJson(),
      chain: chainRlp(),
      accounts: [{ privateKey: expected.keys.alice, balance: 0n }],
      // Fragments every 200 ms of the fake clock, which only moves when the test advances it.
      mining: "interval",
    }));
    blocks = [];
    for (let number = 0; number <= Number(expected.headNumber); number++) blocks.push(await getBlock(provider, number));
  });

  after(async () => {
    await provider?.close();
  });

  it("reaches the producer's head hash and state root", async () => {
    const head = await getBlock(provider, "latest");
    expect(head.number).to.equal(expected.headNumber);
    expect(head.hash).to.equal(expected.headHash);
    expect(head.stateRoot).to.equal(expected.stateRoot);
    expect(bytesToHex(await provider.chain.vm.stateManager.getStateRoot())).to.equal(expected.stateRoot);
    expect(blocks.map((block) => block.hash)).to.deep.equal(expected.blocks.map((block) => block.hash));
    expect(blocks.map((block) => block.stateRoot)).to.deep.equal(expected.blocks.map((block) => block.stateRoot));
    expect(blocks.map((block) => block.transactions)).to.deep.equal(expected.blocks.map((block) => block.transactions));
    expect(await provider.request({ method: "eth_chainId" })).to.equal("0x1092");
  });

  it("has a base fee in every block (London at 0), following EIP-1559 from the genesis' 1 gwei", () => {
    expect(blocks[0]!.baseFeePerGas).to.equal("0x3b9aca00");
    for (const block of blocks.slice(1)) {
      const parent = blocks[Number(block.number) - 1]!;
      expect(BigInt(block.baseFeePerGas!), `block ${block.number}`).to.equal(nextBaseFee(parent));
    }
  });

  it("switches from PoW to PoS where total difficulty reaches TTD (EIP-3675, EIP-4399)", async () => {
    const merge = expected.forks.mergeBlock;
    const pow = blocks.slice(0, merge);
    for (const block of pow) expect(BigInt(block.difficulty), `block ${block.number}`).to.be.greaterThan(0n);
    const totalDifficulty = (upTo: number) => pow.slice(0, upTo + 1).reduce((sum, block) => sum + BigInt(block.difficulty), 0n);
    const ttd = BigInt(expected.forks.terminalTotalDifficulty);
    // Block merge-1 is the terminal PoW block: it reaches TTD, its parent does not.
    expect(totalDifficulty(merge - 1) >= ttd).to.equal(true);
    expect(totalDifficulty(merge - 2) < ttd).to.equal(true);
    for (const block of blocks.slice(merge)) {
      expect(block.difficulty, `block ${block.number}`).to.equal("0x0");
      expect(block.nonce).to.equal("0x0000000000000000");
    }
    // Opcode 0x44 returned DIFFICULTY in block 2 and prevRandao (the header's mixHash) in block 4.
    const store = expected.addresses.store;
    const slot = (n: number) => provider.request({ method: "eth_getStorageAt", params: [store, `0x${n.toString(16)}`, "latest"] }) as Promise<Hex>;
    expect(BigInt(await slot(2))).to.equal(BigInt(blocks[2]!.difficulty));
    expect(await slot(merge)).to.equal(blocks[merge]!.mixHash);
  });

  it("opens Shanghai, Cancun and Prague at the first block at or after each fork time", () => {
    const firstAt = (time: number) => blocks.findIndex((block) => BigInt(block.timestamp) >= BigInt(time));
    const shanghai = firstAt(expected.forks.shanghaiTime);
    const cancun = firstAt(expected.forks.cancunTime);
    const prague = firstAt(expected.forks.pragueTime);
    expect([shanghai, cancun, prague]).to.deep.equal([6, 8, 10]);

    // Shanghai: withdrawals (EIP-4895), amounts in gwei.
    for (const block of blocks.slice(0, shanghai)) expect(block.withdrawalsRoot, `block ${block.number}`).to.equal(undefined);
    for (const block of blocks.slice(shanghai)) expect(block.withdrawalsRoot, `block ${block.number}`).to.be.a("string");
    expect(blocks[shanghai]!.withdrawals!.map((withdrawal) => [withdrawal.address, withdrawal.amount])).to.deep.equal([
      [expected.addresses.validator, "0x773594000"],
      [expected.addresses.alice, "0x1"],
    ]);

    // Cancun: blob gas (EIP-4844) and the parent beacon block root (EIP-4788).
    for (const block of blocks.slice(0, cancun)) {
      expect([block.blobGasUsed, block.excessBlobGas, block.parentBeaconBlockRoot], `block ${block.number}`).to.deep.equal([undefined, undefined, undefined]);
    }
    for (const block of blocks.slice(cancun)) {
      expect(block.excessBlobGas, `block ${block.number}`).to.equal("0x0");
      expect(block.parentBeaconBlockRoot).to.match(/^0x[0-9a-f]{64}$/);
    }
    expect(blocks[cancun]!.blobGasUsed).to.equal("0x0");
    expect(blocks[cancun + 1]!.blobGasUsed).to.equal("0x20000"); // one blob

    // Prague: the requests hash (EIP-7685); block 10 carries an EIP-7002 withdrawal request.
    for (const block of blocks.slice(0, prague)) expect(block.requestsHash, `block ${block.number}`).to.equal(undefined);
    expect(blocks[prague]!.requestsHash)
      .to.match(/^0x[0-9a-f]{64}$/)
      .and.not.equal(EMPTY_REQUESTS_HASH);
    expect(blocks[prague + 1]!.requestsHash).to.equal(EMPTY_REQUESTS_HASH);
    expect(provider.chain.common.hardfork()).to.equal("prague");
  });

  it("holds the producer's balances, storage and code", async () => {
    for (const [name, balance] of Object.entries(expected.balances)) {
      const address = expected.addresses[name as keyof Expected["addresses"]];
      expect(await provider.request({ method: "eth_getBalance", params: [address, "latest"] }), name).to.equal(balance);
    }
    for (const { address, slot, value, note } of expected.storage) {
      // Both spellings of the key: 32 bytes with leading zeros (as viem sends them) and a quantity.
      const short = `0x${BigInt(slot).toString(16)}`;
      const padded = `0x${BigInt(slot).toString(16).padStart(64, "0")}`;
      for (const key of [padded, short]) {
        expect(await provider.request({ method: "eth_getStorageAt", params: [address, key, "latest"] }), note).to.equal(value);
      }
    }
    // EIP-7702: Bob's code is a delegation designator to the store contract.
    expect(await provider.request({ method: "eth_getCode", params: [expected.addresses.bob, "latest"] })).to.equal(expected.code.bob);
    expect(expected.code.bob).to.equal(`0xef0100${expected.addresses.store.slice(2)}`);
    expect(await provider.request({ method: "eth_getCode", params: [expected.addresses.store2, "latest"] })).to.equal(expected.code.store2);
    // Historical state: the validator's first withdrawal lands in block 6, in wei.
    expect(await provider.request({ method: "eth_getBalance", params: [expected.addresses.validator, "0x5"] })).to.equal("0x0");
    expect(await provider.request({ method: "eth_getBalance", params: [expected.addresses.validator, "0x6"] })).to.equal(
      `0x${(32n * 10n ** 18n).toString(16)}`,
    );
    // The genesis alloc's own storage.
    const slot1 = await provider.request({ method: "eth_getStorageAt", params: ["0x0000000000000000000000000000000000005709", "0x1", "earliest"] });
    expect(BigInt(slot1 as Hex)).to.equal(0x1234n);
  });

  it("indexes every imported tx, of every type, with a successful receipt", async () => {
    const types = new Set<string>();
    for (const hash of expected.blocks.flatMap((block) => block.transactions)) {
      const receipt = (await provider.request({ method: "eth_getTransactionReceipt", params: [hash] })) as { status: Hex; type: Hex; blobGasUsed?: Hex };
      expect(receipt.status, hash).to.equal("0x1");
      types.add(receipt.type);
      if (receipt.type === "0x3") expect(receipt.blobGasUsed).to.equal("0x20000");
    }
    expect([...types].sort()).to.deep.equal(["0x0", "0x1", "0x2", "0x3", "0x4"]);
  });

  it("answers BLOCKHASH for an imported block that holds a blob tx", async () => {
    // Init code: mstore(0, blockhash(9)); return(0, 32). Reading block 9 back decodes its blob tx.
    const result = await provider.request({ method: "eth_call", params: [{ data: "0x60094060005260206000f3" }, "latest"] });
    expect(result).to.equal(expected.blocks[9]!.hash);
  });

  it("continues with fragments and seals a Prague block on top of the imported head", async () => {
    const head = await getBlock(provider, "latest");
    const [from] = (await provider.request({ method: "eth_accounts" })) as Hex[];
    expect(from).to.equal(expected.addresses.alice);
    const sinkBefore = BigInt((await provider.request({ method: "eth_getBalance", params: [expected.addresses.sink, "latest"] })) as Hex);
    const hash = (await provider.request({
      method: "eth_sendTransaction",
      params: [{ from, to: expected.addresses.sink, value: "0x5", gas: "0x5208" }],
    })) as Hex;

    await provider.preconf.advance();
    const pending = await getBlock(provider, "pending");
    expect(BigInt(pending.number)).to.equal(BigInt(head.number) + 1n);
    expect(pending.transactions).to.deep.equal([hash]);

    await provider.preconf.advance(provider.preconf.fragmentsPerBlock - 1);
    const sealed = await getBlock(provider, "latest");
    expect(BigInt(sealed.number)).to.equal(BigInt(head.number) + 1n);
    expect(sealed.parentHash).to.equal(expected.headHash);
    expect(sealed.transactions).to.deep.equal([hash]);
    expect(BigInt(sealed.timestamp)).to.be.greaterThan(BigInt(head.timestamp));
    expect(BigInt(sealed.baseFeePerGas!)).to.equal(nextBaseFee(head));
    // Prague's header: PoS, withdrawals root, blob gas, beacon root, requests hash.
    expect(sealed.difficulty).to.equal("0x0");
    expect(sealed.withdrawalsRoot).to.match(/^0x[0-9a-f]{64}$/);
    expect(sealed.blobGasUsed).to.equal("0x0");
    expect(sealed.excessBlobGas).to.equal("0x0");
    expect(sealed.parentBeaconBlockRoot).to.match(/^0x[0-9a-f]{64}$/);
    expect(sealed.requestsHash).to.equal(EMPTY_REQUESTS_HASH);
    expect(provider.chain.common.hardfork()).to.equal("prague");
    const sinkAfter = BigInt((await provider.request({ method: "eth_getBalance", params: [expected.addresses.sink, "latest"] })) as Hex);
    expect(sinkAfter - sinkBefore).to.equal(5n);
  });
});

describe("chain option: multi-fork import, the merge by TTD and refused blocks", function () {
  this.timeout(60_000);

  it("places the merge by terminal total difficulty when the genesis names no merge block", async () => {
    const genesis = genesisJson();
    delete genesis.config.mergeNetsplitBlock;
    const { provider } = await createTestChain({ genesis, chain: chainRlp(), mining: "manual" });
    try {
      const head = await getBlock(provider, "latest");
      expect(head.hash).to.equal(expected.headHash);
      expect(head.stateRoot).to.equal(expected.stateRoot);
    } finally {
      await provider.close();
    }
  });

  it("refuses a block whose state root was changed, naming the block and both roots", async () => {
    const error = await importError(genesisJson(), corrupt(chainRlp(), 4, 3)); // block 5, field 3: stateRoot
    expect(error).to.be.instanceOf(InvalidOptionsError);
    expect(error.message).to.match(/^Invalid hardhat-preconf option chain: block 5: invalid block stateRoot, got: 0x[0-9a-f]{64}, want: 0x[0-9a-f]{64}/);
  });

  it("refuses a head block whose transactions root was changed", async () => {
    const error = await importError(genesisJson(), corrupt(chainRlp(), 10, 4)); // block 11, field 4: transactionsTrie
    expect(error).to.be.instanceOf(InvalidOptionsError);
    expect(error.message).to.match(/^Invalid hardhat-preconf option chain: block 11: invalid transaction trie/);
  });

  it("refuses a PoW block where the genesis schedules proof of stake", async () => {
    const genesis = genesisJson();
    genesis.config.mergeNetsplitBlock = 3; // block 3 has difficulty 0x20000
    const error = await importError(genesis, chainRlp());
    expect(error).to.be.instanceOf(InvalidOptionsError);
    expect(error.message).to.match(/Invalid PoS block.*difficulty: 131072 \(expected: 0\)/);
  });
});
