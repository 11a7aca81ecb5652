/**
 * The blockchain of a forked chain: the fork block and the blocks sealed on top of it, in memory.
 * @ethereumjs/blockchain cannot hold it: its first block must be a genesis (number 0) and every
 * block after needs its parent's total difficulty in its database. The chain uses a blockchain for
 * three things only: keeping sealed blocks (putBlock, delBlock), handing their headers back, and
 * the EVM's BLOCKHASH (getBlock by number), which here reads blocks at or below the fork block from
 * the upstream, so a contract sees the upstream's real block hashes.
 */
import { bytesToHex, hexToBytes } from "@ethereumjs/util";

import { hashOnlyBlock } from "../ethereumjs/blockchain.ts";

import type { Block, BlockHeader } from "@ethereumjs/block";
import type { Hex } from "../common/types.ts";
import type { ForkSource } from "./source.ts";

export class ForkBlockchain {
  readonly consensus = undefined;
  readonly #source: ForkSource;
  readonly #byNumber: Map<bigint, Block>;
  readonly #byHash: Map<Hex, Block>;
  /** Replaced by the chain's header sharing (src/node/ethereumjs/blockchain.ts, shareBlocks). */
  readonly dbManager: { getHeader: (hash: Uint8Array, number: bigint) => Promise<BlockHeader> };

  constructor(source: ForkSource, forkBlock: Block, byNumber = new Map<bigint, Block>(), byHash = new Map<Hex, Block>()) {
    this.#source = source;
    this.#byNumber = byNumber;
    this.#byHash = byHash;
    this.#byNumber.set(forkBlock.header.number, forkBlock);
    this.#byHash.set(bytesToHex(forkBlock.hash()), forkBlock);
    this.dbManager = {
      getHeader: async (hash) => {
        const block = this.#byHash.get(bytesToHex(hash));
        if (block === undefined) throw new Error(`no block ${bytesToHex(hash)} in the fork`);
        return block.header;
      },
    };
  }

  async putBlock(block: Block): Promise<void> {
    this.#byNumber.set(block.header.number, block);
    this.#byHash.set(bytesToHex(block.hash()), block);
  }

  /** Removes the block and every later one (as @ethereumjs/blockchain's delBlock). */
  async delBlock(hash: Uint8Array): Promise<void> {
    const block = this.#byHash.get(bytesToHex(hash));
    if (block === undefined || block.header.number <= this.#source.blockNumber) return;
    for (const [number, later] of [...this.#byNumber]) {
      if (number >= block.header.number) {
        this.#byNumber.delete(number);
        this.#byHash.delete(bytesToHex(later.hash()));
      }
    }
  }

  async getBlock(id: Uint8Array | number | bigint): Promise<Block> {
    if (id instanceof Uint8Array) {
      const block = this.#byHash.get(bytesToHex(id));
      if (block === undefined) throw new Error(`no block ${bytesToHex(id)} in the fork`);
      return block;
    }
    const number = BigInt(id);
    const local = this.#byNumber.get(number);
    if (local !== undefined) return local;
    if (number < this.#source.blockNumber) {
      // BLOCKHASH reads only the hash: an upstream block stands in by its hash and number.
      const hash = hexToBytes(await this.#source.blockHash(number));
      return hashOnlyBlock(hash, number);
    }
    throw new Error(`no block ${number} in the fork`);
  }

  async getCanonicalHeadBlock(): Promise<Block> {
    let head: Block | undefined;
    for (const block of this.#byNumber.values()) if (head === undefined || block.header.number > head.header.number) head = block;
    return head!;
  }

  /**
   * Views (stateViews.ts) copy the VM, and with it this: the copies share the blocks, and the
   * chain's own block lookup when it installed one on this instance (chain.ts, `#shareHeaders`:
   * sealed blocks are answered from the chain's index, never put here), as @ethereumjs/blockchain's
   * shallowCopy keeps an instance's own properties. Without it a view could not BLOCKHASH a block
   * sealed on the fork.
   */
  shallowCopy(): ForkBlockchain {
    const forkBlock = this.#byNumber.get(this.#source.blockNumber)!;
    const copy = new ForkBlockchain(this.#source, forkBlock, this.#byNumber, this.#byHash);
    if (Object.hasOwn(this, "getBlock")) copy.getBlock = this.getBlock;
    return copy;
  }

  async validateHeader(): Promise<void> {}
}
