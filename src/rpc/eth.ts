/** The node's `eth_`, `net_` and `web3_` methods (execution-apis), `pending` as docs/behaviour.md says. */
import { bigIntToHex, bytesToHex, createAddressFromString, hexToBytes, intToHex, setLengthLeft } from "@ethereumjs/util";
import { z } from "zod";

import { keccak256 } from "../node/common/crypto.ts";
import { stateOverrides } from "../node/state/stateOverrides.ts";
import { ethConfig } from "./config.ts";
import { formatBlock, formatExecuted, formatReceipt, formatTransaction } from "./format.ts";
import { address, blockSelector, bytes, callRequest, hash, LATEST, smallQuantity, storageSlot } from "./schema.ts";
import { accessList, call, estimate, resolveOrThrow } from "./services/calls.ts";
import { blockCount, feeHistory, rewardPercentiles } from "./services/feeHistory.ts";
import { logFilter, queryLogs } from "./services/logs.ts";
import { getProof, storageKeys } from "./services/proof.ts";
import { suggestedTip, throwIfFailed } from "./services/send.ts";
import { method, positional } from "./table.ts";

import type { VM } from "@ethereumjs/vm";
import type { MethodContext } from "./context.ts";
import type { BlockSelector } from "./schema.ts";
import type { MethodTable } from "./table.ts";

export const CLIENT_VERSION = "HardhatNetwork/3.0.0/hardhat-preconf/0.1.0";

const q = (value: bigint) => bigIntToHex(value);

function readAccount<T>(ctx: MethodContext, selector: BlockSelector | undefined, read: (vm: VM) => Promise<T>): Promise<T> {
  return ctx.chain.withState(resolveOrThrow(ctx, selector ?? LATEST), read);
}

export const ethMethods: MethodTable = {
  web3_clientVersion: method(positional(), () => CLIENT_VERSION),
  web3_sha3: method(positional(bytes), ([data]) => bytesToHex(keccak256(data))),
  net_version: method(positional(), (_, ctx) => ctx.chain.chainId.toString()),
  net_listening: method(positional(), () => true),
  net_peerCount: method(positional(), () => "0x0"),
  eth_syncing: method(positional(), () => false),
  eth_mining: method(positional(), (_, ctx) => ctx.sequencer.mode === "interval"),
  eth_hashrate: method(positional(), () => "0x0"),
  eth_coinbase: method(positional(), (_, ctx) => ctx.chain.coinbase),
  eth_blockNumber: method(positional(), (_, ctx) => q(ctx.chain.latest.block.header.number)),
  /** EIP-7910: the configuration of the head's fork and of the next and last ones scheduled (rpc/config.ts). */
  eth_config: method(positional(), (_, ctx) => ethConfig(ctx)),
  eth_gasPrice: method(positional(), (_, ctx) => q(ctx.chain.open.header.baseFeePerGas + suggestedTip(ctx.chain))),
  eth_maxPriorityFeePerGas: method(positional(), (_, ctx) => q(suggestedTip(ctx.chain))),
  eth_blobBaseFee: method(positional(), (_, ctx) => q(ctx.chain.open.executionBlock.header.getBlobGasPrice())),
  eth_feeHistory: method(positional(blockCount, blockSelector, rewardPercentiles), ([count, newest, percentiles], ctx) =>
    feeHistory(ctx, count, newest, percentiles),
  ),

  eth_getBlockByNumber: method(positional(blockSelector, z.boolean().optional()), ([selector, full], ctx) => {
    // An injected `pendingUnavailable` fault can make it null, as Base's node after a feed reset (docs/flashblocks.md).
    if (selector.kind === "tag" && selector.tag === "pending" && ctx.chain.feed.pendingBlockNull) return null;
    const resolved = ctx.chain.resolve(selector);
    return resolved === undefined ? null : formatBlock(resolved, full ?? false, ctx.scope);
  }),
  eth_getBlockByHash: method(positional(hash, z.boolean().optional()), ([blockHash, full], ctx) => {
    const sealed = ctx.chain.sealedByHash(blockHash);
    return sealed === undefined ? null : formatBlock({ kind: "sealed", sealed }, full ?? false, ctx.scope);
  }),
  eth_getBlockTransactionCountByNumber: method(positional(blockSelector), ([selector], ctx) => {
    const resolved = ctx.chain.resolve(selector);
    if (resolved === undefined) return null;
    return intToHex(resolved.kind === "open" ? resolved.open.transactions.length : resolved.sealed.transactions.length);
  }),
  eth_getBlockTransactionCountByHash: method(positional(hash), ([blockHash], ctx) => {
    const sealed = ctx.chain.sealedByHash(blockHash);
    return sealed === undefined ? null : intToHex(sealed.transactions.length);
  }),
  eth_getTransactionByBlockNumberAndIndex: method(positional(blockSelector, smallQuantity), ([selector, index], ctx) => {
    const resolved = ctx.chain.resolve(selector);
    const records = resolved === undefined ? [] : resolved.kind === "open" ? resolved.open.transactions : resolved.sealed.transactions;
    const record = records[index];
    return record === undefined ? null : formatExecuted(record);
  }),
  eth_getTransactionByBlockHashAndIndex: method(positional(hash, smallQuantity), ([blockHash, index], ctx) => {
    const record = ctx.chain.sealedByHash(blockHash)?.transactions[index];
    return record === undefined ? null : formatExecuted(record);
  }),
  eth_getUncleCountByBlockNumber: method(positional(blockSelector), () => "0x0"),
  eth_getUncleCountByBlockHash: method(positional(hash), () => "0x0"),

  eth_getBalance: method(positional(address, blockSelector.optional()), ([who, selector], ctx) =>
    readAccount(ctx, selector, async (vm) => q((await vm.stateManager.getAccount(createAddressFromString(who)))?.balance ?? 0n)),
  ),
  eth_getCode: method(positional(address, blockSelector.optional()), ([who, selector], ctx) =>
    readAccount(ctx, selector, async (vm) => bytesToHex(await vm.stateManager.getCode(createAddressFromString(who)))),
  ),
  eth_getStorageAt: method(positional(address, storageSlot, blockSelector.optional()), ([who, slot, selector], ctx) =>
    readAccount(ctx, selector, async (vm) => {
      const key = setLengthLeft(hexToBytes(bigIntToHex(slot)), 32);
      const address = createAddressFromString(who);
      if ((await vm.stateManager.getAccount(address)) === undefined) return bytesToHex(new Uint8Array(32));
      return bytesToHex(setLengthLeft(await vm.stateManager.getStorage(address, key), 32));
    }),
  ),
  eth_getTransactionCount: method(positional(address, blockSelector.optional()), async ([who, selector], ctx) => {
    if (selector?.kind === "tag" && selector.tag === "pending")
      return q(await (ctx.chain.baseRpc ? ctx.chain.preconfirmedNonce(who) : ctx.chain.pendingNonce(who)));
    return readAccount(ctx, selector, async (vm) => q((await vm.stateManager.getAccount(createAddressFromString(who)))?.nonce ?? 0n));
  }),

  eth_getProof: method(positional(address, storageKeys, blockSelector.optional()), ([who, keys, selector], ctx) => getProof(ctx, who, keys, selector)),

  eth_call: method(positional(callRequest, blockSelector.optional(), stateOverrides), ([request, selector, overrides], ctx) =>
    call(ctx, request, selector, overrides),
  ),
  eth_createAccessList: method(positional(callRequest, blockSelector.optional(), stateOverrides), ([request, selector, overrides], ctx) =>
    accessList(ctx, request, selector, overrides),
  ),
  eth_estimateGas: method(positional(callRequest, blockSelector.optional()), async ([request, selector], ctx) => q(await estimate(ctx, request, selector))),

  eth_sendRawTransaction: method(positional(bytes), async ([raw], ctx) => throwIfFailed(ctx, await ctx.chain.sendRawTransaction(raw))),

  eth_getTransactionByHash: method(positional(hash), ([txHash], ctx) => {
    const record = ctx.chain.transaction(txHash);
    if (record !== undefined) return ctx.chain.feed.hides(record) ? null : formatExecuted(record);
    const pooled = ctx.chain.pool.get(txHash);
    return pooled === undefined ? null : formatTransaction(pooled.tx, pooled.sender, undefined);
  }),
  eth_getTransactionReceipt: method(positional(hash), ([txHash], ctx) => {
    const record = ctx.chain.transaction(txHash);
    return record === undefined || ctx.chain.feed.hides(record) ? null : formatReceipt(record);
  }),
  // execution-apis eth_getBlockReceipts (go-ethereum's internal/ethapi GetBlockReceipts): null for an
  // unknown block; on the open block, its pre-confirmed receipts (blockHash zero, docs/behaviour.md).
  eth_getBlockReceipts: method(positional(blockSelector), ([selector], ctx) => {
    if (selector.kind === "tag" && selector.tag === "pending" && ctx.chain.feed.pendingBlockNull) return null;
    const resolved = ctx.chain.resolve(selector);
    if (resolved === undefined) return null;
    const records = resolved.kind === "open" ? resolved.open.transactions : resolved.sealed.transactions;
    return records.filter((record) => !ctx.chain.feed.hides(record)).map(formatReceipt);
  }),
  eth_getLogs: method(positional(logFilter), ([filter], ctx) => queryLogs(ctx.chain, filter)),
};
