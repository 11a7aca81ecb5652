/**
 * The engine a forked chain starts from: the fork state over the upstream, an in-memory blockchain
 * whose first block is the upstream's fork block, and a VM over both. The chain then continues as
 * any chain does: its next block's parent is the fork block (by the upstream's hash), and its
 * fragments and seals run on the fork state.
 */
import { createBlockHeader, Block } from "@ethereumjs/block";
import { Caches } from "@ethereumjs/statemanager";
import { Account, createAddressFromString, hexToBytes } from "@ethereumjs/util";

import { AccountIndex } from "../state/accountIndex.ts";
import { asBlockchain } from "../ethereumjs/blockchain.ts";
import { ForkBlockchain } from "./forkBlockchain.ts";
import { ForkStateManager } from "./forkState.ts";
import { createChainVm } from "../execution/vm.ts";

import type { HeaderData } from "@ethereumjs/block";
import type { Blockchain } from "@ethereumjs/blockchain";
import type { Common, GethGenesis } from "@ethereumjs/common";
import type { CustomPrecompile } from "@ethereumjs/evm";
import type { VM } from "@ethereumjs/vm";
import type { Hex } from "../common/types.ts";
import type { SealedBlock } from "../chain/records.ts";
import type { ForkSource, RpcBlock } from "./source.ts";

export interface ForkEngine {
  vm: VM;
  blockchain: Blockchain;
  index: AccountIndex;
  sealed: SealedBlock[];
}

/**
 * `alloc`: the dev accounts' balances, written over the upstream's (as Hardhat funds its accounts
 * on a fork); their nonces and code stay the upstream's.
 */
export async function createForkEngine(source: ForkSource, common: Common, alloc: GethGenesis["alloc"], precompiles?: CustomPrecompile[]): Promise<ForkEngine> {
  const stateManager = new ForkStateManager({ common, caches: new Caches() }, source);
  const index = AccountIndex.attach(stateManager);
  await stateManager.initialize();
  const funded = Object.entries(alloc).map(([who, entry]) => ({
    where: createAddressFromString(who.startsWith("0x") ? who : `0x${who}`),
    balance: BigInt(entry.balance ?? 0),
  }));
  // Read together first: one batch to the upstream rather than one request per account.
  const accounts = await Promise.all(funded.map(({ where }) => stateManager.getAccount(where)));
  for (const [i, { where, balance }] of funded.entries()) {
    const account = accounts[i] ?? new Account();
    account.balance = balance;
    await stateManager.putAccount(where, account);
  }
  await stateManager.flush();
  const stateRoot = await stateManager.getStateRoot();
  const block = forkBlockOf(source.block, stateRoot, common);
  const blockchain = asBlockchain(new ForkBlockchain(source, block));
  const vm = await createChainVm(common, stateManager, blockchain, precompiles);
  return { vm, blockchain, index, sealed: [{ block, hash: source.block.hash, transactions: [], fragmentCount: 0 }] };
}

/**
 * The upstream's fork block as the chain's first block: its number, time, gas limit and base fee
 * give the next block its own, and its hash is the next block's parent hash. Its state root is the
 * fork's own (the root the chain's state views of this block read at). Its hash is the upstream's
 * whatever fields the header has (an OP-stack or future header may not re-hash the same here).
 */
function forkBlockOf(rpc: RpcBlock, stateRoot: Uint8Array, common: Common): Block {
  const field = (name: string) => (typeof rpc[name] === "string" ? (rpc[name] as Hex) : undefined);
  const number = BigInt(rpc.number);
  const timestamp = BigInt(rpc.timestamp);
  common.setHardforkBy({ blockNumber: number, timestamp });
  const data: HeaderData = {
    parentHash: rpc.parentHash,
    coinbase: field("miner"),
    stateRoot,
    transactionsTrie: field("transactionsRoot"),
    receiptTrie: field("receiptsRoot"),
    logsBloom: field("logsBloom"),
    difficulty: 0n,
    number,
    gasLimit: field("gasLimit"),
    gasUsed: field("gasUsed"),
    timestamp,
    mixHash: field("mixHash"),
    baseFeePerGas: field("baseFeePerGas"),
  };
  if (common.isActivatedEIP(4844)) {
    data.excessBlobGas = field("excessBlobGas") ?? "0x0";
    data.blobGasUsed = field("blobGasUsed") ?? "0x0";
  }
  const opts = { common, skipConsensusFormatValidation: true };
  return withUpstreamHash(new Block(createBlockHeader(data, opts), [], [], common.isActivatedEIP(4895) ? [] : undefined, opts), rpc.hash);
}

/** The fork block (built here, or decoded from a dump) answering the upstream's hash. */
export function withUpstreamHash(block: Block, hash: Hex): Block {
  const opts = { common: block.common, skipConsensusFormatValidation: true };
  const forkBlock = new ForkBlock(block.header, [], [], block.withdrawals, opts);
  upstreamHashes.set(forkBlock, hexToBytes(hash));
  return forkBlock;
}

/** Blocks are frozen once built: the fork block's upstream hash is kept beside it. */
const upstreamHashes = new WeakMap<Block, Uint8Array>();

class ForkBlock extends Block {
  override hash(): Uint8Array {
    return upstreamHashes.get(this) ?? super.hash();
  }
}
