/**
 * Writes to the pool and the open block, each run inside the writer queue (Chain queues them):
 * admission, deposits, header overrides, hardhat_mine, and an injected flashblock reorg.
 */
import { createAddressFromString } from "@ethereumjs/util";

import { feesOf, txCost } from "../pool/admission.ts";
import { automineNow, executeFragment, reopenIfEmpty, seal } from "./chainCore.ts";
import { flatHex } from "../common/hex.ts";
import { DEFAULT_POOL_LIMITS } from "../pool/mempool.ts";
import { DecodedTxs } from "../pool/decodedTxs.ts";
import { OpenBlock } from "../execution/openBlock.ts";
import { AlreadyKnownError, AutomineFeeTooLowError, AutomineNonceTooHighError } from "../common/errors.ts";
import { pendingNonce } from "./chainReads.ts";
import { stateRootOf } from "../state/stateEdits.ts";

import type { Hex } from "../common/types.ts";
import type { AdmissionContext, Admitted } from "../pool/admission.ts";
import type { ChainCore } from "./chainCore.ts";
import type { BlockDefaults, NextBlockFields } from "./chainTypes.ts";
import type { PooledTx } from "../pool/mempool.ts";
import type { DepositTx } from "../opstack/deposit.ts";
import type { TxRecord } from "./records.ts";

/** The OP-stack deposit tx type (specs/protocol/deposits.md). */
const DEPOSIT_TYPE = 0x7e;
/** hardhat_mine builds runs shorter than this block by block (EDR: 6). */
const MIN_RESERVED_BLOCKS = 6n;

/** Each chain's raw txs already decoded (pool/decodedTxs.ts): per chain, so a new provider pays in full. */
const decodedTxs = new WeakMap<ChainCore, DecodedTxs>();

function decodedTxsOf(core: ChainCore): DecodedTxs {
  let decoded = decodedTxs.get(core);
  if (decoded === undefined) {
    decoded = new DecodedTxs();
    decodedTxs.set(core, decoded);
  }
  return decoded;
}

/** Admits the tx that `admit` checks into the pool (automine: and mines it). */
export async function admit(core: ChainCore, check: (ctx: AdmissionContext) => Promise<Admitted>): Promise<Hex> {
  const { config, pool } = core;
  // The sender's account as admission read it: automine's check needs its nonce again, and nothing
  // writes the state between the two (both run in the writer queue).
  let read: { address: Hex; nonce: bigint } | undefined;
  const { entry, replaces, evicts } = await check({
    common: core.common,
    // evm_setBlockGasLimit's limit holds from the next block on, and the pool keeps txs for it.
    blockGasLimit: core.next.defaults.gasLimit,
    minTip: config.minTip,
    allowUnprotectedTxs: config.allowUnprotectedTxs,
    pool,
    ...(config.op !== undefined && { l1Fee: (tx) => config.op!.l1FeeOf(core.vm.stateManager, tx) }),
    limits: config.poolLimits ?? DEFAULT_POOL_LIMITS,
    account: async (address) => {
      const account = await core.vm.stateManager.getAccount(createAddressFromString(address));
      const nonce = account?.nonce ?? 0n;
      read = { address, nonce };
      return { nonce, balance: account?.balance ?? 0n };
    },
    decoded: decodedTxsOf(core),
  });
  if (core.automine) await checkMinesAtOnce(core, entry, read?.address === entry.sender ? read.nonce : undefined);
  for (const evicted of evicts) {
    pool.remove(evicted.hash);
    core.emit("dropped", evicted, "evicted: the pool is full");
  }
  pool.add(entry, config.clock.now());
  if (replaces !== undefined) core.emit("dropped", replaces, "replaced");
  core.emit("pendingTransaction", entry);
  await automineNow(core);
  return entry.hash;
}

/**
 * Automine mines every tx as it is admitted: one that the next block could not take is refused,
 * as Hardhat refuses it, rather than pooled behind a gap or a base fee (docs/behaviour.md#hardhats-semantics).
 */
async function checkMinesAtOnce(core: ChainCore, entry: PooledTx, accountNonce: bigint | undefined): Promise<void> {
  const expected = await pendingNonce(core, entry.sender, accountNonce);
  if (entry.nonce > expected) throw new AutomineNonceTooHighError(expected, entry.nonce);
  const baseFee = core.open.header.baseFeePerGas;
  if (entry.feeCap < baseFee) throw new AutomineFeeTooLowError("maxFeePerGas" in entry.tx ? "maxFeePerGas" : "gasPrice", entry.feeCap, baseFee);
}

/** Queues a deposit for the next fragment (automine: and mines it); a deposit already queued or executed is `already known`. */
export async function queueDeposit(core: ChainCore, deposit: DepositTx): Promise<Hex> {
  const op = core.config.op!;
  const hash = flatHex(deposit.hash());
  if (core.store.transaction(hash) !== undefined || op.isQueued(deposit.hash())) throw new AlreadyKnownError();
  const { gasLimit } = core.next.defaults;
  op.queueDeposit(deposit, core.open.header.gasLimit < gasLimit ? core.open.header.gasLimit : gasLimit);
  await automineNow(core);
  return hash;
}

/** Header overrides for the next block (and the open one while it has no fragment); a lower gas limit drops pooled txs above it. */
export function setBlockFields(core: ChainCore, next: NextBlockFields, defaults: BlockDefaults): void {
  core.next.setFields(next, defaults);
  reopenIfEmpty(core);
  if (defaults.gasLimit === undefined) return;
  for (const entry of [...core.pool.all()]) {
    if (entry.tx.gasLimit > defaults.gasLimit && core.pool.remove(entry.hash) !== undefined) core.emit("dropped", entry, "exceeds block gas limit");
  }
}

/**
 * hardhat_mine, EDR's algorithm (edr_provider data.rs, mine_and_commit_blocks): the first block
 * at its usual time; blocks `interval` seconds apart while the pool still fills them; one more;
 * then a run of empty blocks that is reserved, not built (blockStore.ts), and a last block after
 * it. Time and memory stay bounded whatever `count` is.
 */
export async function mine(core: ChainCore, count: bigint, interval: bigint): Promise<void> {
  if (count === 0n) return;
  if (core.open.fragments.length === 0) await executeFragment(core, true);
  let last = await seal(core);
  let mined = 1n;
  const mineNext = async () => {
    core.next.adjust({ nextTimestamp: core.store.latest.block.header.timestamp + interval });
    reopenIfEmpty(core);
    await executeFragment(core, true);
    last = await seal(core);
    mined++;
  };
  while (mined < count && core.pool.size > 0 && last.transactions.length > 0) await mineNext();
  if (mined < count) await mineNext();
  const remaining = count - mined;
  if (remaining < MIN_RESERVED_BLOCKS) {
    while (mined < count) await mineNext();
    return;
  }
  // The open block, still empty, is re-opened after the reserved run.
  core.store.reserve(remaining - 1n, interval, core.open.header);
  await mineNext();
}

/**
 * An injected flashblock reorg (docs/flashblocks.md): the open block's pre-confirmations are
 * discarded and its payload starts over (a new payload id, fragment index 0 next). With
 * `requeue`, the discarded txs go back to the pool, as the sequencer's txpool still holds them,
 * and the next fragment includes them again; otherwise they are dropped. Answers the discarded txs.
 */
export async function reorgOpenBlock(core: ChainCore, requeue: boolean): Promise<TxRecord[]> {
  const { open, pool } = core;
  for (const record of open.transactions) core.store.forgetTransaction(record.hash);
  // Deposits (0x7E) come from L1, not the pool: the rebuilt block's first fragment derives
  // the L1-attributes one again; only user txs go back to the pool or are dropped.
  const discarded = open.transactions.filter((record) => (record.tx.type as number) !== DEPOSIT_TYPE);
  // The open block's state starts at its parent's (dev edits made in it are discarded with it; stateEdits.ts).
  await core.vm.stateManager.setStateRoot(stateRootOf(core, core.store.latest));
  for (const record of discarded) {
    const { feeCap, tipCap } = feesOf(record.tx);
    const entry: PooledTx = {
      tx: record.tx,
      hash: record.hash,
      sender: record.from,
      nonce: record.tx.nonce,
      feeCap,
      tipCap,
      cost: txCost(record.tx),
      seq: pool.nextSeq(),
    };
    if (requeue) {
      const replaced = pool.add(entry, core.config.clock.now());
      if (replaced !== undefined) core.emit("dropped", replaced, "replaced");
    } else {
      core.emit("dropped", entry, "discarded by a flashblock reorg");
    }
  }
  core.open = new OpenBlock(core.common, open.header, open.fork, open.rebuild + 1);
  return discarded;
}
