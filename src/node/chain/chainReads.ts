/**
 * Reads: block selectors to blocks, the state a read runs on (the pre-confirmed state through the
 * writer queue, a sealed block's through a state view), logs and nonces.
 */
import { createAddressFromString } from "@ethereumjs/util";

import { HistoricalStateUnavailableError } from "../common/errors.ts";
import { stateRootOf } from "../state/stateEdits.ts";

import type { Block } from "@ethereumjs/block";
import type { VM } from "@ethereumjs/vm";
import type { BlockSelector, Hex } from "../common/types.ts";
import type { ChainCore } from "./chainCore.ts";
import type { ResolvedBlock } from "./chainTypes.ts";
import type { LogRecord, TxRecord } from "./records.ts";

/**
 * `pending` (and the open block's number) is the open block once it has a fragment, and
 * `latest` before that: pending never returns null (docs/behaviour.md). Under automine it is the
 * open block always: the next block Hardhat would mine (its number, its time, its base fee; state
 * the head's), as Hardhat's pending block. Undefined: no such block.
 */
export function resolve(core: ChainCore, selector: BlockSelector): ResolvedBlock | undefined {
  const { open, store, feed } = core;
  switch (selector.kind) {
    case "tag":
      switch (selector.tag) {
        case "pending":
          return feed.pendingOverride() ?? (open.fragments.length > 0 || core.automine ? { kind: "open", open } : { kind: "sealed", sealed: store.latest });
        case "earliest":
          // The first block this chain holds: the genesis, or the fork block on a fork.
          return { kind: "sealed", sealed: store.first };
        default:
          // A dev chain finalizes at once: safe and finalized are the head (as Hardhat and anvil).
          return { kind: "sealed", sealed: store.latest };
      }
    case "number": {
      if (selector.number === open.number) {
        // Under an injected fault the open block is what clients' pending view has, if anything.
        const override = feed.pendingOverride();
        if (override === undefined) return { kind: "open", open };
        return override.kind === "open" && override.open.number === selector.number ? override : undefined;
      }
      const sealed = store.byNumber(selector.number);
      return sealed === undefined ? undefined : { kind: "sealed", sealed };
    }
    case "hash": {
      const sealed = store.byHash(selector.hash);
      return sealed === undefined ? undefined : { kind: "sealed", sealed };
    }
  }
}

export interface ReadOptions {
  /**
   * A read that may run long (a dry run): the live state is read through a snapshot, so the
   * writer queue is held only to take it, and fragments never wait for the read.
   */
  snapshot?: boolean;
  /**
   * The block whose fork the read runs under, when it is not the block whose state is read: a
   * replay runs on its parent's state under its own block's rules (a block that starts a fork).
   */
  forkOf?: { number: bigint; timestamp: bigint } | undefined;
}

/**
 * Runs `read` against the state of a block: the pre-confirmed state (through the writer queue,
 * so it never sees half a fragment, or a snapshot of it taken there) or a sealed block's state
 * (a view at its state root).
 */
export async function withState<T>(core: ChainCore, resolved: ResolvedBlock, read: (vm: VM) => Promise<T>, options: ReadOptions = {}): Promise<T> {
  if (resolved.kind === "open") {
    const { stateRoot } = resolved;
    // A frozen view's state root, read like a sealed block's (state views need the root, and the
    // number and time that name the block's fork).
    const { number, timestamp } = resolved.open.header;
    if (stateRoot !== undefined) return core.history.read({ header: { stateRoot, number, timestamp } } as Block, read);
    return options.snapshot === true ? readSnapshot(core, resolved.open.number, read) : core.queue.run(() => read(core.vm));
  }
  if (!core.history.hasState(resolved.sealed)) throw new HistoricalStateUnavailableError(resolved.sealed.block.header.number, core.history.from);
  // A sealed block's state as every read sees it: with the dev edits that landed on it (stateEdits.ts),
  // under the fork its number and time name (a fork scheduled later: docs/profiles.md).
  const { number, timestamp } = options.forkOf ?? resolved.sealed.block.header;
  return core.history.read({ header: { stateRoot: stateRootOf(core, resolved.sealed), number, timestamp } } as Block, read);
}

/**
 * A read of the live state on a snapshot: inside the writer queue only the live state root is
 * taken (its writes put into the tries); the read runs on a state view at that root, beside the
 * fragments and seals that follow (stateViews.ts).
 */
function readSnapshot<T>(core: ChainCore, number: bigint, read: (vm: VM) => Promise<T>): Promise<T> {
  return core.queue
    .run(async () => {
      const stateRoot = await core.vm.stateManager.getStateRoot();
      // Registered on its view before the queue moves on: pruning keeps the root while it runs.
      return { reading: core.history.read({ header: { stateRoot, number } } as Block, read, true) };
    })
    .then(({ reading }) => reading);
}

/** Logs of the sealed blocks `from..to` and, when `includeOpen`, of the open block. */
export function* logs(core: ChainCore, from: bigint, to: bigint, includeOpen: boolean): Generator<{ log: LogRecord; record: TxRecord }> {
  const { store } = core;
  const last = to < store.headNumber ? to : store.headNumber;
  // A fork holds no block below its first (the fork block): those numbers are not walked.
  const first = store.first.block.header.number;
  for (let number = from > first ? from : first; number <= last; number++) {
    // A reserved run has no logs: skip it whole.
    const runEnd = store.unbuiltRunEnd(number);
    if (runEnd !== undefined) {
      number = runEnd;
      continue;
    }
    for (const record of store.byNumber(number)?.transactions ?? []) {
      for (const log of record.logs) yield { log, record };
    }
  }
  const open = core.open;
  if (includeOpen && open.number >= from && open.number <= to) {
    for (const record of open.transactions) {
      // An injected stall or feed reset hides what clients' pending view does not have yet.
      if (core.feed.hides(record)) break;
      for (const log of record.logs) yield { log, record };
    }
  }
}

/**
 * The sender's next free nonce: pre-confirmed nonce plus its contiguous pooled txs (inside the
 * queue); `accountNonce`: the pre-confirmed nonce when the caller has just read it.
 */
export async function pendingNonce(core: ChainCore, address: Hex, accountNonce?: bigint): Promise<bigint> {
  const nonce = accountNonce ?? (await core.runner.nonceOf(address));
  return nonce + BigInt(core.pool.contiguousCount(address, nonce));
}

/**
 * Base's pending nonce: the canonical (latest sealed) nonce plus the sender's pre-confirmed txs,
 * the mempool not counted (base/base crates/execution/flashblocks/src/rpc/eth.rs,
 * `get_transaction_count`). Two txs sent back to back with it share a nonce.
 */
export async function preconfirmedNonce(core: ChainCore, address: Hex): Promise<bigint> {
  for (;;) {
    const latest = core.store.latest;
    const canonical = await withState(
      core,
      { kind: "sealed", sealed: latest },
      async (vm) => (await vm.stateManager.getAccount(createAddressFromString(address)))?.nonce ?? 0n,
    );
    // A seal during the read: the open block counted must be the one after that canonical block.
    if (core.store.latest !== latest) continue;
    // Under a stall, the pre-confirmed txs of clients' frozen pending view (Base's node reads them from its feed).
    const override = core.feed.pendingOverride();
    const open = override === undefined ? core.open.transactions : override.kind === "open" ? override.open.transactions : [];
    return canonical + BigInt(open.filter((record) => record.from === address).length);
  }
}
