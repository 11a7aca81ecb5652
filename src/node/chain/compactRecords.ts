/**
 * Per-tx leftovers of old sealed blocks, cut once a block is past the recent window (blockStore.ts
 * calls this off the seal, a batch at a time): every answer stays the same, only how the bytes are
 * held changes.
 *
 * - Hex strings (tx hash, sender, log addresses, topics and data) are made flat: ethereumjs'
 *   bytesToHex appends byte by byte and V8 keeps the result as a rope of ~n pieces (hex.ts), ~1 KB
 *   per 32-byte topic; flattening a rope in place (V8 does it when a regular expression reads the
 *   string, String::Flatten) frees its pieces for every holder of the string, map keys included.
 * - A tx without logs has an all-zero 256-byte bloom, held twice (the record's and its receipt's):
 *   both point to one shared zero bloom, which nothing writes (blooms of sealed blocks are only
 *   read: rpc/format.ts, the dump).
 */
import type { SealedBlock, TxRecord } from "./records.ts";

const ZERO_BLOOM = new Uint8Array(256);
const HEX = /^0x[0-9a-f]*$/i;

/** Flattens `text` in place (its rope pieces become garbage); answers it unchanged. */
function flat(text: string): void {
  HEX.test(text);
}

function isZero(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== 0) return false;
  return true;
}

function compactRecord(record: TxRecord): void {
  flat(record.hash);
  flat(record.from);
  for (const log of record.logs) {
    flat(log.address);
    flat(log.data);
    for (const topic of log.topics) flat(topic);
  }
  if (record.logs.length === 0 && record.logsBloom.length === ZERO_BLOOM.length && isZero(record.logsBloom)) {
    record.logsBloom = ZERO_BLOOM;
    if (record.receipt.bitvector.length === ZERO_BLOOM.length && isZero(record.receipt.bitvector)) record.receipt.bitvector = ZERO_BLOOM;
  }
}

/** Cuts the leftovers of `sealed`'s txs (see above). */
export function compactBlock(sealed: SealedBlock): void {
  for (const record of sealed.transactions) compactRecord(record);
}
