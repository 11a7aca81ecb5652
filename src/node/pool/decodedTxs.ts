/**
 * Raw txs this chain has decoded and recovered, by the hash of their bytes: a test suite that
 * reverts to a snapshot (`loadFixture`) sends byte-identical signed txs again (same nonce, same
 * data; signatures are deterministic, RFC 6979), and admission then skips decoding and sender
 * recovery (~0.15 ms of native ecrecover and RLP per tx). Every pool rule still runs on the tx.
 *
 * Correct by construction: the hash is keccak256 of the whole encoding, signature included, so
 * equal hashes are equal bytes; what else the decoded tx depends on is its `Common` (the chain id,
 * the hardfork's tx types and limits), and an entry is used only while the chain's shared tx
 * Common is the very one it was decoded with (sharedCommon.ts builds a new one when the hardfork
 * moves). Decoded txs are frozen (@ethereumjs/tx), and nothing of ours writes to one but its
 * `cache` (hash, sender key, data gas per hardfork), whose entries hold for the same bytes and
 * Common. Only txs decoded from bytes and whose sender was recovered come here: never an
 * impersonated tx, whose sender is asserted.
 *
 * Per chain (chainWrites.ts), so a new provider pays the full price. Bounded: the 1,024 most
 * recently admitted raw txs and at most 8 MiB of their encodings (docs/limits.md).
 */
import { LruMemo } from "../common/lruMemo.ts";

import type { Common } from "@ethereumjs/common";
import type { TypedTransaction } from "@ethereumjs/tx";
import type { Hex } from "../common/types.ts";

export const MAX_DECODED_TXS = 1024;
export const MAX_DECODED_TX_BYTES = 8 * 1024 * 1024;

export interface DecodedTx {
  tx: TypedTransaction;
  sender: Hex;
}

export class DecodedTxs {
  readonly #memo = new LruMemo<Hex, DecodedTx>(MAX_DECODED_TXS, MAX_DECODED_TX_BYTES);

  /** The tx whose encoding hashes to `hash`, if it was decoded on `txCommon` (the chain's shared tx Common now). */
  get(hash: Hex, txCommon: Common): DecodedTx | undefined {
    const known = this.#memo.get(hash);
    return known !== undefined && known.tx.common === txCommon ? known : undefined;
  }

  /** `tx`, decoded from `size` bytes hashing to `hash`, whose recovered sender is `sender`. */
  remember(hash: Hex, tx: TypedTransaction, sender: Hex, size: number): void {
    this.#memo.set(hash, { tx, sender }, size);
  }

  get size(): number {
    return this.#memo.size;
  }
}
