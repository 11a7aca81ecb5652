/**
 * Patch (@ethereumjs/blockchain 10.1.3, `blockchain.dbManager.getHeader` and `blockchain.getBlock`,
 * own-property overrides of one instance). The package decodes the head's and the parent's header
 * from its DB on every putBlock and delBlock (`_getHeader` → `dbManager.getHeader`), each decode
 * copying a Common and re-merging its params (~12 % of an automined test file); the chain already
 * holds those headers, so `header` hands them out. The EVM asks the blockchain for blocks only for
 * BLOCKHASH (pre-EIP-7709): `block` answers from the chain's own index, so sealed blocks are never
 * read back from the package's database. Either returning undefined falls back to the package.
 * test/ethereumjs.test.ts fails if putBlock stops reading headers through dbManager.getHeader.
 */
import type { Block, BlockHeader } from "@ethereumjs/block";
import type { Blockchain } from "@ethereumjs/blockchain";

export interface KnownBlocks {
  /** The header of the block with this hash, if the chain holds it. */
  header(hash: Uint8Array): BlockHeader | undefined;
  /** The block with this hash or number, if the chain holds it. */
  block(id: Uint8Array | number | bigint): Block | undefined;
}

export function shareBlocks(blockchain: Blockchain, known: KnownBlocks): void {
  const manager = blockchain.dbManager;
  const decode = manager.getHeader.bind(manager);
  manager.getHeader = async (hash, number) => known.header(hash) ?? decode(hash, number);
  const read = blockchain.getBlock.bind(blockchain);
  blockchain.getBlock = async (id) => known.block(id) ?? read(id);
}

/**
 * What a stand-in for @ethereumjs/blockchain 10.1.3's Blockchain must have (a fork's blockchain,
 * src/node/fork/forkBlockchain.ts; a new chain's, src/node/chain/lightBlockchain.ts): what the VM calls (vm.js `shallowCopy`; the EVM's BLOCKHASH
 * `getBlock`; runBlock's `validateHeader`), what the chain calls (putBlock, delBlock, the head) and
 * what shareBlocks replaces (`dbManager.getHeader`). The VM's types ask for the whole class.
 */
export interface BlockchainStandIn {
  readonly consensus: undefined;
  readonly dbManager: { getHeader(hash: Uint8Array, number: bigint): Promise<BlockHeader> };
  putBlock(block: Block): Promise<void>;
  delBlock(hash: Uint8Array): Promise<void>;
  getBlock(id: Uint8Array | number | bigint): Promise<Block>;
  getCanonicalHeadBlock(): Promise<Block>;
  shallowCopy(): BlockchainStandIn;
  /** runBlock's, when it validates a block (imported chains, which keep @ethereumjs/blockchain). */
  validateHeader?(header: BlockHeader): Promise<void>;
}

export const asBlockchain = (standIn: BlockchainStandIn): Blockchain => standIn as unknown as Blockchain;

/**
 * A block known only by its hash and number, for BLOCKHASH: @ethereumjs/evm 10.1.3 reads nothing
 * but `hash()` of the block `getBlock(number)` returns (opcodes/functions.js, 0x40; its own
 * EVMMockBlock type is just that).
 */
export const hashOnlyBlock = (hash: Uint8Array, number: bigint): Block => ({ hash: () => hash, header: { number } }) as unknown as Block;
