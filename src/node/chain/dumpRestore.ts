/**
 * Rebuilds a chain from a state dump (the format: stateDump.ts) without re-executing anything:
 * blocks and receipts are decoded and indexed, the state is written from the dump's accounts.
 */
import { createBlockFromRLP } from "@ethereumjs/block";
import { createTxFromRLP } from "@ethereumjs/tx";
import { Account, bytesToHex, createAddressFromString, equalsBytes, hexToBytes } from "@ethereumjs/util";
import { Bloom } from "@ethereumjs/vm";

import { AccountIndex } from "../state/accountIndex.ts";
import { createLiveState } from "../state/liveState.ts";
import { feesOf, txCost } from "../pool/admission.ts";
import { assertSender } from "../ethereumjs/assertedSender.ts";
import { asBlockchain } from "../ethereumjs/blockchain.ts";
import { LightBlockchain } from "./lightBlockchain.ts";
import { OpenBlock } from "../execution/openBlock.ts";
import { StateDumpError } from "../state/stateDump.ts";
import { MAX_TIMESTAMP } from "../common/time.ts";
import { flatHex } from "../common/hex.ts";
import { createChainVm } from "../execution/vm.ts";

import type { Block } from "@ethereumjs/block";
import type { Blockchain } from "@ethereumjs/blockchain";
import type { Common, GethGenesis, StateManagerInterface } from "@ethereumjs/common";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import type { TypedTransaction } from "@ethereumjs/tx";
import type { Address } from "@ethereumjs/util";
import type { TxReceipt, VM } from "@ethereumjs/vm";
import type { Hex } from "../common/types.ts";
import type { ChainConfig } from "./chainTypes.ts";
import type { ForkSchedule } from "../profiles/forkSchedule.ts";
import type { PooledTx } from "../pool/mempool.ts";
import type { LogRecord, SealedBlock, TxRecord } from "./records.ts";
import type { ParsedAccount, ParsedReceipt, ParsedStateDump } from "../state/stateDump.ts";

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
  /** The head's state when it differs from what its header's root says: dev edits that landed on it (stateEdits.ts). */
  headEditedRoot: Uint8Array | undefined;
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
export async function restoreState(
  common: Common,
  config: Pick<ChainConfig, "schedule" | "precompiles">,
  now: bigint,
  dump: ParsedStateDump,
  fork?: ForkRestore,
): Promise<RestoredState> {
  if (dump.chainId !== common.chainId()) throw new StateDumpError("chainId", `the dump is of chain ${dump.chainId}, this chain is ${common.chainId()}`);
  checkTime(dump, now);
  if (fork === undefined && dump.fork !== undefined) {
    throw new StateDumpError(
      "fork",
      `the dump is of a fork of block ${dump.fork.blockNumber}: load it into a fork of that block (the fork option with the state option)`,
    );
  }
  if (fork !== undefined && (dump.fork?.blockNumber !== fork.blockNumber || dump.fork.blockHash !== fork.blockHash)) {
    throw new StateDumpError(
      "fork",
      `this chain forks block ${fork.blockNumber} (${fork.blockHash}); the dump is ${dump.fork === undefined ? "not of a fork" : `of a fork of block ${dump.fork.blockNumber} (${dump.fork.blockHash})`}`,
    );
  }
  const first = fork?.blockNumber ?? 0n;

  const blocks = dump.blocks.map((entry, i) => decodeBlock(entry.rlp, common, `blocks[${i}].rlp`));
  if (fork !== undefined && blocks[0]!.header.number === first) blocks[0] = fork.firstBlock(blocks[0]!);
  const sealed: SealedBlock[] = [];
  blocks.forEach((block, i) => {
    const path = `blocks[${i}]`;
    if (block.header.number !== first + BigInt(i))
      throw new StateDumpError(`${path}.rlp`, `is block ${block.header.number}, expected block ${first + BigInt(i)}`);
    if (i > 0 && !equalsBytes(block.header.parentHash, blocks[i - 1]!.hash())) throw new StateDumpError(`${path}.rlp`, "does not follow the previous block");
    const receipts = dump.blocks[i]!.receipts;
    if (receipts.length !== block.transactions.length) {
      throw new StateDumpError(`${path}.receipts`, `has ${receipts.length} receipts for ${block.transactions.length} transactions`);
    }
    checkTimestamp(block.header.timestamp, `${path}.rlp`);
    const blockHash = bytesToHex(block.hash());
    const records = recordsOf(
      receipts,
      block.transactions,
      { number: block.header.number, timestamp: block.header.timestamp, hash: blockHash, header: block.header },
      `${path}.receipts`,
    );
    sealed.push({ block, hash: blockHash, transactions: records, fragmentCount: dump.blocks[i]!.fragments });
  });
  const head = sealed[sealed.length - 1]!;
  if (head.block.header.number !== dump.head.number || head.hash !== dump.head.hash || bytesToHex(head.block.header.stateRoot) !== dump.head.stateRoot) {
    throw new StateDumpError("head", `does not match the last block (number ${head.block.header.number}, hash ${head.hash})`);
  }

  const open = dump.open === null ? undefined : openBlockOf(common, config.schedule, dump.open, head);
  const pool = dump.pool.map((entry, i) => {
    const tx = decodeTx(entry.raw, common, `pool[${i}].raw`, entry.from);
    const { feeCap, tipCap } = feesOf(tx);
    return { tx, hash: flatHex(tx.hash()), sender: entry.from, nonce: tx.nonce, feeCap, tipCap, cost: txCost(tx) };
  });

  // The state: the live accounts, then the head block's (the live ones with `head.accounts` applied).
  const stateManager = fork?.stateManager() ?? createLiveState(common);
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
  if (fork !== undefined) fork.stateWritten(stateManager as MerkleStateManager);

  let blockchain: Blockchain;
  if (fork !== undefined) {
    blockchain = await fork.blockchain(blocks);
  } else {
    blockchain = asBlockchain(new LightBlockchain(blocks[0]!));
    for (const block of blocks.slice(1)) await blockchain.putBlock(block);
  }
  const vm = await createChainVm(common, stateManager, blockchain, config.precompiles);

  return {
    vm,
    blockchain,
    index,
    sealed,
    open,
    pool,
    timeOffset: dump.time.offset,
    nextTimestamp: dump.time.nextTimestamp ?? undefined,
    // A head whose accounts are not what its header's root says holds dev edits (or was edited by hand): they are its state.
    headEditedRoot: equalsBytes(headRoot, head.block.header.stateRoot) ? undefined : headRoot,
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

async function writeAccount(stateManager: StateManagerInterface, who: Hex, account: ParsedAccount): Promise<void> {
  const where = createAddressFromString(who);
  await stateManager.putAccount(where, new Account(account.nonce, account.balance));
  if (account.code.length > 0) await stateManager.putCode(where, account.code);
  for (const [slot, value] of Object.entries(account.storage)) {
    if (value !== undefined && BigInt(value) !== 0n) await stateManager.putStorage(where, hexToBytes(slot as Hex), hexToBytes(value as Hex));
  }
}

function openBlockOf(common: Common, schedule: ForkSchedule, dump: NonNullable<ParsedStateDump["open"]>, head: SealedBlock): OpenBlock {
  const { header } = dump;
  if (header.number !== head.block.header.number + 1n || header.parentHash !== head.hash) {
    throw new StateDumpError("open.header", `does not follow the head block ${head.block.header.number}`);
  }
  common.setHardforkBy({ blockNumber: header.number, timestamp: header.timestamp });
  const open = new OpenBlock(common, { ...header, excessBlobGas: header.excessBlobGas ?? undefined }, schedule.at(header.number, header.timestamp));
  const txs = dump.transactions.map((entry, i) => decodeTx(entry.raw, common, `open.transactions[${i}].raw`, entry.from));
  const records = recordsOf(
    dump.transactions,
    txs,
    { number: header.number, timestamp: header.timestamp, hash: undefined, header: open.executionBlock.header },
    "open.transactions",
  );
  // Fragments are rebuilt in order: each one's txs, then its cumulative gas.
  let next = 0;
  for (let index = 0; index < dump.fragments; index++) {
    const start = next;
    while (next < records.length && records[next]!.fragmentIndex === index) open.addRecord(records[next++]!);
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
    const logs: LogRecord[] = json.logs.map((log) => ({ ...log, data: flatHex(log.data), logIndex: logIndex++ }));
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
      hash: flatHex(tx.hash()),
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
