/**
 * eth_sendTransaction's service: the checks a request must pass, filling in what a wallet fills in
 * (nonce, gas, fees), deciding whose key signs (an impersonated sender's: none; else a dev key),
 * and admission through the same path as eth_sendRawTransaction. The wallet's prompt wraps this
 * (rpc/wallet.ts): the approval policy first, then the service.
 */
import { createTx } from "@ethereumjs/tx";
import { bigIntToUnpaddedBytes, bytesToBigInt, bytesToHex, eoaCode7702SignAuthorization, hexToBytes } from "@ethereumjs/util";

import { admitSigned, admitWithSender, txCommonOf } from "../../node/pool/admission.ts";
import { callGasCap } from "../../node/execution/dryRun.ts";
import { EIP7825_MAX_TX_GAS, SUGGESTED_TIP } from "../../node/common/defaults.ts";
import { ExecutionFailedError, ExecutionRevertedError } from "../../node/common/errors.ts";
import { preparedKey, SignedTxs } from "../../node/ethereumjs/preparedSigner.ts";
import { impersonatedTransaction, isImpersonated } from "../../node/pool/impersonation.ts";
import { suggestOptimismPriorityFee } from "../../node/opstack/gasPrice.ts";
import { admissionError, invalidParams, txConstructionError } from "../errors.ts";
import { hardhatFailure } from "../hardhatErrors.ts";
import { positional } from "../params.ts";
import { address, checkTransactionFields, PENDING, transactionFields } from "../schema.ts";
import { estimate } from "./calls.ts";

import type { TypedTransaction, TypedTxData } from "@ethereumjs/tx";
import type { EOACode7702AuthorizationListBytesItem } from "@ethereumjs/util";
import type { z } from "zod";
import type { Chain } from "../../node/chain/chain.ts";
import type { CallAuthorization, CallRequest } from "../../node/common/types.ts";
import type { Hex } from "../schema.ts";
import type { NodeContext } from "./context.ts";

/** The tip eth_maxPriorityFeePerGas suggests and eth_sendTransaction fills in: op-geth's oracle on OP-stack profiles. */
export const suggestedTip = (chain: Chain): bigint => (chain.op === undefined ? SUGGESTED_TIP : suggestOptimismPriorityFee(chain.latest));

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
export function checkSendRequest(ctx: NodeContext, request: SendTransactionRequest): void {
  if (request.chainId !== undefined && request.chainId !== ctx.chain.chainId) {
    throw invalidParams("params[0].chainId", "chainId does not match the node's");
  }
  const { header } = ctx.chain.open;
  const gas = request.gas ?? header.gasLimit;
  const fee = request.gasPrice ?? request.maxFeePerGas ?? 2n * header.baseFeePerGas + (request.maxPriorityFeePerGas ?? suggestedTip(ctx.chain));
  if (gas * fee > MAX_UINT256) throw invalidParams("params[0]", "gas limit × fee per gas exceeds 2^256 - 1");
}

/** Each chain's txs signed by its wallet (preparedSigner.ts): per chain, so a new provider signs in full. */
const signedTxs = new WeakMap<Chain, SignedTxs>();

export function signedTxsOf(chain: Chain): SignedTxs {
  let signed = signedTxs.get(chain);
  if (signed === undefined) {
    signed = new SignedTxs();
    signedTxs.set(chain, signed);
  }
  return signed;
}

/** Who signs a send: nobody for an impersonated sender (its tx is admitted unsigned), or a key. */
export type Signer = { kind: "impersonated" } | { kind: "key"; privateKey: Hex };

export const IMPERSONATED: Signer = { kind: "impersonated" };

/**
 * Whose key signs a send from `from`: an impersonated address first (hardhat_impersonateAccount;
 * Hardhat sends as it even when it is a dev account), then the node's dev keys, then, under
 * auto-impersonation, any other address (anvil's eth_sendTransaction takes a dev signer before
 * impersonating); undefined otherwise.
 */
export function signerOf(ctx: NodeContext, from: string): Signer | undefined {
  if (isImpersonated(ctx.chain, from)) return IMPERSONATED;
  const account = ctx.accounts.find((candidate) => candidate.address === from);
  if (account !== undefined) return { kind: "key", privateKey: account.privateKey };
  return ctx.chain.autoImpersonate ? IMPERSONATED : undefined;
}

/**
 * Fills in what a wallet fills in (nonce, gas, fees), signs as `signer` (by default, as
 * `signerOf` decides) and submits through the same admission path as eth_sendRawTransaction.
 */
export async function signAndSend(ctx: NodeContext, request: SendTransactionRequest, signer = signerOf(ctx, request.from)): Promise<Hex> {
  if (signer === undefined) throw admissionError("unknown account", { address: request.from });
  checkSendRequest(ctx, request);
  const hash = await fillAndAdmit(ctx, request, async ({ type, fields }) => {
    if (signer.kind === "impersonated") {
      let tx: ReturnType<typeof impersonatedTransaction>;
      try {
        tx = impersonatedTransaction(ctx.chain.common, type, fields, request.from);
      } catch (error) {
        throw txConstructionError(error);
      }
      return ctx.chain.sendTransaction((admission) => admitWithSender(tx, request.from, admission));
    }
    // Signed with the key prepared once, on the chain's shared tx Common (the same payload signed
    // before is not signed again); the signed tx itself goes to admission (no serialize, decode and
    // sender recovery in between).
    let signed: TypedTransaction;
    try {
      signed = signedTxsOf(ctx.chain).sign(createTx({ type, ...fields }, { common: txCommonOf(ctx.chain.common) }), preparedKey(signer.privateKey));
    } catch (error) {
      throw txConstructionError(error);
    }
    return ctx.chain.sendTransaction((admission) => admitSigned(signed, admission));
  });
  return throwIfFailed(ctx, hash);
}

/** Whether a send knows its outcome and answers a failure as Hardhat does: automine with `throwOnTransactionFailures`. */
const throwsOnFailure = (ctx: NodeContext) => ctx.chain.automine && ctx.options.throwOnTransactionFailures;

/**
 * Hardhat's `throwOnTransactionFailures`: under automine the tx is mined before the send answers,
 * so a tx that failed is Hardhat's error (its hash and revert data in `data`), its block mined all
 * the same. Under interval or manual mining a send answers its hash, as a pre-confirming chain
 * does: the outcome is in the receipt (docs/behaviour.md#hardhats-semantics).
 */
export function throwIfFailed(ctx: NodeContext, hash: Hex): Hex {
  if (!throwsOnFailure(ctx)) return hash;
  const failure = ctx.chain.transaction(hash)?.failure;
  if (failure !== undefined) throw hardhatFailure(failure, hash);
  return hash;
}

/**
 * Fills the request in and admits it (`admit`). eth_sendTransaction reads the sender's pending
 * nonce, then awaits the gas estimate before the tx reaches admission: two un-awaited sends from
 * one account would both read the same nonce, and the second would fail `nonce too low`. Sends
 * that fill in a nonce therefore run one at a time per sender (the chain scope's queues), from the
 * read of the nonce to the end of admission; other senders and explicit nonces are not held up.
 */
function fillAndAdmit(ctx: NodeContext, request: SendTransactionRequest, admit: (filled: { type: number; fields: TypedTxData }) => Promise<Hex>): Promise<Hex> {
  const run = async () => admit(await fillTransaction(ctx, request));
  return request.nonce !== undefined ? run() : ctx.scope.serialPerSender(request.from, run);
}

/**
 * The gas eth_sendTransaction fills in: the estimate on pending. When the tx would fail and the
 * send is to throw Hardhat's error for it, it is sent anyway with the most gas a tx may have
 * (the block gas limit, capped by EIP-7825), as Hardhat fills in `gas`, so that it is mined and
 * fails as on Hardhat's node rather than being refused by its estimate.
 */
async function gasOf(ctx: NodeContext, request: CallRequest): Promise<bigint> {
  try {
    return await estimate(ctx, request, PENDING);
  } catch (error) {
    if (!throwsOnFailure(ctx) || !(error instanceof ExecutionRevertedError || error instanceof ExecutionFailedError)) throw error;
    return callGasCap(ctx.chain.open.executionBlock);
  }
}

/**
 * What a wallet fills in for eth_sendTransaction: nonce (pending), gas (estimated on pending) and
 * fees (2 × base fee + the suggested tip); a `gasPrice` or type 0/1 makes a legacy or 2930 tx.
 */
export async function fillTransaction(ctx: NodeContext, request: SendTransactionRequest): Promise<{ type: number; fields: TypedTxData }> {
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
  const gasLimit = request.gas ?? (await gasOf(ctx, { from: request.from, to: request.to, value: request.value, data, accessList: request.accessList }));
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

/** One call of a batch, as the wallet sends it (src/wallet/calls.ts). */
export interface BatchCall {
  to: Hex | undefined;
  value: bigint;
  data: Hex;
}

/** What the wallet sends for an atomic EIP-5792 batch (rpc/walletCalls.ts). */
export interface BatchTransaction {
  from: Hex;
  privateKey: Hex;
  /** The account's call to its own `execute` (src/wallet/calls.ts executeCalldata), or a signed batch's. */
  to: Hex;
  data: Hex;
  /** Delegate the account here in the same transaction (EIP-7702): signed by `authority`'s key. */
  delegate?: { address: Hex; authority: Hex; authorityKey: Hex } | undefined;
}

/**
 * Sends an atomic batch as MetaMask does (transaction-controller utils/batch.ts): one transaction
 * to the account itself running the delegate's `execute`, type 4 with an authorization delegating
 * the account when it is not yet upgraded (type 2 otherwise). Filled in as eth_sendTransaction
 * fills in (pending nonce, gas estimated on pending with the authorization applied, fees), signed
 * with the wallet's key and admitted as any raw transaction. The authorization of an account that
 * sends its own upgrade names its nonce after this transaction's (EIP-7702: the sender's nonce is
 * bumped before authorizations are processed).
 */
export function sendBatchTransaction(ctx: NodeContext, batch: BatchTransaction): Promise<Hex> {
  return ctx.scope.serialPerSender(batch.from, async () => {
    const { chain } = ctx;
    const nonce = await chain.pendingNonce(batch.from);
    const authorizationList =
      batch.delegate === undefined
        ? undefined
        : [
            signAuthorization(
              chain.chainId,
              batch.delegate.address,
              batch.delegate.authority === batch.from ? nonce + 1n : await chain.pendingNonce(batch.delegate.authority),
              batch.delegate.authorityKey,
            ),
          ];
    const data = hexToBytes(batch.data);
    const gasLimit = await estimateOrFallback(ctx, {
      from: batch.from,
      to: batch.to,
      data,
      value: 0n,
      ...(authorizationList !== undefined && { authorizationList: authorizationList.map(authorizationForCall) }),
    });
    const tip = suggestedTip(chain);
    const fields: TypedTxData = {
      nonce,
      gasLimit,
      to: batch.to,
      value: 0n,
      data,
      maxPriorityFeePerGas: tip,
      maxFeePerGas: 2n * chain.open.header.baseFeePerGas + tip,
      ...(authorizationList !== undefined && { authorizationList }),
    };
    let signed: Uint8Array;
    try {
      const unsigned = createTx({ type: authorizationList === undefined ? 2 : 4, ...fields }, { common: txCommonOf(chain.common) });
      signed = signedTxsOf(chain).sign(unsigned, preparedKey(batch.privateKey)).serialize();
    } catch (error) {
      throw txConstructionError(error);
    }
    return chain.sendRawTransaction(signed);
  });
}

/** MetaMask's gas when an estimate fails: 35 % of the block gas limit (transaction-controller feature-flags.ts DEFAULT_GAS_ESTIMATE_FALLBACK_BLOCK_PERCENT). */
export const GAS_FALLBACK_BLOCK_PERCENT = 35n;

/**
 * The gas a wallet sends a batch's transaction with: the estimate on pending, or, when the
 * estimate reverts, MetaMask's fallback (35 % of the block gas limit, within EIP-7825's cap where
 * it is active: transaction-controller utils/gas.ts estimateGas). MetaMask still lets the user
 * send a transaction it expects to fail; it is mined, reverts, and the batch's status says so (500).
 */
export async function estimateOrFallback(ctx: NodeContext, request: CallRequest): Promise<bigint> {
  try {
    return await estimate(ctx, request, PENDING);
  } catch (error) {
    if (!(error instanceof ExecutionRevertedError)) throw error;
    const { chain } = ctx;
    const fallback = (chain.open.header.gasLimit * GAS_FALLBACK_BLOCK_PERCENT) / 100n;
    return chain.common.isActivatedEIP(7825) && fallback > EIP7825_MAX_TX_GAS ? EIP7825_MAX_TX_GAS : fallback;
  }
}

/** An EIP-7702 authorization signed with `privateKey` (ethereumjs' eoaCode7702SignAuthorization). */
function signAuthorization(chainId: bigint, address: Hex, nonce: bigint, privateKey: Hex): EOACode7702AuthorizationListBytesItem {
  return eoaCode7702SignAuthorization([bigIntToUnpaddedBytes(chainId), hexToBytes(address), bigIntToUnpaddedBytes(nonce)], hexToBytes(privateKey));
}

/** The same authorization as a dry run takes it (src/node/common/types.ts CallAuthorization). */
function authorizationForCall([chainId, address, nonce, yParity, r, s]: EOACode7702AuthorizationListBytesItem): CallAuthorization {
  return {
    chainId: bytesToBigInt(chainId),
    address: bytesToHex(address),
    nonce: bytesToBigInt(nonce),
    yParity: bytesToBigInt(yParity),
    r: bytesToBigInt(r),
    s: bytesToBigInt(s),
  };
}
