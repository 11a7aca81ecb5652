/**
 * The sealed block's header as the header its txs executed against with what executing them
 * produced. Sealing otherwise runs BlockHeader's constructor a second time per block for the same
 * fields: it converts every one of them (each bigint through hex and bytes), re-derives the fork
 * defaults and validates what the open block's header already passed (~40 µs a block, an automined
 * block per tx).
 *
 * Patch (@ethereumjs/block 10.1.3, BlockHeader): a header is a frozen object of own fields, plus
 * `common`, `keccakFunction` and a `cache` of its hash; every method reads only those. The copy
 * gets the same own fields, a fresh `cache`, the sealed values (fresh byte arrays, as the
 * constructor copies its inputs), and is frozen as the constructor freezes it. Its hash, which the
 * seal asks for at once, is put in the cache as `hash()` computes it (keccak of the RLP of `raw()`),
 * the RLP written in one pass (trieNodeEncoding.ts) instead of an array per field concatenated.
 * test/ethereumjs.test.ts fails if a copy stops being equal, field for field and in its hash and
 * encoding, to the header the constructor builds from the same data.
 */
import { BlockHeader } from "@ethereumjs/block";

import { encodeNode } from "./trieNodeEncoding.ts";

/** What executing a block's txs decides of its header. */
export interface SealedFields {
  stateRoot: Uint8Array;
  transactionsTrie: Uint8Array;
  receiptTrie: Uint8Array;
  logsBloom: Uint8Array;
  gasUsed: bigint;
  /** Only where the header has the field (EIP-4844, or an OP chain's DA footprint). */
  blobGasUsed?: bigint;
  /** Only where the header has the field (EIP-7685). */
  requestsHash?: Uint8Array;
  /** Only where the header has the field (EIP-4895). */
  withdrawalsRoot?: Uint8Array;
}

/** `executed` with `sealed`'s fields; `executed` itself is unchanged. */
export function sealedHeader(executed: BlockHeader, sealed: SealedFields): BlockHeader {
  if (sealed.gasUsed > executed.gasLimit) throw new Error(`Invalid block: too much gas used. Used: ${sealed.gasUsed}, gas limit: ${executed.gasLimit}`);
  const header = Object.create(BlockHeader.prototype) as BlockHeader;
  Object.assign(header, executed, {
    cache: { hash: undefined },
    stateRoot: sealed.stateRoot.slice(),
    transactionsTrie: sealed.transactionsTrie.slice(),
    receiptTrie: sealed.receiptTrie.slice(),
    logsBloom: sealed.logsBloom.slice(),
    gasUsed: sealed.gasUsed,
    ...(sealed.blobGasUsed !== undefined && { blobGasUsed: sealed.blobGasUsed }),
    ...(sealed.requestsHash !== undefined && { requestsHash: sealed.requestsHash.slice() }),
    ...(sealed.withdrawalsRoot !== undefined && { withdrawalsRoot: sealed.withdrawalsRoot.slice() }),
  });
  const own = header as unknown as { cache: { hash?: Uint8Array }; keccakFunction: (data: Uint8Array) => Uint8Array };
  own.cache.hash = own.keccakFunction(encodeNode(header.raw()));
  Object.freeze(header);
  return header;
}
