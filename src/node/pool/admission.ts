/**
 * Admission of a signed transaction into the pool, checked in go-ethereum's order
 * (internal/ethapi SubmitTransaction, then legacypool.add → ValidateTransaction →
 * ValidateTransactionWithState → replacement), against the pre-confirmed state (docs/behaviour.md).
 * Nothing here mutates anything: the caller adds the returned entry to the pool.
 */
import { Capability, createTxFromRLP, paramsTx, TransactionType } from "@ethereumjs/tx";
import { RLP } from "@ethereumjs/rlp";
import { bytesToBigInt } from "@ethereumjs/util";

import { minimumGasLimitOf } from "../ethereumjs/dataGasCache.ts";
import { installSenderAddresses } from "../ethereumjs/senderAddress.ts";
import { sharedCommon } from "../ethereumjs/sharedCommon.ts";
import { encodingHash, keepEncoding, txHash, txSize } from "./txBytes.ts";
import { flatHex } from "../common/hex.ts";

import {
  AdmissionMessage,
  AlreadyKnownError,
  gasCapError,
  InsufficientFundsError,
  NonceTooLowError,
  ReplacementUnderpricedError,
  TxRejectedError,
} from "../common/errors.ts";

import type { Common } from "@ethereumjs/common";
import type { TypedTransaction } from "@ethereumjs/tx";
import type { Hex } from "../common/types.ts";
import type { DecodedTxs } from "./decodedTxs.ts";
import type { Mempool, PoolLimits, PooledTx } from "./mempool.ts";

/** go-ethereum's txMaxSize: four 32 KiB slots (core/txpool/legacypool). */
export const MAX_TX_SIZE = 4 * 32 * 1024;
/** Minimum fee bump of a replacement, in percent (go-ethereum's default PriceBump). */
export const PRICE_BUMP_PERCENT = 10n;

// A sender's address derived once per tx, natively (admission asks for it, then runTx).
installSenderAddresses();

export interface AdmissionContext {
  common: Common;
  blockGasLimit: bigint;
  /** Minimum priority fee the pool accepts (`txpool.pricelimit`). */
  minTip: bigint;
  allowUnprotectedTxs: boolean;
  pool: Mempool;
  /** OP stack: the L1 data fee the tx would pay, which the sender must hold on top of its cost. */
  l1Fee?: ((tx: TypedTransaction) => Promise<bigint>) | undefined;
  limits: PoolLimits;
  /** Nonce and balance of an account in the pre-confirmed state. */
  account(address: Hex): Promise<{ nonce: bigint; balance: bigint }>;
  /** The chain's raw txs already decoded, with their senders (decodedTxs.ts). */
  decoded?: DecodedTxs | undefined;
}

export interface Admitted {
  entry: PooledTx;
  /** The pooled tx this one replaces, if any. */
  replaces: PooledTx | undefined;
  /** Cheaper pooled txs evicted to make room (the pool was full). */
  evicts: PooledTx[];
}

/**
 * Admission of a raw tx. Bytes this chain decoded before on the same Common are not decoded nor
 * their sender recovered again (decodedTxs.ts); every check from `refuseUnprotected` on runs all
 * the same. The hash of the bytes is the tx's hash (txBytes.ts).
 */
export async function admitTransaction(raw: Uint8Array, ctx: AdmissionContext): Promise<Admitted> {
  const hash = encodingHash(raw, ctx.common);
  const known = ctx.decoded?.get(hash, txCommonOf(ctx.common));
  if (known !== undefined) {
    refuseUnprotected(known.tx, ctx);
    keepEncoding(known.tx, raw);
    return admitDecoded(known.tx, hash, raw.length, () => known.sender, ctx);
  }
  const tx = decode(raw, ctx.common);
  refuseUnprotected(tx, ctx);
  keepEncoding(tx, raw);
  const senderOf = () => {
    const sender = recoverSender(tx);
    ctx.decoded?.remember(hash, tx, sender, raw.length);
    return sender;
  };
  return admitDecoded(tx, hash, raw.length, senderOf, ctx);
}

/**
 * Admission of a tx signed in this process (eth_sendTransaction): the signed object itself goes
 * to the pool, as its bytes would after decoding, with the same checks in the same order.
 */
export async function admitSigned(tx: TypedTransaction, ctx: AdmissionContext): Promise<Admitted> {
  refuseUnprotected(tx, ctx);
  return admitDecoded(tx, txHash(tx), txSize(tx), () => recoverSender(tx), ctx);
}

/** internal/ethapi: unprotected legacy txs are refused before they reach the pool. */
function refuseUnprotected(tx: TypedTransaction, ctx: AdmissionContext): void {
  if (tx.type === TransactionType.Legacy && !tx.supports(Capability.EIP155ReplayProtection) && !ctx.allowUnprotectedTxs) {
    throw new TxRejectedError(AdmissionMessage.unprotected);
  }
}

/** Admission of a tx whose sender is asserted rather than recovered (impersonation). */
export function admitWithSender(tx: TypedTransaction, sender: Hex, ctx: AdmissionContext): Promise<Admitted> {
  return admitDecoded(tx, txHash(tx), txSize(tx), () => sender, ctx);
}

/** `hash` and `size`: the tx's (of the bytes it came as, if it came as bytes: txBytes.ts). */
async function admitDecoded(tx: TypedTransaction, hash: Hex, size: number, senderOf: () => Hex, ctx: AdmissionContext): Promise<Admitted> {
  if (ctx.pool.get(hash) !== undefined) throw new AlreadyKnownError();

  // ValidateTransaction (stateless).
  if (size > MAX_TX_SIZE) {
    throw new TxRejectedError(AdmissionMessage.oversizedData, { size, limit: MAX_TX_SIZE });
  }
  if (tx.gasLimit > ctx.blockGasLimit) {
    throw new TxRejectedError(AdmissionMessage.gasLimit, { gas: tx.gasLimit, blockGasLimit: ctx.blockGasLimit });
  }
  const { feeCap, tipCap } = feesOf(tx);
  if (tipCap > feeCap) throw new TxRejectedError(AdmissionMessage.tipAboveFeeCap);
  const sender = senderOf();
  const intrinsic = tx.getIntrinsicGas();
  if (tx.gasLimit < intrinsic) {
    throw new TxRejectedError(AdmissionMessage.intrinsicGas, { gas: tx.gasLimit, intrinsicGas: intrinsic });
  }
  const minimum = minimumGasLimitOf(tx);
  if (tx.gasLimit < minimum) {
    throw new TxRejectedError(AdmissionMessage.floorDataGas, { gas: tx.gasLimit, floorDataGas: minimum });
  }
  if (tipCap < ctx.minTip) {
    throw new TxRejectedError(AdmissionMessage.underpriced, { tip: tipCap, minTip: ctx.minTip });
  }

  // ValidateTransactionWithState.
  const account = await ctx.account(sender);
  if (tx.nonce < account.nonce) throw new NonceTooLowError(account.nonce, tx.nonce);
  const cost = txCost(tx) + (ctx.l1Fee === undefined ? 0n : await ctx.l1Fee(tx));
  const needed = cost + ctx.pool.costOfOthers(sender, tx.nonce);
  if (account.balance < needed) throw new InsufficientFundsError(account.balance, needed);

  // legacypool.add: a tx with the same sender and nonce must bump both fees by PRICE_BUMP_PERCENT.
  const existing = ctx.pool.at(sender, tx.nonce);
  if (existing !== undefined) {
    const minFee = bumped(existing.feeCap);
    const minTip = bumped(existing.tipCap);
    if (feeCap < minFee || tipCap < minTip || feeCap <= existing.feeCap || tipCap <= existing.tipCap) {
      throw new ReplacementUnderpricedError(minFee, minTip);
    }
  }
  // The pool's bounds (legacypool.add): a sender's queue, then the global slots.
  const { limits } = ctx;
  if (existing === undefined && limits.accountQueue > 0 && tx.nonce > account.nonce + BigInt(ctx.pool.contiguousCount(sender, account.nonce))) {
    if (ctx.pool.queuedCount(sender, account.nonce) >= limits.accountQueue) {
      throw new TxRejectedError(AdmissionMessage.accountLimit, { queued: limits.accountQueue, limit: limits.accountQueue });
    }
  }
  const entry: PooledTx = { tx, hash, sender, nonce: tx.nonce, feeCap, tipCap, cost, seq: ctx.pool.nextSeq() };
  const evicts = ctx.pool.evictionFor(entry, limits.slots);
  if (evicts === undefined) throw new TxRejectedError(AdmissionMessage.underpriced, { reason: "txpool is full", slots: limits.slots });
  return { entry, replaces: existing, evicts };
}

function recoverSender(tx: TypedTransaction): Hex {
  try {
    return flatHex(tx.getSenderAddress().bytes);
  } catch {
    throw new TxRejectedError(AdmissionMessage.invalidSender);
  }
}

/** `old × (100 + bump) / 100`, rounded up so that 10 % of 1 wei still requires 2 wei. */
function bumped(old: bigint): bigint {
  const scaled = old * (100n + PRICE_BUMP_PERCENT);
  return scaled % 100n === 0n ? scaled / 100n : scaled / 100n + 1n;
}

export function feesOf(tx: TypedTransaction): { feeCap: bigint; tipCap: bigint } {
  if ("maxFeePerGas" in tx) return { feeCap: tx.maxFeePerGas, tipCap: tx.maxPriorityFeePerGas };
  return { feeCap: tx.gasPrice, tipCap: tx.gasPrice };
}

/** What the sender must hold for the tx: gas limit × fee cap + value (+ blob gas × blob fee cap). */
export function txCost(tx: TypedTransaction): bigint {
  return tx.gasLimit * feesOf(tx).feeCap + tx.value + blobCost(tx);
}

function blobCost(tx: TypedTransaction): bigint {
  if (tx.type !== TransactionType.BlobEIP4844 || !("maxFeePerBlobGas" in tx)) return 0n;
  return tx.maxFeePerBlobGas * tx.common.param("blobGasPerBlob") * BigInt(tx.blobVersionedHashes.length);
}

/** The shared Common of every tx built on `common` (ethereumjs/sharedCommon.ts). */
export const txCommonOf = (common: Common): Common => sharedCommon(common, paramsTx);

/** Decodes the raw bytes; maps ethereumjs' construction errors onto go-ethereum's messages. */
function decode(raw: Uint8Array, common: Common): TypedTransaction {
  const first = raw[0];
  if (first === undefined) throw new TxRejectedError("typed transaction too short");
  if (first <= 0x7f && !isSupportedType(first, common)) throw new TxRejectedError(AdmissionMessage.typeNotSupported);
  try {
    return createTxFromRLP(raw, { common: txCommonOf(common) });
  } catch (error) {
    const reason = clientReason(error);
    if (/chain ?id|EIP155-based V/i.test(reason)) throw wrongChain(raw, common.chainId());
    if (/initcode size/i.test(reason)) throw new TxRejectedError(AdmissionMessage.maxInitCodeSize, { reason });
    const capped = gasCapError(reason);
    if (capped !== undefined) throw capped;
    if (/maxFeePerGas cannot be less than maxPriorityFeePerGas/i.test(reason)) {
      throw new TxRejectedError(AdmissionMessage.tipAboveFeeCap);
    }
    throw new TxRejectedError("rlp: invalid transaction encoding", { reason });
  }
}

/**
 * A tx signed for another chain: go-ethereum's `invalid sender`, with the chain ids as facts. Its
 * reason is ours: ethereumjs' text for it interpolates a function's source (10.1.3, "Common chain
 * ID chainId() {…} not matching…") and names its own API ("Pass a matching `common` option").
 */
function wrongChain(raw: Uint8Array, chainId: bigint): TxRejectedError {
  const signedFor = signedChainId(raw);
  if (signedFor === undefined) return new TxRejectedError(AdmissionMessage.invalidSender, { reason: `not signed for this chain (chain id ${chainId})` });
  return new TxRejectedError(AdmissionMessage.invalidSender, {
    reason: `signed for chain id ${signedFor}, this chain's id is ${chainId}`,
    txChainId: signedFor,
    chainId,
  });
}

/** The chain id a raw tx is signed for: a typed tx's first field, or EIP-155's from a legacy tx's v ((v - 35) / 2). */
function signedChainId(raw: Uint8Array): bigint | undefined {
  try {
    const typed = raw[0]! <= 0x7f;
    const fields = RLP.decode(typed ? raw.subarray(1) : raw);
    if (!Array.isArray(fields)) return undefined;
    const field = typed ? fields[0] : fields[6];
    if (!(field instanceof Uint8Array)) return undefined;
    const value = bytesToBigInt(field);
    if (typed) return value;
    return value >= 35n ? (value - 35n) / 2n : undefined;
  } catch {
    return undefined;
  }
}

/** An ethereumjs refusal's text as a client reads it: without the tx dump ethereumjs appends ("(tx type=2 hash=… nonce=…)"). */
function clientReason(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/ \(tx type=.*$/s, "");
}

function isSupportedType(type: number, common: Common): boolean {
  switch (type) {
    case TransactionType.AccessListEIP2930:
      return common.isActivatedEIP(2930);
    case TransactionType.FeeMarketEIP1559:
      return common.isActivatedEIP(1559);
    case TransactionType.EOACodeEIP7702:
      return common.isActivatedEIP(7702);
    // Blob txs need KZG proofs verified at admission; no KZG library is wired in yet.
    default:
      return false;
  }
}
