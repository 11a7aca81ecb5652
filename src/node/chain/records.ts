/** What the chain remembers about executed transactions, their logs, fragments and blocks. */
import type { Block } from "@ethereumjs/block";
import type { TypedTransaction } from "@ethereumjs/tx";
import type { TxReceipt, VM } from "@ethereumjs/vm";
import type { Hex } from "../common/types.ts";
import type { L1Cost } from "../opstack/l1Fee.ts";

export const ZERO_HASH = `0x${"00".repeat(32)}` as Hex;

export interface LogRecord {
  address: Hex;
  topics: Hex[];
  data: Hex;
  /** Position of the log in its block. */
  logIndex: number;
}

export interface TxRecord {
  hash: Hex;
  tx: TypedTransaction;
  from: Hex;
  blockNumber: bigint;
  /** The block's timestamp (fixed when the block opens, so known while pre-confirmed). */
  blockTimestamp: bigint;
  /** The block's time in milliseconds on a Denim block (Base's `blockTimestampMs`); undefined elsewhere. */
  blockTimestampMs?: bigint | undefined;
  /** Position in the block. */
  index: number;
  /** Fragment of its block that pre-confirmed it. */
  fragmentIndex: number;
  /** Undefined while the block is open (the receipt then reports 32 zero bytes, as Base does). */
  blockHash: Hex | undefined;
  status: 0 | 1;
  gasUsed: bigint;
  cumulativeGasUsed: bigint;
  effectiveGasPrice: bigint;
  contractAddress: Hex | undefined;
  logs: LogRecord[];
  logsBloom: Uint8Array;
  /** ethereumjs' receipt, encoded into the receipts trie at seal. */
  receipt: TxReceipt;
  blobGasUsed: bigint | undefined;
  blobGasPrice: bigint | undefined;
  /** OP stack: the L1 data fee the tx paid (user txs). */
  l1Cost?: L1Cost;
  /** OP stack since Jovian: the tx's DA footprint (receipts' `blobGasUsed`, the header's sum). */
  daFootprint?: bigint;
  /** OP stack: the sender's nonce before a deposit tx (its receipt's depositNonce). */
  depositNonce?: bigint;
  /** Why the tx failed (status 0): what Hardhat's failed-send error reports (docs/behaviour.md). */
  failure?: TxFailure;
  /** Calldata of its `console.log` calls (consoleLog.ts), when the chain keeps them. */
  consoleCalls?: Hex[];
}

/**
 * A failed tx's outcome: ethereumjs' error name ("revert", "invalid opcode", "out of gas", …)
 * and, for a revert, its return data ("0x" otherwise).
 */
export interface TxFailure {
  error: string;
  returnData: Hex;
}

/** One pre-confirmation: the txs a sequencer tick executed in the open block. */
export interface Fragment {
  blockNumber: bigint;
  index: number;
  /** Stable id of the block being built (Base's `payload_id`). */
  payloadId: Hex;
  transactions: TxRecord[];
  /** Gas used by the block so far, this fragment included. */
  cumulativeGasUsed: bigint;
  base: FragmentBase | undefined;
  /** Balances of the accounts this fragment touched, when the raw flashblocks feed has clients. */
  balances?: Map<Hex, bigint>;
}

export interface FragmentBase {
  parentHash: Hex;
  feeRecipient: Hex;
  prevRandao: Hex;
  blockNumber: bigint;
  gasLimit: bigint;
  timestamp: bigint;
  baseFeePerGas: bigint;
  /** The header's extraData (an OP chain's fee parameters), "0x" when empty. */
  extraData: Hex;
}

export interface SealedBlock {
  block: Block;
  hash: Hex;
  transactions: TxRecord[];
  fragmentCount: number;
  /** Dev edits made between its txs while it was the open block (stateEdits.ts), for replays. */
  edits?: readonly BlockEdit[];
}

/** A dev state edit that landed inside a block, before its tx number `at` (stateEdits.ts). */
export interface BlockEdit {
  at: number;
  /** Makes the same change again on another VM (a replay's). */
  apply(vm: VM): Promise<unknown>;
}
