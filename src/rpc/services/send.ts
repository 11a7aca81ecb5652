/**
 * eth_sendTransaction's service: the checks a request must pass, filling in what a wallet fills in
 * (nonce, gas, fees), deciding whose key signs (an impersonated sender's: none; else a dev key),
 * and admission through the same path as eth_sendRawTransaction. The wallet's prompt wraps this
 * (rpc/wallet.ts): the approval policy first, then the service.
 */
import { createTx } from "@ethereumjs/tx";
import { hexToBytes } from "@ethereumjs/util";

import { admitWithSender } from "../../node/admission.ts";
import { SUGGESTED_TIP } from "../../node/defaults.ts";
import { impersonatedTransaction, isImpersonated } from "../../node/impersonation.ts";
import { suggestOptimismPriorityFee } from "../../node/opstack/gasPrice.ts";
import { admissionError, invalidParams, txConstructionError } from "../errors.ts";
import { positional } from "../params.ts";
import { address, checkTransactionFields, PENDING, transactionFields } from "../schema.ts";
import { estimate } from "./calls.ts";

import type { TypedTxData } from "@ethereumjs/tx";
import type { z } from "zod";
import type { Chain } from "../../node/chain.ts";
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
  return fillAndAdmit(ctx, request, async ({ type, fields }) => {
    if (signer.kind === "impersonated") {
      let tx: ReturnType<typeof impersonatedTransaction>;
      try {
        tx = impersonatedTransaction(ctx.chain.common, type, fields, request.from);
      } catch (error) {
        throw txConstructionError(error);
      }
      return ctx.chain.sendTransaction((admission) => admitWithSender(tx, request.from, admission));
    }
    let signed: Uint8Array;
    try {
      signed = createTx({ type, ...fields }, { common: ctx.chain.common })
        .sign(hexToBytes(signer.privateKey))
        .serialize();
    } catch (error) {
      throw txConstructionError(error);
    }
    return ctx.chain.sendRawTransaction(signed);
  });
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
