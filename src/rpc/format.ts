/**
 * JSON-RPC shapes of blocks, transactions, receipts and logs (execution-apis schemas). Pre-confirmed
 * items report the open block's number and a zero block hash until their block seals (docs/behaviour.md).
 */
import { bigIntToHex, bytesToBigInt, intToHex, KECCAK256_RLP, KECCAK256_RLP_ARRAY } from "@ethereumjs/util";

import { feesOf } from "../node/pool/admission.ts";
// Every hex of an answer is a flat string (hex.ts): an answer can be held a while (a batch, a slow reader).
import { flatHex as bytesToHex } from "../node/common/hex.ts";
import { ZERO_HASH } from "../node/chain/records.ts";
import { DEPOSIT_RECEIPT_VERSION, formatDeposit, isDeposit } from "../node/opstack/deposit.ts";
import { timestampMsOf } from "../node/opstack/baseTime.ts";

import type { TypedTransaction } from "@ethereumjs/tx";
import type { EOACode7702AuthorizationListBytesItem } from "@ethereumjs/util";
import type { ResolvedBlock } from "../node/chain/chain.ts";
import type { OpenBlock } from "../node/execution/openBlock.ts";
import type { LogRecord, SealedBlock, TxRecord } from "../node/chain/records.ts";
import type { Hex } from "./schema.ts";
import type { L1Cost } from "../node/opstack/l1Fee.ts";

type Json = Record<string, unknown>;

const q = (value: bigint) => bigIntToHex(value);
const EMPTY_REQUESTS_HASH = "0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

export function formatTransaction(tx: TypedTransaction, from: Hex, location: TxRecord | undefined): Json {
  if (isDeposit(tx)) return { ...formatDeposit(tx, location?.depositNonce), ...locationOf(location) };
  const json = tx.toJSON() as Json;
  const { feeCap } = feesOf(tx);
  const out: Json = {
    type: intToHex(tx.type),
    chainId: json.chainId,
    nonce: json.nonce,
    gas: json.gasLimit,
    ...(json.gasPrice !== undefined && { gasPrice: json.gasPrice }),
    ...(json.maxFeePerGas !== undefined && {
      maxFeePerGas: json.maxFeePerGas,
      maxPriorityFeePerGas: json.maxPriorityFeePerGas,
      // Pooled 1559 txs report their fee cap as gasPrice; executed ones what they paid (geth).
      gasPrice: location === undefined ? q(feeCap) : q(location.effectiveGasPrice),
    }),
    ...(json.maxFeePerBlobGas !== undefined && {
      maxFeePerBlobGas: json.maxFeePerBlobGas,
      blobVersionedHashes: json.blobVersionedHashes,
    }),
    from,
    to: json.to ?? null,
    value: json.value,
    input: bytesToHex(tx.data),
    ...(json.accessList !== undefined && { accessList: json.accessList }),
    ...("authorizationList" in tx && { authorizationList: tx.authorizationList.map(formatAuthorization) }),
    v: json.v,
    r: json.r,
    s: json.s,
    ...(tx.type !== 0 && { yParity: json.v }),
    hash: bytesToHex(tx.hash()),
    // A pre-confirmed tx object has no block hash yet (Base: null; its receipt and logs say 32 zero bytes).
    blockHash: location?.blockHash ?? null,
    blockNumber: location === undefined ? null : q(location.blockNumber),
    ...(location !== undefined && { blockTimestamp: q(location.blockTimestamp) }),
    ...blockTimestampMsOf(location),
    transactionIndex: location === undefined ? null : intToHex(location.index),
  };
  // Legacy txs signed without EIP-155 (v = 27 or 28) carry no chain id (geth).
  if (out.chainId === undefined || (tx.type === 0 && (json.v === "0x1b" || json.v === "0x1c"))) delete out.chainId;
  return out;
}

/** EIP-7702 authorization tuples: quantities, as execution-apis' schema has them. */
function formatAuthorization([chainId, address, nonce, yParity, r, s]: EOACode7702AuthorizationListBytesItem): Json {
  const quantity = (bytes: Uint8Array) => q(bytesToBigInt(bytes));
  return { chainId: quantity(chainId), address: bytesToHex(address), nonce: quantity(nonce), yParity: quantity(yParity), r: quantity(r), s: quantity(s) };
}

/** Where an executed tx is: its block and index (null while pooled). */
function locationOf(location: TxRecord | undefined): Json {
  return {
    blockHash: location === undefined ? null : (location.blockHash ?? ZERO_HASH),
    blockNumber: location === undefined ? null : q(location.blockNumber),
    ...(location !== undefined && { blockTimestamp: q(location.blockTimestamp) }),
    ...blockTimestampMsOf(location),
    transactionIndex: location === undefined ? null : intToHex(location.index),
  };
}

/**
 * Base's `blockTimestampMs` (a quantity) on a tx or log of a sealed Denim block; left out while
 * pre-confirmed and on other blocks, as Base's node does (base/base PRs #4517, #4518).
 */
const blockTimestampMsOf = (record: TxRecord | undefined): Json =>
  record?.blockTimestampMs !== undefined && record.blockHash !== undefined ? { blockTimestampMs: q(record.blockTimestampMs) } : {};

export const formatExecuted = (record: TxRecord) => formatTransaction(record.tx, record.from, record);

export function formatLog(log: LogRecord, record: TxRecord): Json {
  return {
    address: log.address,
    topics: log.topics,
    data: log.data,
    blockNumber: q(record.blockNumber),
    blockTimestamp: q(record.blockTimestamp),
    ...blockTimestampMsOf(record),
    blockHash: record.blockHash ?? ZERO_HASH,
    transactionHash: record.hash,
    transactionIndex: intToHex(record.index),
    logIndex: intToHex(log.logIndex),
    removed: false,
  };
}

export function formatReceipt(record: TxRecord): Json {
  return {
    transactionHash: record.hash,
    transactionIndex: intToHex(record.index),
    blockHash: record.blockHash ?? ZERO_HASH,
    blockNumber: q(record.blockNumber),
    from: record.from,
    to: record.tx.to?.toString() ?? null,
    cumulativeGasUsed: q(record.cumulativeGasUsed),
    gasUsed: q(record.gasUsed),
    effectiveGasPrice: q(record.effectiveGasPrice),
    contractAddress: record.contractAddress ?? null,
    logs: record.logs.map((log) => formatLog(log, record)),
    logsBloom: bytesToHex(record.logsBloom),
    type: intToHex(record.tx.type),
    // Pre-Byzantium receipts carry the post-state root instead of a status (EIP-658).
    ...("stateRoot" in record.receipt ? { root: bytesToHex(record.receipt.stateRoot) } : { status: intToHex(record.status) }),
    ...(record.blobGasUsed !== undefined && { blobGasUsed: q(record.blobGasUsed), blobGasPrice: q(record.blobGasPrice ?? 0n) }),
    ...(record.l1Cost !== undefined && l1FeeFields(record.l1Cost)),
    // Jovian: the tx's DA footprint and the block's scalar (specs/protocol/jovian/exec-engine.md, "Receipts").
    ...(record.daFootprint !== undefined &&
      record.l1Cost !== undefined && { blobGasUsed: q(record.daFootprint), daFootprintGasScalar: q(record.l1Cost.fees.daFootprintGasScalar) }),
    ...(record.depositNonce !== undefined && { depositNonce: q(record.depositNonce), depositReceiptVersion: q(DEPOSIT_RECEIPT_VERSION) }),
  };
}

/** op-geth's L1 fee fields of a user tx's receipt (core/types/receipt.go, Ecotone and Isthmus). */
function l1FeeFields({ fee, gasUsed, fees }: L1Cost): Json {
  return {
    l1GasPrice: q(fees.l1BaseFee),
    l1GasUsed: q(gasUsed),
    l1Fee: q(fee),
    l1BaseFeeScalar: q(fees.baseFeeScalar),
    l1BlobBaseFee: q(fees.l1BlobBaseFee),
    l1BlobBaseFeeScalar: q(fees.blobBaseFeeScalar),
    operatorFeeScalar: q(fees.operatorFeeScalar),
    operatorFeeConstant: q(fees.operatorFeeConstant),
  };
}

/** Where a sealed block's `size` comes from: its chain's memo (services/chainScope.ts), serialized once per block. */
export interface BlockSizes {
  blockSize(sealed: SealedBlock): number;
}

function formatSealed(sealed: SealedBlock, full: boolean, sizes: BlockSizes): Json {
  const header = sealed.block.header;
  const size = sizes.blockSize(sealed);
  return {
    number: q(header.number),
    hash: sealed.hash,
    parentHash: bytesToHex(header.parentHash),
    nonce: bytesToHex(header.nonce),
    sha3Uncles: bytesToHex(header.uncleHash),
    logsBloom: bytesToHex(header.logsBloom),
    transactionsRoot: bytesToHex(header.transactionsTrie),
    stateRoot: bytesToHex(header.stateRoot),
    receiptsRoot: bytesToHex(header.receiptTrie),
    miner: header.coinbase.toString(),
    difficulty: q(header.difficulty),
    extraData: bytesToHex(header.extraData),
    size: intToHex(size),
    gasLimit: q(header.gasLimit),
    gasUsed: q(header.gasUsed),
    timestamp: q(header.timestamp),
    ...timestampMsField(sealed),
    mixHash: bytesToHex(header.mixHash),
    ...(header.baseFeePerGas !== undefined && { baseFeePerGas: q(header.baseFeePerGas) }),
    ...(header.withdrawalsRoot !== undefined && {
      withdrawalsRoot: bytesToHex(header.withdrawalsRoot),
      withdrawals: (sealed.block.withdrawals ?? []).map((withdrawal) => withdrawal.toJSON()),
    }),
    ...(header.blobGasUsed !== undefined && { blobGasUsed: q(header.blobGasUsed) }),
    ...(header.excessBlobGas !== undefined && { excessBlobGas: q(header.excessBlobGas) }),
    ...(header.parentBeaconBlockRoot !== undefined && { parentBeaconBlockRoot: bytesToHex(header.parentBeaconBlockRoot) }),
    ...(header.requestsHash !== undefined && { requestsHash: bytesToHex(header.requestsHash) }),
    transactions: full ? sealed.transactions.map(formatExecuted) : sealed.transactions.map((record) => record.hash),
    uncles: [],
  };
}

/** Base's `timestampMs` on a Denim block (base/base PRs #4014, #4025). */
function timestampMsField(sealed: SealedBlock): Json {
  const ms = timestampMsOf(sealed.block);
  return ms === undefined ? {} : { timestampMs: q(ms) };
}

/** The open block as pre-confirmed so far: no hash and no roots yet (zero), as Base reports it. */
function formatOpen(open: OpenBlock, full: boolean): Json {
  const { header } = open;
  const common = open.executionBlock.common;
  return {
    number: q(header.number),
    hash: ZERO_HASH,
    parentHash: header.parentHash,
    nonce: "0x0000000000000000",
    sha3Uncles: bytesToHex(KECCAK256_RLP_ARRAY),
    logsBloom: bytesToHex(open.logsBloom()),
    transactionsRoot: ZERO_HASH,
    stateRoot: ZERO_HASH,
    receiptsRoot: ZERO_HASH,
    miner: header.coinbase,
    difficulty: "0x0",
    extraData: header.extraData ?? "0x",
    size: "0x0",
    gasLimit: q(header.gasLimit),
    gasUsed: q(open.gasUsed),
    timestamp: q(header.timestamp),
    mixHash: header.prevRandao,
    baseFeePerGas: q(header.baseFeePerGas),
    ...(common.isActivatedEIP(4895) && { withdrawalsRoot: bytesToHex(KECCAK256_RLP), withdrawals: [] }),
    ...(header.excessBlobGas !== undefined && { blobGasUsed: q(open.blobGasUsed), excessBlobGas: q(header.excessBlobGas) }),
    ...(common.isActivatedEIP(4788) && { parentBeaconBlockRoot: header.parentBeaconBlockRoot ?? ZERO_HASH }),
    ...(common.isActivatedEIP(7685) && { requestsHash: EMPTY_REQUESTS_HASH }),
    transactions: full ? open.transactions.map(formatExecuted) : open.transactions.map((record) => record.hash),
    uncles: [],
  };
}

export function formatBlock(resolved: ResolvedBlock, full: boolean, sizes: BlockSizes): Json {
  return resolved.kind === "sealed" ? formatSealed(resolved.sealed, full, sizes) : formatOpen(resolved.open, full);
}
