/**
 * State dump and load (`preconf_dumpState` / `preconf_loadState`, the `state` option,
 * `preconf node --dump-state / --load-state`): a versioned JSON document that holds everything a
 * chain needs to continue where it stopped, and a restore that rebuilds a chain from it without
 * re-executing anything.
 *
 * Why not re-execute the blocks: dev edits (hardhat_setBalance...) make the live state differ from
 * what the blocks give, so `accounts` is the authority for the latest (pre-confirmed) state; blocks
 * and receipts are stored as they are and only indexed. The state of blocks before the dump is not
 * kept, so reads at those blocks answer "historical state not available".
 */
import { createBlockFromRLP } from "@ethereumjs/block";
import { createBlockchain } from "@ethereumjs/blockchain";
import { createTxFromRLP } from "@ethereumjs/tx";
import {
  Account,
  bigIntToHex,
  bytesToHex,
  createAddressFromString,
  equalsBytes,
  hexToBytes,
  setLengthLeft,
} from "@ethereumjs/util";
import { Bloom, createVM } from "@ethereumjs/vm";
import { z } from "zod";

import { feesOf, txCost } from "./admission.ts";
import { assertSender } from "./assertedSender.ts";
import { OpenBlock } from "./openBlock.ts";
import { createStateManager } from "./stateManager.ts";
import { MAX_TIMESTAMP } from "./time.ts";
import { address, bytes, hash, quantity } from "../rpc/schema.ts";

import type { Block } from "@ethereumjs/block";
import type { Blockchain } from "@ethereumjs/blockchain";
import type { Common, GethGenesis } from "@ethereumjs/common";
import type { TypedTransaction } from "@ethereumjs/tx";
import type { Address } from "@ethereumjs/util";
import type { TxReceipt, VM } from "@ethereumjs/vm";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import type { Hex } from "../rpc/schema.ts";
import type { PooledTx } from "./mempool.ts";
import type { LogRecord, SealedBlock, TxRecord } from "./records.ts";

export const STATE_DUMP_FORMAT = "hardhat-preconf/state";
export const STATE_DUMP_VERSION = 1;

// ── The format (version 1) ─────────────────────────────────────────────────────────────────────

/** One account: quantities without leading zeros; storage slots and values as 32-byte words. */
export interface DumpAccount {
  balance: Hex;
  nonce: Hex;
  code: Hex;
  storage: Record<Hex, Hex>;
}

export interface DumpLog {
  address: Hex;
  topics: Hex[];
  data: Hex;
}

/** What a receipt needs beyond the tx itself. `root` replaces `status` before Byzantium. */
export interface DumpReceipt {
  from: Hex;
  status: Hex;
  root?: Hex;
  gasUsed: Hex;
  cumulativeGasUsed: Hex;
  effectiveGasPrice: Hex;
  contractAddress: Hex | null;
  /** Index of the fragment that pre-confirmed the tx (0 for imported blocks). */
  fragment: number;
  logs: DumpLog[];
  blobGasUsed?: Hex;
}

export interface DumpBlock {
  /** The block as RLP (header, txs, uncles, withdrawals). */
  rlp: Hex;
  /** Fragments the block was built in (0 for the genesis and imported blocks). */
  fragments: number;
  /** One per tx of the block, in order. */
  receipts: DumpReceipt[];
}

export interface StateDump {
  format: typeof STATE_DUMP_FORMAT;
  version: typeof STATE_DUMP_VERSION;
  chainId: Hex;
  /** The geth genesis the chain started from (its fork schedule names the chain's rules). */
  genesis: GethGenesis;
  head: {
    number: Hex;
    hash: Hex;
    stateRoot: Hex;
    /** Accounts whose state at the head block differs from `accounts` (`null`: absent there). */
    accounts: Record<Hex, DumpAccount | null>;
  };
  /** evm_increaseTime's offset (seconds) and evm_setNextBlockTimestamp's pending value. */
  time: { offset: Hex; nextTimestamp: Hex | null };
  /** Every sealed block, the genesis first. */
  blocks: DumpBlock[];
  /** The open block, when it has pre-confirmed fragments. */
  open: {
    header: {
      number: Hex;
      parentHash: Hex;
      timestamp: Hex;
      gasLimit: Hex;
      baseFeePerGas: Hex;
      coinbase: Hex;
      prevRandao: Hex;
      excessBlobGas: Hex | null;
    };
    fragments: number;
    transactions: (DumpReceipt & { raw: Hex })[];
  } | null;
  /** Pooled txs in arrival order; `from` is taken as the sender (impersonated txs have no real signature). */
  pool: { raw: Hex; from: Hex }[];
  /** The latest (pre-confirmed) state: every account, sorted by address. */
  accounts: Record<Hex, DumpAccount>;
  /**
   * A forked chain's dump: the upstream block it forks (not the URL, which may hold a key). Its
   * first block is the fork block, `accounts` hold only what the fork wrote (docs/forking.md), and
   * it loads only into a fork of that same block.
   */
  fork?: { blockNumber: Hex; blockHash: Hex };
}

// ── Validation (zod; a wrong shape is -32602 naming the field) ───────────────────────────────

const word = hash;
const count = z.number().int().nonnegative().safe();

const dumpAccount = z
  .object({ balance: quantity, nonce: quantity, code: bytes, storage: z.record(word, word) })
  .strict();

const dumpReceipt = z
  .object({
    from: address,
    status: z.enum(["0x0", "0x1"]),
    root: hash.optional(),
    gasUsed: quantity,
    cumulativeGasUsed: quantity,
    effectiveGasPrice: quantity,
    contractAddress: address.nullable(),
    fragment: count,
    logs: z.array(z.object({ address, topics: z.array(hash), data: bytes }).strict()),
    blobGasUsed: quantity.optional(),
  })
  .strict();

const geth = z
  .object({ config: z.object({ chainId: z.number().int().positive() }).passthrough(), alloc: z.record(z.unknown()) })
  .passthrough();

export const stateDumpSchema = z
  .object({
    format: z.literal(STATE_DUMP_FORMAT, { errorMap: () => ({ message: `expected "${STATE_DUMP_FORMAT}"` }) }),
    version: z.literal(STATE_DUMP_VERSION, {
      errorMap: () => ({ message: `unsupported dump version (this hardhat-preconf reads version ${STATE_DUMP_VERSION})` }),
    }),
    chainId: quantity,
    // Kept as given: it is written back unchanged by the next dump.
    genesis: z
      .unknown()
      .superRefine((value, ctx) => {
        const parsed = geth.safeParse(value);
        if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, code: z.ZodIssueCode.custom });
      })
      .transform((value) => structuredClone(value) as GethGenesis),
    head: z.object({ number: quantity, hash, stateRoot: hash, accounts: z.record(address, dumpAccount.nullable()) }).strict(),
    time: z.object({ offset: quantity, nextTimestamp: quantity.nullable() }).strict(),
    blocks: z.array(z.object({ rlp: bytes, fragments: count, receipts: z.array(dumpReceipt) }).strict()).min(1, "must hold the genesis block at least"),
    open: z
      .object({
        header: z
          .object({
            number: quantity,
            parentHash: hash,
            timestamp: quantity,
            gasLimit: quantity,
            baseFeePerGas: quantity,
            coinbase: address,
            prevRandao: hash,
            excessBlobGas: quantity.nullable(),
          })
          .strict(),
        fragments: count.min(1),
        transactions: z.array(dumpReceipt.extend({ raw: bytes })),
      })
      .strict()
      .nullable(),
    pool: z.array(z.object({ raw: bytes, from: address }).strict()),
    accounts: z.record(address, dumpAccount),
    fork: z.object({ blockNumber: quantity, blockHash: hash }).strict().optional(),
  })
  .strict();

export type ParsedStateDump = z.output<typeof stateDumpSchema>;
type ParsedAccount = z.output<typeof dumpAccount>;
type ParsedReceipt = z.output<typeof dumpReceipt>;

/** A dump that has the right shape but cannot be loaded; `path` is relative to the dump. */
export class StateDumpError extends Error {
  readonly path: string;
  readonly reason: string;

  constructor(path: string, reason: string) {
    super(`state dump ${path}: ${reason}`);
    this.name = "StateDumpError";
    this.path = path;
    this.reason = reason;
  }
}

// ── Which accounts and slots exist ─────────────────────────────────────────────────────────────

/**
 * The state trie is keyed by hashes, so it cannot list its addresses or slots. This index records
 * every address and slot written through the live state manager (genesis, imports, txs, dev
 * edits); a dump reads exactly those, and checks the slot count against the trie so that nothing
 * is ever left out silently.
 */
export class AccountIndex {
  readonly #slots = new Map<Hex, Set<Hex>>();

  /** Wraps `putAccount` and `putStorage` of this state manager instance (views use their own copies). */
  static attach(stateManager: MerkleStateManager): AccountIndex {
    const index = new AccountIndex();
    const putAccount = stateManager.putAccount.bind(stateManager);
    const putStorage = stateManager.putStorage.bind(stateManager);
    stateManager.putAccount = (where: Address, account: Account | undefined) => {
      index.#slotsOf(where.toString() as Hex);
      return putAccount(where, account);
    };
    stateManager.putStorage = (where: Address, key: Uint8Array, value: Uint8Array) => {
      index.#slotsOf(where.toString() as Hex).add(bytesToHex(key) as Hex);
      return putStorage(where, key, value);
    };
    return index;
  }

  #slotsOf(who: Hex): Set<Hex> {
    let slots = this.#slots.get(who);
    if (slots === undefined) {
      slots = new Set();
      this.#slots.set(who, slots);
    }
    return slots;
  }

  /** Every account of the state `vm` is at, sorted by address. */
  async read(vm: VM): Promise<Map<Hex, DumpAccount>> {
    const stateManager = vm.stateManager;
    const accounts = new Map<Hex, DumpAccount>();
    for (const who of [...this.#slots.keys()].sort()) {
      const where = createAddressFromString(who);
      const account = await stateManager.getAccount(where);
      if (account === undefined) continue;
      const storage: Record<Hex, Hex> = {};
      let stored = 0;
      for (const slot of [...this.#slots.get(who)!].sort()) {
        const value = await stateManager.getStorage(where, hexToBytes(slot));
        if (value.length === 0) continue;
        storage[slot] = bytesToHex(setLengthLeft(value, 32)) as Hex;
        stored++;
      }
      const inTrie = Object.keys((await stateManager.dumpStorage?.(where)) ?? {}).length;
      if (inTrie !== stored) throw new Error(`state dump: account ${who} holds ${inTrie} storage slots, ${stored} of them known`);
      accounts.set(who, {
        balance: bigIntToHex(account.balance) as Hex,
        nonce: bigIntToHex(account.nonce) as Hex,
        code: bytesToHex(await stateManager.getCode(where)) as Hex,
        storage,
      });
    }
    return accounts;
  }
}

// ── Dump ───────────────────────────────────────────────────────────────────────────────────────

export interface DumpSource {
  chainId: bigint;
  genesis: GethGenesis;
  sealed: readonly SealedBlock[];
  open: OpenBlock;
  pool: readonly PooledTx[];
  timeOffset: bigint;
  nextTimestamp: bigint | undefined;
  index: AccountIndex;
  live: VM;
  /** Runs a read on the head block's state; undefined when that state is not available (loaded dump). */
  atHead: (<T>(read: (vm: VM) => Promise<T>) => Promise<T>) | undefined;
  /** The upstream block a forked chain forks. */
  fork?: { blockNumber: bigint; blockHash: Hex } | undefined;
}

export async function captureState(source: DumpSource): Promise<StateDump> {
  const head = source.sealed[source.sealed.length - 1]!;
  const accounts = await source.index.read(source.live);
  const headAccounts: Record<Hex, DumpAccount | null> = {};
  const liveRoot = await source.live.stateManager.getStateRoot();
  if (!equalsBytes(liveRoot, head.block.header.stateRoot) && source.atHead !== undefined) {
    const atHead = await source.atHead((vm) => source.index.read(vm));
    for (const who of [...new Set([...accounts.keys(), ...atHead.keys()])].sort()) {
      const there = atHead.get(who) ?? null;
      if (JSON.stringify(there) !== JSON.stringify(accounts.get(who) ?? null)) headAccounts[who] = there;
    }
  }
  const open = source.open;
  return {
    format: STATE_DUMP_FORMAT,
    version: STATE_DUMP_VERSION,
    chainId: bigIntToHex(source.chainId) as Hex,
    genesis: JSON.parse(JSON.stringify(source.genesis)) as GethGenesis,
    head: {
      number: bigIntToHex(head.block.header.number) as Hex,
      hash: head.hash,
      stateRoot: bytesToHex(head.block.header.stateRoot) as Hex,
      accounts: headAccounts,
    },
    time: {
      offset: bigIntToHex(source.timeOffset) as Hex,
      nextTimestamp: source.nextTimestamp === undefined ? null : (bigIntToHex(source.nextTimestamp) as Hex),
    },
    blocks: source.sealed.map((sealed) => ({
      rlp: bytesToHex(sealed.block.serialize()) as Hex,
      fragments: sealed.fragmentCount,
      receipts: sealed.transactions.map(receiptOf),
    })),
    open: open.fragments.length === 0 ? null : {
      header: {
        number: bigIntToHex(open.header.number) as Hex,
        parentHash: open.header.parentHash,
        timestamp: bigIntToHex(open.header.timestamp) as Hex,
        gasLimit: bigIntToHex(open.header.gasLimit) as Hex,
        baseFeePerGas: bigIntToHex(open.header.baseFeePerGas) as Hex,
        coinbase: open.header.coinbase,
        prevRandao: open.header.prevRandao,
        excessBlobGas: open.header.excessBlobGas === undefined ? null : (bigIntToHex(open.header.excessBlobGas) as Hex),
      },
      fragments: open.fragments.length,
      transactions: open.transactions.map((record) => ({ raw: bytesToHex(record.tx.serialize()) as Hex, ...receiptOf(record) })),
    },
    pool: [...source.pool].sort((a, b) => a.seq - b.seq).map((entry) => ({ raw: bytesToHex(entry.tx.serialize()) as Hex, from: entry.sender })),
    accounts: Object.fromEntries(accounts),
    ...(source.fork !== undefined && { fork: { blockNumber: bigIntToHex(source.fork.blockNumber) as Hex, blockHash: source.fork.blockHash } }),
  };
}

function receiptOf(record: TxRecord): DumpReceipt {
  const receipt = record.receipt;
  return {
    from: record.from,
    status: record.status === 1 ? "0x1" : "0x0",
    ...("stateRoot" in receipt && { root: bytesToHex(receipt.stateRoot) as Hex }),
    gasUsed: bigIntToHex(record.gasUsed) as Hex,
    cumulativeGasUsed: bigIntToHex(record.cumulativeGasUsed) as Hex,
    effectiveGasPrice: bigIntToHex(record.effectiveGasPrice) as Hex,
    contractAddress: record.contractAddress ?? null,
    fragment: record.fragmentIndex,
    logs: record.logs.map(({ address: who, topics, data }) => ({ address: who, topics, data })),
    ...(record.blobGasUsed !== undefined && { blobGasUsed: bigIntToHex(record.blobGasUsed) as Hex }),
  };
}

// ── Load ───────────────────────────────────────────────────────────────────────────────────────

/** A chain rebuilt from a dump, ready for the Chain to take over in one step. */
export interface RestoredState {
  vm: VM;
  blockchain: Blockchain;
  index: AccountIndex;
  /** The genesis first. */
  sealed: SealedBlock[];
  open: OpenBlock | undefined;
  /** In arrival order; the pool gives them new sequence numbers. */
  pool: Omit<PooledTx, "seq">[];
  timeOffset: bigint;
  nextTimestamp: bigint | undefined;
  /** The live state differs from the head block's (dev edits, pre-confirmed txs). */
  latestEdited: boolean;
  /** The head block's own state could be rebuilt (else `latest` reads the live state). */
  headStateAvailable: boolean;
  genesis: GethGenesis;
}

/** How a forked chain's dump is restored (fork/dump.ts): its blocks start at the fork block, its state reads the upstream. */
export interface ForkRestore {
  blockNumber: bigint;
  blockHash: Hex;
  /** The fork block as the chain holds it (the upstream's hash). */
  firstBlock(decoded: Block): Block;
  /** A state manager that takes the dump's accounts as they are. */
  stateManager(): MerkleStateManager;
  /** Called once the dump's accounts are written. */
  stateWritten(stateManager: MerkleStateManager): void;
  blockchain(blocks: Block[]): Promise<Blockchain>;
}

/**
 * Rebuilds a chain from `dump` on its own state manager and blockchain: nothing the caller holds
 * changes, so a dump that fails here leaves the running chain as it was. `now` is the clock's
 * second, for the time checks. Throws StateDumpError.
 */
export async function restoreState(common: Common, dump: ParsedStateDump, now: bigint, fork?: ForkRestore): Promise<RestoredState> {
  if (dump.chainId !== common.chainId()) throw new StateDumpError("chainId", `the dump is of chain ${dump.chainId}, this chain is ${common.chainId()}`);
  checkTime(dump, now);
  if (fork === undefined && dump.fork !== undefined) {
    throw new StateDumpError("fork", `the dump is of a fork of block ${dump.fork.blockNumber}: load it into a fork of that block (the fork option with the state option)`);
  }
  if (fork !== undefined && (dump.fork?.blockNumber !== fork.blockNumber || dump.fork.blockHash !== fork.blockHash)) {
    throw new StateDumpError("fork", `this chain forks block ${fork.blockNumber} (${fork.blockHash}); the dump is ${dump.fork === undefined ? "not of a fork" : `of a fork of block ${dump.fork.blockNumber} (${dump.fork.blockHash})`}`);
  }
  const first = fork?.blockNumber ?? 0n;

  const blocks = dump.blocks.map((entry, i) => decodeBlock(entry.rlp, common, `blocks[${i}].rlp`));
  if (fork !== undefined && blocks[0]!.header.number === first) blocks[0] = fork.firstBlock(blocks[0]!);
  const sealed: SealedBlock[] = [];
  blocks.forEach((block, i) => {
    const path = `blocks[${i}]`;
    if (block.header.number !== first + BigInt(i)) throw new StateDumpError(`${path}.rlp`, `is block ${block.header.number}, expected block ${first + BigInt(i)}`);
    if (i > 0 && !equalsBytes(block.header.parentHash, blocks[i - 1]!.hash())) throw new StateDumpError(`${path}.rlp`, "does not follow the previous block");
    const receipts = dump.blocks[i]!.receipts;
    if (receipts.length !== block.transactions.length) {
      throw new StateDumpError(`${path}.receipts`, `has ${receipts.length} receipts for ${block.transactions.length} transactions`);
    }
    checkTimestamp(block.header.timestamp, `${path}.rlp`);
    const blockHash = bytesToHex(block.hash()) as Hex;
    const records = recordsOf(receipts, block.transactions, { number: block.header.number, timestamp: block.header.timestamp, hash: blockHash, header: block.header }, `${path}.receipts`);
    sealed.push({ block, hash: blockHash, transactions: records, fragmentCount: dump.blocks[i]!.fragments });
  });
  const head = sealed[sealed.length - 1]!;
  if (head.block.header.number !== dump.head.number || head.hash !== dump.head.hash || bytesToHex(head.block.header.stateRoot) !== dump.head.stateRoot) {
    throw new StateDumpError("head", `does not match the last block (number ${head.block.header.number}, hash ${head.hash})`);
  }

  const open = dump.open === null ? undefined : openBlockOf(common, dump.open, head);
  const pool = dump.pool.map((entry, i) => {
    const tx = decodeTx(entry.raw, common, `pool[${i}].raw`, entry.from);
    const { feeCap, tipCap } = feesOf(tx);
    return { tx, hash: bytesToHex(tx.hash()) as Hex, sender: entry.from, nonce: tx.nonce, feeCap, tipCap, cost: txCost(tx) };
  });

  // The state: the live accounts, then the head block's (the live ones with `head.accounts` applied).
  const stateManager = fork?.stateManager() ?? createStateManager(common);
  const index = AccountIndex.attach(stateManager);
  for (const [who, account] of Object.entries(dump.accounts)) if (account !== undefined) await writeAccount(stateManager, who as Hex, account);
  const liveRoot = await stateManager.getStateRoot();
  let headRoot = liveRoot;
  if (Object.keys(dump.head.accounts).length > 0) {
    for (const [who, account] of Object.entries(dump.head.accounts)) {
      const where = createAddressFromString(who);
      await stateManager.deleteAccount(where);
      if (account !== null && account !== undefined) await writeAccount(stateManager, who as Hex, account);
    }
    headRoot = await stateManager.getStateRoot();
    await stateManager.setStateRoot(liveRoot);
  }
  fork?.stateWritten(stateManager);

  let blockchain: Blockchain;
  if (fork !== undefined) {
    blockchain = await fork.blockchain(blocks);
  } else {
    blockchain = await createBlockchain({ common, genesisBlock: blocks[0]!, validateBlocks: false, validateConsensus: false });
    for (const block of blocks.slice(1)) await blockchain.putBlock(block);
  }
  const vm = await createVM({ common, stateManager, blockchain });

  return {
    vm,
    blockchain,
    index,
    sealed,
    open,
    pool,
    timeOffset: dump.time.offset,
    nextTimestamp: dump.time.nextTimestamp ?? undefined,
    latestEdited: !equalsBytes(liveRoot, head.block.header.stateRoot),
    headStateAvailable: equalsBytes(headRoot, head.block.header.stateRoot),
    genesis: dump.genesis,
  };
}

/**
 * The dump's time as the dev methods check it (evm_increaseTime, evm_setNextBlockTimestamp): no
 * block it leads to may be later than MAX_TIMESTAMP, or every later seal would fail.
 */
function checkTime(dump: ParsedStateDump, now: bigint): void {
  const { offset, nextTimestamp } = dump.time;
  if (offset > MAX_TIMESTAMP || now + offset > MAX_TIMESTAMP) {
    throw new StateDumpError("time.offset", `the clock (${now}) plus ${offset} seconds exceeds the latest supported timestamp ${MAX_TIMESTAMP}`);
  }
  if (nextTimestamp !== null) checkTimestamp(nextTimestamp, "time.nextTimestamp");
  if (dump.open !== null) checkTimestamp(dump.open.header.timestamp, "open.header.timestamp");
}

function checkTimestamp(timestamp: bigint, path: string): void {
  if (timestamp > MAX_TIMESTAMP) throw new StateDumpError(path, `timestamp ${timestamp} exceeds the latest supported timestamp ${MAX_TIMESTAMP}`);
}

async function writeAccount(stateManager: MerkleStateManager, who: Hex, account: ParsedAccount): Promise<void> {
  const where = createAddressFromString(who);
  await stateManager.putAccount(where, new Account(account.nonce, account.balance));
  if (account.code.length > 0) await stateManager.putCode(where, account.code);
  for (const [slot, value] of Object.entries(account.storage)) {
    if (value !== undefined && BigInt(value) !== 0n) await stateManager.putStorage(where, hexToBytes(slot as Hex), hexToBytes(value as Hex));
  }
}

function openBlockOf(common: Common, dump: NonNullable<ParsedStateDump["open"]>, head: SealedBlock): OpenBlock {
  const { header } = dump;
  if (header.number !== head.block.header.number + 1n || header.parentHash !== head.hash) {
    throw new StateDumpError("open.header", `does not follow the head block ${head.block.header.number}`);
  }
  common.setHardforkBy({ blockNumber: header.number, timestamp: header.timestamp });
  const open = new OpenBlock(common, { ...header, excessBlobGas: header.excessBlobGas ?? undefined });
  const txs = dump.transactions.map((entry, i) => decodeTx(entry.raw, common, `open.transactions[${i}].raw`, entry.from));
  const records = recordsOf(dump.transactions, txs, { number: header.number, timestamp: header.timestamp, hash: undefined, header: open.executionBlock.header }, "open.transactions");
  // Fragments are rebuilt in order: each one's txs, then its cumulative gas.
  let next = 0;
  for (let index = 0; index < dump.fragments; index++) {
    const start = next;
    while (next < records.length && records[next]!.fragmentIndex === index) {
      const record = records[next++]!;
      open.transactions.push(record);
      open.gasUsed = record.cumulativeGasUsed;
      open.blobGasUsed += record.blobGasUsed ?? 0n;
      open.logCount += record.logs.length;
    }
    open.addFragment(records.slice(start, next));
  }
  if (next < records.length) throw new StateDumpError(`open.transactions[${next}].fragment`, `must be in increasing order and below ${dump.fragments}`);
  return open;
}

interface BlockContext {
  number: bigint;
  timestamp: bigint;
  hash: Hex | undefined;
  header: Block["header"];
}

function recordsOf(receipts: readonly ParsedReceipt[], txs: readonly TypedTransaction[], block: BlockContext, path: string): TxRecord[] {
  let logIndex = 0;
  return receipts.map((json, index) => {
    const tx = txs[index]!;
    const logs: LogRecord[] = json.logs.map((log) => ({ ...log, data: bytesToHex(log.data) as Hex, logIndex: logIndex++ }));
    const bloom = new Bloom(undefined, tx.common);
    for (const log of logs) {
      bloom.add(hexToBytes(log.address));
      for (const topic of log.topics) bloom.add(hexToBytes(topic));
    }
    const status = json.status === "0x1" ? 1 : 0;
    const receiptLogs: TxReceipt["logs"] = logs.map((log) => [hexToBytes(log.address), log.topics.map((topic) => hexToBytes(topic)), hexToBytes(log.data)]);
    const common = { cumulativeBlockGasUsed: json.cumulativeGasUsed, bitvector: bloom.bitvector, logs: receiptLogs };
    const receipt: TxReceipt = json.root === undefined ? { ...common, status } : { ...common, stateRoot: hexToBytes(json.root) };
    if (json.blobGasUsed !== undefined && block.header.excessBlobGas === undefined) {
      throw new StateDumpError(`${path}[${index}].blobGasUsed`, "given for a block without blob gas");
    }
    return {
      hash: bytesToHex(tx.hash()) as Hex,
      tx,
      from: json.from,
      blockNumber: block.number,
      index,
      blockTimestamp: block.timestamp,
      fragmentIndex: json.fragment,
      blockHash: block.hash,
      status,
      gasUsed: json.gasUsed,
      cumulativeGasUsed: json.cumulativeGasUsed,
      effectiveGasPrice: json.effectiveGasPrice,
      contractAddress: json.contractAddress ?? undefined,
      logs,
      logsBloom: bloom.bitvector,
      receipt,
      blobGasUsed: json.blobGasUsed,
      blobGasPrice: json.blobGasUsed === undefined ? undefined : block.header.getBlobGasPrice(),
    };
  });
}

function decodeBlock(rlp: Uint8Array, common: Common, path: string): Block {
  try {
    // The chain built or imported these blocks already: only their encoding is checked here.
    return createBlockFromRLP(rlp, { common: common.copy(), setHardfork: true, skipConsensusFormatValidation: true });
  } catch (error) {
    throw new StateDumpError(path, error instanceof Error ? error.message : String(error));
  }
}

/** A tx whose sender is the dump's `from`, never recovered (as for impersonated txs). */
function decodeTx(raw: Uint8Array, common: Common, path: string, from: Hex): TypedTransaction {
  let tx: TypedTransaction;
  try {
    tx = createTxFromRLP(raw, { common, freeze: false });
  } catch (error) {
    throw new StateDumpError(path, error instanceof Error ? error.message : String(error));
  }
  const sender = createAddressFromString(from);
  // A signature that recovers `from` is a signed tx; anything else was impersonated (asserted sender).
  let recovered: Address | undefined;
  try {
    recovered = tx.getSenderAddress();
  } catch {
    recovered = undefined;
  }
  if (recovered?.equals(sender) === true) return tx;
  return assertSender(tx, sender);
}
