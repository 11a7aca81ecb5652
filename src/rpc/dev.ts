/**
 * Dev methods with Hardhat's and anvil's semantics: metadata, snapshots, mining, time, automine,
 * state edits, impersonation and the txpool_ inspection methods. Mining maps onto fragments:
 * "mine a block" seals the open block, automine gives every tx a fragment and a seal of its own,
 * and interval mining 0 is the sequencer's manual mode.
 */
import { Account, bigIntToHex, createAddressFromString, hexToBytes, setLengthLeft, toChecksumAddress } from "@ethereumjs/util";
import { z } from "zod";

import { BYTES32_PATTERN } from "../node/common/hex.ts";
import { systemDepositsName } from "../node/opstack/baseTime.ts";
import { MAX_TIMESTAMP } from "../node/common/time.ts";
import { impersonate, stopImpersonating } from "../node/pool/impersonation.ts";
import { CLIENT_VERSION } from "./eth.ts";
import { devMethodError, ErrorCode, invalidParams, RpcError } from "./errors.ts";
import { formatExecuted, formatTransaction } from "./format.ts";
import { forkedNetwork, forkForReset, forkingParams } from "./fork.ts";
import { address, bytes, hash, quantity, storageSlot } from "./schema.ts";
import { method, positional } from "./table.ts";

import type { Chain } from "../node/chain/chain.ts";
import type { PooledTx } from "../node/pool/mempool.ts";
import type { MethodContext } from "./context.ts";
import type { Hex } from "./schema.ts";
import type { MethodTable } from "./table.ts";

/** Hardhat accepts JSON numbers as well as hex quantities for times and counts. */
const numeric = z.union([z.number().int().nonnegative().safe().transform(BigInt), quantity]);
const word = z
  .string()
  .regex(BYTES32_PATTERN, "expected a 32-byte 0x-prefixed value")
  .transform((value) => hexToBytes(value as Hex));

function metadata(ctx: MethodContext) {
  const latest = ctx.chain.latest;
  return {
    clientVersion: CLIENT_VERSION,
    chainId: Number(ctx.chain.chainId),
    instanceId: ctx.scope.instanceId,
    latestBlockNumber: Number(latest.block.header.number),
    latestBlockHash: latest.hash,
    forkedNetwork: forkedNetwork(ctx),
  };
}

/** The timestamp the next block must exceed: the open block's once it pre-confirmed something. */
function lastTimestamp(chain: Chain): bigint {
  return chain.open.fragments.length > 0 ? chain.open.header.timestamp : chain.latest.block.header.timestamp;
}

export { MAX_TIMESTAMP };
/**
 * hardhat_mine reserves long runs of empty blocks instead of building them (Chain.mine), so its
 * cost does not grow with the count; EDR's own tests mine 10^9 blocks at once.
 */
export const MAX_MINE_BLOCKS = 1_000_000_000n;

function checkTimestamp(timestamp: bigint, field: string): void {
  if (timestamp > MAX_TIMESTAMP) throw invalidParams(field, `timestamp ${timestamp} exceeds the latest supported timestamp ${MAX_TIMESTAMP}`);
}

/** Hardhat's (EDR's) texts: network helpers' users match on them. */
function checkAfterLast(chain: Chain, timestamp: bigint, field: string): void {
  const last = lastTimestamp(chain);
  const data = { field, timestamp: bigIntToHex(timestamp), previousTimestamp: bigIntToHex(last) };
  if (timestamp < last) throw devMethodError(`Timestamp ${timestamp} is lower than the previous block's timestamp ${last}`, data);
  if (timestamp === last && !chain.allowsSameTimestamp) {
    throw devMethodError(
      `Timestamp ${timestamp} is equal to the previous block's timestamp. Enable the 'allowBlocksWithSameTimestamp' option to allow this`,
      data,
    );
  }
}

async function setNextTimestamp(ctx: MethodContext, timestamp: bigint, field: string): Promise<void> {
  checkTimestamp(timestamp, field);
  checkAfterLast(ctx.chain, timestamp, field);
  await ctx.chain.adjustTime({ nextTimestamp: timestamp });
}

function editAccount(ctx: MethodContext, who: Hex, edit: (account: Account) => void): Promise<boolean> {
  return ctx.chain.editState(async (vm) => {
    const where = createAddressFromString(who);
    const account = (await vm.stateManager.getAccount(where)) ?? new Account();
    edit(account);
    await vm.stateManager.putAccount(where, account);
    return true;
  });
}

/** Pending: the sender's contiguous run from its pre-confirmed nonce; queued: behind a gap (geth). */
async function poolByState(ctx: MethodContext): Promise<{ pending: PooledTx[]; queued: PooledTx[] }> {
  const { chain } = ctx;
  return chain.exclusive(async (vm) => {
    const pending: PooledTx[] = [];
    const queued: PooledTx[] = [];
    for (const sender of [...chain.pool.senders()]) {
      let next = (await vm.stateManager.getAccount(createAddressFromString(sender)))?.nonce ?? 0n;
      for (const entry of chain.pool.ofSender(sender)) {
        if (entry.nonce === next) {
          pending.push(entry);
          next++;
        } else {
          queued.push(entry);
        }
      }
    }
    return { pending, queued };
  });
}

function bySenderAndNonce(entries: PooledTx[]): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const entry of entries) {
    const sender = toChecksumAddress(entry.sender);
    (out[sender] ??= {})[entry.nonce.toString()] = formatTransaction(entry.tx, entry.sender, undefined);
  }
  return out;
}

const hardhatMethods: MethodTable = {
  hardhat_metadata: method(positional(), (_, ctx) => metadata(ctx)),

  evm_snapshot: method(positional(), async (_, ctx) => bigIntToHex(BigInt(await ctx.chain.snapshot()))),
  evm_revert: method(positional(quantity), ([id], ctx) => (id > BigInt(Number.MAX_SAFE_INTEGER) ? false : ctx.chain.revert(Number(id)))),

  /** Back to the chain as created, or (`forking`) a fork of an upstream block (docs/forking.md). */
  hardhat_reset: method(positional(z.object({ forking: forkingParams.optional() }).strict().optional()), async ([reset], ctx) => {
    await ctx.chain.reset(reset?.forking === undefined ? undefined : await forkForReset(ctx, reset.forking));
    // A new node as far as clients can tell (Hardhat changes instanceId); the reset ended impersonations.
    ctx.scope.reset();
    return true;
  }),

  evm_mine: method(positional(numeric.optional()), async ([timestamp], ctx) => {
    if (timestamp !== undefined) await setNextTimestamp(ctx, timestamp, "params[0]");
    await ctx.chain.seal();
    return "0";
  }),
  hardhat_mine: method(positional(quantity.optional(), quantity.optional()), async ([count, interval], ctx) => {
    const blocks = count ?? 1n;
    if (blocks > MAX_MINE_BLOCKS) throw invalidParams("params[0]", `at most ${MAX_MINE_BLOCKS} blocks per call`);
    // Interval 0 keeps the timestamp only where blocks may share one (allowBlocksWithSameTimestamp).
    const step = interval !== undefined && (interval > 0n || ctx.chain.allowsSameTimestamp) ? interval : 1n;
    // Checked up front from the open block's own time (it may be a set next timestamp): a later
    // block past the limit would leave the first ones mined.
    if (blocks > 1n) checkTimestamp(ctx.chain.open.header.timestamp + step * (blocks - 1n), "params[1]");
    await ctx.chain.mine(blocks, step);
    return true;
  }),

  /** Answers the total offset, in seconds, as a decimal string (as Hardhat does). */
  evm_increaseTime: method(positional(numeric), async ([seconds], ctx) => {
    const now = BigInt(Math.floor(ctx.options.clock.now() / 1000)) + ctx.chain.timeOffset;
    const base = now > lastTimestamp(ctx.chain) ? now : lastTimestamp(ctx.chain);
    checkTimestamp(base + 1n + seconds, "params[0]");
    return (await ctx.chain.adjustTime({ increaseBy: seconds })).toString();
  }),
  evm_setNextBlockTimestamp: method(positional(numeric), async ([timestamp], ctx) => {
    await setNextTimestamp(ctx, timestamp, "params[0]");
    return timestamp.toString();
  }),

  evm_setAutomine: method(positional(z.boolean()), ([enabled], ctx) => {
    ctx.chain.setAutomine(enabled);
    return true;
  }),
  hardhat_getAutomine: method(positional(), (_, ctx) => ctx.chain.automine),
  /** 0 stops the timer (manual mode); any other value runs the fragment schedule of the options. */
  evm_setIntervalMining: method(positional(numeric), ([ms], ctx) => {
    ctx.sequencer.setMode(ms === 0n ? "manual" : "interval");
    return true;
  }),

  hardhat_setBalance: method(positional(address, quantity), ([who, balance], ctx) =>
    editAccount(ctx, who, (account) => {
      account.balance = balance;
    }),
  ),
  hardhat_setNonce: method(positional(address, quantity), ([who, nonce], ctx) =>
    editAccount(ctx, who, (account) => {
      // Hardhat refuses to move a nonce backwards: txs already counted on it would repeat.
      if (nonce < account.nonce) {
        throw devMethodError(`New nonce (${nonce}) must not be smaller than the existing nonce (${account.nonce})`, {
          field: "params[1]",
          nonce: bigIntToHex(account.nonce),
        });
      }
      // EIP-2681: an account nonce is at most 2^64 - 1.
      if (nonce > 0xffffffffffffffffn) throw invalidParams("params[1]", "nonce exceeds 2^64 - 1 (EIP-2681)");
      account.nonce = nonce;
    }),
  ),
  hardhat_setCode: method(positional(address, bytes), ([who, code], ctx) =>
    ctx.chain.editState(async (vm) => {
      const where = createAddressFromString(who);
      if ((await vm.stateManager.getAccount(where)) === undefined) await vm.stateManager.putAccount(where, new Account());
      await vm.stateManager.putCode(where, code);
      return true;
    }),
  ),
  hardhat_setStorageAt: method(positional(address, storageSlot, word), ([who, position, value], ctx) =>
    ctx.chain.editState(async (vm) => {
      const where = createAddressFromString(who);
      if ((await vm.stateManager.getAccount(where)) === undefined) await vm.stateManager.putAccount(where, new Account());
      await vm.stateManager.putStorage(where, setLengthLeft(hexToBytes(bigIntToHex(position)), 32), value);
      return true;
    }),
  ),

  hardhat_impersonateAccount: method(positional(address), ([who], ctx) => {
    impersonate(ctx.chain, who);
    return true;
  }),
  hardhat_stopImpersonatingAccount: method(positional(address), ([who], ctx) => stopImpersonating(ctx.chain, who)),

  hardhat_dropTransaction: method(positional(hash), ([txHash], ctx) => {
    if (ctx.chain.transaction(txHash) !== undefined) {
      // EDR's text and code (-32602); pre-confirmed txs are as final as mined ones here.
      throw new RpcError(ErrorCode.invalidParams, `Transaction ${txHash} cannot be dropped because it's already mined`, { field: "params[0]", hash: txHash });
    }
    return ctx.chain.dropTransaction(txHash);
  }),

  /**
   * Header overrides, Hardhat's semantics mapped onto fragments: each applies to the next block
   * that opens, and to the open block itself while it has no fragment (nothing was pre-confirmed
   * against its header yet). Base fee and prevRandao hold for one block; coinbase and gas limit
   * for every block from then on.
   */
  hardhat_setNextBlockBaseFeePerGas: method(positional(quantity), async ([baseFee], ctx) => {
    if (!ctx.chain.common.isActivatedEIP(1559)) throw devMethodError("hardhat_setNextBlockBaseFeePerGas is disabled because EIP-1559 is not active");
    await ctx.chain.setBlockFields({ baseFeePerGas: baseFee });
    return true;
  }),
  hardhat_setPrevRandao: method(positional(z.string().regex(BYTES32_PATTERN, "expected a 32-byte 0x-prefixed value")), async ([value], ctx) => {
    await ctx.chain.setBlockFields({ prevRandao: value.toLowerCase() as Hex });
    return true;
  }),
  hardhat_setCoinbase: method(positional(address), async ([coinbase], ctx) => {
    await ctx.chain.setBlockFields({}, { coinbase });
    return true;
  }),
  evm_setBlockGasLimit: method(positional(quantity), async ([gasLimit], ctx) => {
    if (gasLimit === 0n) throw devMethodError("Block gas limit must be greater than 0", { field: "params[0]" });
    // Hardhat takes a u64; ethereumjs' header field is a u64 as well.
    if (gasLimit > 0xffffffffffffffffn) throw invalidParams("params[0]", "gas limit exceeds 2^64 - 1");
    // Every OP-stack block opens with the L1-attributes deposit's gas (and BaseTime's on Denim blocks; docs/profiles.md): a lower limit could seal no block.
    const op = ctx.chain.op;
    if (op !== undefined && gasLimit < op.systemGas) {
      throw devMethodError(`Block gas limit must be at least ${op.systemGas} on an OP-stack profile (${systemDepositsName(op.baseTime)})`, {
        field: "params[0]",
      });
    }
    await ctx.chain.setBlockFields({}, { gasLimit });
    return true;
  }),
  /** Only pre-London chains have a minimum gas price (EDR's text); every supported fork has EIP-1559. */
  hardhat_setMinGasPrice: method(positional(quantity), (_, ctx) => {
    if (ctx.chain.common.isActivatedEIP(1559)) throw devMethodError("hardhat_setMinGasPrice is not supported when EIP-1559 is active");
    return true;
  }),
  /** The node logs nothing (no console): accepted so that Hardhat scripts run unchanged. */
  hardhat_setLoggingEnabled: method(positional(z.boolean()), () => true),
  /** Hardhat: the txs not yet in a mined block. Here: those pre-confirmed in the open block, then the pool's. */
  eth_pendingTransactions: method(positional(), (_, ctx) => [
    ...ctx.chain.open.transactions.map((record) => formatExecuted(record)),
    ...[...ctx.chain.pool.all()].map((entry) => formatTransaction(entry.tx, entry.sender, undefined)),
  ]),

  txpool_content: method(positional(), async (_, ctx) => {
    const { pending, queued } = await poolByState(ctx);
    return { pending: bySenderAndNonce(pending), queued: bySenderAndNonce(queued) };
  }),
  txpool_status: method(positional(), async (_, ctx) => {
    const { pending, queued } = await poolByState(ctx);
    return { pending: bigIntToHex(BigInt(pending.length)), queued: bigIntToHex(BigInt(queued.length)) };
  }),
};

/** anvil's names for the same methods. */
const ANVIL_ALIASES: Record<string, keyof typeof hardhatMethods> = {
  anvil_setBalance: "hardhat_setBalance",
  anvil_setCode: "hardhat_setCode",
  anvil_setNonce: "hardhat_setNonce",
  anvil_setStorageAt: "hardhat_setStorageAt",
  anvil_mine: "hardhat_mine",
  anvil_reset: "hardhat_reset",
  anvil_impersonateAccount: "hardhat_impersonateAccount",
  anvil_stopImpersonatingAccount: "hardhat_stopImpersonatingAccount",
  anvil_dropTransaction: "hardhat_dropTransaction",
  anvil_getAutomine: "hardhat_getAutomine",
  anvil_setAutomine: "evm_setAutomine",
  anvil_setIntervalMining: "evm_setIntervalMining",
  anvil_increaseTime: "evm_increaseTime",
  anvil_setNextBlockTimestamp: "evm_setNextBlockTimestamp",
  anvil_snapshot: "evm_snapshot",
  anvil_setNextBlockBaseFeePerGas: "hardhat_setNextBlockBaseFeePerGas",
  anvil_setCoinbase: "hardhat_setCoinbase",
  anvil_setBlockGasLimit: "evm_setBlockGasLimit",
  anvil_setMinGasPrice: "hardhat_setMinGasPrice",
  anvil_setLoggingEnabled: "hardhat_setLoggingEnabled",
  anvil_revert: "evm_revert",
};

export const devMethods: MethodTable = {
  ...hardhatMethods,
  /** anvil's auto-impersonation (its `--auto-impersonate`): from now on a send from any address needs no key; answers null, as anvil. */
  anvil_autoImpersonateAccount: method(positional(z.boolean()), ([enabled], ctx) => {
    ctx.chain.autoImpersonate = enabled;
    return null;
  }),
  ...Object.fromEntries(Object.entries(ANVIL_ALIASES).map(([alias, name]) => [alias, hardhatMethods[name]!])),
};
