/**
 * Per-tx leftovers of old sealed blocks, cut once a block is past the recent window (blockStore.ts
 * calls this off the seal, a batch at a time): every answer stays the same, only how the bytes are
 * held changes.
 *
 * A tx without logs has an all-zero 256-byte bloom, held twice (the record's and its receipt's):
 * both point to one shared zero bloom, which nothing writes (blooms of sealed blocks are only
 * read: rpc/format.ts, the dump).
 *
 * A record's hex strings (tx hash, sender, contract address, log addresses, topics and data) need
 * no cut: every writer of records builds them flat (common/hex.ts's flatHex; a dump's are parsed
 * JSON), where ethereumjs' bytesToHex would leave a rope of ~n pieces (~1 KB per 32-byte topic).
 */
import type { SealedBlock, TxRecord } from "./records.ts";

const ZERO_BLOOM = new Uint8Array(256);

function isZero(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== 0) return false;
  return true;
}

function compactRecord(record: TxRecord): void {
  if (record.logs.length === 0 && record.logsBloom.length === ZERO_BLOOM.length && isZero(record.logsBloom)) {
    record.logsBloom = ZERO_BLOOM;
    if (record.receipt.bitvector.length === ZERO_BLOOM.length && isZero(record.receipt.bitvector)) record.receipt.bitvector = ZERO_BLOOM;
  }
}

/** Cuts the leftovers of `sealed`'s txs (see above). */
export function compactBlock(sealed: SealedBlock): void {
  for (const record of sealed.transactions) compactRecord(record);
}
