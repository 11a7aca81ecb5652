/**
 * EIP-5792 (wallet_sendCalls, wallet_getCallsStatus, wallet_getCapabilities,
 * wallet_showCallsStatus) as each personality answers it (docs/wallet.md, "Batches"): the params,
 * the checks in MetaMask's order (@metamask/eip-5792-middleware hooks/processSendCalls.ts), what
 * each wallet reports as its capabilities, the batches the wallet remembers, and the status a batch
 * has from where its transactions are. Sending is the method layer's (src/rpc/walletCalls.ts):
 * this module decides, it does not touch the chain.
 */
import { z } from "zod";

import { viem } from "../lazyViem.ts";
import { ADDRESS_PATTERN, BYTES_PATTERN, HEX_DIGITS_PATTERN } from "../node/common/hex.ts";
import { WALLET_DELEGATE_ABI } from "../node/state/walletDelegate.ts";
import { invalidParams } from "../protocol/errors.ts";
import { positional } from "../protocol/params.ts";
import { paymasterUrl } from "./paymaster.ts";
import { passesEip55 } from "./validate.ts";
import {
  atomicityNotSupported,
  bundleTooLarge,
  callsChainMismatch,
  callsToOwnAccountWithData,
  callsVersionNotSupported,
  duplicateCallsId,
  eip7702NotSupported,
  unsupportedAuxiliaryAsset,
  unsupportedAuxiliaryFundsChain,
  unsupportedCapabilities,
  unsupportedChainId,
  upgradedToUnsupportedContract,
} from "./errors.ts";

import type { Hex } from "../node/common/types.ts";
import type { WalletPersonality } from "../options.ts";
import type { PreconfirmedCallsStatus } from "./types.ts";

/** EIP-5792's version (Final): the only one MetaMask accepts (eip-5792-middleware constants.ts, VERSION). */
export const CALLS_VERSION = "2.0.0";
/** Calls in one batch: MetaMask's default limit (transaction-controller feature-flags.ts, DEFAULT_BATCH_SIZE_LIMIT). */
export const MAX_CALLS_PER_BATCH = 10;
/** Calls the params may list at all (beyond it -32602 before anything else): a bound on what one request makes the wallet parse. */
export const MAX_CALLS_IN_PARAMS = 1000;
/** Batches the wallet remembers for wallet_getCallsStatus: the oldest are forgotten (5730) beyond it. */
export const MAX_REMEMBERED_BATCHES = 1000;
/** EIP-5792: an `id` is at most 4096 bytes. */
export const MAX_CALLS_ID_CHARS = 4096;

/** EIP-5792's status codes (MetaMask's GetCallsStatusCode, eip-5792-middleware constants.ts), and 201 (docs/wallet.md). */
export const CallsStatus = { pending: 100, confirmed: 200, preconfirmed: 201, offchainFailure: 400, reverted: 500, partiallyReverted: 600 } as const;

// ── What each personality does ─────────────────────────────────────────────────────────────────

/** How a personality answers EIP-5792 (docs/wallet.md has the table and the sources). */
export interface CallsRules {
  /** Capabilities it acts on in wallet_sendCalls; any other non-optional one is 5700. */
  supported: readonly string[];
  /** What wallet_getCapabilities reports besides `atomic`, per chain it batches on. */
  reports: Record<string, unknown>;
  /** Atomic batches need an EIP-7702 upgrade the user is asked for ("ready" until then). */
  upgradePrompt: boolean;
  /** A dapp's `id` names the batch (the EIP); MetaMask ignores it and makes its own. */
  honoursId: boolean;
  /** A one-call batch is answered with its id at once and prompts afterwards (MetaMask's addTransaction). */
  answersOneCallAtOnce: boolean;
  /** MetaMask's order and texts (version -32000, chain -32602, 7702 5710) instead of the EIP's (5710 for the chain, 5760). */
  metamaskChecks: boolean;
  /** Non-atomic batches on a chain without the delegate run as one transaction per call (the EIP's `unsupported`). */
  sequentialWhenUnsupported: boolean;
  /** wallet_showCallsStatus exists (MetaMask does not implement it: -32601). */
  showsCallsStatus: boolean;
}

const METAMASK: CallsRules = {
  // MetaMask acts on auxiliaryFunds only (SupportedCapabilities, eip-5792-middleware constants.ts).
  supported: ["auxiliaryFunds"],
  reports: {},
  upgradePrompt: true,
  honoursId: false,
  answersOneCallAtOnce: true,
  metamaskChecks: true,
  sequentialWhenUnsupported: false,
  showsCallsStatus: false,
};

/**
 * Coinbase Wallet and Base Account are smart-contract accounts: atomic batches are "supported" from
 * the start, with a paymaster and auxiliary funds (docs.cdp.coinbase.com and docs.base.org,
 * wallet_getCapabilities); Base Account also takes ERC-8021's dataSuffix (docs.base.org,
 * capabilities/dataSuffix).
 */
const COINBASE: CallsRules = {
  supported: ["atomic", "paymasterService", "auxiliaryFunds"],
  reports: { paymasterService: { supported: true }, auxiliaryFunds: { supported: true } },
  upgradePrompt: false,
  honoursId: true,
  answersOneCallAtOnce: false,
  metamaskChecks: false,
  sequentialWhenUnsupported: false,
  showsCallsStatus: true,
};

const BASE_ACCOUNT: CallsRules = {
  ...COINBASE,
  supported: [...COINBASE.supported, "dataSuffix"],
  reports: { ...COINBASE.reports, dataSuffix: { supported: true } },
};

/** The letter of EIP-5792 and the ERCs its capabilities come from (ERC-7677, ERC-7682, ERC-8021). */
const EIP: CallsRules = {
  supported: ["atomic", "paymasterService", "auxiliaryFunds", "dataSuffix"],
  reports: { paymasterService: { supported: true }, auxiliaryFunds: { supported: true }, dataSuffix: { supported: true } },
  upgradePrompt: true,
  honoursId: true,
  answersOneCallAtOnce: false,
  metamaskChecks: false,
  sequentialWhenUnsupported: true,
  showsCallsStatus: true,
};

export function callsRules(personality: WalletPersonality): CallsRules {
  switch (personality) {
    case "metamask":
    case "metamask-mobile":
      return METAMASK;
    case "coinbase":
      return COINBASE;
    case "base-account":
      return BASE_ACCOUNT;
    case "eip":
      return EIP;
  }
}

// ── Params ─────────────────────────────────────────────────────────────────────────────────────

/** `0x` + 40 hex; mixed case must pass EIP-55 (MetaMask's HexChecksumAddressStruct). Lower-cased. */
export const callsAddress = z
  .string({ required_error: "missing address", invalid_type_error: "expected an address string" })
  .regex(ADDRESS_PATTERN, "expected a 0x-prefixed 20-byte address")
  .refine(passesEip55, "invalid EIP-55 checksum")
  .transform((value) => value.toLowerCase() as Hex);

/** MetaMask's StrictHexStruct: `0x` and hex digits. */
const strictHex = z.string({ invalid_type_error: "expected a 0x-prefixed hex string" }).regex(HEX_DIGITS_PATTERN, "expected a 0x-prefixed hex string");
const chainIdHex = strictHex.transform((value) => `0x${BigInt(value).toString(16)}` as Hex);
const bytesHex = z
  .string({ invalid_type_error: "expected 0x-prefixed hex bytes" })
  .regex(BYTES_PATTERN, "expected 0x-prefixed hex bytes")
  .transform((value) => value.toLowerCase() as Hex);
const valueHex = strictHex.transform((value) => BigInt(value));

/** A capability as dapps pass it: `optional`, and whatever else it carries (superstruct's `type`: extra keys kept). */
const capability = z
  .object(
    { optional: z.boolean({ invalid_type_error: "expected optional to be a boolean" }).optional() },
    { invalid_type_error: "expected a capability object" },
  )
  .passthrough();
const capabilities = z.record(capability, { invalid_type_error: "expected a capabilities object" });
export type Capabilities = z.output<typeof capabilities>;

const call = z
  .object(
    { to: callsAddress.optional(), data: bytesHex.optional(), value: valueHex.optional(), capabilities: capabilities.optional() },
    { invalid_type_error: "expected a call object { to?, data?, value?, capabilities? }" },
  )
  .strict();
export type Call = z.output<typeof call>;

function sendCallsPayload(rules: CallsRules) {
  return z
    .object(
      {
        version: z.string({ required_error: "missing version", invalid_type_error: "expected version to be a string" }).min(1, "version must not be empty"),
        // MetaMask checks the id is hex and then ignores it; the EIP takes any string of at most 4096 bytes.
        id: (rules.honoursId ? z.string().min(1).max(MAX_CALLS_ID_CHARS, `an id must be at most ${MAX_CALLS_ID_CHARS} characters`) : strictHex).optional(),
        from: callsAddress.optional(),
        chainId: chainIdHex,
        atomicRequired: z.boolean({ required_error: "missing atomicRequired", invalid_type_error: "expected atomicRequired to be a boolean" }),
        calls: z.array(call, { invalid_type_error: "expected an array of calls" }).max(MAX_CALLS_IN_PARAMS, `at most ${MAX_CALLS_IN_PARAMS} calls`),
        capabilities: capabilities.optional(),
      },
      { required_error: "missing the calls object", invalid_type_error: "expected a calls object" },
    )
    .strict();
}
export type SendCallsPayload = z.output<ReturnType<typeof sendCallsPayload>>;

export const sendCallsParams = (rules: CallsRules) => positional(sendCallsPayload(rules));
export const callsIdParams = (rules: CallsRules) =>
  positional(
    rules.honoursId ? z.string({ required_error: "missing id", invalid_type_error: "expected an id string" }).min(1).max(MAX_CALLS_ID_CHARS) : strictHex,
  );
export const getCapabilitiesParams = positional(
  callsAddress,
  z.array(chainIdHex, { invalid_type_error: "expected an array of chain ids" }).max(256).optional(),
);

// ── Checks, in MetaMask's order ────────────────────────────────────────────────────────────────

/** What the wallet knows about batching on the calls' chain for their sender. */
export interface BatchSupport {
  /** The delegate is at its address and EIP-7702 is active: the wallet can batch here. */
  available: boolean;
  /** The account's current EIP-7702 delegate, if it has one (any code: MetaMask's getDelegationAddress). */
  delegation: Hex | undefined;
  /** The account is delegated to the wallet's own delegate (atomic "supported"). */
  upgraded: boolean;
}

/** The atomic status wallet_getCapabilities reports for an account on a chain, or undefined: the chain is left out. */
export function atomicStatus(rules: CallsRules, support: BatchSupport): "supported" | "ready" | "unsupported" | undefined {
  if (!support.available) return rules.sequentialWhenUnsupported ? "unsupported" : undefined;
  if (!rules.upgradePrompt) return "supported";
  if (support.upgraded) return "supported";
  // Delegated elsewhere: MetaMask neither uses nor replaces another delegate (getCapabilities: canUpgrade).
  return support.delegation === undefined ? "ready" : undefined;
}

/** The capabilities named non-optional in the request (top level and per call) that the wallet does not act on. */
function requiredUnsupported(rules: CallsRules, payload: SendCallsPayload): string[] {
  const required = (caps: Capabilities | undefined) =>
    Object.entries(caps ?? {}).filter(([name, value]) => value.optional !== true && !rules.supported.includes(name));
  return [...required(payload.capabilities), ...payload.calls.flatMap((each) => required(each.capabilities))].map(([name]) => name);
}

/** ERC-7682 auxiliaryFunds, as MetaMask checks it (validateAuxFundsSupportAndRequiredAssets). */
function checkAuxiliaryFunds(rules: CallsRules, payload: SendCallsPayload): void {
  const all = [payload.capabilities?.auxiliaryFunds, ...payload.calls.map((each) => each.capabilities?.auxiliaryFunds)];
  for (const aux of all) {
    if (aux === undefined || aux.optional === true) continue;
    // MetaMask supports auxiliary funds on no chain a dev chain can be (its feature flag lists none).
    if (rules.metamaskChecks) throw unsupportedAuxiliaryFundsChain(payload.chainId);
    const assets = (aux as { requiredAssets?: unknown }).requiredAssets;
    if (assets === undefined) continue;
    if (!Array.isArray(assets)) throw invalidParams("params[0].capabilities.auxiliaryFunds.requiredAssets", "expected an array");
    for (const asset of assets as { address?: unknown; standard?: unknown }[]) {
      if (asset?.standard !== "erc20") throw unsupportedAuxiliaryAsset(String(asset?.address), String(asset?.standard));
    }
  }
}

export interface CallsContext {
  /** The origin's selected chain. */
  selectedChainId: Hex;
  /** The wallet's accounts (calls with data to one of them are refused, as MetaMask does). */
  accounts: readonly Hex[];
  /** The dapp's `id` is already a batch's (EIP-5792 5720). */
  idTaken: (id: string) => boolean;
}

/** How the wallet will send a valid batch. */
export type BatchPlan = { kind: "single" } | { kind: "atomic"; upgrade: boolean; paymaster?: PaymasterService | undefined } | { kind: "sequential" };

/** ERC-7677's capability: the service to ask, and the dapp's context for it. */
export interface PaymasterService {
  url: string;
  context: unknown;
}

/** The request's paymasterService, where the wallet takes it; its URL checked (paymaster.ts). */
function paymasterOf(rules: CallsRules, payload: SendCallsPayload): (PaymasterService & { required: boolean }) | undefined {
  const capability = payload.capabilities?.paymasterService;
  if (capability === undefined || !rules.supported.includes("paymasterService")) return undefined;
  return { url: paymasterUrl(capability), context: capability.context ?? {}, required: capability.optional !== true };
}

/**
 * Checks a wallet_sendCalls request after its params parsed and its sender was authorized, in the
 * order the personality's wallet checks (MetaMask: processSendCalls, then the transaction
 * controller's validateBatchRequest), and says how the batch will go.
 */
export function planBatch(rules: CallsRules, payload: SendCallsPayload, support: BatchSupport, context: CallsContext): BatchPlan {
  const single = payload.calls.length === 1;
  if (rules.metamaskChecks) {
    if (payload.version !== CALLS_VERSION) throw callsVersionNotSupported(payload.version, CALLS_VERSION);
    if (payload.chainId !== context.selectedChainId) throw callsChainMismatch(payload.chainId, context.selectedChainId);
    if (!single && !support.available) throw eip7702NotSupported(context.selectedChainId);
    const missing = requiredUnsupported(rules, payload);
    if (missing.length > 0) throw unsupportedCapabilities(missing);
    checkAuxiliaryFunds(rules, payload);
    if (single) return { kind: "single" };
    checkBatchCalls(payload, context);
    return atomicPlan(support);
  }
  if (payload.version !== CALLS_VERSION) throw callsVersionNotSupported(payload.version, CALLS_VERSION);
  if (payload.id !== undefined && context.idTaken(payload.id)) throw duplicateCallsId(payload.id);
  if (payload.chainId !== context.selectedChainId) throw unsupportedChainId(payload.chainId);
  const missing = requiredUnsupported(rules, payload);
  if (missing.length > 0) throw unsupportedCapabilities(missing);
  checkAuxiliaryFunds(rules, payload);
  checkBatchCalls(payload, context);
  const paymaster = paymasterOf(rules, payload);
  if (!support.available) {
    // A sponsor submits the batch through the delegate: without it, only an optional paymaster is ignored.
    if (paymaster?.required === true) throw unsupportedCapabilities(["paymasterService"]);
    if (single) return { kind: "single" };
    if (payload.atomicRequired || !rules.sequentialWhenUnsupported) throw atomicityNotSupported();
    return { kind: "sequential" };
  }
  if (single && paymaster === undefined) return { kind: "single" };
  return { ...atomicPlan(support), ...(paymaster !== undefined && { paymaster: { url: paymaster.url, context: paymaster.context } }) };
}

function checkBatchCalls(payload: SendCallsPayload, context: CallsContext): void {
  const own = new Set(context.accounts.map((account) => account.toLowerCase()));
  if (payload.calls.some((each) => each.to !== undefined && own.has(each.to) && (each.data ?? "0x") !== "0x")) throw callsToOwnAccountWithData();
  if (payload.calls.length > MAX_CALLS_PER_BATCH) throw bundleTooLarge(MAX_CALLS_PER_BATCH, payload.calls.length);
}

/** MetaMask neither uses nor replaces a delegate other than its own (transaction-controller utils/batch.ts). */
function atomicPlan(support: BatchSupport): { kind: "atomic"; upgrade: boolean } {
  if (support.delegation !== undefined && !support.upgraded) throw upgradedToUnsupportedContract();
  return { kind: "atomic", upgrade: !support.upgraded };
}

/** The calls as sent: ERC-8021's dataSuffix appended to each call's data where the wallet takes it. */
export function callsToSend(rules: CallsRules, payload: SendCallsPayload): { to: Hex | undefined; value: bigint; data: Hex }[] {
  const suffixOf = (caps: Capabilities | undefined): Hex | undefined => {
    const value = (caps?.dataSuffix as { value?: unknown } | undefined)?.value;
    return rules.supported.includes("dataSuffix") && typeof value === "string" && BYTES_PATTERN.test(value) ? (value.toLowerCase() as Hex) : undefined;
  };
  const batchSuffix = suffixOf(payload.capabilities);
  return payload.calls.map((each) => {
    const suffix = suffixOf(each.capabilities) ?? batchSuffix;
    const data = each.data ?? "0x";
    return { to: each.to, value: each.value ?? 0n, data: suffix === undefined ? data : (`${data}${suffix.slice(2)}` as Hex) };
  });
}

// ── ERC-7821 calldata for the delegate (contracts/wallet/BatchExecutor.sol) ────────────────────

/** ERC-7821's batch mode (call type 0x01, exec type 0x00, no opData), as MetaMask encodes it (transaction-controller utils/eip7702.ts). */
export const BATCH_MODE: Hex = `0x01${"00".repeat(31)}`;
/** The same with opData (mode selector 0x78210001): a signed batch another account may submit. */
export const BATCH_WITH_OP_DATA_MODE: Hex = `0x0100000000007821${"0001"}${"00".repeat(22)}`;

const ZERO_ADDRESS: Hex = "0x0000000000000000000000000000000000000000";
const CALL_TUPLE = { type: "tuple[]", components: [{ type: "address" }, { type: "uint256" }, { type: "bytes" }] } as const;

type SentCall = { to: Hex | undefined; value: bigint; data: Hex };
const asTuples = (calls: readonly SentCall[]) => calls.map((each) => [each.to ?? ZERO_ADDRESS, each.value, each.data] as const);

/** `execute(BATCH_MODE, abi.encode(calls))`: the account's own call to its delegate. */
export function executeCalldata(calls: readonly SentCall[]): Hex {
  const { encodeAbiParameters, encodeFunctionData } = viem();
  const executionData = encodeAbiParameters([CALL_TUPLE], [asTuples(calls)]);
  return encodeFunctionData({ abi: WALLET_DELEGATE_ABI, functionName: "execute", args: [BATCH_MODE, executionData] });
}

/** `execute(BATCH_WITH_OP_DATA_MODE, abi.encode(calls, signature))`: a signed batch, submitted by a sponsor. */
export function signedExecuteCalldata(calls: readonly SentCall[], signature: Hex): Hex {
  const { encodeAbiParameters, encodeFunctionData } = viem();
  const executionData = encodeAbiParameters([CALL_TUPLE, { type: "bytes" }], [asTuples(calls), signature]);
  return encodeFunctionData({ abi: WALLET_DELEGATE_ABI, functionName: "execute", args: [BATCH_WITH_OP_DATA_MODE, executionData] });
}

/** BatchExecutor.batchDigest: what the account's key signs for a sponsored batch. */
export function batchDigest(chainId: bigint, account: Hex, nonce: bigint, calls: readonly SentCall[]): Hex {
  const { encodeAbiParameters, keccak256, toBytes } = viem();
  const typeHash = keccak256(toBytes("hardhat-preconf.BatchExecutor.Batch(uint256 chainId,address account,uint256 nonce,bytes32 calls)"));
  const callsHash = keccak256(encodeAbiParameters([CALL_TUPLE], [asTuples(calls)]));
  return keccak256(
    encodeAbiParameters(
      [{ type: "bytes32" }, { type: "uint256" }, { type: "address" }, { type: "uint256" }, { type: "bytes32" }],
      [typeHash, chainId, account, nonce, callsHash],
    ),
  );
}

// ── Batches the wallet remembers ───────────────────────────────────────────────────────────────

export interface CallsBatch {
  id: string;
  chainId: Hex;
  from: Hex;
  /** Executed atomically (one transaction through the delegate, or one call). */
  atomic: boolean;
  /** The batch's transactions, in order, once sent. */
  transactions: Hex[];
  /** Not sent yet (a one-call MetaMask batch waiting for its prompt), sent, or failed before any transaction existed (400). */
  state: "unapproved" | "sent" | "failed";
  /** Calls of a one-by-one batch never sent (a send failed midway): they count as failed. */
  unsent?: number;
}

/** Remembered batches, the oldest forgotten first beyond MAX_REMEMBERED_BATCHES. */
export class CallsStore {
  readonly #batches = new Map<string, CallsBatch>();
  #next = 1;

  get(id: string): CallsBatch | undefined {
    return this.#batches.get(id);
  }

  has(id: string): boolean {
    return this.#batches.has(id);
  }

  /** A new batch id: 16 bytes (as MetaMask's uuid-based ids), derived from a counter so that runs repeat. */
  nextId(from: Hex, chainId: Hex): Hex {
    const { keccak256, toBytes } = viem();
    return keccak256(toBytes(`wallet_sendCalls:${this.#next++}:${from}:${chainId}`)).slice(0, 34) as Hex;
  }

  add(batch: CallsBatch): void {
    this.#batches.set(batch.id, batch);
    while (this.#batches.size > MAX_REMEMBERED_BATCHES) this.#batches.delete(this.#batches.keys().next().value!);
  }

  delete(id: string): void {
    this.#batches.delete(id);
  }

  /** For evm_snapshot: the batches as they are now, restored by the returned function. */
  capture(): () => void {
    const kept = new Map([...this.#batches].map(([id, batch]) => [id, { ...batch, transactions: [...batch.transactions] }]));
    const next = this.#next;
    return () => {
      this.#batches.clear();
      for (const [id, batch] of kept) this.#batches.set(id, batch);
      this.#next = next;
    };
  }
}

// ── Status ─────────────────────────────────────────────────────────────────────────────────────

/** Where one of a batch's transactions is, as the chain's clients see it. */
export type TransactionState = { kind: "pending" } | { kind: "gone" } | { kind: "executed"; sealed: boolean; success: boolean; receipt: CallsReceipt };

/** A receipt as wallet_getCallsStatus lists it (EIP-5792; MetaMask's getCallsStatus.ts). */
export interface CallsReceipt {
  logs: { address: Hex; data: Hex; topics: Hex[] }[];
  status: "0x0" | "0x1";
  blockHash: Hex;
  blockNumber: Hex;
  gasUsed: Hex;
  transactionHash: Hex;
}

/**
 * A batch's status code and receipts. One transaction, as MetaMask maps it (getCallsStatus.ts
 * getStatusCode): confirmed 200, mined and reverted 500, dropped 500, failed before it had a hash
 * 400, otherwise 100. Several (the EIP's non-atomic batch): 100 while any is pending, 200 when all
 * succeeded, 500 when all failed, 600 otherwise. A transaction pre-confirmed in a fragment counts
 * as `preconfirmed` says (docs/wallet.md): confirmed (200), 201, or still pending (100).
 */
export function batchStatus(
  batch: CallsBatch,
  states: readonly TransactionState[],
  preconfirmed: PreconfirmedCallsStatus,
): { status: number; receipts?: CallsReceipt[] } {
  if (batch.state === "failed") return { status: CallsStatus.offchainFailure };
  if (batch.state === "unapproved" || states.length === 0) return { status: CallsStatus.pending };
  const settled = states.map((state) =>
    state.kind === "executed" && !state.sealed && preconfirmed === CallsStatus.pending ? ({ kind: "pending" } as const) : state,
  );
  if (settled.some((state) => state.kind === "pending")) return { status: CallsStatus.pending };
  const receipts = settled.flatMap((state) => (state.kind === "executed" ? [state.receipt] : []));
  const successes = settled.filter((state) => state.kind === "executed" && state.success).length;
  if (successes === 0) return { status: CallsStatus.reverted, ...(receipts.length > 0 && { receipts }) };
  if (successes < settled.length) return { status: CallsStatus.partiallyReverted, receipts };
  const allSealed = settled.every((state) => state.kind === "executed" && state.sealed);
  return { status: allSealed ? CallsStatus.confirmed : preconfirmed, receipts };
}
