/**
 * Replays of executed txs (debug_traceTransaction): a tx runs again on the state it actually ran
 * on (stateEdits.ts): its parent block's state as reads see it, then its block's start-of-block
 * system writes (systemCalls.ts), its earlier txs and the dev edits made between them, in order. Nothing is kept: the replay runs in a checkpoint that is
 * always reverted, on a state view.
 */
import { HistoricalStateUnavailableError } from "../common/errors.ts";
import { bytesToHex } from "@ethereumjs/util";

import { runTxAllowingAssertedSender } from "../ethereumjs/assertedSender.ts";
import { withState } from "./chainReads.ts";
import { startBlock } from "../execution/systemCalls.ts";

import type { Block } from "@ethereumjs/block";
import type { VM } from "@ethereumjs/vm";
import type { ChainCore } from "./chainCore.ts";
import type { TxRecord } from "./records.ts";

/** Where a replayed tx starts: the VM at the state before it, and its block context. */
export interface ReplayPoint {
  vm: VM;
  block: Block;
  /** Gas the block's earlier txs used. */
  blockGasUsed: bigint;
}

/** Runs `work` at the state just before `record` (a sealed or pre-confirmed tx of this chain). */
export function replayBefore<T>(core: ChainCore, record: TxRecord, work: (point: ReplayPoint) => Promise<T>): Promise<T> {
  const sealed = record.blockHash === undefined ? undefined : core.store.byHash(record.blockHash);
  const { transactions, edits } = sealed ?? core.open;
  const block = sealed?.block ?? core.open.executionBlock;
  const { number, timestamp, parentBeaconBlockRoot } = block.header;
  const parentHash = sealed === undefined ? core.open.header.parentHash : bytesToHex(sealed.block.header.parentHash);
  const parent = core.store.byNumber(record.blockNumber - 1n);
  // The parent of the oldest block kept was dropped (the blockHistory option), and its state with it.
  if (parent === undefined) throw new HistoricalStateUnavailableError(record.blockNumber - 1n, core.history.from);
  const forkOf = { number, timestamp };
  return withState(
    core,
    { kind: "sealed", sealed: parent },
    async (vm) => {
      await vm.evm.journal.checkpoint();
      try {
        // The block's EIP-4788/2935 writes came before its first tx, as the fragment runner makes them.
        await startBlock(vm, { number, timestamp, parentHash, parentBeaconBlockRoot: parentBeaconBlockRoot ?? new Uint8Array(32) });
        let blockGasUsed = 0n;
        // Each edit then a root, as applyEdit takes one (stateEdits.ts): the accounts it gave storage report it.
        const applyEditsAt = async (index: number) => {
          for (const edit of edits ?? []) {
            if (edit.at !== index) continue;
            await edit.apply(vm);
            await vm.stateManager.getStateRoot();
          }
        };
        for (const earlier of transactions.slice(0, record.index)) {
          await applyEditsAt(earlier.index);
          const result = await runTxAllowingAssertedSender(vm, { tx: earlier.tx, block, blockGasUsed, skipHardForkValidation: true });
          blockGasUsed = result.receipt.cumulativeBlockGasUsed;
        }
        await applyEditsAt(record.index);
        return await work({ vm, block, blockGasUsed });
      } finally {
        await vm.evm.journal.revert();
      }
    },
    { forkOf },
  );
}
