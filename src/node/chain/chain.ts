/**
 * The chain: sealed blocks (blockStore.ts), one open block that fragments grow (openBlock.ts,
 * fragmentRunner.ts), the mempool, and the state they share. Every state change goes through one
 * serial queue (the single writer); reads of sealed state use state views at that block's root
 * (stateHistory.ts) and never wait for it.
 *
 * This class is the facade the rest of the package uses. It owns the queue: each write below is
 * queued here and done by the module of its job (chainWrites.ts, chainSnapshots.ts, chainDump.ts,
 * nextBlock.ts), reads by chainReads.ts; chainCore.ts holds the parts they share.
 */
import { EventEmitter } from "node:events";

import { admitTransaction } from "../pool/admission.ts";
import { BlockStore } from "./blockStore.ts";
import { executeFragment, fragmentsPerBlockOf, install, reopenIfEmpty, seal } from "./chainCore.ts";
import { dumpState, loadState } from "./chainDump.ts";
import { initialState } from "./chainInit.ts";
import { logs, pendingNonce, preconfirmedNonce, resolve, withState } from "./chainReads.ts";
import { admit, mine, queueDeposit, reorgOpenBlock, setBlockFields } from "./chainWrites.ts";
import { decodeDeposit, DEPOSIT_TX_TYPE } from "../opstack/deposit.ts";
import { commonFromGenesis } from "../state/genesis.ts";
// Before any VM exists: every EVM's interpreter yields to the event loop (evmBudget.ts).
import "../execution/evmBudget.ts";
import { FragmentRunner } from "../execution/fragmentRunner.ts";
import { captureIdleQueues } from "../execution/systemCalls.ts";
import { installInterpreterLoop } from "../ethereumjs/interpreterLoop.ts";
import { installActiveEips } from "../ethereumjs/activeEips.ts";
import { uniformCommon } from "../ethereumjs/commonShape.ts";
import { installCreateAddress } from "../ethereumjs/createAddress.ts";
import { installJournalKeys } from "../ethereumjs/journalKeys.ts";
import { installTrieFindPath } from "../ethereumjs/trieFindPath.ts";
import { installJumpAnalysisCache } from "../ethereumjs/jumpAnalysis.ts";
import { applyCodeSizeLimit } from "../ethereumjs/codeSizeLimit.ts";
import { activateHardforkAtBlock } from "../ethereumjs/forkBlocks.ts";
import { Mempool } from "../pool/mempool.ts";
import { NextBlock } from "./nextBlock.ts";
import { PendingFeed } from "../pool/pendingFeed.ts";
import { SerialQueue } from "../common/serialQueue.ts";
import { revertTo, takeSnapshot } from "./chainSnapshots.ts";
import { Snapshots } from "./snapshots.ts";
import { StateDumpUnsupportedError } from "../common/errors.ts";
import { OP_PROFILE_NAMES } from "../profiles/profiles.ts";
import { StateHistory } from "../state/stateHistory.ts";
import { applyEdit } from "../state/stateEdits.ts";
import { replayBefore } from "./replay.ts";
import { simulateBlocks } from "../execution/simulate.ts";
import { simulatedTiming } from "../common/time.ts";
import { DENIM_BLOCK_MS } from "../opstack/baseTime.ts";

import type { BlockHeader } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import type { VM } from "@ethereumjs/vm";
import type { BlockSelector, Hex } from "../common/types.ts";
import type { AdmissionContext, Admitted } from "../pool/admission.ts";
import type { ChainCore } from "./chainCore.ts";
import type { ReadOptions } from "./chainReads.ts";
import type { BlockDefaults, ChainConfig, ChainEvents, InitialState, NextBlockFields, ResolvedBlock, SnapshotPart } from "./chainTypes.ts";
import type { OpenBlock } from "../execution/openBlock.ts";
import type { DepositTx } from "../opstack/deposit.ts";
import type { OpStack } from "../opstack/execution.ts";
import type { Fragment, LogRecord, SealedBlock, TxRecord } from "./records.ts";
import type { ParsedStateDump, StateDump } from "../state/stateDump.ts";
import type { SimulatedBlock, SimulatedBlockCalls, SimulationBase, SimulationOptions } from "../execution/simulate.ts";
import type { ForkSource } from "../fork/source.ts";
import type { ReplayPoint } from "./replay.ts";
import type { ForkSchedule } from "../profiles/forkSchedule.ts";

export type { BlockDefaults, ChainConfig, ChainEvents, NextBlockFields, ResolvedBlock, SnapshotPart } from "./chainTypes.ts";

export class Chain extends EventEmitter<ChainEvents> {
  readonly common: Common;
  readonly pool = new Mempool();
  /** What clients see of pre-confirmation (flashblocks, the pending view), with injected faults. */
  readonly feed: PendingFeed;
  /**
   * Whether `pending` on standard methods follows Base's node (the `base*` profiles: the pending
   * nonce, the header of pending calls) instead of geth's rules (docs/flashblocks.md).
   */
  baseRpc = false;
  /** Whether fragments follow the flashblock gas schedule (OP profiles): see fragmentRunner.ts. */
  fragmentGasSchedule = false;
  /** Whether executed txs keep their `console.log` calls (`TxRecord.consoleCalls`; consoleLog.ts): on while a log prints them. */
  captureConsoleLogs = false;
  /** Every sender is impersonated (anvil's `--auto-impersonate`): a send from any address needs no key. */
  autoImpersonate = false;
  readonly #core: ChainCore;
  /** Impersonated addresses (impersonation.ts): kept across evm_revert, as Hardhat does; a reset ends them. */
  #impersonated = new Set<Hex>();

  private constructor(config: ChainConfig, common: Common, initial: InitialState) {
    super();
    this.common = common;
    this.feed = new PendingFeed(this, config.clock);
    const chain = this;
    // `install` (below) sets the engine's fields (vm, index, genesis, open) before anything reads them.
    const core = {
      config,
      common,
      queue: new SerialQueue(),
      store: new BlockStore(common, config.blockHistory),
      history: new StateHistory(config.stateHistory),
      next: new NextBlock(common, config),
      snapshots: new Snapshots(),
      runner: new FragmentRunner(config, {
        get vm() {
          return core.vm;
        },
        get open() {
          return core.open;
        },
        get automine() {
          return core.automine;
        },
        get fragmentGasSchedule() {
          return chain.fragmentGasSchedule;
        },
        get balancesWanted() {
          return chain.feed.balancesWanted > 0;
        },
        get consoleLogs() {
          return chain.captureConsoleLogs;
        },
        pool: this.pool,
        indexTransaction: (record) => core.store.indexTransaction(record),
        dropped: (entry, reason) => this.emit("dropped", entry, reason),
      }),
      pool: this.pool,
      feed: this.feed,
      automine: false,
      emit: this.emit.bind(this) as ChainCore["emit"],
    } as ChainCore;
    this.#core = core;
    // What the live state is known to hold (systemCalls.ts) holds again when a revert returns to it.
    core.snapshots.addPart({
      capture: () => {
        const state = core.vm.stateManager;
        const restore = captureIdleQueues(state);
        return () => {
          if (core.vm.stateManager === state) restore();
        };
      },
    });
    // A block history never drops the head a live evm_snapshot returns to.
    core.store.pin(() => {
      let pinned: number | undefined;
      for (const snap of core.snapshots.values()) if (pinned === undefined || snap.sealedCount - 1 < pinned) pinned = snap.sealedCount - 1;
      return pinned;
    });
    install(core, initial);
  }

  static async create(config: ChainConfig): Promise<Chain> {
    await Promise.all([installJumpAnalysisCache(), installInterpreterLoop(), installJournalKeys()]);
    installTrieFindPath();
    installActiveEips();
    installCreateAddress();
    const { genesis: fork } = config.schedule;
    const genesisCommon = commonFromGenesis(
      config.genesis,
      config.customCrypto,
      config.hardfork,
      config.chainRlp,
      fork.rules.eips.length > 0 ? [...fork.rules.eips] : undefined,
    );
    if (config.codeSizeLimit !== undefined) applyCodeSizeLimit(genesisCommon, config.codeSizeLimit);
    // An EVM fork scheduled at a block (the genesis gave it a placeholder time): ethereumjs/forkBlocks.ts.
    for (const { evm, activation } of config.schedule.evmActivations())
      if (activation.block !== undefined) activateHardforkAtBlock(genesisCommon, evm, activation.block);
    const common = uniformCommon(genesisCommon);
    return new Chain(config, common, await initialState(config, common));
  }

  /**
   * hardhat_reset: back to the chain this one was created as (its genesis, imported blocks or
   * loaded dump), after every queued change. Time offsets, the pool, snapshots and impersonations are cleared.
   */
  reset(fork?: ForkSource): Promise<void> {
    const core = this.#core;
    return core.queue.run(async () => {
      // hardhat_reset with `forking`: from now on this is the fork the chain resets to.
      // A dump the chain started from is of the old fork block: the new fork starts afresh.
      const config = fork === undefined ? core.config : { ...core.config, fork, state: undefined };
      install(core, await initialState(config, this.common));
      core.config = config;
      this.#impersonated = new Set();
      this.feed.clear();
    });
  }

  // ── Reads ──────────────────────────────────────────────────────────────────────────────────

  /** The upstream this chain forks, if it is a fork. */
  get fork(): ForkSource | undefined {
    return this.#core.config.fork;
  }

  get chainId(): bigint {
    return this.common.chainId();
  }

  get latest(): SealedBlock {
    return this.#core.store.latest;
  }

  /** The number of the newest sealed block (reserved ones included). */
  get headNumber(): bigint {
    return this.#core.store.headNumber;
  }

  get open(): OpenBlock {
    return this.#core.open;
  }

  /** The OP-stack execution layer; undefined on the `dev` profile. */
  get op(): OpStack | undefined {
    return this.#core.config.op;
  }

  get vm(): VM {
    return this.#core.vm;
  }

  /** Addresses whose txs are sent without their key (impersonation.ts). */
  get impersonated(): Set<Hex> {
    return this.#impersonated;
  }

  get automine(): boolean {
    return this.#core.automine;
  }

  setAutomine(enabled: boolean): void {
    this.#core.automine = enabled;
  }

  /** Seconds evm_increaseTime has added to the clock so far. */
  get timeOffset(): bigint {
    return this.#core.next.timeOffset;
  }

  /** Whether a block may have its parent's timestamp (by option, or on Denim blocks, which share seconds). */
  get allowsSameTimestamp(): boolean {
    return this.#core.next.allowsSameTimestamp || this.#core.open.fork.rules.denim;
  }

  /** Which fork of the profile's ladder each block runs. */
  get schedule(): ForkSchedule {
    return this.#core.config.schedule;
  }

  /** Fragments the open block has before it seals (the fork's cadence, or the `fragmentsPerBlock` option). */
  get fragmentsPerBlock(): number {
    return fragmentsPerBlockOf(this.#core);
  }

  /**
   * The time the block after `parent` (a sealed block) would get now: its second and, on a Denim
   * block, its millisecond part (nextBlock.ts). Changes nothing.
   */
  timeAfter(parent: SealedBlock): { timestamp: bigint; millisPart: number | undefined } {
    return this.#core.next.timeAfter(parent.block);
  }

  /** EIP-1559's base fee of a block after `parent` (the profile's parameters), no dev override applied: eth_feeHistory's next fee. */
  baseFeeAfter(parent: BlockHeader): bigint {
    return this.#core.next.baseFeeAfter(parent);
  }

  /** The coinbase of the blocks to come (eth_coinbase). */
  get coinbase(): Hex {
    return this.#core.next.defaults.coinbase;
  }

  sealedByNumber(number: bigint): SealedBlock | undefined {
    return this.#core.store.byNumber(number);
  }

  sealedByHash(hash: Hex): SealedBlock | undefined {
    return this.#core.store.byHash(hash);
  }

  /** The blocks dropped, after the first and before the oldest kept (the blockHistory option); undefined: none. */
  get dropped(): { from: bigint; to: bigint } | undefined {
    return this.#core.store.dropped;
  }

  /** When block `number` is a reserved block not built yet, the last number of its run (blockStore.ts). */
  unbuiltRunEnd(number: bigint): bigint | undefined {
    return this.#core.store.unbuiltRunEnd(number);
  }

  transaction(hash: Hex): TxRecord | undefined {
    return this.#core.store.transaction(hash);
  }

  /** Where a block selector points; undefined: no such block (chainReads.ts). */
  resolve(selector: BlockSelector): ResolvedBlock | undefined {
    return resolve(this.#core, selector);
  }

  /** Runs `read` against the state of a block; `{ snapshot: true }` for dry runs (chainReads.ts). */
  withState<T>(resolved: ResolvedBlock, read: (vm: VM) => Promise<T>, options?: ReadOptions): Promise<T> {
    return withState(this.#core, resolved, read, options);
  }

  /**
   * eth_simulateV1 on `vm`, a dry run's state at `base` (simulate.ts), with this chain's rules for
   * the simulated blocks: `blockMs` apart unless blocks share seconds here, its base-fee update,
   * EIP-7685 requests on an L1 chain.
   */
  simulate(
    vm: VM,
    base: SimulationBase,
    blocks: readonly SimulatedBlockCalls[],
    options: SimulationOptions,
    budget: { blockMs: number; gasBudget: bigint },
  ): Promise<SimulatedBlock[]> {
    const { config } = this.#core;
    return simulateBlocks(vm, base, blocks, options, {
      // Denim's 200 ms blocks where the base block runs Denim (its fork in the profile's ladder), else the chain's block time.
      timing: simulatedTiming(
        config.schedule.at(base.block.header.number, base.block.header.timestamp).rules.denim ? DENIM_BLOCK_MS : undefined,
        budget.blockMs,
      ),
      nextBaseFee: (parent) => config.nextBaseFee?.(parent) ?? parent.calcNextBaseFee(),
      requests: config.op === undefined,
      gasBudget: budget.gasBudget,
      forkAt: (number, timestamp) => config.schedule.at(number, timestamp),
    });
  }

  /** Logs of the sealed blocks `from..to` and, when `includeOpen`, of the open block. */
  logs(from: bigint, to: bigint, includeOpen: boolean): Generator<{ log: LogRecord; record: TxRecord }> {
    return logs(this.#core, from, to, includeOpen);
  }

  /** The sender's next free nonce: pre-confirmed nonce plus its contiguous pooled txs. */
  pendingNonce(address: Hex): Promise<bigint> {
    return this.#core.queue.run(() => pendingNonce(this.#core, address));
  }

  /** Base's pending nonce: the latest sealed nonce plus the sender's pre-confirmed txs (chainReads.ts). */
  preconfirmedNonce(address: Hex): Promise<bigint> {
    return preconfirmedNonce(this.#core, address);
  }

  /** Resolves once every queued state change (admissions, fragments, seals) has finished. */
  async idle(): Promise<void> {
    await this.#core.queue.idle();
  }

  // ── Writes (all through the queue) ─────────────────────────────────────────────────────────

  sendRawTransaction(raw: Uint8Array): Promise<Hex> {
    // OP stack: an unsigned deposit (type 0x7E), accepted over RPC as anvil --optimism does.
    if (raw[0] === DEPOSIT_TX_TYPE && this.#core.config.op !== undefined) {
      try {
        return this.sendDeposit(decodeDeposit(raw));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.sendTransaction((ctx) => admitTransaction(raw, ctx));
  }

  /** Admits the tx that `admit` checks (a raw one, or an impersonated sender's: impersonation.ts). */
  sendTransaction(check: (ctx: AdmissionContext) => Promise<Admitted>): Promise<Hex> {
    return this.#core.queue.run(() => admit(this.#core, check));
  }

  /**
   * Queues a deposit tx (OP-stack profiles): the next fragment executes it before any pooled tx.
   * Its hash is known at once; a deposit already queued or executed is `already known`.
   */
  sendDeposit(deposit: DepositTx): Promise<Hex> {
    return this.#core.queue.run(() => queueDeposit(this.#core, deposit));
  }

  /** Executes the pool's executable txs into the open block; seals it after the last fragment. */
  produceFragment(): Promise<Fragment> {
    const core = this.#core;
    return core.queue.run(async () => {
      const fragment = await executeFragment(core);
      if (core.open.fragments.length >= fragmentsPerBlockOf(core)) await seal(core);
      return fragment;
    });
  }

  /** Seals the open block now, whatever its fragment count (after one last fragment if it has none). */
  seal(): Promise<SealedBlock> {
    const core = this.#core;
    return core.queue.run(async () => {
      if (core.open.fragments.length === 0) await executeFragment(core, true);
      return seal(core);
    });
  }

  /** Runs `change` on the writer queue: for dev methods that edit state or the pool. */
  exclusive<T>(change: (vm: VM) => Promise<T>): Promise<T> {
    return this.#core.queue.run(() => change(this.#core.vm));
  }

  /**
   * A dev state edit (hardhat_setBalance...): part of the head block's state, or of the open block
   * once it pre-confirmed something (stateEdits.ts). `change` must make the same change when it
   * runs again on another VM: replays of later txs apply it again.
   */
  editState<T>(change: (vm: VM) => Promise<T>): Promise<T> {
    return this.#core.queue.run(() => applyEdit(this.#core, change));
  }

  /** Runs `work` on the state just before `record` ran, in its block's context (replay.ts). */
  replayBefore<T>(record: TxRecord, work: (point: ReplayPoint) => Promise<T>): Promise<T> {
    return replayBefore(this.#core, record, work);
  }

  /**
   * Time control (evm_increaseTime, evm_setNextBlockTimestamp). The open block's timestamp is
   * fixed when it opens, so an open block without fragments is re-opened with the new time; one
   * that already pre-confirmed something keeps its time and the change applies to the next block.
   */
  adjustTime(change: { increaseBy?: bigint; nextTimestamp?: bigint }): Promise<bigint> {
    const core = this.#core;
    return core.queue.run(() => {
      const offset = core.next.adjust(change);
      reopenIfEmpty(core);
      return offset;
    });
  }

  /**
   * Header overrides (hardhat_setNextBlockBaseFeePerGas, hardhat_setPrevRandao: the next block;
   * hardhat_setCoinbase, evm_setBlockGasLimit: every block from the next on). They apply to the
   * next block that opens, and to the open block itself while it has no fragment (nothing has
   * been pre-confirmed against its header yet). A lower gas limit drops pooled txs above it.
   */
  setBlockFields(next: NextBlockFields, defaults: BlockDefaults = {}): Promise<void> {
    return this.#core.queue.run(() => setBlockFields(this.#core, next, defaults));
  }

  /** Records everything a revert restores: state, sealed chain, open block, pool and time. */
  snapshot(): Promise<number> {
    return this.#core.queue.run(() => takeSnapshot(this.#core));
  }

  /** Returns to snapshot `id`; it and every later snapshot are used up (Hardhat's semantics). */
  revert(id: number): Promise<boolean> {
    return this.#core.queue.run(() => revertTo(this.#core, id));
  }

  /** Adds something evm_snapshot / evm_revert also cover (they call it inside the writer queue). */
  addSnapshotPart(part: SnapshotPart): void {
    this.#core.snapshots.addPart(part);
  }

  /** hardhat_mine: `count` blocks `interval` seconds apart, long empty runs reserved rather than built (chainWrites.ts). */
  mine(count: bigint, interval: bigint): Promise<void> {
    return this.#core.queue.run(() => mine(this.#core, count, interval));
  }

  /** The chain as a versioned JSON document (stateDump.ts), after every queued change. */
  dumpState(): Promise<StateDump> {
    // A dump's blocks are decoded by ethereumjs at load, which has no deposit tx type.
    if (this.#core.config.op !== undefined) return Promise.reject(new StateDumpUnsupportedError(OP_PROFILE_NAMES));
    return this.#core.queue.run(() => dumpState(this.#core));
  }

  /** Replaces the whole chain by a dump's after every queued change; throws StateDumpError, and then nothing has changed. */
  loadState(dump: ParsedStateDump): Promise<void> {
    return this.#core.queue.run(() => loadState(this.#core, dump));
  }

  /** An injected flashblock reorg (docs/flashblocks.md): the open block starts over; answers the discarded txs. */
  reorgOpenBlock(requeue: boolean): Promise<TxRecord[]> {
    return this.#core.queue.run(() => reorgOpenBlock(this.#core, requeue));
  }

  /** Drops a pooled tx (hardhat_dropTransaction); false when it is not pooled. */
  dropTransaction(hash: Hex): Promise<boolean> {
    return this.#core.queue.run(() => {
      const entry = this.pool.remove(hash);
      if (entry !== undefined) this.emit("dropped", entry, "dropped");
      return entry !== undefined;
    });
  }
}
