/** The node's `eth_`, `net_` and `web3_` methods (execution-apis), `pending` as docs/behaviour.md says. */
import { createTx } from "@ethereumjs/tx";
import { bigIntToHex, bytesToHex, createAddressFromString, hexToBytes, intToHex, setLengthLeft } from "@ethereumjs/util";
import { z } from "zod";

import { keccak256 } from "../node/crypto.ts";
import { SUGGESTED_TIP } from "../node/defaults.ts";
import { callBlock, callGasCap, callOutcome, capGas, dryRun } from "../node/dryRun.ts";
import { estimateGas } from "../node/estimate.ts";
import { suggestOptimismPriorityFee } from "../node/opstack/gasPrice.ts";
import { withTimeBudget } from "../node/evmBudget.ts";
import { applyStateOverrides, stateOverrides } from "../node/stateOverrides.ts";
import { admissionError, invalidParams, txConstructionError, unknownBlock } from "./errors.ts";
import { formatBlock, formatExecuted, formatLog, formatReceipt, formatTransaction } from "./format.ts";
import {
  address,
  blockSelector,
  bytes,
  callRequest,
  checkTransactionFields,
  hash,
  LATEST,
  PENDING,
  quantity,
  smallQuantity,
  storageSlot,
  transactionFields,
} from "./schema.ts";
import { serialPerSender } from "./senderQueue.ts";
import { method, positional } from "./table.ts";

import type { Block } from "@ethereumjs/block";
import type { TypedTxData } from "@ethereumjs/tx";
import type { VM } from "@ethereumjs/vm";
import type { ResolvedBlock } from "../node/chain.ts";
import type { StateOverrides } from "../node/stateOverrides.ts";
import type { MethodContext } from "./context.ts";
import type { BlockSelector, CallRequest, Hex } from "./schema.ts";
import type { MethodTable } from "./table.ts";

/** The tip eth_maxPriorityFeePerGas suggests and eth_sendTransaction fills in: op-geth's oracle on OP-stack profiles. */
const suggestedTip = (chain: MethodContext["chain"]): bigint => (chain.op === undefined ? SUGGESTED_TIP : suggestOptimismPriorityFee(chain.latest));
export const CLIENT_VERSION = "HardhatNetwork/3.0.0/hardhat-preconf/0.1.0";

const q = (value: bigint) => bigIntToHex(value);

export function resolveOrThrow(ctx: MethodContext, selector: BlockSelector): ResolvedBlock {
  const resolved = ctx.chain.resolve(selector);
  if (resolved === undefined) {
    throw unknownBlock(selector.kind === "hash" ? selector.hash : selector.kind === "number" ? q(selector.number) : selector.tag);
  }
  return resolved;
}

/** The block a dry run executes in: the open block's header, or a sealed block's. */
export function executionBlockOf(ctx: MethodContext, resolved: ResolvedBlock): Block {
  if (resolved.kind === "sealed") return resolved.sealed.block;
  // Base's node runs pending calls at the latest canonical header over the pre-confirmed state
  // (base/base crates/execution/flashblocks/src/rpc/eth.rs, `call` and `estimate_gas`).
  return ctx.chain.baseRpc ? ctx.chain.latest.block : resolved.open.executionBlock;
}

function readAccount<T>(ctx: MethodContext, selector: BlockSelector | undefined, read: (vm: VM) => Promise<T>): Promise<T> {
  return ctx.chain.withState(resolveOrThrow(ctx, selector ?? LATEST), read);
}

async function runCall(ctx: MethodContext, request: CallRequest, selector: BlockSelector | undefined, overrides: StateOverrides): Promise<string> {
  const resolved = resolveOrThrow(ctx, selector ?? LATEST);
  return ctx.chain.withState(resolved, (vm) =>
    withTimeBudget(vm, ctx.options.rpcEvmTimeoutMs, async () => {
      const block = callBlock(executionBlockOf(ctx, resolved), request);
      const capped = capGas(request, callGasCap(block), ctx.options.rpcGasCap);
      if (overrides === undefined) return callOutcome(await dryRun(vm, capped, block, capped.gas ?? callGasCap(block)));
      // The overrides live in a checkpoint of their own, reverted whatever the call does.
      await vm.stateManager.checkpoint();
      try {
        await applyStateOverrides(vm, overrides);
        return callOutcome(await dryRun(vm, capped, block, capped.gas ?? callGasCap(block)));
      } finally {
        await vm.stateManager.revert();
      }
    }),
  );
}

export async function estimate(ctx: MethodContext, request: CallRequest, selector: BlockSelector | undefined): Promise<bigint> {
  const resolved = resolveOrThrow(ctx, selector ?? LATEST);
  return ctx.chain.withState(resolved, (vm) =>
    withTimeBudget(vm, ctx.options.rpcEvmTimeoutMs, async () => {
      const block = callBlock(executionBlockOf(ctx, resolved), request);
      const { gas } = await estimateGas(vm, capGas(request, block.header.gasLimit, ctx.options.rpcGasCap), block);
      return gas;
    }),
  );
}

export const logFilter = z
  .object({
    fromBlock: z.union([z.enum(["latest", "pending", "earliest", "safe", "finalized"]), quantity]).optional(),
    toBlock: z.union([z.enum(["latest", "pending", "earliest", "safe", "finalized"]), quantity]).optional(),
    blockHash: hash.optional(),
    address: z.union([address, z.array(address)]).optional(),
    topics: z
      .array(z.union([hash, z.array(hash), z.null()]))
      .max(4)
      .optional(),
  })
  .refine((filter) => filter.blockHash === undefined || (filter.fromBlock === undefined && filter.toBlock === undefined), {
    message: "blockHash cannot be combined with fromBlock or toBlock",
  });

export type LogFilter = z.output<typeof logFilter>;

/** Block numbers a filter bound names; `pending` is the open block. */
function boundOf(ctx: MethodContext, bound: LogFilter["fromBlock"], fallback: bigint): bigint {
  if (bound === undefined) return fallback;
  if (typeof bound === "bigint") return bound;
  if (bound === "earliest") return 0n;
  if (bound === "pending") return ctx.chain.open.number;
  return ctx.chain.latest.block.header.number;
}

export function queryLogs(ctx: MethodContext, filter: LogFilter): Record<string, unknown>[] {
  const { chain } = ctx;
  let from: bigint;
  let to: bigint;
  if (filter.blockHash !== undefined) {
    const sealed = chain.sealedByHash(filter.blockHash);
    if (sealed === undefined) throw unknownBlock(filter.blockHash);
    from = to = sealed.block.header.number;
  } else {
    const latest = chain.latest.block.header.number;
    from = boundOf(ctx, filter.fromBlock, latest);
    to = boundOf(ctx, filter.toBlock, latest);
  }
  const addresses = filter.address === undefined ? undefined : new Set(Array.isArray(filter.address) ? filter.address : [filter.address]);
  const topics = filter.topics ?? [];
  const out: Record<string, unknown>[] = [];
  for (const { log, record } of chain.logs(from, to, to >= chain.open.number)) {
    if (addresses !== undefined && !addresses.has(log.address)) continue;
    const matches = topics.every((wanted, i) => {
      if (wanted === null) return true;
      const topic = log.topics[i];
      if (topic === undefined) return false;
      return Array.isArray(wanted) ? wanted.length === 0 || wanted.includes(topic) : wanted === topic;
    });
    if (matches) out.push(formatLog(log, record));
  }
  return out;
}

/** eth_feeHistory: base fees (one more than blocks), gas used ratios and tip percentiles (geth). */
function feeHistory(ctx: MethodContext, count: number, newest: BlockSelector, percentiles: number[] | undefined) {
  const { chain } = ctx;
  const resolved = resolveOrThrow(ctx, newest);
  const newestNumber = resolved.kind === "open" ? chain.latest.block.header.number : resolved.sealed.block.header.number;
  const blocks = Math.min(count, 1024, Number(newestNumber) + 1);
  const oldest = newestNumber - BigInt(blocks) + 1n;
  const baseFeePerGas: Hex[] = [];
  const gasUsedRatio: number[] = [];
  const reward: Hex[][] = [];
  for (let number = oldest; number <= newestNumber; number++) {
    const sealed = chain.sealedByNumber(number)!;
    const header = sealed.block.header;
    baseFeePerGas.push(q(header.baseFeePerGas ?? 0n));
    gasUsedRatio.push(Number(header.gasUsed) / Number(header.gasLimit));
    if (percentiles !== undefined) {
      const baseFee = header.baseFeePerGas ?? 0n;
      // OP-stack deposits pay no gas price: they are no sample of the tips paid.
      const tips = sealed.transactions
        .filter((record) => record.depositNonce === undefined)
        .map((record) => ({ tip: record.effectiveGasPrice - baseFee, gas: record.gasUsed }))
        .sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0));
      reward.push(
        percentiles.map((percentile) => {
          if (tips.length === 0) return "0x0";
          const threshold = (Number(header.gasUsed) * percentile) / 100;
          let sum = 0;
          for (const { tip, gas } of tips) {
            sum += Number(gas);
            if (sum >= threshold) return q(tip);
          }
          return q(tips[tips.length - 1]!.tip);
        }),
      );
    }
  }
  const next = chain.sealedByNumber(newestNumber + 1n)?.block.header.baseFeePerGas ?? chain.open.header.baseFeePerGas;
  baseFeePerGas.push(q(next));
  return { oldestBlock: q(oldest), baseFeePerGas, gasUsedRatio, ...(percentiles !== undefined && { reward }) };
}

const sendTransactionRequest = transactionFields
  .pick({
    to: true,
    gas: true,
    gasPrice: true,
    maxFeePerGas: true,
    maxPriorityFeePerGas: true,
    value: true,
    data: true,
    input: true,
    nonce: true,
    type: true,
    chainId: true,
    accessList: true,
  })
  .extend({ from: address })
  .superRefine(checkTransactionFields);

export type SendTransactionRequest = z.output<typeof sendTransactionRequest>;
export const sendTransactionParams = positional(sendTransactionRequest);

const MAX_UINT256 = (1n << 256n) - 1n;

/**
 * Params no tx of this chain can carry once filled in: another chain id, or gas limit × fee per
 * gas above 2^256 - 1 (the gas limit defaults to at most the block's). Checked before a wallet
 * prompt, so the policy never sees them.
 */
export function checkSendRequest(ctx: MethodContext, request: SendTransactionRequest): void {
  if (request.chainId !== undefined && request.chainId !== ctx.chain.chainId) {
    throw invalidParams("params[0].chainId", "chainId does not match the node's");
  }
  const { header } = ctx.chain.open;
  const gas = request.gas ?? header.gasLimit;
  const fee = request.gasPrice ?? request.maxFeePerGas ?? 2n * header.baseFeePerGas + (request.maxPriorityFeePerGas ?? suggestedTip(ctx.chain));
  if (gas * fee > MAX_UINT256) throw invalidParams("params[0]", "gas limit × fee per gas exceeds 2^256 - 1");
}

/**
 * Fills in what a wallet fills in (nonce, gas, fees), signs with the dev key of `from` and submits
 * through the same admission path as eth_sendRawTransaction.
 */
export async function signAndSend(ctx: MethodContext, request: SendTransactionRequest): Promise<Hex> {
  const account = ctx.accounts.find((candidate) => candidate.address === request.from);
  if (account === undefined) throw admissionError("unknown account", { address: request.from });
  checkSendRequest(ctx, request);
  return fillAndAdmit(ctx, request, async ({ type, fields }) => {
    let signed: Uint8Array;
    try {
      signed = createTx({ type, ...fields }, { common: ctx.chain.common })
        .sign(hexToBytes(account.privateKey))
        .serialize();
    } catch (error) {
      throw txConstructionError(error);
    }
    return ctx.chain.sendRawTransaction(signed);
  });
}

/**
 * Fills the request in and admits it (`admit`): one at a time per sender when the nonce is filled
 * in (senderQueue.ts), so un-awaited sends from one account get consecutive nonces.
 */
export function fillAndAdmit(
  ctx: MethodContext,
  request: SendTransactionRequest,
  admit: (filled: { type: number; fields: TypedTxData }) => Promise<Hex>,
): Promise<Hex> {
  const run = async () => admit(await fillTransaction(ctx, request));
  return request.nonce !== undefined ? run() : serialPerSender(ctx.chain, request.from, run);
}

/**
 * What a wallet fills in for eth_sendTransaction: nonce (pending), gas (estimated on pending) and
 * fees (2 × base fee + the suggested tip); a `gasPrice` or type 0/1 makes a legacy or 2930 tx.
 */
export async function fillTransaction(ctx: MethodContext, request: SendTransactionRequest): Promise<{ type: number; fields: TypedTxData }> {
  const { chain } = ctx;
  const data = request.data ?? request.input ?? new Uint8Array();
  const nonce = request.nonce ?? (await chain.pendingNonce(request.from));
  const legacy = request.gasPrice !== undefined || request.type === 0n || request.type === 1n;
  const baseFee = chain.open.header.baseFeePerGas;
  const suggested = suggestedTip(chain);
  const tip = request.maxPriorityFeePerGas ?? suggested;
  const fees = legacy
    ? { gasPrice: request.gasPrice ?? baseFee + suggested }
    : { maxPriorityFeePerGas: tip, maxFeePerGas: request.maxFeePerGas ?? 2n * baseFee + tip };
  const gasLimit =
    request.gas ?? (await estimate(ctx, { from: request.from, to: request.to, value: request.value, data, accessList: request.accessList }, PENDING));
  return {
    type: legacy ? (request.accessList !== undefined ? 1 : 0) : 2,
    fields: {
      nonce,
      gasLimit,
      to: request.to ?? undefined,
      value: request.value ?? 0n,
      data,
      ...fees,
      ...(request.accessList !== undefined && { accessList: request.accessList }),
    },
  };
}

export const ethMethods: MethodTable = {
  web3_clientVersion: method(positional(), () => CLIENT_VERSION),
  web3_sha3: method(positional(bytes), ([data]) => bytesToHex(keccak256(data))),
  net_version: method(positional(), (_, ctx) => ctx.chain.chainId.toString()),
  net_listening: method(positional(), () => true),
  net_peerCount: method(positional(), () => "0x0"),
  eth_chainId: method(positional(), (_, ctx) => q(ctx.chain.chainId)),
  eth_syncing: method(positional(), () => false),
  eth_mining: method(positional(), (_, ctx) => ctx.sequencer.mode === "interval"),
  eth_hashrate: method(positional(), () => "0x0"),
  eth_coinbase: method(positional(), (_, ctx) => ctx.chain.coinbase),
  eth_accounts: method(positional(), (_, ctx) => ctx.accounts.map((account) => account.address)),
  eth_blockNumber: method(positional(), (_, ctx) => q(ctx.chain.latest.block.header.number)),
  eth_gasPrice: method(positional(), (_, ctx) => q(ctx.chain.open.header.baseFeePerGas + suggestedTip(ctx.chain))),
  eth_maxPriorityFeePerGas: method(positional(), (_, ctx) => q(suggestedTip(ctx.chain))),
  eth_blobBaseFee: method(positional(), (_, ctx) => q(ctx.chain.open.executionBlock.header.getBlobGasPrice())),
  eth_feeHistory: method(positional(smallQuantity, blockSelector, z.array(z.number().min(0).max(100)).optional()), ([count, newest, percentiles], ctx) =>
    feeHistory(ctx, count, newest, percentiles),
  ),

  eth_getBlockByNumber: method(positional(blockSelector, z.boolean().optional()), ([selector, full], ctx) => {
    // An injected `pendingUnavailable` fault can make it null, as Base's node after a feed reset (docs/flashblocks.md).
    if (selector.kind === "tag" && selector.tag === "pending" && ctx.chain.feed.pendingBlockNull) return null;
    const resolved = ctx.chain.resolve(selector);
    return resolved === undefined ? null : formatBlock(resolved, full ?? false);
  }),
  eth_getBlockByHash: method(positional(hash, z.boolean().optional()), ([blockHash, full], ctx) => {
    const sealed = ctx.chain.sealedByHash(blockHash);
    return sealed === undefined ? null : formatBlock({ kind: "sealed", sealed }, full ?? false);
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

  eth_call: method(positional(callRequest, blockSelector.optional(), stateOverrides), ([request, selector, overrides], ctx) =>
    runCall(ctx, request, selector, overrides),
  ),
  eth_estimateGas: method(positional(callRequest, blockSelector.optional()), async ([request, selector], ctx) => q(await estimate(ctx, request, selector))),

  eth_sendRawTransaction: method(positional(bytes), ([raw], ctx) => ctx.chain.sendRawTransaction(raw)),
  eth_sendTransaction: method(sendTransactionParams, ([request], ctx) => signAndSend(ctx, request)),

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
  eth_getLogs: method(positional(logFilter), ([filter], ctx) => queryLogs(ctx, filter)),
};
