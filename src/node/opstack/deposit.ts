/**
 * Deposit transactions (type 0x7E, specs/protocol/deposits.md): `sourceHash, from, to, mint,
 * value, gas, isSystemTx, data`, RLP-encoded after the type byte, unsigned; hash = keccak256 of
 * that encoding. ethereumjs has no such type: a DepositTx answers the part of the tx interface the
 * chain uses (hash, serialize, type, to, value, gasLimit, data) and executes as an unsigned legacy
 * tx with an asserted sender (execution.ts).
 */
import { RLP } from "@ethereumjs/rlp";
import { Capability } from "@ethereumjs/tx";
import { Address, bigIntToUnpaddedBytes, bytesToBigInt, bytesToHex } from "@ethereumjs/util";

import { keccak256 } from "../common/crypto.ts";
import { MAX_TX_SIZE } from "../pool/admission.ts";
import { AdmissionMessage, TxRejectedError } from "../common/errors.ts";

import type { TypedTransaction } from "@ethereumjs/tx";
import type { TxReceipt } from "@ethereumjs/vm";

export const DEPOSIT_TX_TYPE = 0x7e;
/** Canyon's deposit receipt version (specs/protocol/deposits.md, "Deposit Receipt"). */
export const DEPOSIT_RECEIPT_VERSION = 1n;

export interface DepositFields {
  sourceHash: Uint8Array;
  from: Address;
  to: Address | undefined;
  mint: bigint;
  value: bigint;
  gas: bigint;
  isSystemTx: boolean;
  data: Uint8Array;
}

export class DepositTx {
  readonly type = DEPOSIT_TX_TYPE;
  readonly sourceHash: Uint8Array;
  readonly from: Address;
  readonly to: Address | undefined;
  readonly mint: bigint;
  readonly value: bigint;
  readonly gasLimit: bigint;
  readonly isSystemTx: boolean;
  readonly data: Uint8Array;
  /** Deposits pay no gas price: admission, ordering and formatting read it as 0. */
  readonly gasPrice = 0n;
  readonly nonce = 0n;
  #serialized: Uint8Array | undefined;
  #hash: Uint8Array | undefined;

  constructor(fields: DepositFields) {
    this.sourceHash = fields.sourceHash;
    this.from = fields.from;
    this.to = fields.to;
    this.mint = fields.mint;
    this.value = fields.value;
    this.gasLimit = fields.gas;
    this.isSystemTx = fields.isSystemTx;
    this.data = fields.data;
  }

  raw(): Uint8Array[] {
    return [
      this.sourceHash,
      this.from.bytes,
      this.to?.bytes ?? new Uint8Array(),
      bigIntToUnpaddedBytes(this.mint),
      bigIntToUnpaddedBytes(this.value),
      bigIntToUnpaddedBytes(this.gasLimit),
      this.isSystemTx ? Uint8Array.of(1) : new Uint8Array(),
      this.data,
    ];
  }

  /** 0x7E || rlp(fields). */
  serialize(): Uint8Array {
    this.#serialized ??= Uint8Array.from([DEPOSIT_TX_TYPE, ...RLP.encode(this.raw())]);
    return this.#serialized;
  }

  hash(): Uint8Array {
    this.#hash ??= keccak256(this.serialize());
    return this.#hash;
  }

  /** Typed (EIP-2718): blocks encode it by its serialization. */
  supports(capability: number): boolean {
    return capability === Capability.EIP2718TypedTransaction;
  }

  getSenderAddress(): Address {
    return this.from;
  }

  isSigned(): boolean {
    return true;
  }

  /** The chain stores deposits among its typed txs; only deposit-aware code reads their own fields. */
  asTyped(): TypedTransaction {
    return this as unknown as TypedTransaction;
  }
}

export const isDeposit = (tx: unknown): tx is DepositTx => tx instanceof DepositTx;

/** Decodes `0x7E || rlp([sourceHash, from, to, mint, value, gas, isSystemTx, data])`. */
export function decodeDeposit(raw: Uint8Array): DepositTx {
  // The pool's size limit applies to deposits sent over RPC too.
  if (raw.length > MAX_TX_SIZE) throw new TxRejectedError(AdmissionMessage.oversizedData, { size: raw.length, limit: MAX_TX_SIZE });
  let fields: Uint8Array[];
  try {
    const decoded = RLP.decode(raw.subarray(1));
    if (!Array.isArray(decoded) || decoded.length !== 8 || decoded.some((item) => !(item instanceof Uint8Array))) {
      throw new Error("expected a list of 8 byte strings");
    }
    fields = decoded as Uint8Array[];
  } catch (error) {
    throw new TxRejectedError("rlp: invalid transaction encoding", { reason: error instanceof Error ? error.message : String(error) });
  }
  const [sourceHash, from, to, mint, value, gas, isSystemTx, data] = fields as [
    Uint8Array,
    Uint8Array,
    Uint8Array,
    Uint8Array,
    Uint8Array,
    Uint8Array,
    Uint8Array,
    Uint8Array,
  ];
  const bad = (reason: string) => new TxRejectedError("rlp: invalid transaction encoding", { reason });
  if (sourceHash.length !== 32) throw bad("sourceHash must be 32 bytes");
  if (from.length !== 20) throw bad("from must be 20 bytes");
  if (to.length !== 0 && to.length !== 20) throw bad("to must be 20 bytes or empty");
  if (mint.length > 32 || value.length > 32) throw bad("mint and value must fit 256 bits");
  if (gas.length > 8) throw bad("gas must fit 64 bits");
  if (isSystemTx.length > 1 || (isSystemTx.length === 1 && isSystemTx[0] !== 1)) throw bad("isSystemTx must be a boolean");
  // Since Regolith a system deposit makes its block invalid (op-geth core/state_transition.go,
  // ErrSystemTxNotSupported): refused here, it never reaches a block.
  if (isSystemTx.length === 1) throw new TxRejectedError(`system tx not supported: address ${new Address(from).toString()}`);
  return new DepositTx({
    sourceHash,
    from: new Address(from),
    to: to.length === 0 ? undefined : new Address(to),
    mint: bytesToBigInt(mint),
    value: bytesToBigInt(value),
    gas: bytesToBigInt(gas),
    isSystemTx: isSystemTx.length === 1,
    data,
  });
}

/** A deposit's receipt in the receipts trie: a typed receipt with depositNonce and its version appended (Canyon). */
export function encodeDepositReceipt(receipt: TxReceipt, depositNonce: bigint): Uint8Array {
  const status = "status" in receipt ? receipt.status : 1;
  const body = RLP.encode([
    status === 1 ? Uint8Array.of(1) : new Uint8Array(),
    bigIntToUnpaddedBytes(receipt.cumulativeBlockGasUsed),
    receipt.bitvector,
    receipt.logs,
    bigIntToUnpaddedBytes(depositNonce),
    bigIntToUnpaddedBytes(DEPOSIT_RECEIPT_VERSION),
  ]);
  return Uint8Array.from([DEPOSIT_TX_TYPE, ...body]);
}

/** The JSON-RPC fields of a deposit tx (op-geth's RPCTransaction for DepositTxType). */
export function formatDeposit(tx: DepositTx, depositNonce: bigint | undefined): Record<string, unknown> {
  const q = (value: bigint) => `0x${value.toString(16)}`;
  return {
    type: "0x7e",
    sourceHash: bytesToHex(tx.sourceHash),
    from: tx.from.toString(),
    to: tx.to?.toString() ?? null,
    mint: q(tx.mint),
    value: q(tx.value),
    gas: q(tx.gasLimit),
    isSystemTx: tx.isSystemTx,
    input: bytesToHex(tx.data),
    // Since Regolith the nonce is the receipt's depositNonce; signature values are zero.
    nonce: q(depositNonce ?? 0n),
    gasPrice: "0x0",
    v: "0x0",
    r: "0x0",
    s: "0x0",
    hash: bytesToHex(tx.hash()),
  };
}
