/**
 * Chain import: concatenated RLP blocks (the format of geth's `export`, and of hive's chain.rlp)
 * are decoded, validated against their parent, executed with `runBlock` and turned into the same
 * TxRecords that sealed blocks carry, so every read answers them.
 *
 * What is checked, per block: the header's format for its fork (EIP-3675: a post-merge block has
 * difficulty 0, nonce 0 and no uncles); against the parent: number, timestamp, gas limit, base
 * fee (EIP-1559), excess blob gas (EIP-4844), blob gas limits and fees; the block body: tx
 * signatures, transactions trie, uncle hash, withdrawals trie (EIP-4895); after execution: state
 * root, receipts root, bloom, gas used and requests hash (EIP-7685). Not checked: proof-of-work
 * seals (no ethash on a dev chain: nonce and mixHash of PoW blocks are taken as they are).
 */
import { createBlockFromBytesArray } from "@ethereumjs/block";
import { RLP } from "@ethereumjs/rlp";
import { bytesToHex, equalsBytes } from "@ethereumjs/util";
import { runBlock } from "@ethereumjs/vm";

import { feesOf } from "../pool/admission.ts";
import { flatHex } from "../common/hex.ts";
import { BLOCK_BODY_KZG } from "../state/genesis.ts";

import type { Block, BlockBytes } from "@ethereumjs/block";
import type { Decoded } from "@ethereumjs/rlp";
import type { Blockchain } from "@ethereumjs/blockchain";
import type { Common } from "@ethereumjs/common";
import type { TypedTransaction } from "@ethereumjs/tx";
import type { RunTxResult, TxReceipt, VM } from "@ethereumjs/vm";
import type { LogRecord, SealedBlock, TxRecord } from "./records.ts";

export class ChainImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ChainImportError";
  }
}

/** Splits concatenated RLP blocks; each block's header picks its own fork (number and timestamp). */
export function decodeBlocks(bytes: Uint8Array, chainCommon: Common): Block[] {
  // Blob txs decode without KZG (see BLOCK_BODY_KZG), whatever Common the caller passes.
  const common = Object.assign(chainCommon.copy(), {
    customCrypto: { ...chainCommon.customCrypto, kzg: chainCommon.customCrypto.kzg ?? BLOCK_BODY_KZG },
  });
  const blocks: Block[] = [];
  let rest = bytes;
  while (rest.length > 0) {
    let decoded: Decoded;
    try {
      decoded = RLP.decode(rest, true);
    } catch (error) {
      throw new ChainImportError(`block at index ${blocks.length}: ${messageOf(error)}`);
    }
    const { data, remainder } = decoded;
    if (!Array.isArray(data)) throw new ChainImportError(`block ${blocks.length}: not an RLP list`);
    // The header's number and timestamp pick its fork, and the fork its format rules.
    try {
      blocks.push(createBlockFromBytesArray(data as BlockBytes, { common, setHardfork: true }));
    } catch (error) {
      throw new ChainImportError(`block at index ${blocks.length}: ${messageOf(error)}`);
    }
    rest = remainder;
  }
  return blocks;
}

/** Executes `blocks` in order on top of the current head, stores them and returns them as sealed blocks. */
export async function importBlocks(vm: VM, blockchain: Blockchain, blocks: Block[]): Promise<SealedBlock[]> {
  const sealed: SealedBlock[] = [];
  for (const block of blocks) {
    const transactions = await executeImportedBlock(vm, blockchain, block);
    await blockchain.putBlock(block);
    sealed.push({ block, hash: flatHex(block.hash()), transactions, fragmentCount: 0 });
  }
  return sealed;
}

/**
 * Validates `block` against its parent (the head of `blockchain`, whose state the VM holds) and
 * executes it. `runBlock` validates the header and body before it runs the txs, and throws when
 * the state root, receipts root, bloom, gas used or requests hash differ from what execution
 * produced.
 */
export async function executeImportedBlock(vm: VM, blockchain: Blockchain, block: Block): Promise<TxRecord[]> {
  const { number, parentHash } = block.header;
  try {
    // The parent's header is enough (no body to decode again).
    const head = await blockchain.getCanonicalHeadHeader();
    if (!equalsBytes(parentHash, head.hash())) {
      throw new Error(`parent hash ${bytesToHex(parentHash)} is not the hash of block ${head.number} (${bytesToHex(head.hash())})`);
    }
    block.validateBlobTransactions(head);
    const result = await runBlock(vm, { block, setHardfork: true });
    return recordsOf(block, result.results, result.receipts);
  } catch (error) {
    throw new ChainImportError(`block ${number}: ${messageOf(error)}`);
  }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

function recordsOf(block: Block, results: RunTxResult[], receipts: TxReceipt[]): TxRecord[] {
  const hash = flatHex(block.hash());
  let logCount = 0;
  return block.transactions.map((tx, index) => {
    const result = results[index]!;
    const receipt = receipts[index]!;
    const logs: LogRecord[] = receipt.logs.map(([address, topics, data]) => ({
      address: flatHex(address),
      topics: topics.map((topic) => flatHex(topic)),
      data: flatHex(data),
      logIndex: logCount++,
    }));
    return {
      hash: flatHex(tx.hash()),
      tx,
      from: flatHex(tx.getSenderAddress().bytes),
      blockNumber: block.header.number,
      index,
      blockTimestamp: block.header.timestamp,
      fragmentIndex: 0,
      blockHash: hash,
      status: "status" in receipt ? receipt.status : 1,
      gasUsed: result.totalGasSpent,
      cumulativeGasUsed: receipt.cumulativeBlockGasUsed,
      effectiveGasPrice: effectiveGasPrice(tx, block.header.baseFeePerGas),
      contractAddress: result.createdAddress === undefined ? undefined : flatHex(result.createdAddress.bytes),
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
