/**
 * Generates fixtures/chains/multifork: a geth-format genesis.json, a chain.rlp of concatenated
 * RLP blocks, and expected.json (head, state root, balances, storage). The chain crosses every
 * fork a dev chain can meet when it imports history:
 *
 *   block 0      genesis, London (and everything before it) at block 0, difficulty 0x20000
 *   blocks 1-3   proof-of-work blocks (difficulty > 0, 2 ETH block reward); block 3's total
 *                difficulty reaches terminalTotalDifficulty, so block 3 is the terminal PoW block
 *   blocks 4-5   Paris (EIP-3675: difficulty 0, nonce 0; EIP-4399: mixHash is prevRandao)
 *   blocks 6-7   Shanghai by timestamp (EIP-4895 withdrawals, EIP-3855 PUSH0)
 *   blocks 8-9   Cancun by timestamp (EIP-4788 beacon root, EIP-4844 blob gas, EIP-1153, EIP-7516)
 *   blocks 10-11 Prague by timestamp (EIP-2935 block hashes, EIP-7685 requests incl. an EIP-7002
 *                withdrawal request, EIP-7702 set-code tx)
 *
 * The blocks are produced by @ethereumjs' own builder (`buildBlock`) on a VM and blockchain made
 * here, never by our Chain class, so importing them checks our import against an independent
 * producer (the same library underneath, a different code path). The builder's blockchain
 * validates every block it is given (header against parent, base fee, excess blob gas, tries).
 *
 * Proof-of-work seals are NOT valid ethash: nonce and mixHash of blocks 1-3 are zero. Mining them
 * in pure JS would take minutes per block, and neither the dev chain nor this generator validates
 * consensus (both blockchains run with `validateConsensus: false`); difficulty and total
 * difficulty are real (the canonical ethash difficulty from the parent).
 *
 * Run once; the files are committed and tests read them: `npm run fixtures:chains`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { createBlockchain } from "@ethereumjs/blockchain";
import { createCommonFromGethGenesis, Hardfork } from "@ethereumjs/common";
import { Caches, MerkleStateManager } from "@ethereumjs/statemanager";
import { createAccessList2930Tx, createBlob4844Tx, createEOACode7702Tx, createFeeMarket1559Tx, createLegacyTx } from "@ethereumjs/tx";
import {
  Account,
  bigIntToHex,
  bytesToHex,
  concatBytes,
  createAddressFromPrivateKey,
  createAddressFromString,
  createContractAddress,
  eoaCode7702SignAuthorization,
  hexToBytes,
  intToHex,
  setLengthLeft,
  utf8ToBytes,
} from "@ethereumjs/util";
import { buildBlock, createVM } from "@ethereumjs/vm";
import { keccak_256 } from "@noble/hashes/sha3.js";

import { BLOB_SCHEDULE, BLOCK_BODY_KZG, BLOCK_FORKS_AT_ZERO } from "../src/node/state/genesis.ts";

import type { Block } from "@ethereumjs/block";
import type { Common, GethGenesis } from "@ethereumjs/common";
import type { TypedTransaction } from "@ethereumjs/tx";
import type { Address, PrefixedHexString, WithdrawalData } from "@ethereumjs/util";
import type { VM } from "@ethereumjs/vm";

const OUT = resolve(fileURLToPath(import.meta.url), "../../fixtures/chains/multifork");

const CHAIN_ID = 4242;
const GWEI = 10n ** 9n;
const ETHER = 10n ** 18n;
/** Before the fake clock of the tests (1_700_000_000 s), so the dev chain's next block is later. */
const GENESIS_TIME = 1_699_999_000;
const SLOT = 12;
const GENESIS_DIFFICULTY = 0x20000n;
const POW_BLOCKS = 3;
const timeOf = (number: number) => GENESIS_TIME + SLOT * number;
/** Fork times fall between two blocks: the first block at or after the time opens the fork. */
const SHANGHAI_TIME = timeOf(6) - 6;
const CANCUN_TIME = timeOf(8) - 6;
const PRAGUE_TIME = timeOf(10) - 6;
const HEAD = 11;

// ── Keys (derived from fixed labels; fixture keys, never fund anything real) ─────────────────────
const key = (label: string) => keccak_256(utf8ToBytes(`hardhat-preconf multifork ${label}`));
const ALICE_KEY = key("alice");
const BOB_KEY = key("bob");
const CAROL_KEY = key("carol");
const ALICE = createAddressFromPrivateKey(ALICE_KEY);
const BOB = createAddressFromPrivateKey(BOB_KEY);
const CAROL = createAddressFromPrivateKey(CAROL_KEY);
/** Receives PoW rewards and, after the merge, priority fees. */
const MINER = createAddressFromString("0x00000000000000000000000000000000000c0ffe");
/** Untouched until Shanghai: its balance is only withdrawals. */
const VALIDATOR = createAddressFromString("0x0000000000000000000000000000000000000a11");
const SINK = createAddressFromString("0x000000000000000000000000000000000000dead");

// ── System contracts (mainnet bytecode; the same as ethereum/execution-apis' hive genesis) ───────
/** EIP-4788 beacon roots contract. */
const BEACON_ROOTS = "0x000f3df6d732807ef1319fb7b8bb8522d0beac02";
const BEACON_ROOTS_CODE =
  "0x3373fffffffffffffffffffffffffffffffffffffffe14604d57602036146024575f5ffd5b5f35801560495762001fff810690815414603c575f5ffd5b62001fff01545f5260205ff35b5f5ffd5b62001fff42064281555f359062001fff015500";
/** EIP-2935 history storage contract. */
const HISTORY = "0x0000f90827f1c53a10cb7a02335b175320002935";
const HISTORY_CODE =
  "0x3373fffffffffffffffffffffffffffffffffffffffe14604657602036036042575f35600143038111604257611fff81430311604257611fff9006545f5260205ff35b5f5ffd5b5f35611fff60014303065500";
/** EIP-7002 withdrawal requests contract. */
const WITHDRAWAL_REQUESTS = "0x00000961ef480eb55e80d19ad83579a64c007002";
const WITHDRAWAL_REQUESTS_CODE =
  "0x3373fffffffffffffffffffffffffffffffffffffffe1460cb5760115f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff146101f457600182026001905f5b5f82111560685781019083028483029004916001019190604d565b909390049250505036603814608857366101f457346101f4575f5260205ff35b34106101f457600154600101600155600354806003026004013381556001015f35815560010160203590553360601b5f5260385f601437604c5fa0600101600355005b6003546002548082038060101160df575060105b5f5b8181146101835782810160030260040181604c02815460601b8152601401816001015481526020019060020154807fffffffffffffffffffffffffffffffff00000000000000000000000000000000168252906010019060401c908160381c81600701538160301c81600601538160281c81600501538160201c81600401538160181c81600301538160101c81600201538160081c81600101535360010160e1565b910180921461019557906002556101a0565b90505f6002555f6003555b5f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff14156101cd57505f5b6001546002828201116101e25750505f6101e8565b01600290035b5f555f600155604c025ff35b5f5ffd";
/** EIP-7251 consolidation requests contract. */
const CONSOLIDATION_REQUESTS = "0x0000bbddc7ce488642fb579f8b00f3a590007251";
const CONSOLIDATION_REQUESTS_CODE =
  "0x3373fffffffffffffffffffffffffffffffffffffffe1460d35760115f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff1461019a57600182026001905f5b5f82111560685781019083028483029004916001019190604d565b9093900492505050366060146088573661019a573461019a575f5260205ff35b341061019a57600154600101600155600354806004026004013381556001015f358155600101602035815560010160403590553360601b5f5260605f60143760745fa0600101600355005b6003546002548082038060021160e7575060025b5f5b8181146101295782810160040260040181607402815460601b815260140181600101548152602001816002015481526020019060030154905260010160e9565b910180921461013b5790600255610146565b90505f6002555f6003555b5f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff141561017357505f5b6001546001828201116101885750505f61018e565b01600190035b5f555f6001556074025ff35b5f5ffd";

// ── Test contracts, assembled by hand ────────────────────────────────────────────────────────────
/**
 * Store: with 64 bytes of calldata, `sstore(calldata[0:32], calldata[32:64])`; with none,
 * `sstore(NUMBER, PREVRANDAO)` (opcode 0x44: DIFFICULTY before the merge, prevRandao after, EIP-4399).
 *   00 CALLDATASIZE ISZERO PUSH1 0x0d JUMPI PUSH1 0x20 CALLDATALOAD PUSH1 0 CALLDATALOAD SSTORE STOP
 *   0d JUMPDEST PREVRANDAO NUMBER SSTORE STOP
 */
const STORE_RUNTIME = "3615600d576020356000355500" + "5b44435500";
/** Init code: `sstore(0xff, 1)`, then return the runtime (CODECOPY from offset 0x11). */
const STORE_INIT: PrefixedHexString = `0x600160ff556012601160003960126000f3${STORE_RUNTIME}`;
/** The same contract deployed with PUSH0 (EIP-3855, Shanghai; invalid before): `sstore(0, 2)`, return the runtime. */
const STORE_INIT_PUSH0: PrefixedHexString = `0x60025f556012600e5f3960125ff3${STORE_RUNTIME}`;
/**
 * Cancun opcodes: TSTORE(0, 7), TLOAD(0) + BLOBBASEFEE (EIP-1153, EIP-7516) into slot 0, and
 * BLOBHASH(0) (EIP-4844) into slot 1.
 */
const CANCUN_RUNTIME = "600760005d" + "60005c4a01" + "600049600155" + "60005500";
const CANCUN_INIT: PrefixedHexString = `0x6014600c60003960146000f3${CANCUN_RUNTIME}`;

const slot = (n: bigint | number) => setLengthLeft(hexToBytes(bigIntToHex(BigInt(n))), 32);
const word = (n: bigint | number) => bytesToHex(slot(n));
const hash = (label: string) => keccak_256(utf8ToBytes(label));

function gethGenesis(): GethGenesis {
  const config = {
    chainId: CHAIN_ID,
    ...BLOCK_FORKS_AT_ZERO,
    // EIP-3675: the terminal PoW block is the first whose total difficulty reaches TTD; its
    // child is the first PoS block. geth switches on TTD; @ethereumjs/common 10 reads only the
    // block number (mergeNetsplitBlock), so both are given and agree.
    terminalTotalDifficulty: Number(GENESIS_DIFFICULTY * BigInt(POW_BLOCKS + 1)),
    mergeNetsplitBlock: POW_BLOCKS + 1,
    shanghaiTime: SHANGHAI_TIME,
    cancunTime: CANCUN_TIME,
    pragueTime: PRAGUE_TIME,
    blobSchedule: BLOB_SCHEDULE,
    // EIP-6110's deposit contract: none on this chain (no deposit logs can match).
    depositContractAddress: "0x0000000000000000000000000000000000000000",
  };
  const alloc: GethGenesis["alloc"] = {
    [ALICE.toString()]: { balance: bigIntToHex(100n * ETHER) },
    [BOB.toString()]: { balance: bigIntToHex(10n * ETHER) },
    [CAROL.toString()]: { balance: bigIntToHex(10n * ETHER) },
    [BEACON_ROOTS]: { balance: "0x0", nonce: "0x1", code: BEACON_ROOTS_CODE },
    [HISTORY]: { balance: "0x0", nonce: "0x1", code: HISTORY_CODE },
    [WITHDRAWAL_REQUESTS]: { balance: "0x0", nonce: "0x1", code: WITHDRAWAL_REQUESTS_CODE },
    [CONSOLIDATION_REQUESTS]: { balance: "0x0", nonce: "0x1", code: CONSOLIDATION_REQUESTS_CODE },
    // A pre-filled account: code and storage from the genesis itself.
    "0x0000000000000000000000000000000000005709": {
      balance: "0x7",
      code: `0x${STORE_RUNTIME}`,
      storage: { [word(1)]: word(0x1234) },
    },
  };
  return {
    config: config as GethGenesis["config"],
    nonce: "0x0",
    timestamp: intToHex(GENESIS_TIME),
    extraData: bytesToHex(utf8ToBytes("hardhat-preconf multifork")),
    gasLimit: "0x1c9c380",
    difficulty: bigIntToHex(GENESIS_DIFFICULTY),
    mixHash: `0x${"00".repeat(32)}`,
    coinbase: `0x${"00".repeat(20)}`,
    // EIP-1559's initial base fee: London is active at block 0.
    baseFeePerGas: bigIntToHex(GWEI),
    alloc,
  };
}

/** Writes the alloc with the state manager's own calls (not our genesis.ts). */
async function genesisState(stateManager: MerkleStateManager, genesis: GethGenesis): Promise<Uint8Array> {
  for (const [address, entry] of Object.entries(genesis.alloc)) {
    const account = createAddressFromString(address);
    await stateManager.putAccount(account, new Account(BigInt(entry.nonce ?? 0), BigInt(entry.balance)));
    if (entry.code !== undefined) await stateManager.putCode(account, hexToBytes(entry.code as PrefixedHexString));
    for (const [k, v] of Object.entries(entry.storage ?? {})) {
      const value = hexToBytes(v as PrefixedHexString);
      let start = 0;
      while (start < value.length && value[start] === 0) start++;
      await stateManager.putStorage(account, hexToBytes(k as PrefixedHexString), value.subarray(start));
    }
  }
  return stateManager.getStateRoot();
}

class Producer {
  readonly blocks: Block[] = [];
  readonly #nonces = new Map<string, bigint>();
  #withdrawalIndex = 0n;

  constructor(
    readonly vm: VM,
    readonly common: Common,
    genesis: Block,
  ) {
    this.blocks.push(genesis);
  }

  get head(): Block {
    return this.blocks[this.blocks.length - 1]!;
  }

  /** A copy of the chain's Common at the fork of block `number`, for signing its txs. */
  commonAt(number: number): Common {
    const common = this.common.copy();
    common.setHardforkBy({ blockNumber: BigInt(number), timestamp: BigInt(timeOf(number)) });
    return common;
  }

  nonce(sender: Address): bigint {
    const nonce = this.#nonces.get(sender.toString()) ?? 0n;
    this.#nonces.set(sender.toString(), nonce + 1n);
    return nonce;
  }

  withdrawals(entries: [Address, bigint][]): WithdrawalData[] {
    return entries.map(([address, amount]) => ({ index: this.#withdrawalIndex++, validatorIndex: 7n, address, amount }));
  }

  async build(txs: (common: Common) => TypedTransaction[], withdrawals?: [Address, bigint][]): Promise<Block> {
    const parent = this.head;
    const number = Number(parent.header.number) + 1;
    const timestamp = BigInt(timeOf(number));
    this.vm.common.setHardforkBy({ blockNumber: BigInt(number), timestamp });
    const common = this.vm.common;
    const pow = !common.gteHardfork(Hardfork.Paris);
    const headerData = {
      timestamp,
      coinbase: MINER,
      extraData: utf8ToBytes(`multifork ${number}`),
      ...(pow ? {} : { mixHash: hash(`prevRandao ${number}`) }),
      ...(common.isActivatedEIP(4788) ? { parentBeaconBlockRoot: hash(`beacon root ${number}`) } : {}),
    };
    const builder = await buildBlock(this.vm, {
      parentBlock: parent,
      headerData,
      ...(common.isActivatedEIP(4895) ? { withdrawals: this.withdrawals(withdrawals ?? []) } : {}),
      // PoW: the canonical ethash difficulty for this parent and timestamp.
      blockOpts: pow ? { calcDifficultyFromHeader: parent.header } : {},
    });
    for (const tx of txs(this.commonAt(number))) {
      const result = await builder.addTransaction(tx, { allowNoBlobs: true });
      if (result.execResult.exceptionError !== undefined) {
        throw new Error(`block ${number}: tx ${bytesToHex(tx.hash())} failed: ${result.execResult.exceptionError.error}`);
      }
    }
    // Unsealed PoW: zero nonce and mixHash (see the header comment).
    const { block } = await builder.build();
    this.blocks.push(block);
    return block;
  }
}

async function main(): Promise<void> {
  const genesis = gethGenesis();
  const common = createCommonFromGethGenesis(genesis, { chain: "multifork", customCrypto: { kzg: BLOCK_BODY_KZG } });
  const stateManager = new MerkleStateManager({ common, caches: new Caches() });
  const genesisStateRoot = await genesisState(stateManager, genesis);
  // validateBlocks: every built block is checked against its parent when it is stored.
  const blockchain = await createBlockchain({ common, genesisStateRoot, validateBlocks: true, validateConsensus: false });
  const vm = await createVM({ common, stateManager, blockchain });
  const producer = new Producer(vm, common, await blockchain.getBlock(0n));

  const alice = { key: ALICE_KEY, address: ALICE };
  const bob = { key: BOB_KEY, address: BOB };
  const carol = { key: CAROL_KEY, address: CAROL };
  const store = createContractAddress(ALICE, 0n);
  const storeCall = (k: bigint, v: bigint) => concatBytes(slot(k), slot(v));

  // Block 1 (PoW): an EIP-155 legacy transfer, a pre-EIP-155 legacy transfer and a legacy deploy.
  await producer.build((c) => {
    const unprotected = c.copy();
    unprotected.setHardfork(Hardfork.TangerineWhistle); // signs without a chain id (v = 27/28)
    return [
      createLegacyTx({ nonce: producer.nonce(alice.address), gasPrice: 2n * GWEI, gasLimit: 200_000n, data: STORE_INIT }, { common: c }).sign(alice.key),
      createLegacyTx({ nonce: producer.nonce(bob.address), gasPrice: 2n * GWEI, gasLimit: 21_000n, to: SINK, value: 1000n }, { common: c }).sign(bob.key),
      createLegacyTx({ nonce: producer.nonce(carol.address), gasPrice: 3n * GWEI, gasLimit: 21_000n, to: SINK, value: 1n }, { common: unprotected }).sign(
        carol.key,
      ),
    ];
  });
  // Block 2 (PoW): EIP-1559 and EIP-2930 calls to the contract; the empty call records DIFFICULTY.
  await producer.build((c) => [
    createFeeMarket1559Tx(
      {
        nonce: producer.nonce(alice.address),
        maxFeePerGas: 10n * GWEI,
        maxPriorityFeePerGas: GWEI,
        gasLimit: 100_000n,
        to: store,
        data: storeCall(1n, 0xaaaan),
      },
      { common: c },
    ).sign(alice.key),
    createAccessList2930Tx(
      {
        nonce: producer.nonce(bob.address),
        gasPrice: 2n * GWEI,
        gasLimit: 100_000n,
        to: store,
        accessList: [{ address: store.toString(), storageKeys: [word(2)] }],
      },
      { common: c },
    ).sign(bob.key),
  ]);
  // Block 3 (PoW, terminal): empty.
  await producer.build(() => []);
  // Block 4 (first PoS block): the empty call records prevRandao; a transfer to the miner.
  await producer.build((c) => [
    createFeeMarket1559Tx(
      { nonce: producer.nonce(alice.address), maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: 2n * GWEI, gasLimit: 100_000n, to: store },
      { common: c },
    ).sign(alice.key),
    createFeeMarket1559Tx(
      { nonce: producer.nonce(carol.address), maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: 0n, gasLimit: 21_000n, to: MINER, value: 5n },
      { common: c },
    ).sign(carol.key),
  ]);
  // Block 5 (Paris): overwrites slot 1, clears slot 0xff (a storage refund).
  await producer.build((c) => [
    createFeeMarket1559Tx(
      {
        nonce: producer.nonce(alice.address),
        maxFeePerGas: 10n * GWEI,
        maxPriorityFeePerGas: GWEI,
        gasLimit: 100_000n,
        to: store,
        data: storeCall(1n, 0xbbbbn),
      },
      { common: c },
    ).sign(alice.key),
    createFeeMarket1559Tx(
      { nonce: producer.nonce(alice.address), maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI, gasLimit: 100_000n, to: store, data: storeCall(0xffn, 0n) },
      { common: c },
    ).sign(alice.key),
  ]);
  // Block 6 (first Shanghai block): withdrawals, and a deploy whose init code uses PUSH0.
  const store2 = createContractAddress(BOB, 2n);
  await producer.build(
    (c) => [
      createFeeMarket1559Tx(
        { nonce: producer.nonce(bob.address), maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI, gasLimit: 200_000n, data: STORE_INIT_PUSH0 },
        { common: c },
      ).sign(bob.key),
    ],
    [
      [VALIDATOR, 32n * GWEI], // EIP-4895: amounts in gwei
      [ALICE, 1n],
    ],
  );
  // Block 7 (Shanghai): a withdrawal and no transactions.
  await producer.build(() => [], [[VALIDATOR, 3n]]);
  // Block 8 (first Cancun block): a deploy of the Cancun-opcodes contract.
  const cancun = createContractAddress(CAROL, 2n);
  await producer.build((c) => [
    createFeeMarket1559Tx(
      { nonce: producer.nonce(carol.address), maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI, gasLimit: 200_000n, data: CANCUN_INIT },
      { common: c },
    ).sign(carol.key),
  ]);
  // Block 9 (Cancun): a blob tx (one versioned hash, EIP-4844; blobs travel beside blocks, never in them).
  const versionedHash = concatBytes(new Uint8Array([1]), hash("blob").subarray(1));
  await producer.build((c) => [
    createBlob4844Tx(
      {
        nonce: producer.nonce(alice.address),
        maxFeePerGas: 10n * GWEI,
        maxPriorityFeePerGas: GWEI,
        maxFeePerBlobGas: 100n,
        gasLimit: 100_000n,
        to: cancun,
        blobVersionedHashes: [bytesToHex(versionedHash)],
      },
      { common: c },
    ).sign(alice.key),
  ]);
  // Block 10 (first Prague block): an EIP-7702 delegation of Bob to the store contract, used in
  // the same tx, and an EIP-7002 withdrawal request (48-byte pubkey + 8-byte amount, fee in value).
  await producer.build((c) => {
    const authorization = eoaCode7702SignAuthorization(
      { chainId: intToHex(CHAIN_ID), address: store.toString(), nonce: bigIntToHex(producer.nonce(bob.address)) },
      bob.key,
    );
    return [
      createEOACode7702Tx(
        {
          nonce: producer.nonce(alice.address),
          maxFeePerGas: 10n * GWEI,
          maxPriorityFeePerGas: GWEI,
          gasLimit: 200_000n,
          to: BOB,
          data: storeCall(7n, 0x7702n),
          authorizationList: [authorization],
        },
        { common: c },
      ).sign(alice.key),
      createFeeMarket1559Tx(
        {
          nonce: producer.nonce(carol.address),
          maxFeePerGas: 10n * GWEI,
          maxPriorityFeePerGas: GWEI,
          gasLimit: 300_000n,
          to: createAddressFromString(WITHDRAWAL_REQUESTS),
          value: 1n,
          data: concatBytes(hash("validator pubkey"), hash("validator pubkey").subarray(0, 16), setLengthLeft(hexToBytes(bigIntToHex(GWEI)), 8)),
        },
        { common: c },
      ).sign(carol.key),
    ];
  });
  // Block 11 (Prague): a plain transfer and one more withdrawal.
  await producer.build(
    (c) => [
      createFeeMarket1559Tx(
        { nonce: producer.nonce(bob.address), maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI, gasLimit: 21_000n, to: SINK, value: 2n },
        { common: c },
      ).sign(bob.key),
    ],
    [[VALIDATOR, 5n]],
  );

  const blocks = producer.blocks.slice(1);
  if (blocks.length !== HEAD) throw new Error(`expected ${HEAD} blocks, built ${blocks.length}`);
  const head = producer.head;

  // What a reader checks after import: read back from the producer's own state.
  const balance = async (address: Address) => bigIntToHex((await stateManager.getAccount(address))?.balance ?? 0n);
  const storage = async (address: Address, key: bigint | number) => {
    const value = await stateManager.getStorage(address, slot(key));
    return bytesToHex(setLengthLeft(value, 32));
  };
  const beaconRoots = createAddressFromString(BEACON_ROOTS);
  const history = createAddressFromString(HISTORY);
  const code = async (address: Address) => bytesToHex(await stateManager.getCode(address));
  const expected = {
    description: "Generated by scripts/generate-multifork-chain.ts: PoW blocks 1-3, Paris 4-5, Shanghai 6-7, Cancun 8-9, Prague 10-11",
    headNumber: intToHex(HEAD),
    headHash: bytesToHex(head.hash()),
    stateRoot: bytesToHex(head.header.stateRoot),
    forks: {
      terminalTotalDifficulty: bigIntToHex(GENESIS_DIFFICULTY * BigInt(POW_BLOCKS + 1)),
      mergeBlock: POW_BLOCKS + 1,
      shanghaiTime: SHANGHAI_TIME,
      cancunTime: CANCUN_TIME,
      pragueTime: PRAGUE_TIME,
    },
    blocks: await Promise.all(
      producer.blocks.map(async (block) => ({
        number: intToHex(Number(block.header.number)),
        hash: bytesToHex(block.hash()),
        hardfork: block.common.hardfork(),
        timestamp: bigIntToHex(block.header.timestamp),
        stateRoot: bytesToHex(block.header.stateRoot),
        transactions: block.transactions.map((tx) => bytesToHex(tx.hash())),
      })),
    ),
    /** Fixture keys (derived from labels in the generator): tests send from them on top of the head. */
    keys: { alice: bytesToHex(ALICE_KEY), bob: bytesToHex(BOB_KEY), carol: bytesToHex(CAROL_KEY) },
    addresses: {
      alice: ALICE.toString(),
      bob: BOB.toString(),
      carol: CAROL.toString(),
      miner: MINER.toString(),
      validator: VALIDATOR.toString(),
      sink: SINK.toString(),
      store: store.toString(),
      store2: store2.toString(),
      cancun: cancun.toString(),
    },
    balances: Object.fromEntries(
      await Promise.all(
        (
          [
            ["alice", ALICE],
            ["bob", BOB],
            ["carol", CAROL],
            ["miner", MINER],
            ["validator", VALIDATOR],
            ["sink", SINK],
          ] as const
        ).map(async ([name, address]) => [name, await balance(address)] as const),
      ),
    ),
    storage: [
      { address: store.toString(), slot: word(1), value: await storage(store, 1), note: "overwritten in block 5" },
      { address: store.toString(), slot: word(2), value: await storage(store, 2), note: "block 2's empty call: DIFFICULTY" },
      { address: store.toString(), slot: word(4), value: await storage(store, 4), note: "block 4's empty call: prevRandao" },
      { address: store.toString(), slot: word(0xff), value: await storage(store, 0xff), note: "set by the constructor, cleared in block 5" },
      { address: store2.toString(), slot: word(0), value: await storage(store2, 0), note: "PUSH0 deploy (Shanghai)" },
      { address: cancun.toString(), slot: word(0), value: await storage(cancun, 0), note: "TLOAD + BLOBBASEFEE" },
      { address: cancun.toString(), slot: word(1), value: await storage(cancun, 1), note: "BLOBHASH(0)" },
      { address: BOB.toString(), slot: word(7), value: await storage(BOB, 7), note: "written through Bob's EIP-7702 delegation" },
      { address: HISTORY, slot: word(HEAD - 1), value: await storage(history, HEAD - 1), note: "EIP-2935: the head's parent hash" },
      {
        address: BEACON_ROOTS,
        slot: word((timeOf(HEAD) % 8191) + 8191),
        value: await storage(beaconRoots, (timeOf(HEAD) % 8191) + 8191),
        note: "EIP-4788: the head's parent beacon root",
      },
    ],
    code: { bob: await code(BOB), store2: await code(store2) },
  };

  mkdirSync(OUT, { recursive: true });
  writeFileSync(resolve(OUT, "genesis.json"), `${JSON.stringify(genesis, null, 2)}\n`);
  writeFileSync(resolve(OUT, "chain.rlp"), concatBytes(...blocks.map((block) => block.serialize())));
  writeFileSync(resolve(OUT, "expected.json"), `${JSON.stringify(expected, null, 2)}\n`);
  console.log(`wrote ${OUT}: ${blocks.length} blocks, head ${expected.headHash}, state root ${expected.stateRoot}`);
}

await main();
