/**
 * The blockchain the VM is given, in place of @ethereumjs/blockchain: blocks by number and hash, in
 * memory. The chain reads it for three things only: the EVM's BLOCKHASH (getBlock by number, which
 * the chain answers from its own index of sealed blocks), the headers of blocks it holds, and an
 * imported chain's head while its blocks are executed (importChain.ts). @ethereumjs/blockchain
 * also keeps every block in a database with total difficulties and consensus state, which a dev
 * chain never reads; building its genesis through that database and decoding it back was ~15 % of
 * creating a provider.
 */
import { createBlock } from "@ethereumjs/block";
import { bytesToHex, KECCAK256_RLP, SHA256_NULL } from "@ethereumjs/util";

import type { Block, BlockHeader } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import type { Hex } from "../common/types.ts";

export class LightBlockchain {
  /** No consensus to check: blocks are sealed by this chain, or imported after their own checks. */
  readonly consensus = undefined;
  readonly #byNumber: Map<bigint, Block>;
  readonly #byHash: Map<Hex, Block>;
  /** What @ethereumjs/blockchain's callers read headers through (the chain hands out its own). */
  readonly dbManager: { getHeader: (hash: Uint8Array, number: bigint) => Promise<BlockHeader> };

  constructor(genesis: Block, byNumber = new Map<bigint, Block>(), byHash = new Map<Hex, Block>(), dbManager?: LightBlockchain["dbManager"]) {
    this.#byNumber = byNumber;
    this.#byHash = byHash;
    if (byNumber.size === 0) this.#index(genesis);
    this.dbManager = dbManager ?? {
      getHeader: async (hash) => {
        const block = this.#byHash.get(bytesToHex(hash) as Hex);
        if (block === undefined) throw new Error(`no block ${bytesToHex(hash)}`);
        return block.header;
      },
    };
  }

  get genesisBlock(): Block {
    return this.#byNumber.get(0n) ?? [...this.#byNumber.values()].reduce((a, b) => (a.header.number < b.header.number ? a : b));
  }

  async putBlock(block: Block): Promise<void> {
    this.#index(block);
  }

  /** Removes the block and every later one (as @ethereumjs/blockchain's delBlock). */
  async delBlock(hash: Uint8Array): Promise<void> {
    const block = this.#byHash.get(bytesToHex(hash) as Hex);
    if (block === undefined) return;
    for (const [number, later] of [...this.#byNumber]) {
      if (number >= block.header.number) {
        this.#byNumber.delete(number);
        this.#byHash.delete(bytesToHex(later.hash()) as Hex);
      }
    }
  }

  async getBlock(id: Uint8Array | number | bigint): Promise<Block> {
    const block = id instanceof Uint8Array ? this.#byHash.get(bytesToHex(id) as Hex) : this.#byNumber.get(BigInt(id));
    if (block === undefined) throw new Error(`no block ${id instanceof Uint8Array ? bytesToHex(id) : id}`);
    return block;
  }

  async getCanonicalHeadBlock(): Promise<Block> {
    let head: Block | undefined;
    for (const block of this.#byNumber.values()) if (head === undefined || block.header.number > head.header.number) head = block;
    return head!;
  }

  async getCanonicalHeadHeader(): Promise<BlockHeader> {
    return (await this.getCanonicalHeadBlock()).header;
  }

  /**
   * VM copies (state views) copy their blockchain: the copy shares the blocks, and keeps any
   * method the chain set on this instance (its BLOCKHASH answers), as @ethereumjs/blockchain's does.
   */
  shallowCopy(): LightBlockchain {
    const copy = new LightBlockchain(this.genesisBlock, this.#byNumber, this.#byHash, this.dbManager);
    for (const [key, value] of Object.entries(this)) if (key !== "dbManager" && key !== "consensus") Object.assign(copy, { [key]: value });
    return copy;
  }

  #index(block: Block): void {
    this.#byNumber.set(block.header.number, block);
    this.#byHash.set(bytesToHex(block.hash()) as Hex, block);
  }
}

/**
 * The genesis block of `common`'s chain with `stateRoot`, as @ethereumjs/blockchain 10.1.3 builds it
 * (blockchain.js, `createGenesisBlock`): Common's genesis header at the genesis hardfork, with the
 * empty withdrawals root (EIP-4895) and requests hash (EIP-7685) when active, and a clique vanity and
 * seal when the chain is proof-of-authority.
 */
export function createGenesisBlock(common: Common, stateRoot: Uint8Array): Block {
  const atGenesis = common.copy();
  atGenesis.setHardforkBy({ blockNumber: 0, timestamp: atGenesis.genesis().timestamp });
  const genesis = atGenesis.genesis();
  const header: Record<string, unknown> = {
    ...genesis,
    number: 0,
    stateRoot,
    withdrawalsRoot: atGenesis.isActivatedEIP(4895) ? KECCAK256_RLP : undefined,
    requestsHash: atGenesis.isActivatedEIP(7685) ? SHA256_NULL : undefined,
  };
  // Blockchain.createGenesisBlock: the genesis extraData when it has one, else a zero vanity and seal.
  if (atGenesis.consensusType() === "poa") header.extraData = genesis.extraData ? genesis.extraData : new Uint8Array(32 + 65);
  return createBlock({ header, withdrawals: atGenesis.isActivatedEIP(4895) ? [] : undefined }, { common: atGenesis });
}
