/** Writes a chain as a state dump (the format: stateDump.ts). */
import { bigIntToHex, bytesToHex, equalsBytes } from "@ethereumjs/util";

import { STATE_DUMP_FORMAT, STATE_DUMP_VERSION } from "../state/stateDump.ts";

import type { GethGenesis } from "@ethereumjs/common";
import type { VM } from "@ethereumjs/vm";
import type { Hex } from "../common/types.ts";
import type { AccountIndex } from "../state/accountIndex.ts";
import type { PooledTx } from "../pool/mempool.ts";
import type { OpenBlock } from "../execution/openBlock.ts";
import type { SealedBlock, TxRecord } from "./records.ts";
import type { DumpAccount, DumpReceipt, StateDump } from "../state/stateDump.ts";

export interface DumpSource {
  chainId: bigint;
  genesis: GethGenesis;
  sealed: readonly SealedBlock[];
  open: OpenBlock;
  pool: readonly PooledTx[];
  timeOffset: bigint;
  nextTimestamp: bigint | undefined;
  index: AccountIndex;
  live: VM;
  /** Runs a read on the head block's state; undefined when that state is not available (loaded dump). */
  atHead: (<T>(read: (vm: VM) => Promise<T>) => Promise<T>) | undefined;
  /** The upstream block a forked chain forks. */
  fork?: { blockNumber: bigint; blockHash: Hex } | undefined;
}

export async function captureState(source: DumpSource): Promise<StateDump> {
  const head = source.sealed[source.sealed.length - 1]!;
  const accounts = await source.index.read(source.live);
  const headAccounts: Record<Hex, DumpAccount | null> = {};
  const liveRoot = await source.live.stateManager.getStateRoot();
  if (!equalsBytes(liveRoot, head.block.header.stateRoot) && source.atHead !== undefined) {
    const atHead = await source.atHead((vm) => source.index.read(vm));
    for (const who of [...new Set([...accounts.keys(), ...atHead.keys()])].sort()) {
      const there = atHead.get(who) ?? null;
      if (JSON.stringify(there) !== JSON.stringify(accounts.get(who) ?? null)) headAccounts[who] = there;
    }
  }
  const open = source.open;
  return {
    format: STATE_DUMP_FORMAT,
    version: STATE_DUMP_VERSION,
    chainId: bigIntToHex(source.chainId),
    genesis: JSON.parse(JSON.stringify(source.genesis)) as GethGenesis,
    head: {
      number: bigIntToHex(head.block.header.number),
      hash: head.hash,
      stateRoot: bytesToHex(head.block.header.stateRoot),
      accounts: headAccounts,
    },
    time: {
      offset: bigIntToHex(source.timeOffset),
      nextTimestamp: source.nextTimestamp === undefined ? null : bigIntToHex(source.nextTimestamp),
    },
    blocks: source.sealed.map((sealed) => ({
      rlp: bytesToHex(sealed.block.serialize()),
      fragments: sealed.fragmentCount,
      receipts: sealed.transactions.map(receiptOf),
    })),
    open:
      open.fragments.length === 0
        ? null
        : {
            header: {
              number: bigIntToHex(open.header.number),
              parentHash: open.header.parentHash,
              timestamp: bigIntToHex(open.header.timestamp),
              gasLimit: bigIntToHex(open.header.gasLimit),
              baseFeePerGas: bigIntToHex(open.header.baseFeePerGas),
              coinbase: open.header.coinbase,
              prevRandao: open.header.prevRandao,
              excessBlobGas: open.header.excessBlobGas === undefined ? null : bigIntToHex(open.header.excessBlobGas),
            },
            fragments: open.fragments.length,
            transactions: open.transactions.map((record) => ({ raw: bytesToHex(record.tx.serialize()), ...receiptOf(record) })),
          },
    pool: [...source.pool].sort((a, b) => a.seq - b.seq).map((entry) => ({ raw: bytesToHex(entry.tx.serialize()), from: entry.sender })),
    accounts: Object.fromEntries(accounts),
    ...(source.fork !== undefined && { fork: { blockNumber: bigIntToHex(source.fork.blockNumber), blockHash: source.fork.blockHash } }),
  };
}

function receiptOf(record: TxRecord): DumpReceipt {
  const receipt = record.receipt;
  return {
    from: record.from,
    status: record.status === 1 ? "0x1" : "0x0",
    ...("stateRoot" in receipt && { root: bytesToHex(receipt.stateRoot) }),
    gasUsed: bigIntToHex(record.gasUsed),
    cumulativeGasUsed: bigIntToHex(record.cumulativeGasUsed),
    effectiveGasPrice: bigIntToHex(record.effectiveGasPrice),
    contractAddress: record.contractAddress ?? null,
    fragment: record.fragmentIndex,
    logs: record.logs.map(({ address: who, topics, data }) => ({ address: who, topics, data })),
    ...(record.blobGasUsed !== undefined && { blobGasUsed: bigIntToHex(record.blobGasUsed) }),
  };
}
