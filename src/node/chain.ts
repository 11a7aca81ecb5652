/**
 * The chain: sealed blocks in @ethereumjs/blockchain, one open block that fragments grow, the
 * mempool, and the state they share. Every state change goes through one serial queue (the single
 * writer); reads of sealed state use state views at that block's root and never wait for it.
 */
import { EventEmitter } from "node:events";

import { createBlockchain } from "@ethereumjs/blockchain";
import { bytesToHex, createAddressFromString } from "@ethereumjs/util";
import { createVM } from "@ethereumjs/vm";

import { admitTransaction, feesOf, txCost } from "./admission.ts";
import { runTxAllowingAssertedSender } from "./assertedSender.ts";
import { keccak256 } from "./crypto.ts";
import { decodeDeposit, DEPOSIT_TX_TYPE } from "./opstack/deposit.ts";
import { commonFromGenesis, writeGenesisState } from "./genesis.ts";
import { createStateManager } from "./stateManager.ts";
// Before any VM exists: every EVM's interpreter yields to the event loop (evmBudget.ts).
import "./evmBudget.ts";
import { Heap } from "./heap.ts";
import { flatHex } from "./hex.ts";
import { decodeBlocks, importBlocks } from "./importChain.ts";
import { installJumpAnalysisCache } from "./jumpAnalysis.ts";
import { DEFAULT_POOL_LIMITS, Mempool } from "./mempool.ts";
import { OpenBlock } from "./openBlock.ts";
import { PendingFeed } from "./pendingFeed.ts";
import { nodeStoreOf, openStorageRoots, pruneStore } from "./prune.ts";
import { SerialQueue } from "./serialQueue.ts";
import { AccountIndex, captureState, restoreState, StateDumpError } from "./stateDump.ts";
import { StateViews } from "./stateViews.ts";
import { createForkEngine } from "./fork/engine.ts";
import { forkRestore } from "./fork/dump.ts";
import { trieOnly } from "./fork/forkState.ts";
import { alreadyKnown, historicalStateUnavailable, stateDumpUnsupported } from "../rpc/errors.ts";
import { ZERO_HASH } from "./records.ts";

import type { Block, BlockHeader } from "@ethereumjs/block";
import type { Blockchain } from "@ethereumjs/blockchain";
import type { Common, CustomCrypto, GethGenesis } from "@ethereumjs/common";
import type { TypedTransaction } from "@ethereumjs/tx";
import type { RunTxResult, VM } from "@ethereumjs/vm";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import type { BlockSelector, Hex } from "../rpc/schema.ts";
import type { Clock } from "../clock.ts";
import type { AdmissionContext, Admitted } from "./admission.ts";
import type { L1Cost } from "./opstack/l1Fee.ts";
import type { DepositTx } from "./opstack/deposit.ts";
import type { OpStack } from "./opstack/execution.ts";
import type { PoolLimits, PooledTx } from "./mempool.ts";
import type { Fragment, LogRecord, SealedBlock, TxRecord } from "./records.ts";
import type { ParsedStateDump, RestoredState, StateDump } from "./stateDump.ts";
import type { ForkSource } from "./fork/source.ts";

export interface ChainConfig {
  genesis: GethGenesis;
  hardfork: string | undefined;
  customCrypto: CustomCrypto;
  clock: Clock;
  fragmentsPerBlock: number;
  coinbase: Hex;
  minTip: bigint;
  allowUnprotectedTxs: boolean;
  /** Concatenated RLP blocks executed and indexed on top of the genesis (importChain.ts). */
  chainRlp?: Uint8Array | undefined;
  /** A state dump to start from (stateDump.ts); `genesis` must be its genesis. */
  state?: ParsedStateDump | undefined;
  /** Sealed blocks whose state stays readable (the head's included); undefined keeps every block's. */
  stateHistory?: number | undefined;
  /** OP-stack execution (profiles.ts); undefined on the `dev` profile. */
  op?: OpStack | undefined;
  /** The next block's base fee when the profile has its own EIP-1559 parameters; else ethereumjs'. */
  nextBaseFee?: ((parent: BlockHeader) => bigint) | undefined;
  /** EIPs activated on top of the hardfork (a profile's EIP-7825 gas cap). */
  eips?: number[] | undefined;
  /** An upstream chain to fork at one of its blocks (fork/): state and old blocks are read from it. */
  fork?: ForkSource | undefined;
  /** A block may have its parent's timestamp (Hardhat's allowBlocksWithSameTimestamp). */
  allowBlocksWithSameTimestamp?: boolean | undefined;
  /** The pool's bounds (geth's legacypool defaults when absent). */
  poolLimits?: PoolLimits | undefined;
}

/**
 * Header fields dev methods set for the next block only (hardhat_setNextBlockBaseFeePerGas,
 * hardhat_setPrevRandao, evm_setNextBlockTimestamp), as Hardhat/EDR take them for the next block
 * they mine.
 */
export interface NextBlockFields {
  baseFeePerGas?: bigint;
  prevRandao?: Hex;
}

/** Header fields that hold for every block from the next one on (hardhat_setCoinbase, evm_setBlockGasLimit). */
export interface BlockDefaults {
  coinbase?: Hex;
  gasLimit?: bigint;
}

/** Reserved blocks a state dump builds and writes at most (see #everySealed). */
const MAX_DUMPED_RESERVED_BLOCKS = 100_000;
/** The OP-stack deposit tx type (specs/protocol/deposits.md). */
const DEPOSIT_TYPE = 0x7e;

/** The largest balance an account can hold (a uint256). */
const MAX_BALANCE = (1n << 256n) - 1n;

/** Seals between two pruning passes: a pass walks every kept trie, so not after every block. */
const PRUNE_EVERY = 64;

/**
 * Something outside the chain that evm_snapshot / evm_revert also cover (the wallet, the
 * sequencer's phase): `capture` runs at the snapshot and returns what the revert calls.
 */
export interface SnapshotPart {
  capture(): () => void;
}

export interface ChainEvents {
  fragment: [Fragment];
  sealed: [SealedBlock];
  pendingTransaction: [PooledTx];
  dropped: [PooledTx, string];
  /** The sealed chain went back (evm_revert, a load, a reset): the head is now this block. */
  rewound: [SealedBlock];
}

interface Snapshot {
  stateRoot: Uint8Array;
  sealedCount: number;
  /** The head at the snapshot, when its state was readable (pruning keeps it for the revert). */
  head: SealedBlock | undefined;
  open: OpenBlock;
  openTxCount: number;
  openFragmentCount: number;
  openGasUsed: bigint;
  openBlobGasUsed: bigint;
  openLogCount: number;
  pool: PooledTx[];
  timeOffset: bigint;
  nextTimestamp: bigint | undefined;
  nextFields: NextBlockFields;
  openFields: OpenFields;
  defaults: Required<BlockDefaults>;
  parts: (() => void)[];
}

/**
 * A run of empty blocks that hardhat_mine reserved without building them (EDR's reservations,
 * edr_evm blockchain/storage/reservable.rs): block `n` is built on its first read, with the
 * state, gas limit, coinbase and base fee of the block before the run, `interval` seconds per
 * block after it, and (as EDR) a zero parent hash, which keeps a block independent of the ones
 * before it in the run.
 */
interface Reservation {
  first: bigint;
  last: bigint;
  interval: bigint;
  parentTimestamp: bigint;
  stateRoot: Uint8Array;
  gasLimit: bigint;
  baseFeePerGas: bigint;
  coinbase: Hex;
  excessBlobGas: bigint | undefined;
}

/** hardhat_mine builds runs shorter than this block by block (EDR: 6). */
const MIN_RESERVED_BLOCKS = 6n;

/** What the open block was opened with, so that re-opening it (no fragment yet) keeps it. */
interface OpenFields extends NextBlockFields {
  timestamp?: bigint;
}

/** A chain's whole state at creation, load or reset; `historyFrom`: the first block with state (default: the head's). */
type InitialState = RestoredState & { historyFrom?: bigint };

/** Where a block selector points: a sealed block, or the open block (`pending`). */
export type ResolvedBlock =
  | { kind: "sealed"; sealed: SealedBlock }
  /** `stateRoot`: a pending view frozen by an injected stall (pendingFeed.ts) reads that state, not the live one. */
  | { kind: "open"; open: OpenBlock; stateRoot?: Uint8Array };

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
  /** Whether fragments follow the flashblock gas schedule (OP profiles): see `#fragmentGasCap`. */
  fragmentGasSchedule = false;
  // Set by #install, from the constructor and again by loadState and reset.
  #vm!: VM;
  #blockchain!: Blockchain;
  #views!: StateViews;
  #index!: AccountIndex;
  #genesis!: GethGenesis;
  /**
   * Blocks below this number have no state: the chain was loaded from a dump at that block, or
   * pruning dropped it (`stateHistory`). `#keptHeads` are the exceptions (see `#hasState`).
   */
  #historyFrom = 0n;
  /** Blocks below `#historyFrom` whose state pruning kept: heads of live snapshots, and the head. */
  #keptHeads = new Set<Hex>();
  /** The head's number at the last pruning pass. */
  #prunedAt = 0n;
  /** The number of `#sealed[0]`: 0, or the fork block's on a forked chain. */
  #firstNumber = 0n;
  #config: ChainConfig;
  readonly #queue = new SerialQueue();
  /** Sealed blocks by number - #firstNumber; a hole is a reserved empty block (`#reservations`) not read yet. */
  readonly #sealed: (SealedBlock | undefined)[] = [];
  #reservations: Reservation[] = [];
  /** Reserved blocks built so far (a revert drops them without walking the whole run). */
  readonly #builtReserved = new Set<number>();
  readonly #byHash = new Map<Hex, SealedBlock>();
  readonly #txs = new Map<Hex, TxRecord>();
  #open!: OpenBlock;
  /** Set by evm_setNextBlockTimestamp: the next block's timestamp. */
  #nextTimestamp: bigint | undefined;
  /** One-block header overrides for the next block to open. */
  #nextFields: NextBlockFields = {};
  /** The overrides the open block took (re-applied when it is re-opened before its first fragment). */
  #openFields: OpenFields = {};
  /** Coinbase and gas limit of every block from the next one on. */
  #defaults!: Required<BlockDefaults>;
  /** Seconds added to the clock by evm_increaseTime. */
  #timeOffset = 0n;
  /** Hardhat's automine: every admitted tx gets a fragment and a seal of its own, at once. */
  #automine = false;
  /** The live state holds dev edits that `latest` must show (see `editState`). */
  #latestEdited = false;
  readonly #snapshots = new Map<number, Snapshot>();
  #nextSnapshotId = 1;
  readonly #parts: SnapshotPart[] = [];
  /** Clock time (ms) of the pool's last lifetime sweep. */
  #lastSweep = 0;

  private constructor(config: ChainConfig, common: Common, initial: InitialState) {
    super();
    this.#config = config;
    this.common = common;
    this.#install(initial);
    this.feed = new PendingFeed(this, config.clock);
  }

  static async create(config: ChainConfig): Promise<Chain> {
    await installJumpAnalysisCache();
    const common = commonFromGenesis(config.genesis, config.customCrypto, config.hardfork, config.chainRlp, config.eips);
    return new Chain(config, common, await Chain.#initialState(config, common));
  }

  /** What the chain starts from (and hardhat_reset returns to): the loaded dump, or a fresh build. */
  static async #initialState(config: ChainConfig, common: Common): Promise<InitialState> {
    if (config.state !== undefined) return restoreState(common, config.state, nowSeconds(config.clock), config.fork === undefined ? undefined : forkRestore(config.fork, common));
    // A fork starts from the upstream's block; a fresh chain from its genesis (every block has its state).
    const engine = config.fork !== undefined ? await createForkEngine(config.fork, common, config.genesis.alloc) : await Chain.#build(config, common);
    return {
      ...engine,
      open: undefined,
      pool: [],
      timeOffset: 0n,
      nextTimestamp: undefined,
      latestEdited: false,
      headStateAvailable: true,
      genesis: config.genesis,
      historyFrom: config.fork?.blockNumber ?? 0n,
    };
  }

  /** The engine of a new chain: genesis state, then the imported blocks. */
  static async #build(config: ChainConfig, common: Common): Promise<{ vm: VM; blockchain: Blockchain; index: AccountIndex; sealed: SealedBlock[] }> {
    const stateManager = createStateManager(common);
    // Before anything is written: the index must see every account and slot (stateDump.ts).
    const index = AccountIndex.attach(stateManager);
    const stateRoot = await writeGenesisState(stateManager, config.genesis.alloc);
    const blockchain = await createBlockchain({
      common,
      genesisStateRoot: stateRoot,
      validateBlocks: false,
      validateConsensus: false,
    });
    const vm = await createVM({ common, stateManager, blockchain });
    const genesis = await blockchain.getBlock(0n);
    // Imported first: the open block follows the imported head (a pre-merge genesis cannot be built on).
    const imported = config.chainRlp === undefined ? [] : await importBlocks(vm, blockchain, decodeBlocks(config.chainRlp, common));
    const sealedGenesis: SealedBlock = { block: genesis, hash: bytesToHex(genesis.hash()) as Hex, transactions: [], fragmentCount: 0 };
    return { vm, blockchain, index, sealed: [sealedGenesis, ...imported] };
  }

  /**
   * hardhat_reset: back to the chain this one was created as (its genesis, imported blocks or
   * loaded dump), after every queued change. Time offsets, the pool and snapshots are cleared.
   */
  reset(fork?: ForkSource): Promise<void> {
    return this.#queue.run(async () => {
      // hardhat_reset with `forking`: from now on this is the fork the chain resets to.
      // A dump the chain started from is of the old fork block: the new fork starts afresh.
      const config = fork === undefined ? this.#config : { ...this.#config, fork, state: undefined };
      this.#install(await Chain.#initialState(config, this.common));
      this.#config = config;
      this.feed.clear();
    });
  }

  /** The upstream this chain forks, if it is a fork. */
  get fork(): ForkSource | undefined {
    return this.#config.fork;
  }

  // ── Reads ──────────────────────────────────────────────────────────────────────────────────

  get chainId(): bigint {
    return this.common.chainId();
  }

  get latest(): SealedBlock {
    return this.#sealed[this.#sealed.length - 1] ?? this.sealedByNumber(this.headNumber)!;
  }

  /** The number of the newest sealed block (reserved ones included). */
  get headNumber(): bigint {
    return this.#firstNumber + BigInt(this.#sealed.length - 1);
  }

  get open(): OpenBlock {
    return this.#open;
  }

  /** The OP-stack execution layer; undefined on the `dev` profile. */
  get op(): OpStack | undefined {
    return this.#config.op;
  }

  get vm(): VM {
    return this.#vm;
  }

  sealedByNumber(number: bigint): SealedBlock | undefined {
    const index = number - this.#firstNumber;
    if (index < 0n || index >= BigInt(this.#sealed.length)) return undefined;
    return this.#sealed[Number(index)] ?? this.#buildReserved(number);
  }

  /**
   * When block `number` is a reserved block not built yet: the last number of its run, so that a
   * walk over many blocks (logs, block filters) can skip empty blocks nobody has read.
   */
  unbuiltRunEnd(number: bigint): bigint | undefined {
    const index = number - this.#firstNumber;
    if (index < 0n || index >= BigInt(this.#sealed.length) || this.#sealed[Number(index)] !== undefined) return undefined;
    return this.#reservationOf(number)?.last;
  }

  #reservationOf(number: bigint): Reservation | undefined {
    return this.#reservations.find((reservation) => reservation.first <= number && number <= reservation.last);
  }

  /** Builds reserved block `number` (once: it is indexed like any sealed block from then on). */
  #buildReserved(number: bigint): SealedBlock | undefined {
    const reservation = this.#reservationOf(number);
    if (reservation === undefined) return undefined;
    const block = OpenBlock.emptyBlock(
      this.common,
      {
        number,
        parentHash: ZERO_HASH,
        timestamp: reservation.parentTimestamp + reservation.interval * (number - reservation.first + 1n),
        gasLimit: reservation.gasLimit,
        baseFeePerGas: reservation.baseFeePerGas,
        coinbase: reservation.coinbase,
        prevRandao: ZERO_HASH,
        excessBlobGas: reservation.excessBlobGas,
      },
      reservation.stateRoot,
    );
    const sealed: SealedBlock = { block, hash: flatHex(block.hash()), transactions: [], fragmentCount: 0 };
    const index = Number(number - this.#firstNumber);
    this.#sealed[index] = sealed;
    this.#builtReserved.add(index);
    this.#byHash.set(sealed.hash, sealed);
    return sealed;
  }

  sealedByHash(hash: Hex): SealedBlock | undefined {
    return this.#byHash.get(hash);
  }

  /**
   * `pending` (and the open block's number) is the open block once it has a fragment, and
   * `latest` before that: pending never returns null (docs/behaviour.md). Undefined: no such block.
   */
  resolve(selector: BlockSelector): ResolvedBlock | undefined {
    switch (selector.kind) {
      case "tag":
        switch (selector.tag) {
          case "pending":
            return this.feed.pendingOverride() ?? (this.#open.fragments.length > 0 ? { kind: "open", open: this.#open } : { kind: "sealed", sealed: this.latest });
          case "earliest":
            // The first block this chain holds: the genesis, or the fork block on a fork.
            return { kind: "sealed", sealed: this.#sealed[0]! };
          default:
            // A dev chain finalizes at once: safe and finalized are the head (as Hardhat and anvil).
            return { kind: "sealed", sealed: this.latest };
        }
      case "number": {
        if (selector.number === this.#open.number) {
          // Under an injected fault the open block is what clients' pending view has, if anything.
          const override = this.feed.pendingOverride();
          if (override === undefined) return { kind: "open", open: this.#open };
          return override.kind === "open" && override.open.number === selector.number ? override : undefined;
        }
        const sealed = this.sealedByNumber(selector.number);
        return sealed === undefined ? undefined : { kind: "sealed", sealed };
      }
      case "hash": {
        const sealed = this.sealedByHash(selector.hash);
        return sealed === undefined ? undefined : { kind: "sealed", sealed };
      }
    }
  }

  /**
   * Runs `read` against the state of a block: the pre-confirmed state (through the writer queue,
   * so it never sees half a fragment) or a sealed block's state (a view at its state root).
   */
  async withState<T>(resolved: ResolvedBlock, read: (vm: VM) => Promise<T>): Promise<T> {
    if (resolved.kind === "open") {
      const { stateRoot } = resolved;
      // A frozen view's state root, read like a sealed block's (state views need only the root and a number).
      if (stateRoot !== undefined) return this.#views.run({ header: { stateRoot, number: resolved.open.number } } as Block, read);
      return this.#queue.run(() => read(this.#vm));
    }
    if (!this.#hasState(resolved.sealed)) {
      // A hand-edited dump: the head's own state could not be rebuilt, so `latest` is the live state.
      if (resolved.sealed === this.latest) return this.#queue.run(() => read(this.#vm));
      throw historicalStateUnavailable(resolved.sealed.block.header.number, this.#historyFrom);
    }
    // After a dev edit, `latest` shows the live state (as Hardhat and anvil) until a fragment or a seal.
    if (this.#latestEdited && resolved.sealed === this.latest && this.#open.fragments.length === 0) {
      return this.#queue.run(() => read(this.#vm));
    }
    return this.#views.run(resolved.sealed.block, read);
  }

  /**
   * @ethereumjs/blockchain decodes the head's and the parent's header from its DB on every
   * putBlock and delBlock, each decode copying a Common and re-merging its params (~12 % of an
   * automined test file). The headers of the blocks we index are the same: hand those out.
   */
  #shareHeaders(blockchain: Blockchain): void {
    const manager = blockchain.dbManager;
    const decode = manager.getHeader.bind(manager);
    manager.getHeader = async (hash, number) => this.#byHash.get(flatHex(hash))?.block.header ?? decode(hash, number);
    // The EVM asks the blockchain for blocks only for BLOCKHASH (pre-EIP-7709): answered from our
    // own index, reserved blocks included, so sealed blocks are never written into its database.
    const read = blockchain.getBlock.bind(blockchain);
    blockchain.getBlock = async (id) => {
      const sealed = id instanceof Uint8Array ? this.#byHash.get(flatHex(id)) : this.sealedByNumber(BigInt(id));
      return sealed?.block ?? read(id);
    };
  }

  /** The one rule for which sealed blocks' states can be read. */
  #hasState(sealed: SealedBlock): boolean {
    return sealed.block.header.number >= this.#historyFrom || this.#keptHeads.has(sealed.hash);
  }

  transaction(hash: Hex): TxRecord | undefined {
    return this.#txs.get(hash);
  }

  /** Logs of the sealed blocks `from..to` and, when `includeOpen`, of the open block. */
  *logs(from: bigint, to: bigint, includeOpen: boolean): Generator<{ log: LogRecord; record: TxRecord }> {
    const last = to < this.headNumber ? to : this.headNumber;
    for (let number = from; number <= last; number++) {
      // A reserved run has no logs: skip it whole.
      const runEnd = this.unbuiltRunEnd(number);
      if (runEnd !== undefined) {
        number = runEnd;
        continue;
      }
      for (const record of this.sealedByNumber(number)?.transactions ?? []) {
        for (const log of record.logs) yield { log, record };
      }
    }
    if (includeOpen && this.#open.number >= from && this.#open.number <= to) {
      for (const record of this.#open.transactions) {
        // An injected stall or feed reset hides what clients' pending view does not have yet.
        if (this.feed.hides(record)) break;
        for (const log of record.logs) yield { log, record };
      }
    }
  }

  /** The sender's next free nonce: pre-confirmed nonce plus its contiguous pooled txs. */
  async pendingNonce(address: Hex): Promise<bigint> {
    return this.#queue.run(async () => {
      const nonce = await this.#nonceOf(address);
      return nonce + BigInt(this.pool.contiguousCount(address, nonce));
    });
  }

  /**
   * Base's pending nonce: the canonical (latest sealed) nonce plus the sender's pre-confirmed txs,
   * the mempool not counted (base/base crates/execution/flashblocks/src/rpc/eth.rs,
   * `get_transaction_count`). Two txs sent back to back with it share a nonce.
   */
  async preconfirmedNonce(address: Hex): Promise<bigint> {
    for (;;) {
      const latest = this.latest;
      const canonical = await this.withState({ kind: "sealed", sealed: latest }, async (vm) => (await vm.stateManager.getAccount(createAddressFromString(address)))?.nonce ?? 0n);
      // A seal during the read: the open block counted must be the one after that canonical block.
      if (this.latest !== latest) continue;
      const open = this.feed.pendingOverride()?.kind === "sealed" ? [] : this.#open.transactions;
      return canonical + BigInt(open.filter((record) => record.from === address).length);
    }
  }


  /** Resolves once every queued state change (admissions, fragments, seals) has finished. */
  async idle(): Promise<void> {
    await this.#queue.idle();
  }

  // ── Writes (all through the queue) ─────────────────────────────────────────────────────────

  sendRawTransaction(raw: Uint8Array): Promise<Hex> {
    // OP stack: an unsigned deposit (type 0x7E), accepted over RPC as anvil --optimism does.
    if (raw[0] === DEPOSIT_TX_TYPE && this.#config.op !== undefined) {
      try {
        return this.sendDeposit(decodeDeposit(raw));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.sendTransaction((ctx) => admitTransaction(raw, ctx));
  }

  /** Admits the tx that `admit` checks (a raw one, or an impersonated sender's: impersonation.ts). */
  sendTransaction(admit: (ctx: AdmissionContext) => Promise<Admitted>): Promise<Hex> {
    return this.#queue.run(async () => {
      const { entry, replaces, evicts } = await admit({
        common: this.common,
        // evm_setBlockGasLimit's limit holds from the next block on, and the pool keeps txs for it.
        blockGasLimit: this.#defaults.gasLimit,
        minTip: this.#config.minTip,
        allowUnprotectedTxs: this.#config.allowUnprotectedTxs,
        pool: this.pool,
        ...(this.#config.op !== undefined && { l1Fee: (tx) => this.#config.op!.l1FeeOf(this.#vm.stateManager, tx) }),
        limits: this.#config.poolLimits ?? DEFAULT_POOL_LIMITS,
        account: async (address) => {
          const account = await this.#vm.stateManager.getAccount(createAddressFromString(address));
          return { nonce: account?.nonce ?? 0n, balance: account?.balance ?? 0n };
        },
      });
      for (const evicted of evicts) {
        this.pool.remove(evicted.hash);
        this.emit("dropped", evicted, "evicted: the pool is full");
      }
      this.pool.add(entry, this.#config.clock.now());
      if (replaces !== undefined) this.emit("dropped", replaces, "replaced");
      this.emit("pendingTransaction", entry);
      if (this.#automine) {
        await this.#executeFragment();
        await this.#seal();
      }
      return entry.hash;
    });
  }

  /**
   * Queues a deposit tx (OP-stack profiles): the next fragment executes it before any pooled tx.
   * Its hash is known at once; a deposit already queued or executed is `already known`.
   */
  sendDeposit(deposit: DepositTx): Promise<Hex> {
    return this.#queue.run(async () => {
      const op = this.#config.op!;
      const hash = flatHex(deposit.hash());
      if (this.#txs.has(hash) || op.isQueued(deposit.hash())) throw alreadyKnown();
      const gasLimit = this.#open.header.gasLimit < this.#defaults.gasLimit ? this.#open.header.gasLimit : this.#defaults.gasLimit;
      op.queueDeposit(deposit, gasLimit);
      if (this.#automine) {
        await this.#executeFragment();
        await this.#seal();
      }
      return hash;
    });
  }

  /** Executes the pool's executable txs into the open block; seals it after the last fragment. */
  produceFragment(): Promise<Fragment> {
    return this.#queue.run(async () => {
      const fragment = await this.#executeFragment();
      if (this.#open.fragments.length >= this.#config.fragmentsPerBlock) await this.#seal();
      return fragment;
    });
  }

  /** Seals the open block now, whatever its fragment count (after one last fragment if it has none). */
  seal(): Promise<SealedBlock> {
    return this.#queue.run(async () => {
      if (this.#open.fragments.length === 0) await this.#executeFragment(true);
      return this.#seal();
    });
  }

  /** Runs `change` on the writer queue: for dev methods that edit state or the pool. */
  exclusive<T>(change: (vm: VM) => Promise<T>): Promise<T> {
    return this.#queue.run(() => change(this.#vm));
  }

  /** A dev state edit (hardhat_setBalance...): pre-confirmed at once, and seen by `latest` until the next block. */
  editState<T>(change: (vm: VM) => Promise<T>): Promise<T> {
    return this.#queue.run(async () => {
      const result = await change(this.#vm);
      this.#latestEdited = true;
      return result;
    });
  }

  /**
   * Time control (evm_increaseTime, evm_setNextBlockTimestamp). The open block's timestamp is
   * fixed when it opens, so an open block without fragments is re-opened with the new time; one
   * that already pre-confirmed something keeps its time and the change applies to the next block.
   */
  adjustTime(change: { increaseBy?: bigint; nextTimestamp?: bigint }): Promise<bigint> {
    return this.#queue.run(() => {
      if (change.increaseBy !== undefined) this.#timeOffset += change.increaseBy;
      if (change.nextTimestamp !== undefined) this.#nextTimestamp = change.nextTimestamp;
      this.#reopenIfEmpty();
      return this.#timeOffset;
    });
  }

  /**
   * Header overrides (hardhat_setNextBlockBaseFeePerGas, hardhat_setPrevRandao: the next block;
   * hardhat_setCoinbase, evm_setBlockGasLimit: every block from the next on). They apply to the
   * next block that opens, and to the open block itself while it has no fragment (nothing has
   * been pre-confirmed against its header yet). A lower gas limit drops pooled txs above it.
   */
  setBlockFields(next: NextBlockFields, defaults: BlockDefaults = {}): Promise<void> {
    return this.#queue.run(() => {
      this.#nextFields = { ...this.#nextFields, ...next };
      this.#defaults = { ...this.#defaults, ...defaults };
      this.#reopenIfEmpty();
      if (defaults.gasLimit !== undefined) {
        for (const entry of [...this.pool.all()]) {
          if (entry.tx.gasLimit > defaults.gasLimit && this.pool.remove(entry.hash) !== undefined) this.emit("dropped", entry, "exceeds block gas limit");
        }
      }
    });
  }

  /** The coinbase of the blocks to come (eth_coinbase). */
  get coinbase(): Hex {
    return this.#defaults.coinbase;
  }

  /** Opens the open block again with the current overrides, unless it already pre-confirmed something. */
  #reopenIfEmpty(): void {
    if (this.#open.fragments.length > 0) return;
    const kept = this.#openFields;
    this.#nextFields = { baseFeePerGas: kept.baseFeePerGas, prevRandao: kept.prevRandao, ...dropUndefined(this.#nextFields) };
    if (this.#nextTimestamp === undefined) this.#nextTimestamp = kept.timestamp;
    this.#open = this.#openAfter(this.latest.block);
  }

  /** Records everything a revert restores: state, sealed chain, open block, pool and time. */
  snapshot(): Promise<number> {
    return this.#queue.run(async () => {
      const open = this.#open;
      const id = this.#nextSnapshotId++;
      this.#snapshots.set(id, {
        stateRoot: await this.#vm.stateManager.getStateRoot(),
        sealedCount: this.#sealed.length,
        head: this.#hasState(this.latest) ? this.latest : undefined,
        open,
        openTxCount: open.transactions.length,
        openFragmentCount: open.fragments.length,
        openGasUsed: open.gasUsed,
        openBlobGasUsed: open.blobGasUsed,
        openLogCount: open.logCount,
        pool: [...this.pool.all()],
        timeOffset: this.#timeOffset,
        nextTimestamp: this.#nextTimestamp,
        nextFields: this.#nextFields,
        openFields: this.#openFields,
        defaults: this.#defaults,
        parts: this.#parts.map((part) => part.capture()),
      });
      return id;
    });
  }

  /** Returns to snapshot `id`; it and every later snapshot are used up (Hardhat's semantics). */
  revert(id: number): Promise<boolean> {
    return this.#queue.run(async () => {
      const snap = this.#snapshots.get(id);
      if (snap === undefined) return false;
      for (const later of [...this.#snapshots.keys()]) if (later >= id) this.#snapshots.delete(later);

      const dropped = this.#dropSealedFrom(snap.sealedCount);
      const firstDropped = this.#firstNumber + BigInt(snap.sealedCount);
      this.#reservations = this.#reservations
        .filter((reservation) => reservation.first < firstDropped)
        .map((reservation) => (reservation.last < firstDropped ? reservation : { ...reservation, last: firstDropped - 1n }));
      // Blocks sealed after the revert have their state again; those pruned below the head stay gone.
      const next = this.latest.block.header.number + 1n;
      if (this.#historyFrom > next) this.#historyFrom = next;
      if (this.#prunedAt >= next) this.#prunedAt = next - 1n;
      for (const sealed of dropped) {
        this.#byHash.delete(sealed.hash);
        for (const record of sealed.transactions) this.#txs.delete(record.hash);
      }
      if (this.#open !== snap.open) for (const record of this.#open.transactions) this.#txs.delete(record.hash);

      const open = snap.open;
      for (const record of open.transactions.splice(snap.openTxCount)) this.#txs.delete(record.hash);
      // The snapshot's open block may have been sealed since, and its records' lookups dropped with
      // that block above: the records it keeps are pre-confirmed again, so they are indexed again.
      for (const record of open.transactions) {
        record.blockHash = undefined;
        this.#txs.set(record.hash, record);
      }
      open.fragments.splice(snap.openFragmentCount);
      open.gasUsed = snap.openGasUsed;
      open.blobGasUsed = snap.openBlobGasUsed;
      open.logCount = snap.openLogCount;
      this.#open = open;

      this.pool.clear();
      // Restored txs start a new lifetime.
      for (const entry of snap.pool) this.pool.add(entry, this.#config.clock.now());
      this.#timeOffset = snap.timeOffset;
      this.#nextTimestamp = snap.nextTimestamp;
      this.#nextFields = snap.nextFields;
      this.#openFields = snap.openFields;
      this.#defaults = snap.defaults;
      await this.#vm.stateManager.setStateRoot(snap.stateRoot);
      // The snapshot may hold dev edits that no sealed block has.
      this.#latestEdited = true;
      for (const restore of snap.parts) restore();
      this.emit("rewound", this.latest);
      return true;
    });
  }

  /**
   * hardhat_mine, EDR's algorithm (edr_provider data.rs, mine_and_commit_blocks): the first block
   * at its usual time; blocks `interval` seconds apart while the pool still fills them; one more;
   * then a run of empty blocks that is reserved, not built (`Reservation`), and a last block after
   * it. Time and memory stay bounded whatever `count` is.
   */
  mine(count: bigint, interval: bigint): Promise<void> {
    return this.#queue.run(async () => {
      if (count === 0n) return;
      if (this.#open.fragments.length === 0) await this.#executeFragment(true);
      let last = await this.#seal();
      let mined = 1n;
      const mineNext = async () => {
        this.#nextTimestamp = this.latest.block.header.timestamp + interval;
        this.#reopenIfEmpty();
        await this.#executeFragment(true);
        last = await this.#seal();
        mined++;
      };
      while (mined < count && this.pool.size > 0 && last.transactions.length > 0) await mineNext();
      if (mined < count) await mineNext();
      const remaining = count - mined;
      if (remaining < MIN_RESERVED_BLOCKS) {
        while (mined < count) await mineNext();
        return;
      }
      this.#reserve(remaining - 1n, interval);
      await mineNext();
    });
  }

  /** Reserves `count` empty blocks after the head (the open block, still empty, is re-opened after them). */
  #reserve(count: bigint, interval: bigint): void {
    const parent = this.latest.block.header;
    const { header } = this.#open;
    this.#reservations.push({
      first: parent.number + 1n,
      last: parent.number + count,
      interval,
      parentTimestamp: parent.timestamp,
      stateRoot: parent.stateRoot,
      gasLimit: header.gasLimit,
      baseFeePerGas: header.baseFeePerGas,
      coinbase: header.coinbase,
      excessBlobGas: header.excessBlobGas,
    });
    this.#sealed.length += Number(count);
  }

  /** Adds something evm_snapshot / evm_revert also cover (they call it inside the writer queue). */
  addSnapshotPart(part: SnapshotPart): void {
    this.#parts.push(part);
  }

  /**
   * The chain as a versioned JSON document (stateDump.ts), after every queued change. The open
   * block is in it once it has fragments; an empty one is re-opened at load, keeping its
   * timestamp only when it is not the clock's (evm_setNextBlockTimestamp).
   */
  dumpState(): Promise<StateDump> {
    // A dump's blocks are decoded by ethereumjs at load, which has no deposit tx type.
    if (this.#config.op !== undefined) return Promise.reject(stateDumpUnsupported());
    return this.#queue.run(() => {
      const head = this.latest;
      const open = this.#open;
      const parentTimestamp = head.block.header.timestamp;
      const requested = open.fragments.length > 0
        ? this.#nextTimestamp
        : open.header.timestamp === this.#timestampAfter(parentTimestamp, undefined) ? undefined : open.header.timestamp;
      // A fork's dump holds its trie as it is: what the fork wrote, not what it reads upstream.
      return trieOnly(this.#vm, () => captureState({
        chainId: this.chainId,
        genesis: this.#genesis,
        sealed: this.#everySealed(),
        open,
        pool: [...this.pool.all()],
        timeOffset: this.#timeOffset,
        nextTimestamp: requested,
        index: this.#index,
        live: this.#vm,
        atHead: this.#hasState(head) ? (read) => this.#views.run(head.block, (vm) => trieOnly(vm, () => read(vm))) : undefined,
        fork: this.#config.fork === undefined ? undefined : { blockNumber: this.#config.fork.blockNumber, blockHash: this.#config.fork.block.hash },
      }));
    });
  }

  /**
   * Replaces the whole chain by a dump's (blocks, receipts, state, open block, pool, time) after
   * every queued change; snapshots are used up. The dump must be of a chain with the same id and
   * fork schedule. Throws StateDumpError, and then nothing has changed.
   */
  loadState(dump: ParsedStateDump): Promise<void> {
    return this.#queue.run(async () => {
      if (canonicalJson(dump.genesis.config) !== canonicalJson(this.#genesis.config)) {
        throw new StateDumpError("genesis.config", "the dump's chain has another fork schedule than this one; start a provider from the dump instead (the `state` option, `preconf node --load-state`)");
      }
      try {
        this.#install(await restoreState(this.common, dump, nowSeconds(this.#config.clock), this.#config.fork === undefined ? undefined : forkRestore(this.#config.fork, this.common)));
      } catch (error) {
        // Restoring moves the shared Common to the dump's open block; the running open block needs its own fork back.
        this.common.setHardforkBy({ blockNumber: this.#open.number, timestamp: this.#open.header.timestamp });
        throw error;
      }
    });
  }

  /**
   * Cuts the sealed chain to `count` blocks and answers the blocks it held beyond: reserved runs
   * are skipped whole (their built blocks are in `#builtReserved`), so a revert past a run of 10^9
   * empty blocks does not walk it.
   */
  #dropSealedFrom(count: number): SealedBlock[] {
    const dropped: SealedBlock[] = [];
    for (let index = count; index < this.#sealed.length; index++) {
      const reservation = this.#reservationOf(this.#firstNumber + BigInt(index));
      if (reservation !== undefined) {
        index = Number(reservation.last - this.#firstNumber);
        continue;
      }
      const sealed = this.#sealed[index];
      if (sealed !== undefined) dropped.push(sealed);
    }
    for (const index of [...this.#builtReserved]) {
      if (index < count) continue;
      dropped.push(this.#sealed[index]!);
      this.#builtReserved.delete(index);
    }
    this.#sealed.length = count;
    return dropped;
  }

  /** Every sealed block, reserved ones built: a dump lists them all. */
  #everySealed(): SealedBlock[] {
    const reserved = this.#reservations.reduce((sum, reservation) => sum + reservation.last - reservation.first + 1n, 0n);
    if (reserved > BigInt(MAX_DUMPED_RESERVED_BLOCKS)) {
      throw new StateDumpError("blocks", `the chain has ${reserved} empty blocks from hardhat_mine; a dump writes every block, and at most ${MAX_DUMPED_RESERVED_BLOCKS} of those`);
    }
    return Array.from({ length: this.#sealed.length }, (_, index) => this.sealedByNumber(this.#firstNumber + BigInt(index))!);
  }

  /** Swaps the whole chain for `restored`: what can fail (opening its next block) runs before anything changes. */
  #install(restored: InitialState): void {
    const head = restored.sealed[restored.sealed.length - 1]!;
    const defaults: Required<BlockDefaults> = { coinbase: this.#config.coinbase, gasLimit: head.block.header.gasLimit };
    const open = restored.open ?? this.#buildOpen(head.block, restored.nextTimestamp, restored.timeOffset, {}, defaults);
    this.#vm = restored.vm;
    this.#blockchain = restored.blockchain;
    this.#index = restored.index;
    this.#views = new StateViews(restored.vm);
    this.#shareHeaders(restored.blockchain);
    this.#genesis = restored.genesis;
    this.#sealed.length = 0;
    this.#firstNumber = restored.sealed[0]!.block.header.number;
    this.#reservations = [];
    this.#builtReserved.clear();
    this.#byHash.clear();
    this.#txs.clear();
    for (const sealed of restored.sealed) {
      this.#sealed.push(sealed);
      this.#byHash.set(sealed.hash, sealed);
      for (const record of sealed.transactions) this.#txs.set(record.hash, record);
    }
    this.#timeOffset = restored.timeOffset;
    this.#nextTimestamp = restored.open === undefined ? undefined : restored.nextTimestamp;
    this.#nextFields = {};
    this.#openFields = restored.open === undefined && restored.nextTimestamp !== undefined ? { timestamp: restored.nextTimestamp } : {};
    this.#defaults = defaults;
    this.#open = open;
    for (const record of this.#open.transactions) this.#txs.set(record.hash, record);
    this.pool.clear();
    this.#config.op?.clear();
    for (const entry of restored.pool) this.pool.add({ ...entry, seq: this.pool.nextSeq() }, this.#config.clock.now());
    this.#latestEdited = restored.latestEdited;
    const headNumber = this.latest.block.header.number;
    this.#historyFrom = restored.historyFrom ?? (restored.headStateAvailable ? headNumber : headNumber + 1n);
    this.#keptHeads.clear();
    this.#prunedAt = headNumber;
    this.#snapshots.clear();
    this.emit("rewound", this.latest);
  }

  get automine(): boolean {
    return this.#automine;
  }

  /** Seconds evm_increaseTime has added to the clock so far. */
  get timeOffset(): bigint {
    return this.#timeOffset;
  }

  setAutomine(enabled: boolean): void {
    this.#automine = enabled;
  }

  /**
   * An injected flashblock reorg (docs/flashblocks.md): the open block's pre-confirmations are
   * discarded and its payload starts over (a new payload id, fragment index 0 next). With
   * `requeue`, the discarded txs go back to the pool, as the sequencer's txpool still holds them,
   * and the next fragment includes them again; otherwise they are dropped. Answers the discarded txs.
   */
  reorgOpenBlock(requeue: boolean): Promise<TxRecord[]> {
    return this.#queue.run(async () => {
      const open = this.#open;
      for (const record of open.transactions) this.#txs.delete(record.hash);
      // Deposits (0x7E) come from L1, not the pool: the rebuilt block's first fragment derives
      // the L1-attributes one again; only user txs go back to the pool or are dropped.
      const discarded = open.transactions.filter((record) => (record.tx.type as number) !== DEPOSIT_TYPE);
      // The open block's state starts at its parent's (dev edits made since are discarded with it).
      await this.#vm.stateManager.setStateRoot(this.latest.block.header.stateRoot);
      this.#latestEdited = false;
      for (const record of discarded) {
        const { feeCap, tipCap } = feesOf(record.tx);
        const entry: PooledTx = { tx: record.tx, hash: record.hash, sender: record.from, nonce: record.tx.nonce, feeCap, tipCap, cost: txCost(record.tx), seq: this.pool.nextSeq() };
        if (requeue) {
          const replaced = this.pool.add(entry, this.#config.clock.now());
          if (replaced !== undefined) this.emit("dropped", replaced, "replaced");
        } else {
          this.emit("dropped", entry, "discarded by a flashblock reorg");
        }
      }
      this.#open = new OpenBlock(this.common, open.header, open.rebuild + 1);
      return discarded;
    });
  }

  /** Drops a pooled tx (hardhat_dropTransaction); false when it is not pooled. */
  dropTransaction(hash: Hex): Promise<boolean> {
    return this.#queue.run(() => {
      const entry = this.pool.remove(hash);
      if (entry !== undefined) this.emit("dropped", entry, "dropped");
      return entry !== undefined;
    });
  }

  // ── Internals ──────────────────────────────────────────────────────────────────────────────

  async #nonceOf(address: Hex): Promise<bigint> {
    return (await this.#vm.stateManager.getAccount(createAddressFromString(address)))?.nonce ?? 0n;
  }

  /** `alone`: the block is sealed right after this fragment (seal(), evm_mine), which then carries its txs too. */
  async #executeFragment(alone = false): Promise<Fragment> {
    const open = this.#open;
    const baseFee = open.header.baseFeePerGas;
    const tipOf = (entry: PooledTx) => {
      const headroom = entry.feeCap - baseFee;
      return entry.tipCap < headroom ? entry.tipCap : headroom;
    };
    // Highest effective tip first; ties by arrival (docs/behaviour.md).
    const heads = new Heap<{ entry: PooledTx; tip: bigint }>((a, b) =>
      a.tip !== b.tip ? a.tip > b.tip : a.entry.seq < b.entry.seq,
    );
    const offer = (entry: PooledTx | undefined) => {
      if (entry !== undefined && entry.feeCap >= baseFee) heads.push({ entry, tip: tipOf(entry) });
    };
    const lifetime = (this.#config.poolLimits ?? DEFAULT_POOL_LIMITS).lifetimeMs;
    const now = this.#config.clock.now();
    // The lifetime sweep sorts every sender's txs: once a second of clock time is enough.
    const sweep = lifetime > 0 && now - this.#lastSweep >= 1000;
    if (sweep) this.#lastSweep = now;
    const expiredBefore = now - lifetime;
    for (const sender of [...this.pool.senders()]) {
      const nonce = await this.#nonceOf(sender);
      for (const stale of this.pool.dropStale(sender, nonce)) this.emit("dropped", stale, "nonce too low");
      // geth's Lifetime: a tx that still cannot execute (behind a gap, or a fee cap below the
      // base fee) after it is gone, so that a tx no block will take is not kept forever.
      const runnable = sweep ? this.pool.contiguousCount(sender, nonce) : 0;
      for (const entry of sweep ? this.pool.ofSender(sender) : []) {
        const waiting = entry.nonce >= nonce + BigInt(runnable) || entry.feeCap < baseFee;
        if (waiting && (this.pool.arrivedAt(entry.hash) ?? 0) < expiredBefore) {
          this.pool.remove(entry.hash);
          this.emit("dropped", entry, "expired");
        }
      }
      offer(this.pool.at(sender, nonce));
    }

    const executed: TxRecord[] = [];
    // One state checkpoint around the fragment: the state manager flushes its caches into the trie
    // (re-hashing every touched account's path) whenever its outermost checkpoint commits, i.e.
    // after every tx; inside this one, each account is flushed once per fragment instead.
    await this.#vm.stateManager.checkpoint();
    try {
      // OP stack: deposits first; a block's first fragment carries only them (as Base's
      // flashblock 0), unless it is the block's only one (automine, a seal, one fragment per block).
      const only = alone || this.#automine || this.#config.fragmentsPerBlock === 1;
      const systemOnly = this.#config.op !== undefined && (await this.#runDeposits(this.#config.op, executed, open)) && !only;
      if (!systemOnly) await this.#runFragmentTxs(heads, offer, executed, open, only);
    } finally {
      await this.#vm.stateManager.commit();
    }
    const fragment = open.addFragment(executed);
    // The raw feed's `new_account_balances`, read while the state is this fragment's (only when someone listens).
    if (this.feed.balancesWanted > 0) fragment.balances = await this.#balancesTouchedBy(executed);
    this.emit("fragment", fragment);
    return fragment;
  }

  /** Runs the fragment's deposits (opstack/execution.ts); true when this is the block's first fragment. */
  async #runDeposits(op: OpStack, executed: TxRecord[], open: OpenBlock): Promise<boolean> {
    const first = open.fragments.length === 0;
    for (const deposit of await op.fragmentDeposits(this.#vm.stateManager, open.header.timestamp, first, open.remainingGas)) {
      const { result, depositNonce } = await op.runDeposit(this.#vm, deposit, open.executionBlock, open.gasUsed);
      const record = this.#record(deposit.asTyped(), flatHex(deposit.from.bytes), result, open);
      record.depositNonce = depositNonce;
      this.#addRecord(record, open, executed);
    }
    return first;
  }

  #addRecord(record: TxRecord, open: OpenBlock, executed: TxRecord[]): void {
    open.transactions.push(record);
    open.gasUsed = record.cumulativeGasUsed;
    if (record.blobGasUsed !== undefined) open.blobGasUsed += record.blobGasUsed;
    this.#txs.set(record.hash, record);
    executed.push(record);
  }

  /**
   * The block gas this fragment may bring the block up to. With the flashblock gas schedule (OP
   * profiles; Base's builder), fragment 0 carries only system txs and fragment j up to j/(n-1) of
   * the gas limit (n fragments per block, so the last may fill the block); what earlier fragments
   * left unused carries over, the cap being cumulative (docs/flashblocks.md).
   */
  #fragmentGasCap(open: OpenBlock): bigint {
    const slots = BigInt(this.#config.fragmentsPerBlock - 1);
    if (!this.fragmentGasSchedule || this.#automine || slots <= 0n) return open.header.gasLimit;
    return (open.header.gasLimit * BigInt(open.fragments.length)) / slots;
  }

  /** Balances of the accounts a fragment's txs paid or credited: senders, recipients, new contracts, the fee recipient. */
  async #balancesTouchedBy(records: readonly TxRecord[]): Promise<Map<Hex, bigint>> {
    const touched = new Set<Hex>();
    for (const record of records) {
      touched.add(record.from);
      const to = record.tx.to?.toString() as Hex | undefined;
      if (to !== undefined) touched.add(to);
      if (record.contractAddress !== undefined) touched.add(record.contractAddress);
    }
    if (records.length > 0) touched.add(this.#open.header.coinbase.toString().toLowerCase() as Hex);
    const balances = new Map<Hex, bigint>();
    for (const address of touched) balances.set(address, (await this.#vm.stateManager.getAccount(createAddressFromString(address)))?.balance ?? 0n);
    return balances;
  }

  async #runFragmentTxs(
    heads: Heap<{ entry: PooledTx; tip: bigint }>,
    offer: (entry: PooledTx | undefined) => void,
    executed: TxRecord[],
    open: OpenBlock,
    only: boolean,
  ): Promise<void> {
    // The block's only fragment may fill it, whatever the gas schedule.
    const cap = only ? open.header.gasLimit : this.#fragmentGasCap(open);
    for (let head = heads.pop(); head !== undefined; head = heads.pop()) {
      const { entry } = head;
      // A tx that no longer fits the block (or this fragment's share of it) waits; its sender's later txs too.
      if (entry.tx.gasLimit > open.remainingGas || entry.tx.gasLimit > cap - open.gasUsed) continue;
      let result: RunTxResult;
      let l1Cost: L1Cost | undefined;
      try {
        const opts = { tx: entry.tx, block: open.executionBlock, blockGasUsed: open.gasUsed, skipHardForkValidation: true };
        if (this.#config.op === undefined) result = await runTxAllowingAssertedSender(this.#vm, opts);
        else ({ result, l1Cost } = await this.#config.op.runUserTx(this.#vm, opts));
      } catch (error) {
        // State changed since admission (e.g. the balance was spent): the tx can never run as is.
        this.pool.remove(entry.hash);
        this.emit("dropped", entry, error instanceof Error ? error.message : String(error));
        continue;
      }
      this.pool.remove(entry.hash);
      if (result.minerValue > 0n) await this.#saturateFeeRecipient(open);
      const record = this.#record(entry.tx, entry.sender, result, open);
      if (l1Cost !== undefined) record.l1Cost = l1Cost;
      this.#addRecord(record, open, executed);
      offer(this.pool.at(entry.sender, entry.nonce + 1n));
    }
  }

  /**
   * runTx credits the fee recipient without a bound, and a balance above 2^256 - 1 cannot be
   * dumped or sent anywhere: the credit saturates, as revm's (Hardhat's EDR, anvil) does.
   */
  async #saturateFeeRecipient(open: OpenBlock): Promise<void> {
    const where = open.executionBlock.header.coinbase;
    const account = await this.#vm.stateManager.getAccount(where);
    if (account === undefined || account.balance <= MAX_BALANCE) return;
    account.balance = MAX_BALANCE;
    await this.#vm.stateManager.putAccount(where, account);
  }

  #record(tx: TypedTransaction, from: Hex, result: RunTxResult, open: OpenBlock): TxRecord {
    const index = open.transactions.length;
    const baseFee = open.header.baseFeePerGas;
    const { feeCap, tipCap } = feesOf(tx);
    const tip = tipCap < feeCap - baseFee ? tipCap : feeCap - baseFee;
    const logs: LogRecord[] = result.execResult.logs?.map(([address, topics, data]) => ({
      address: flatHex(address),
      topics: topics.map((topic) => flatHex(topic)),
      data: flatHex(data),
      logIndex: open.logCount++,
    })) ?? [];
    const receipt = result.receipt;
    return {
      hash: flatHex(tx.hash()),
      tx,
      from,
      blockNumber: open.number,
      index,
      blockTimestamp: open.header.timestamp,
      fragmentIndex: open.fragments.length,
      blockHash: undefined,
      status: "status" in receipt ? receipt.status : 1,
      gasUsed: result.totalGasSpent,
      cumulativeGasUsed: receipt.cumulativeBlockGasUsed,
      effectiveGasPrice: "maxFeePerGas" in tx ? baseFee + tip : tx.gasPrice,
      contractAddress: result.createdAddress === undefined ? undefined : (result.createdAddress.toString() as Hex),
      logs,
      logsBloom: result.bloom.bitvector,
      receipt,
      blobGasUsed: result.blobGasUsed,
      blobGasPrice: result.blobGasUsed === undefined ? undefined : open.executionBlock.header.getBlobGasPrice(),
    };
  }

  async #seal(): Promise<SealedBlock> {
    const open = this.#open;
    const stateRoot = await this.#vm.stateManager.getStateRoot();
    const block = await open.seal(stateRoot);
    const hash = flatHex(block.hash());
    for (const record of open.transactions) record.blockHash = hash;
    const sealed: SealedBlock = { block, hash, transactions: open.transactions, fragmentCount: open.fragments.length };
    this.#sealed.push(sealed);
    this.#byHash.set(hash, sealed);
    this.#open = this.#openAfter(block);
    this.#latestEdited = false;
    if (block.header.number - this.#prunedAt >= PRUNE_EVERY) this.#prune(stateRoot);
    this.emit("sealed", sealed);
    return sealed;
  }

  /**
   * Drops the trie nodes that only blocks older than `stateHistory` need (prune.ts). Runs in the
   * writer queue right after a seal: `liveRoot` is the flushed live state. Reads at those blocks
   * answer historicalStateUnavailable from now on; a read already in flight keeps its view's root.
   */
  #prune(liveRoot: Uint8Array): void {
    const head = this.latest;
    this.#prunedAt = head.block.header.number;
    const history = this.#config.stateHistory;
    if (history === undefined) return;
    const from = head.block.header.number - BigInt(history) + 1n;
    const stateManager = this.#vm.stateManager as MerkleStateManager;
    const store = nodeStoreOf(stateManager);
    if (from <= this.#historyFrom || store === undefined || (stateManager as unknown as { _checkpointCount: number })._checkpointCount > 0) return;

    const roots: Uint8Array[] = [liveRoot];
    for (let number = from; number <= head.block.header.number; number++) roots.push(this.sealedByNumber(number)!.block.header.stateRoot);
    const keptHeads = new Set<Hex>();
    const keep = (sealed: SealedBlock | undefined) => {
      if (sealed === undefined || !this.#hasState(sealed)) return;
      roots.push(sealed.block.header.stateRoot);
      if (sealed.block.header.number < from) keptHeads.add(sealed.hash);
    };
    for (const snap of this.#snapshots.values()) {
      roots.push(snap.stateRoot);
      keep(snap.head);
    }
    this.#views.dropBelow(from);
    roots.push(...this.#views.roots());
    pruneStore(store, roots, openStorageRoots(stateManager));
    this.#historyFrom = from;
    this.#keptHeads = keptHeads;
  }

  /** `requested`, else the clock's second plus evm_increaseTime's offset; strictly after the parent, whatever the clock says (docs/behaviour.md). */
  #timestampAfter(parentTimestamp: bigint, requested: bigint | undefined, offset = this.#timeOffset): bigint {
    const wanted = requested ?? nowSeconds(this.#config.clock) + offset;
    if (this.#config.allowBlocksWithSameTimestamp === true) return wanted >= parentTimestamp ? wanted : parentTimestamp;
    return wanted > parentTimestamp ? wanted : parentTimestamp + 1n;
  }

  /** Whether a block may have its parent's timestamp. */
  get allowsSameTimestamp(): boolean {
    return this.#config.allowBlocksWithSameTimestamp === true;
  }

  #openAfter(parent: Block): OpenBlock {
    const requested = this.#nextTimestamp;
    const fields = this.#nextFields;
    const open = this.#buildOpen(parent, requested, this.#timeOffset, fields, this.#defaults);
    this.#nextTimestamp = undefined;
    this.#nextFields = {};
    this.#openFields = { ...fields, ...(requested !== undefined && { timestamp: requested }) };
    return open;
  }

  /**
   * The block after `parent`, at `requested` or the clock plus `offset`, with the dev methods' header
   * `fields` and `defaults`; changes nothing but the shared Common's fork.
   */
  #buildOpen(parent: Block, requested: bigint | undefined, offset: bigint, fields: NextBlockFields, defaults: Required<BlockDefaults>): OpenBlock {
    const parentHeader = parent.header;
    const timestamp = this.#timestampAfter(parentHeader.timestamp, requested, offset);
    const parentHash = parent.hash();
    // The block being built follows the genesis' fork schedule (e.g. cancunTime: 0, pragueTime: later).
    this.common.setHardforkBy({ blockNumber: parentHeader.number + 1n, timestamp });
    return new OpenBlock(this.common, {
      number: parentHeader.number + 1n,
      parentHash: bytesToHex(parentHash) as Hex,
      timestamp,
      gasLimit: defaults.gasLimit,
      baseFeePerGas: fields.baseFeePerGas ?? this.#config.nextBaseFee?.(parentHeader) ?? parentHeader.calcNextBaseFee(),
      coinbase: defaults.coinbase,
      // Reproducible "randomness": the hash of the parent's hash.
      prevRandao: fields.prevRandao ?? (bytesToHex(keccak256(parentHash)) as Hex),
      excessBlobGas: this.common.isActivatedEIP(4844) ? parentHeader.calcNextExcessBlobGas(this.common) : undefined,
    });
  }
}

/** The clock's current second. */
const nowSeconds = (clock: Clock): bigint => BigInt(Math.floor(clock.now() / 1000));


function dropUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as Partial<T>;
}

/** JSON with sorted keys, so that two objects compare by content. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_, item: unknown) =>
    typeof item === "object" && item !== null && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}
