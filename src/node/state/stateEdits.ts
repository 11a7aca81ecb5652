/**
 * Where a dev state edit (hardhat_setBalance, setCode, setNonce, setStorageAt and anvil's names)
 * lands, and the state each read and each replay runs on because of it: the one place these
 * semantics live (docs/dev-methods.md#state-edits; test/stateEdits.test.ts pins them, whatever
 * state layer is underneath).
 *
 * - While the open block has pre-confirmed nothing (always under automine; under interval mining
 *   between a seal and the next fragment), an edit lands on the head block N, as Hardhat's
 *   "irregular state" (EDR crates/edr_provider/src/data.rs, `irregular_state`): N's state as every
 *   read sees it (by number, by hash, `latest`) is the edited state, and block N + 1 runs on it.
 *   N's header keeps the state root its txs produced (its hash never changes); older blocks never
 *   change.
 * - Once the open block has pre-confirmed fragments, an edit lands in the open block, after the txs
 *   pre-confirmed so far: `pending` sees it at once, `latest` (block N) does not, and the block
 *   seals with it. It is recorded with its position, so that a replay of a later tx of that block
 *   applies it where it happened.
 *
 * Replays (debug_traceTransaction; replay.ts) run a tx on the state it actually ran on: its
 * parent's state as reads see it (edits included), then the block's earlier txs and edits in order.
 */
import type { VM } from "@ethereumjs/vm";
import type { ChainCore } from "../chain/chainCore.ts";
import type { SealedBlock } from "../chain/records.ts";

/** Applies `change` to the live state where it lands (see the module comment); inside the writer queue. */
export async function applyEdit<T>(core: ChainCore, change: (vm: VM) => Promise<T>): Promise<T> {
  const result = await change(core.vm);
  const open = core.open;
  if (open.fragments.length > 0) {
    open.addEdit({ at: open.transactions.length, apply: change });
    // The live state reports an account's storage root as of its last root (liveState.ts): one now,
    // so that a CREATE2 onto an address the edit gave storage collides (EIP-7610), as on the head.
    await core.vm.stateManager.getStateRoot();
  } else {
    // The live state is the head's, edits included: its root is the head's state from now on.
    core.history.setEditedRoot(core.store.latest, await core.vm.stateManager.getStateRoot());
  }
  return result;
}

/** The state root a sealed block's state is read at: after the edits that landed on it, if any. */
export function stateRootOf(core: ChainCore, sealed: SealedBlock): Uint8Array {
  return core.history.editedRootOf(sealed) ?? sealed.block.header.stateRoot;
}
