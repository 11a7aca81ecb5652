/**
 * The block being built: a header fixed when it opens, and the txs that fragments pre-confirm
 * into it. Each tx runs once, with `runTx` against the same header (O(1) per tx; ethereumjs'
 * `BlockBuilder.addTransaction` rebuilds the whole block per tx). Tries, bloom and the final header
 * are computed once, in `seal`, the tries in one pass each (orderedTrie.ts).
 */
import { Block, createBlockHeader, genWithdrawalsTrieRoot, paramsBlock } from "@ethereumjs/block";
import { bigIntToBytes, bigIntToHex, bytesToHex, EthereumJSErrorWithoutCode, hexToBytes, KECCAK256_RLP } from "@ethereumjs/util";
import { encodeReceipt } from "@ethereumjs/vm";
import { keccak_256 } from "@noble/hashes/sha3.js";

import { encodeDepositReceipt } from "../opstack/deposit.ts";
import { orderedTrieRoot } from "./orderedTrie.ts";
import { sharedCommon } from "../ethereumjs/sharedCommon.ts";
import { requestsHashOf } from "./systemCalls.ts";
import { sealedTxBytes } from "../pool/txBytes.ts";
import { executionHeader, sealedHeader } from "../ethereumjs/sealedHeader.ts";
import { encodeNode } from "../ethereumjs/trieNodeEncoding.ts";
import { bytesOfCheckedHex } from "../common/hex.ts";

import type { BlockHeader, HeaderData } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import type { TypedTransaction } from "@ethereumjs/tx";
import type { CLRequest, CLRequestType, Withdrawal } from "@ethereumjs/util";
import type { TxReceipt } from "@ethereumjs/vm";
import type { Hex } from "../common/types.ts";
import type { BlockEdit, Fragment, FragmentBase, TxRecord } from "../chain/records.ts";
import type { ActiveFork } from "../profiles/forkSchedule.ts";

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
   * The millisecond part of the block's time on a Denim block (Base's native 200 ms blocks: 0, 200,
   * …, 800), which its BaseTime deposit records; not a header field (time.ts, opstack/baseTime.ts).
   */
  millisPart?: number | undefined;
  /**
   * The header's parentBeaconBlockRoot where EIP-4788 is active: an OP chain's L1 origin's
   * (opstack/execution.ts); 32 zero bytes when absent (the dev chain, as geth --dev and anvil).
   */
  parentBeaconBlockRoot?: Hex | undefined;
  /** An OP chain's fee parameters (opstack/feeParams.ts); undefined: empty. */
  extraData?: Hex | undefined;
}

/** The shared Common of the headers built here (ethereumjs/sharedCommon.ts): automine builds two per tx. */
const blockCommonOf = (common: Common): Common => sharedCommon(common, paramsBlock);

/** What a block holds after its txs (OpenBlock.seal). */
export interface BlockEnd {
  requests?: readonly CLRequest<CLRequestType>[];
  withdrawals?: Withdrawal[];
}

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
  /** The fork of the profile's ladder the block runs (forkSchedule.ts). */
  readonly fork: ActiveFork;
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
    fork: ActiveFork,
    readonly rebuild = 0,
    executionBlock?: Block,
  ) {
    this.#common = common;
    this.header = header;
    this.fork = fork;
    this.executionBlock = executionBlock ?? executionBlockOf(common, header);
    // Base's payload id is 8 bytes; ours is derived from the block's identity, so it is reproducible.
    const id = (header.number.toString(16) + header.parentHash.slice(2)).slice(0, 16).padStart(16, "0");
    this.payloadId = `0x${rebuild === 0 ? id : (BigInt(`0x${id}`) ^ BigInt(rebuild)).toString(16).padStart(16, "0")}` as Hex;
  }

  /** The block as pre-confirmed so far, unaffected by later fragments (what a stalled pending view shows). */
  frozen(): OpenBlock {
    const copy = new OpenBlock(this.#common, this.header, this.fork, this.rebuild, this.executionBlock);
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

  /**
   * Appends an executed (or restored) tx: its receipt's cumulative gas is the block's from now on.
   * The header's `blobGasUsed` counts blob gas, or on OP chains since Jovian the DA footprint.
   */
  addRecord(record: TxRecord): void {
    this.#transactions.push(record);
    this.#gasUsed = record.cumulativeGasUsed;
    const blobGas = record.blobGasUsed ?? record.daFootprint;
    if (blobGas !== undefined) this.#blobGasUsed += blobGas;
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
      extraData: header.extraData ?? "0x",
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

  /** The block's logs bloom: its txs' blooms OR-ed together. */
  logsBloom(): Uint8Array {
    return orBlooms(this.#transactions.map((record) => record.logsBloom));
  }

  /**
   * Builds the sealed block; `stateRoot` is the state after every tx of the block and what follows
   * them: the end-of-block system calls, which made `requests` (systemCalls.ts), and `withdrawals`
   * (eth_simulateV1's blocks; none on blocks the chain builds).
   */
  async seal(stateRoot: Uint8Array, end: BlockEnd = {}): Promise<Block> {
    const common = this.#common;
    const txs = this.#transactions.map((record) => record.tx);
    const keccak256 = common.customCrypto.keccak256 ?? keccak_256;
    const transactionsTrie = orderedTrieRoot(
      txs.map((tx) => sealedTxBytes(tx)),
      keccak256,
    );
    const receiptTrie = orderedTrieRoot(
      // OP-stack deposits' receipts carry their depositNonce (opstack/deposit.ts).
      this.#transactions.map((record) =>
        record.depositNonce === undefined ? receiptBytes(record.receipt, record.tx.type) : encodeDepositReceipt(record.receipt, record.depositNonce),
      ),
      keccak256,
    );
    const withdrawals = end.withdrawals === undefined || end.withdrawals.length === 0 ? undefined : end.withdrawals;
    // The header the txs ran against, with what running them produced (ethereumjs/sealedHeader.ts).
    const header = sealedHeader(this.executionBlock.header, {
      stateRoot,
      transactionsTrie,
      receiptTrie,
      logsBloom: this.logsBloom(),
      gasUsed: this.#gasUsed,
      ...(common.isActivatedEIP(4844) && { blobGasUsed: this.#blobGasUsed }),
      // EIP-7685: the withdrawal and consolidation requests the block's end dequeued (none on OP
      // chains, whose requestsHash is always that of the empty list); no deposit contract on a dev chain.
      ...(common.isActivatedEIP(7685) && { requestsHash: requestsHashOf(common, end.requests ?? []) }),
      ...(withdrawals !== undefined && { withdrawalsRoot: await genWithdrawalsTrieRoot(withdrawals) }),
    });
    return blockOf(common, header, txs, withdrawals);
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
      [],
      undefined,
    );
  }
}

/** The header of a sealed block: the open block's fields and what executing it produced. */
function buildBlock(
  common: Common,
  base: HeaderData,
  sealed: { stateRoot: Uint8Array; transactionsTrie: Uint8Array; receiptTrie: Uint8Array; logsBloom?: Uint8Array; gasUsed: bigint; blobGasUsed: bigint },
  txs: TypedTransaction[],
  requests: readonly CLRequest<CLRequestType>[],
  withdrawals: { list: Withdrawal[]; root: Uint8Array } | undefined,
): Block {
  const { blobGasUsed, ...fields } = sealed;
  const header: HeaderData = { ...base, ...fields };
  if (common.isActivatedEIP(4844)) header.blobGasUsed = blobGasUsed;
  if (common.isActivatedEIP(7685)) header.requestsHash = requestsHashOf(common, requests);
  if (withdrawals !== undefined) header.withdrawalsRoot = withdrawals.root;
  const opts = { common: blockCommonOf(common), skipConsensusFormatValidation: true };
  return blockOf(common, createBlockHeader(header, opts), txs, withdrawals?.list);
}

/** The block of `header` and `txs`. */
function blockOf(common: Common, header: BlockHeader, txs: TypedTransaction[], withdrawals: Withdrawal[] | undefined): Block {
  // The executed tx objects as they are: createBlock would rebuild each one from its fields
  // (a Common copy and a re-validation per tx).
  const opts = { common: blockCommonOf(common), skipConsensusFormatValidation: true };
  return new Block(header, txs, [], common.isActivatedEIP(4895) ? (withdrawals ?? []) : undefined, opts);
}

/**
 * The block an open block's txs execute against: `createBlock({ header: headerDataOf(common,
 * header) }, { common: blockCommonOf(common), skipConsensusFormatValidation: true })`, its header
 * copied from the last one built where it can be (ethereumjs/sealedHeader.ts executionHeader).
 */
function executionBlockOf(common: Common, header: OpenBlockHeader): Block {
  const shared = blockCommonOf(common);
  const headerOfBlock = executionHeader(shared, {
    number: header.number,
    // The parent's hash: 32 bytes of lowercase hex, a hash the chain made or a fork block's (checked: fork/source.ts), decoded without util's checks.
    parentHash: bytesOfCheckedHex(header.parentHash),
    timestamp: header.timestamp,
    gasLimit: header.gasLimit,
    baseFeePerGas: header.baseFeePerGas,
    coinbase: hexToBytes(header.coinbase),
    mixHash: hexToBytes(header.prevRandao),
    excessBlobGas: header.excessBlobGas,
    extraData: header.extraData === undefined ? undefined : hexToBytes(header.extraData),
    parentBeaconBlockRoot: !common.isActivatedEIP(4788)
      ? undefined
      : header.parentBeaconBlockRoot === undefined
        ? new Uint8Array(32)
        : hexToBytes(header.parentBeaconBlockRoot),
  });
  return new Block(headerOfBlock, [], [], undefined, { common: shared, skipConsensusFormatValidation: true });
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
  if (header.extraData !== undefined) data.extraData = header.extraData;
  if (common.isActivatedEIP(4788))
    data.parentBeaconBlockRoot = header.parentBeaconBlockRoot === undefined ? new Uint8Array(32) : hexToBytes(header.parentBeaconBlockRoot);
  return data;
}

/** A logs bloom's size: 2048 bits (Yellow Paper, 4.3.1). */
const BLOOM_BYTES = 256;

/**
 * `blooms` OR-ed together, as @ethereumjs/vm 10.1.3's `Bloom.or` over a Bloom per item gives it
 * (its error for a bloom of another size included), without the Bloom objects.
 */
export function orBlooms(blooms: readonly Uint8Array[]): Uint8Array {
  const bloom = new Uint8Array(BLOOM_BYTES);
  for (const bits of blooms) {
    if (bits.length !== BLOOM_BYTES) throw EthereumJSErrorWithoutCode("bitvectors must be 2048 bits long");
    for (let i = 0; i < BLOOM_BYTES; i++) bloom[i]! |= bits[i]!;
  }
  return bloom;
}

const STATUS_SUCCESS = Uint8Array.of(1);
const STATUS_FAILURE = new Uint8Array();

/**
 * A receipt's encoding in its block's receipts trie: `encodeReceipt` of @ethereumjs/vm 10.1.3
 * (runBlock.js) byte for byte, EIP-2718's `tx-type || rlp([status, cumulativeGasUsed, bloom,
 * logs])`, the list written in one pass (ethereumjs/trieNodeEncoding.ts) where the package's RLP
 * makes an array per item and per prefix and concatenates them (a receipt's 256-byte bloom and
 * its logs copied at each level). test/orderedTrie.test.ts compares the two.
 */
export function receiptBytes(receipt: TxReceipt, type: TypedTransaction["type"]): Uint8Array {
  // A type is one byte below 0x80 (EIP-2718); anything else as the package encodes it.
  if (!Number.isInteger(type) || type < 0 || type >= 0x80) return encodeReceipt(receipt, type);
  const pre = receipt as { stateRoot?: Uint8Array; status?: 0 | 1 };
  const body = encodeNode([
    pre.stateRoot ?? (pre.status === 0 ? STATUS_FAILURE : STATUS_SUCCESS),
    bigIntToBytes(receipt.cumulativeBlockGasUsed),
    receipt.bitvector,
    receipt.logs,
  ]);
  if (type === 0) return body;
  const typed = new Uint8Array(body.length + 1);
  typed[0] = type;
  typed.set(body, 1);
  return typed;
}

export const hexOfBigInt = (value: bigint) => bigIntToHex(value);
export const hexOfBytes = (value: Uint8Array) => bytesToHex(value);
