/**
 * EIP-5792 (docs/wallet.md, "Batches"): wallet_getCapabilities, wallet_sendCalls,
 * wallet_getCallsStatus and wallet_showCallsStatus. What each personality answers and in which
 * order it checks is src/wallet/calls.ts; here the wallet reads the chain (is the delegate there,
 * is the account upgraded, where are the batch's transactions) and sends (services/send.ts).
 * Atomic batches run as one transaction through the EIP-7702 delegate in the genesis
 * (src/node/state/walletDelegate.ts); the first one upgrades the account in the same transaction.
 */
import { bytesToBigInt, bytesToHex, createAddressFromString, hexToBytes } from "@ethereumjs/util";
import { z } from "zod";

import { keccak256 } from "../node/common/crypto.ts";
import { PENDING } from "../node/common/types.ts";
import { WALLET_DELEGATE_ADDRESS } from "../node/state/walletDelegate.ts";
import { ErrorCode, RpcError } from "../protocol/errors.ts";
import {
  atomicStatus,
  batchDigest,
  batchStatus,
  CALLS_VERSION,
  callsRules,
  callsIdParams,
  callsToSend,
  executeCalldata,
  getCapabilitiesParams,
  planBatch,
  sendCallsParams,
  signedExecuteCalldata,
} from "../wallet/calls.ts";
import { askPaymaster, ENTRY_POINT_V07 } from "../wallet/paymaster.ts";
import { signDigest } from "../wallet/sign.ts";
import { rejectedUpgrade, unknownBundleId } from "../wallet/errors.ts";
import { parseParams } from "../wallet/validate.ts";
import { chainDisconnected, methodNotFound, unauthorized } from "./errors.ts";
import { formatReceipt } from "./format.ts";
import { estimateOrFallback, sendBatchTransaction, signAndSend, suggestedTip } from "./services/send.ts";
import { method } from "./table.ts";

import type { BatchPlan, BatchSupport, CallsBatch, CallsReceipt, CallsRules, PaymasterService, TransactionState } from "../wallet/calls.ts";
import type { Wallet } from "../wallet/wallet.ts";
import type { MethodContext } from "./context.ts";
import type { Hex } from "./schema.ts";
import type { NodeContext } from "./services/context.ts";
import type { MethodTable } from "./table.ts";

const raw = z.unknown();

const UNAVAILABLE: BatchSupport = { available: false, delegation: undefined, upgraded: false };

/**
 * Whether the wallet can batch on this node for `account`: EIP-7702 active and the delegate's code
 * at its address, and the account's current delegation (read on `pending`, so that an upgrade
 * pre-confirmed in a fragment counts at once).
 */
async function batchSupport(node: NodeContext, account: Hex): Promise<BatchSupport> {
  const { chain } = node;
  const pending = chain.resolve(PENDING);
  if (!chain.common.isActivatedEIP(7702) || pending === undefined) return UNAVAILABLE;
  return chain.withState(pending, async (vm) => {
    const delegate = await vm.stateManager.getCode(createAddressFromString(WALLET_DELEGATE_ADDRESS));
    const code = bytesToHex(await vm.stateManager.getCode(createAddressFromString(account))).toLowerCase();
    // MetaMask's getDelegationAddress (transaction-controller utils/eip7702.ts): 23 bytes starting 0xef0100.
    const delegation = code.length === 48 && code.startsWith("0xef0100") ? (`0x${code.slice(8)}` as Hex) : code === "0x" ? undefined : (code as Hex);
    return { available: delegate.length > 0, delegation, upgraded: delegation === WALLET_DELEGATE_ADDRESS };
  });
}

/** Where one of a batch's transactions is, as clients of its chain see it (an injected stall hides what they do not have yet). */
function transactionState(node: NodeContext, hash: Hex): TransactionState {
  const record = node.chain.transaction(hash);
  if (record !== undefined && !node.chain.feed.hides(record)) {
    const receipt = formatReceipt(record) as unknown as CallsReceipt & { logs: { address: Hex; data: Hex; topics: Hex[] }[] };
    return {
      kind: "executed",
      sealed: record.blockHash !== undefined,
      success: record.status === 1,
      receipt: {
        logs: receipt.logs.map(({ address, data, topics }) => ({ address, data, topics })),
        status: receipt.status,
        blockHash: receipt.blockHash,
        blockNumber: receipt.blockNumber,
        gasUsed: receipt.gasUsed,
        transactionHash: receipt.transactionHash,
      },
    };
  }
  if (record !== undefined || node.chain.pool.get(hash) !== undefined) return { kind: "pending" };
  return { kind: "gone" };
}

/** The sender of a batch: `from`, or the origin's selected account (MetaMask: the first permitted; none is 4100). */
function senderOf(wallet: Wallet<NodeContext>, from: Hex | undefined): { from: Hex; privateKey: Hex } {
  const sender = from ?? wallet.visibleAccounts[0];
  if (sender === undefined || !wallet.visibleAccounts.includes(sender)) throw unauthorized();
  const privateKey = wallet.privateKeyOf(sender);
  if (privateKey === undefined) throw unauthorized();
  return { from: sender, privateKey };
}

interface ValidBatch {
  id: string;
  chainId: Hex;
  from: Hex;
  privateKey: Hex;
  node: NodeContext;
  plan: BatchPlan;
  calls: { to: Hex | undefined; value: bigint; data: Hex }[];
}

/** Sends a valid batch as its plan says; answers its transactions' hashes, in order. */
async function send(ctx: MethodContext, batch: ValidBatch): Promise<{ hashes: Hex[]; error?: unknown }> {
  const node: MethodContext = { ...batch.node, accounts: ctx.wallet.keys, wallet: ctx.wallet };
  const { plan, from, privateKey, calls } = batch;
  if (plan.kind === "atomic" && plan.paymaster !== undefined) return { hashes: [await sendSponsored(node, batch, plan.upgrade, plan.paymaster)] };
  if (plan.kind === "atomic") {
    const delegate = plan.upgrade ? { address: WALLET_DELEGATE_ADDRESS, authority: from, authorityKey: privateKey } : undefined;
    return { hashes: [await sendBatchTransaction(node, { from, privateKey, to: from, data: executeCalldata(calls), delegate })] };
  }
  const hashes: Hex[] = [];
  for (const call of calls) {
    try {
      const request = { from, to: call.to ?? null, value: call.value, data: call.data === "0x" ? undefined : hexToBytes(call.data) };
      // Estimated before the calls ahead of it have run: a revert there gets MetaMask's fallback gas, not a refusal.
      const gas = await estimateOrFallback(node, request);
      hashes.push(await signAndSend(node, { ...request, gas }, { kind: "key", privateKey }));
    } catch (error) {
      // One call at a time (the EIP's non-atomic batch): what was sent stays sent.
      if (hashes.length === 0) throw error;
      return { hashes, error };
    }
  }
  return { hashes };
}

/** Where BatchExecutor keeps an account's signed-batch nonce (contracts/wallet/BatchExecutor.sol, NONCE_SLOT). */
const EXECUTOR_NONCE_SLOT = keccak256(new TextEncoder().encode("hardhat-preconf.BatchExecutor.nonce"));

async function executorNonce(node: NodeContext, account: Hex): Promise<bigint> {
  const pending = node.chain.resolve(PENDING)!;
  return node.chain.withState(pending, async (vm) => bytesToBigInt(await vm.stateManager.getStorage(createAddressFromString(account), EXECUTOR_NONCE_SLOT)));
}

/**
 * A sponsored batch (ERC-7677 paymasterService, docs/wallet.md): the wallet asks the paymaster
 * service for stub data, then for its data, describing the batch as an EntryPoint v0.7 user
 * operation; then the account signs the batch (BatchExecutor.batchDigest) and the wallet's sponsor
 * account — its last dev account — sends it through the delegate (ERC-7821 mode with opData),
 * paying the gas, with the account's upgrade authorization when it needs one.
 */
async function sendSponsored(node: MethodContext, batch: ValidBatch, upgrade: boolean, paymaster: PaymasterService): Promise<Hex> {
  const { chain } = node;
  const sponsor = node.wallet.keys.at(-1)!;
  const nonce = await executorNonce(node, batch.from);
  const tip = suggestedTip(chain);
  const chainId = `0x${chain.chainId.toString(16)}`;
  const userOp = {
    sender: batch.from,
    nonce: `0x${nonce.toString(16)}`,
    callData: executeCalldata(batch.calls),
    callGasLimit: "0x0",
    verificationGasLimit: "0x0",
    preVerificationGas: "0x0",
    maxFeePerGas: `0x${(2n * chain.open.header.baseFeePerGas + tip).toString(16)}`,
    maxPriorityFeePerGas: `0x${tip.toString(16)}`,
    signature: "0x",
  };
  const stub = await askPaymaster(paymaster.url, "pm_getPaymasterStubData", [userOp, ENTRY_POINT_V07, chainId, paymaster.context]);
  const { sponsor: _display, isFinal: _final, ...stubFields } = stub;
  const data = await askPaymaster(paymaster.url, "pm_getPaymasterData", [{ ...userOp, ...stubFields }, ENTRY_POINT_V07, chainId, paymaster.context]);
  if (typeof data.paymaster !== "string" && typeof data.paymasterAndData !== "string") {
    throw new RpcError(ErrorCode.internalError, "Paymaster service error", {
      url: paymaster.url,
      method: "pm_getPaymasterData",
      reason: "no paymaster in its answer",
    });
  }
  const signature = signDigest(batchDigest(chain.chainId, batch.from, nonce, batch.calls), batch.privateKey);
  const delegate = upgrade ? { address: WALLET_DELEGATE_ADDRESS, authority: batch.from, authorityKey: batch.privateKey } : undefined;
  return sendBatchTransaction(node, {
    from: sponsor.address,
    privateKey: sponsor.privateKey,
    to: batch.from,
    data: signedExecuteCalldata(batch.calls, signature),
    delegate,
  });
}

function batchFor(valid: ValidBatch, state: CallsBatch["state"]): CallsBatch {
  return { id: valid.id, chainId: valid.chainId, from: valid.from, atomic: valid.plan.kind !== "sequential", transactions: [], state };
}

/** wallet_getCallsStatus's answer for a batch (EIP-5792; MetaMask's getCallsStatus.ts shape). */
function callsStatus(wallet: Wallet<NodeContext>, batch: CallsBatch): Record<string, unknown> {
  const node = wallet.nodeOf(batch.chainId);
  const states: TransactionState[] = node === undefined ? [] : batch.transactions.map((hash) => transactionState(node, hash));
  for (let i = 0; i < (batch.unsent ?? 0); i++) states.push({ kind: "gone" });
  const { status, receipts } = batchStatus(batch, states, wallet.preconfirmedCallsStatus);
  return { version: CALLS_VERSION, id: batch.id, chainId: batch.chainId, status, atomic: batch.atomic, ...(receipts !== undefined && { receipts }) };
}

/** A batch by the id a dapp names: MetaMask's ids are hex, compared without case. */
function findBatch(wallet: Wallet<NodeContext>, rules: CallsRules, id: string): CallsBatch {
  const batch = wallet.calls.get(rules.honoursId ? id : id.toLowerCase());
  if (batch === undefined) throw unknownBundleId();
  return batch;
}

export const walletCallsMethods: MethodTable = {
  wallet_getCapabilities: method(raw, async (params, { wallet }) => {
    const rules = callsRules(wallet.personality);
    const [address, chainIds] = parseParams(getCapabilitiesParams, params);
    // MetaMask's validateAndNormalizeKeyholder: an account the origin may not use is 4100.
    if (!wallet.visibleAccounts.includes(address)) throw unauthorized();
    const result: Record<string, unknown> = {};
    for (const chainId of chainIds ?? wallet.chains().map((chain) => chain.chainId)) {
      const node = wallet.nodeOf(chainId);
      if (node === undefined) continue;
      const support = await batchSupport(node, address);
      const status = atomicStatus(rules, support);
      if (status !== undefined) result[chainId] = { atomic: { status }, ...structuredClone(rules.reports) };
    }
    return result;
  }),

  wallet_sendCalls: method(raw, (params, ctx) => {
    const { wallet } = ctx;
    const rules = callsRules(wallet.personality);
    /** A one-call MetaMask batch answered before its prompt: remembered as unapproved until decided. */
    let early: CallsBatch | undefined;
    return wallet.prompt("wallet_sendCalls", params, {
      validate: async (): Promise<ValidBatch> => {
        const [payload] = parseParams(sendCallsParams(rules), params);
        const { from, privateKey } = senderOf(wallet, payload.from);
        const chainId = wallet.activeChainId;
        const node = wallet.nodeOf(chainId);
        const support = node === undefined ? UNAVAILABLE : await batchSupport(node, from);
        const plan = planBatch(rules, payload, support, { selectedChainId: chainId, accounts: wallet.accounts, idTaken: (id) => wallet.calls.has(id) });
        if (node === undefined) throw chainDisconnected(chainId);
        const id = rules.honoursId && payload.id !== undefined ? payload.id : wallet.calls.nextId(from, chainId);
        return { id, chainId, from, privateKey, node, plan, calls: callsToSend(rules, payload) };
      },
      // MetaMask shows the upgrade first; declining it is 5750 (useSmartAccountActions.ts).
      before: async (valid) => {
        if (valid.plan.kind !== "atomic" || !valid.plan.upgrade || !rules.upgradePrompt) return;
        await wallet.confirm("wallet_upgradeAccount", [{ account: valid.from, chainId: valid.chainId, delegate: WALLET_DELEGATE_ADDRESS }], rejectedUpgrade);
      },
      // MetaMask adds a one-call batch as a plain transaction and answers its id before the user
      // decides (eip-5792-middleware processSingleTransaction: addTransaction does not wait).
      answerBeforeDecision: (valid) => {
        if (!rules.answersOneCallAtOnce || valid.plan.kind !== "single") return undefined;
        early = batchFor(valid, "unapproved");
        wallet.calls.add(early);
        return { id: valid.id };
      },
      // A rejected transaction leaves MetaMask's state: its batch is then unknown (5730).
      onRefused: (valid) => {
        if (early !== undefined) wallet.calls.delete(valid.id);
      },
      perform: async (valid) => {
        const batch = early ?? batchFor(valid, "sent");
        try {
          const { hashes, error } = await send(ctx, valid);
          batch.transactions = hashes;
          batch.state = "sent";
          if (error !== undefined) batch.unsent = valid.calls.length - hashes.length;
        } catch (error) {
          // Approved but never sent (the node refused it): MetaMask's failed-without-hash, 400.
          if (early === undefined) throw error;
          batch.state = "failed";
          throw error;
        }
        if (early === undefined) wallet.calls.add(batch);
        return { id: valid.id };
      },
    });
  }),

  wallet_getCallsStatus: method(raw, (params, { wallet }) => {
    const rules = callsRules(wallet.personality);
    const [id] = parseParams(callsIdParams(rules), params);
    const batch = findBatch(wallet, rules, id);
    return callsStatus(wallet, batch);
  }),

  /** MetaMask does not implement it (-32601); the others would show the batch in their UI: `null`. */
  wallet_showCallsStatus: method(raw, (params, { wallet }) => {
    const rules = callsRules(wallet.personality);
    if (!rules.showsCallsStatus) throw methodNotFound("wallet_showCallsStatus");
    return wallet.answer("wallet_showCallsStatus", params, () => {
      const [id] = parseParams(callsIdParams(rules), params);
      findBatch(wallet, rules, id);
      return null;
    });
  }),
};
