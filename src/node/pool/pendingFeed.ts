/**
 * What clients see of pre-confirmation: the stream of flashblocks (subscriptions, the raw `/ws`
 * feed) and the `pending` view of the standard methods. Normally both follow the chain's fragments
 * at once. Injected faults (docs/flashblocks.md "Fault injection") make them misbehave as Base's
 * do in production, on the provider's clock so tests stay deterministic:
 * - `stall`: fragments keep executing (and blocks sealing), but the pending view stays at the last
 *   flashblock before the stall and notifications are held; at the end they are delivered in
 *   order and the view catches up (base/node#1129: the pending stream stalls while latest is fine);
 * - `pendingUnavailable`: as after a feed reset, `pending` is `latest` (or, for
 *   `eth_getBlockByNumber`, null: base/base#187), pre-confirmed txs are not found, flashblocks of
 *   that time are lost;
 * - `dropConnections`: asks the WebSocket server to drop every client.
 * Once a chain's flashblocks are retired (Base from its Denim upgrade on) fragments are whole blocks
 * and none is sent as a flashblock: clients follow blocks (newHeads, latest).
 */
import { EventEmitter } from "node:events";

import type { Clock, TimerHandle } from "../../clock.ts";
import type { Chain, ResolvedBlock } from "../chain/chain.ts";
import type { OpenBlock } from "../execution/openBlock.ts";
import type { Fragment, TxRecord } from "../chain/records.ts";

/** One flashblock as clients get it: the fragment and the pending block it completes. */
export interface Flashblock {
  fragment: Fragment;
  /** The open block as of this fragment (accumulated transactions, gas, logs). */
  block: OpenBlock;
}

export interface PendingFeedEvents {
  flashblock: [Flashblock];
  dropConnections: [];
}

interface Stall {
  /** The pending block and its state as of the stall's start; undefined: pending was `latest`. */
  frozen: { open: OpenBlock; stateRoot: Uint8Array } | undefined;
  held: Flashblock[];
  timer: TimerHandle;
}

interface Unavailable {
  /** Whether `eth_getBlockByNumber("pending")` answers null (else the latest block). */
  blockNull: boolean;
  timer: TimerHandle;
}

export class PendingFeed extends EventEmitter<PendingFeedEvents> {
  readonly #chain: Chain;
  readonly #clock: Clock;
  #stall: Stall | undefined;
  /** Clients of the raw feed: while there are any, fragments carry the balances they touched. */
  balancesWanted = 0;
  #unavailable: Unavailable | undefined;

  constructor(chain: Chain, clock: Clock) {
    super();
    this.#chain = chain;
    this.#clock = clock;
    chain.on("fragment", (fragment) => this.#onFragment(fragment, chain.open));
  }

  /**
   * Flashblocks retired (Base's Denim upgrade, from its first block on): the flashblock
   * subscriptions and the raw feed stay open but send nothing, as Base's node after the cutover
   * (base/base crates/execution/flashblocks/src/rpc/cutover.rs; docs.base.org
   * upgrades/denim/migrate-from-flashblocks).
   */
  get flashblocksRetired(): boolean {
    return !this.#chain.open.fork.rules.flashblocks;
  }

  /** A sealed or re-opened block changes what a live view shows; only flashblocks are gated here. */
  #onFragment(fragment: Fragment, open: OpenBlock): void {
    if (this.#unavailable !== undefined || !open.fork.rules.flashblocks) return;
    if (this.#stall !== undefined) {
      this.#stall.held.push({ fragment, block: open.frozen() });
      return;
    }
    this.#deliver({ fragment, block: open });
  }

  /** To every listener separately: this runs inside the chain's fragment, which a listener's bug must not break. */
  #deliver(flashblock: Flashblock): void {
    for (const listener of this.listeners("flashblock")) {
      try {
        listener(flashblock);
      } catch (error) {
        process.emitWarning(`a flashblock listener threw: ${error instanceof Error ? error.message : String(error)}`, "PreconfListenerWarning");
      }
    }
  }

  /** Freezes the pending view and holds flashblocks for `durationMs` (a new stall replaces one under way). */
  async stall(durationMs: number): Promise<void> {
    const frozen = await this.#chain.exclusive(async (vm) => {
      const open = this.#chain.open;
      return open.fragments.length === 0 ? undefined : { open: open.frozen(), stateRoot: await vm.stateManager.getStateRoot() };
    });
    const held = this.#stall?.held ?? [];
    this.#stall?.timer.cancel();
    this.#stall = { frozen: this.#stall?.frozen ?? frozen, held, timer: this.#clock.after(durationMs, () => this.#endStall()) };
  }

  #endStall(): void {
    const stall = this.#stall;
    if (stall === undefined) return;
    this.#stall = undefined;
    for (const flashblock of stall.held) this.#deliver(flashblock);
  }

  /** `pending` answers from `latest` for `durationMs`; with `blockNull`, eth_getBlockByNumber("pending") is null. */
  pendingUnavailable(durationMs: number, blockNull: boolean): void {
    this.#unavailable?.timer.cancel();
    this.#unavailable = { blockNull, timer: this.#clock.after(durationMs, () => (this.#unavailable = undefined)) };
  }

  dropConnections(): void {
    this.emit("dropConnections");
  }

  /** Whether eth_getBlockByNumber("pending") answers null now. */
  get pendingBlockNull(): boolean {
    return this.#unavailable?.blockNull ?? false;
  }

  /**
   * What `pending` is while a fault holds it, or undefined when it is the chain's own view. A
   * frozen block that the canonical chain has since reached is dropped, as Base's node clears
   * pending blocks that canonical blocks overtook: `pending` is then `latest`.
   */
  pendingOverride(): ResolvedBlock | undefined {
    const latest = this.#chain.latest;
    if (this.#unavailable !== undefined) return { kind: "sealed", sealed: latest };
    if (this.#stall === undefined) return undefined;
    const frozen = this.#stall.frozen;
    if (frozen === undefined || frozen.open.number <= latest.block.header.number) return { kind: "sealed", sealed: latest };
    return { kind: "open", open: frozen.open, stateRoot: frozen.stateRoot };
  }

  /** Whether a pre-confirmed tx is invisible to lookups by hash (not in the pending view clients have). */
  hides(record: TxRecord): boolean {
    if (record.blockHash !== undefined) return false;
    if (this.#unavailable !== undefined) return true;
    const frozen = this.#stall?.frozen;
    if (this.#stall === undefined) return false;
    return frozen === undefined || frozen.open.number !== record.blockNumber || record.index >= frozen.open.transactions.length;
  }

  /** Cancels every fault's timer (the provider closes, or the chain is reset). */
  clear(): void {
    this.#stall?.timer.cancel();
    this.#unavailable?.timer.cancel();
    this.#stall = undefined;
    this.#unavailable = undefined;
  }
}
