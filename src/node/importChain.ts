/**
 * Chain import: concatenated RLP blocks (the format of geth's `export`, and of hive's chain.rlp)
 * are decoded, executed with `runBlock` (which checks state root, receipts root, bloom and gas
 * used) and turned into the same TxRecords that sealed blocks carry, so every read answers them.
 */
import { createBlockFromBytesArray } from "@ethereumjs/block";
import { RLP } from "@ethereumjs/rlp";
import { bytesToHex } from "@ethereumjs/util";
import { runBlock } from "@ethereumjs/vm";

import { feesOf } from "./admission.ts";

import type { Block, BlockBytes } from "@ethereumjs/block";
import type { Blockchain } from "@ethereumjs/blockchain";
import type { Common } from "@ethereumjs/common";
import type { TypedTransaction } from "@ethereumjs/tx";
import type { KZG } from "@ethereumjs/util";
import type { RunTxResult, TxReceipt, VM } from "@ethereumjs/vm";
import type { Hex } from "../rpc/schema.ts";
import type { LogRecord, SealedBlock, TxRecord } from "./records.ts";

export class ChainImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ChainImportError";
  }
}

/**
 * ethereumjs refuses to decode any blob tx without a KZG library, though a block body carries only
 * the blobs' versioned hashes and decoding never uses it. Without a real one, this stand-in lets
 * blocks decode; anything that would need KZG fails loudly.
 */
const noKzg = (): never => {
  throw new ChainImportError("KZG is not available: blob proofs cannot be checked");
};
const BLOCK_BODY_KZG: KZG = {
  blobToKzgCommitment: noKzg,
  computeBlobProof: noKzg,
  verifyProof: noKzg,
  verifyBlobProofBatch: noKzg,
  computeCells: noKzg,
  computeCellsAndProofs: noKzg,
  recoverCellsAndProofs: noKzg,
  verifyCellKzgProofBatch: noKzg,
};

/** Splits concatenated RLP blocks; each block's header picks its own fork (number and timestamp). */
export function decodeBlocks(bytes: Uint8Array, chainCommon: Common): Block[] {
  const common = Object.assign(chainCommon.copy(), {
    customCrypto: { ...chainCommon.customCrypto, kzg: chainCommon.customCrypto.kzg ?? BLOCK_BODY_KZG },
  });
  const blocks: Block[] = [];
  let rest = bytes;
  while (rest.length > 0) {
    const { data, remainder } = RLP.decode(rest, true);
    if (!Array.isArray(data)) throw new ChainImportError(`block ${blocks.length}: not an RLP list`);
    // Pre-merge PoW blocks: seals and difficulty are not checked (no ethash on a dev chain).
    blocks.push(createBlockFromBytesArray(data as BlockBytes, { common, setHardfork: true, skipConsensusFormatValidation: true }));
    rest = remainder;
  }
  return blocks;
}

/** Executes `blocks` in order on top of the current head, stores them and returns them as sealed blocks. */
export async function importBlocks(vm: VM, blockchain: Blockchain, blocks: Block[]): Promise<SealedBlock[]> {
  const sealed: SealedBlock[] = [];
  for (const block of blocks) {
    const transactions = await executeImportedBlock(vm, block);
    await blockchain.putBlock(block);
    sealed.push({ block, hash: bytesToHex(block.hash()) as Hex, transactions, fragmentCount: 0 });
  }
  return sealed;
}

/**
 * Executes `block` on the VM's current state (its parent's). `runBlock` throws when the block's
 * state root, receipts root, bloom or gas used differ from what execution produced.
 */
export async function executeImportedBlock(vm: VM, block: Block): Promise<TxRecord[]> {
  const number = block.header.number;
  try {
    const result = await runBlock(vm, { block, setHardfork: true, skipBlockValidation: true, skipHeaderValidation: true });
    return recordsOf(block, result.results, result.receipts);
  } catch (error) {
    throw new ChainImportError(`block ${number}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function recordsOf(block: Block, results: RunTxResult[], receipts: TxReceipt[]): TxRecord[] {
  const hash = bytesToHex(block.hash()) as Hex;
  let logCount = 0;
  return block.transactions.map((tx, index) => {
    const result = results[index]!;
    const receipt = receipts[index]!;
    const logs: LogRecord[] = receipt.logs.map(([address, topics, data]) => ({
      address: bytesToHex(address) as Hex,
      topics: topics.map((topic) => bytesToHex(topic) as Hex),
      data: bytesToHex(data) as Hex,
      logIndex: logCount++,
    }));
    return {
      hash: bytesToHex(tx.hash()) as Hex,
      tx,
      from: tx.getSenderAddress().toString() as Hex,
      blockNumber: block.header.number,
      index,
      blockTimestamp: block.header.timestamp,
      fragmentIndex: 0,
      blockHash: hash,
      status: "status" in receipt ? receipt.status : 1,
      gasUsed: result.totalGasSpent,
      cumulativeGasUsed: receipt.cumulativeBlockGasUsed,
      effectiveGasPrice: effectiveGasPrice(tx, block.header.baseFeePerGas),
      contractAddress: result.createdAddress?.toString() as Hex | undefined,
      logs,
      logsBloom: result.bloom.bitvector,
      receipt,
      blobGasUsed: result.blobGasUsed,
      blobGasPrice: result.blobGasUsed === undefined ? undefined : block.header.getBlobGasPrice(),
    };
  });
}

/** What the sender paid per gas: the fee cap's share after the base fee, or the legacy gas price. */
function effectiveGasPrice(tx: TypedTransaction, baseFee: bigint | undefined): bigint {
  if (baseFee === undefined || !("maxFeePerGas" in tx)) return feesOf(tx).feeCap;
  const { feeCap, tipCap } = feesOf(tx);
  return baseFee + (tipCap < feeCap - baseFee ? tipCap : feeCap - baseFee);
}
