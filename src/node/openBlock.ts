/**
 * The block being built: a header fixed when it opens, and the txs that fragments pre-confirm
 * into it. Each tx runs once, with `runTx` against the same header (O(1) per tx; ethereumjs'
 * `BlockBuilder.addTransaction` rebuilds the whole block per tx). Tries, bloom and the final header
 * are computed once, in `seal`, the tries in one pass each (orderedTrie.ts).
 */
import { Block, createBlock, createBlockHeader, genRequestsRoot, paramsBlock } from "@ethereumjs/block";
import { bigIntToHex, bytesToHex, KECCAK256_RLP } from "@ethereumjs/util";
import { Bloom, encodeReceipt } from "@ethereumjs/vm";
import { sha256 } from "@noble/hashes/sha2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";

import { encodeDepositReceipt } from "./opstack/deposit.ts";
import { orderedTrieRoot } from "./orderedTrie.ts";
import { sharedCommon } from "./ethereumjs/sharedCommon.ts";

import type { HeaderData } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import type { TypedTransaction } from "@ethereumjs/tx";
import type { Hex } from "./types.ts";
import type { BlockEdit, Fragment, FragmentBase, TxRecord } from "./records.ts";

export interface OpenBlockHeader {
  number: bigint;
  parentHash: Hex;
  timestamp: bigint;
  gasLimit: bigint;
  baseFeePerGas: bigint;
  coinbase: Hex;
  prevRandao: Hex;
  excessBlobGas: bigint | undefined;
  /**
   * The millisecond part of the block's time where blocks share seconds (base-denim: 0, 200, …,
   * 800), which its BaseTime deposit records; not a header field (time.ts, opstack/baseTime.ts).
   */
  millisPart?: number | undefined;
}

/** The shared Common of the headers built here (ethereumjs/sharedCommon.ts): automine builds two per tx. */
const blockCommonOf = (common: Common): Common => sharedCommon(common, paramsBlock);

/** Where an open block stood (evm_snapshot): `rewindTo` takes it back there. */
export interface OpenBlockMark {
  txCount: number;
  editCount: number;
  fragmentCount: number;
  gasUsed: bigint;
  blobGasUsed: bigint;
  logCount: number;
}

/**
 * The open block alone writes its txs, fragments and counters: `addRecord` and `addFragment` grow
 * it, `rewindTo` takes it back to a mark; everyone else reads.
 */
export class OpenBlock {
  readonly header: OpenBlockHeader;
  /** The block every tx of this block executes against (its header's gasUsed is never read). */
  readonly executionBlock: Block;
  readonly payloadId: Hex;
  readonly #transactions: TxRecord[] = [];
  readonly #fragments: Fragment[] = [];
  readonly #edits: BlockEdit[] = [];
  #gasUsed = 0n;
  #blobGasUsed = 0n;
  #logCount = 0;
  #common: Common;

  /**
   * `rebuild` counts the times this block's payload was started over (an injected flashblock
   * reorg, faults.ts): each rebuild is a new payload, so it gets a new payload id.
   */
  constructor(
    common: Common,
    header: OpenBlockHeader,
    readonly rebuild = 0,
    executionBlock?: Block,
  ) {
    this.#common = common;
    this.header = header;
    this.executionBlock = executionBlock ?? createBlock({ header: this.#headerData() }, { common: blockCommonOf(common), skipConsensusFormatValidation: true });
    // Base's payload id is 8 bytes; ours is derived from the block's identity, so it is reproducible.
    const id = (header.number.toString(16) + header.parentHash.slice(2)).slice(0, 16).padStart(16, "0");
    this.payloadId = `0x${rebuild === 0 ? id : (BigInt(`0x${id}`) ^ BigInt(rebuild)).toString(16).padStart(16, "0")}` as Hex;
  }

  /** The block as pre-confirmed so far, unaffected by later fragments (what a stalled pending view shows). */
  frozen(): OpenBlock {
    const copy = new OpenBlock(this.#common, this.header, this.rebuild, this.executionBlock);
    copy.#transactions.push(...this.#transactions);
    copy.#fragments.push(...this.#fragments);
    copy.#edits.push(...this.#edits);
    copy.#gasUsed = this.#gasUsed;
    copy.#blobGasUsed = this.#blobGasUsed;
    copy.#logCount = this.#logCount;
    return copy;
  }

  /** The block's txs in order, pre-confirmed so far. */
  get transactions(): readonly TxRecord[] {
    return this.#transactions;
  }

  get fragments(): readonly Fragment[] {
    return this.#fragments;
  }

  /** Dev edits that landed in this block between its txs (stateEdits.ts). */
  get edits(): readonly BlockEdit[] {
    return this.#edits;
  }

  addEdit(edit: BlockEdit): void {
    this.#edits.push(edit);
  }

  /** Gas used by the block's txs so far. */
  get gasUsed(): bigint {
    return this.#gasUsed;
  }

  get blobGasUsed(): bigint {
    return this.#blobGasUsed;
  }

  /** Logs of the block so far: the next log's index in the block. */
  get logCount(): number {
    return this.#logCount;
  }

  /** Appends an executed (or restored) tx: its receipt's cumulative gas is the block's from now on. */
  addRecord(record: TxRecord): void {
    this.#transactions.push(record);
    this.#gasUsed = record.cumulativeGasUsed;
    if (record.blobGasUsed !== undefined) this.#blobGasUsed += record.blobGasUsed;
    this.#logCount += record.logs.length;
  }

  mark(): OpenBlockMark {
    return {
      txCount: this.#transactions.length,
      editCount: this.#edits.length,
      fragmentCount: this.#fragments.length,
      gasUsed: this.#gasUsed,
      blobGasUsed: this.#blobGasUsed,
      logCount: this.#logCount,
    };
  }

  /** Back to `mark` (evm_revert); answers the txs it drops. */
  rewindTo(mark: OpenBlockMark): TxRecord[] {
    const dropped = this.#transactions.splice(mark.txCount);
    this.#edits.splice(mark.editCount);
    this.#fragments.splice(mark.fragmentCount);
    this.#gasUsed = mark.gasUsed;
    this.#blobGasUsed = mark.blobGasUsed;
    this.#logCount = mark.logCount;
    return dropped;
  }

  get number(): bigint {
    return this.header.number;
  }

  get remainingGas(): bigint {
    return this.header.gasLimit - this.#gasUsed;
  }

  /** Fragment 0 carries the block's base (docs/behaviour.md). */
  base(): FragmentBase {
    const { header } = this;
    return {
      parentHash: header.parentHash,
      feeRecipient: header.coinbase,
      prevRandao: header.prevRandao,
      blockNumber: header.number,
      gasLimit: header.gasLimit,
      timestamp: header.timestamp,
      baseFeePerGas: header.baseFeePerGas,
    };
  }

  /** Closes a fragment over `transactions`, the records added since the last one. */
  addFragment(transactions: TxRecord[]): Fragment {
    const index = this.#fragments.length;
    const fragment: Fragment = {
      blockNumber: this.number,
      index,
      payloadId: this.payloadId,
      transactions,
      cumulativeGasUsed: this.#gasUsed,
      base: index === 0 ? this.base() : undefined,
    };
    this.#fragments.push(fragment);
    return fragment;
  }

  logsBloom(): Uint8Array {
    const bloom = new Bloom(undefined, this.#common);
    for (const record of this.#transactions) bloom.or(new Bloom(record.logsBloom, this.#common));
    return bloom.bitvector;
  }

  /** Builds the sealed block; `stateRoot` is the state after every tx of the block. */
  async seal(stateRoot: Uint8Array): Promise<Block> {
    const common = this.#common;
    const txs = this.#transactions.map((record) => record.tx);
    const keccak256 = common.customCrypto.keccak256 ?? keccak_256;
    const transactionsTrie = orderedTrieRoot(
      txs.map((tx) => tx.serialize()),
      keccak256,
    );
    const receiptTrie = orderedTrieRoot(
      // OP-stack deposits' receipts carry their depositNonce (opstack/deposit.ts).
      this.#transactions.map((record) =>
        record.depositNonce === undefined ? encodeReceipt(record.receipt, record.tx.type) : encodeDepositReceipt(record.receipt, record.depositNonce),
      ),
      keccak256,
    );
    return buildBlock(
      common,
      this.#headerData(),
      { stateRoot, transactionsTrie, receiptTrie, logsBloom: this.logsBloom(), gasUsed: this.#gasUsed, blobGasUsed: this.#blobGasUsed },
      txs,
    );
  }

  /**
   * An empty block with `header`, built at once and without executing anything (hardhat_mine's
   * reserved blocks): every trie is the empty one and the state is its parent's.
   */
  static emptyBlock(common: Common, header: OpenBlockHeader, stateRoot: Uint8Array): Block {
    return buildBlock(
      common,
      headerDataOf(common, header),
      { stateRoot, transactionsTrie: KECCAK256_RLP, receiptTrie: KECCAK256_RLP, gasUsed: 0n, blobGasUsed: 0n },
      [],
    );
  }

  #headerData(): HeaderData {
    return headerDataOf(this.#common, this.header);
  }
}

/** The header of a sealed block: the open block's fields and what executing it produced. */
function buildBlock(
  common: Common,
  base: HeaderData,
  sealed: { stateRoot: Uint8Array; transactionsTrie: Uint8Array; receiptTrie: Uint8Array; logsBloom?: Uint8Array; gasUsed: bigint; blobGasUsed: bigint },
  txs: TypedTransaction[],
): Block {
  const { blobGasUsed, ...fields } = sealed;
  const header: HeaderData = { ...base, ...fields };
  if (common.isActivatedEIP(4844)) header.blobGasUsed = blobGasUsed;
  // EIP-7685: no deposit, withdrawal or consolidation requests on a dev chain, so the hash of
  // the empty list (the request system contracts are not deployed).
  if (common.isActivatedEIP(7685)) header.requestsHash = genRequestsRoot([], common.customCrypto.sha256 ?? sha256);
  const withdrawals = common.isActivatedEIP(4895) ? [] : undefined;
  // The executed tx objects as they are: createBlock would rebuild each one from its fields
  // (a Common copy and a re-validation per tx).
  const opts = { common: blockCommonOf(common), skipConsensusFormatValidation: true };
  return new Block(createBlockHeader(header, opts), txs, [], withdrawals, opts);
}

function headerDataOf(common: Common, header: OpenBlockHeader): HeaderData {
  const data: HeaderData = {
    number: header.number,
    parentHash: header.parentHash,
    timestamp: header.timestamp,
    gasLimit: header.gasLimit,
    baseFeePerGas: header.baseFeePerGas,
    coinbase: header.coinbase,
    mixHash: header.prevRandao,
    difficulty: 0n,
  };
  if (header.excessBlobGas !== undefined) {
    data.excessBlobGas = header.excessBlobGas;
    data.blobGasUsed = 0n;
  }
  if (common.isActivatedEIP(4788)) data.parentBeaconBlockRoot = new Uint8Array(32);
  return data;
}

export const hexOfBigInt = (value: bigint) => bigIntToHex(value);
export const hexOfBytes = (value: Uint8Array) => bytesToHex(value);
