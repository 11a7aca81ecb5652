/**
 * The simulated wallet's methods (docs/behaviour.md#wallet-methods). Each one validates its params inside the
 * handler (so malformed requests are logged too) before the approval policy is asked, then acts
 * on the wallet's state. eth_chainId, eth_accounts and eth_sendTransaction are the wallet's: a
 * dapp asks its wallet, which sends through the node's send service (services/send.ts).
 */
import { z } from "zod";

import { checkNativeCurrency, checkRpcUrl, checksRpcUrlChainId, unknownChainError, watchAssetAnswersBeforeDecision } from "../wallet/personality.ts";
import { DECISION_NAMES, PROMPTING_METHODS } from "../wallet/policy.ts";
import { personalMessageDigest, signDigest, typedDataDigest } from "../wallet/sign.ts";
import {
  addEthereumChainParams,
  parseParams,
  personalSignParams,
  requestPermissionsParams,
  signTypedDataParams,
  switchEthereumChainParams,
  watchAssetParams,
} from "../wallet/validate.ts";
import { chainDisconnected, invalidParams, typedDataChainMismatch } from "./errors.ts";
import { checkSendRequest, IMPERSONATED, sendTransactionParams, signAndSend, signerOf } from "./services/send.ts";
import { method, positional } from "./table.ts";

import type { Decision } from "../wallet/policy.ts";
import type { Wallet } from "../wallet/wallet.ts";
import type { MethodContext } from "./context.ts";
import type { Hex } from "./schema.ts";
import type { MethodTable } from "./table.ts";

/** Raw params: each handler validates with `parseParams`, after logging the request. */
const raw = z.unknown();

function accountKey(wallet: Wallet, address: Hex, field: string): Hex {
  const key = wallet.privateKeyOf(address);
  if (key === undefined) throw invalidParams(field, "not an account of this wallet");
  return key;
}

/**
 * The log keeps params as an in-process caller sent them (bigints included); over JSON-RPC they
 * are answered as JSON, bigints as 0x quantities, so every transport can serialize the answer.
 */
function jsonSafe(value: unknown): unknown {
  const text = JSON.stringify(value, (_, item: unknown) => (typeof item === "bigint" ? `0x${item.toString(16)}` : item));
  return text === undefined ? null : (JSON.parse(text) as unknown);
}

const decision: z.ZodType<Decision> = z.union([
  z.enum(DECISION_NAMES),
  z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).strict(),
]);

const promptingMethod = z.enum(PROMPTING_METHODS);

const policyConfig = z.union([
  decision.transform((chosen) => ({ default: chosen })),
  z
    .object({
      default: decision.optional(),
      methods: z.record(promptingMethod, decision).optional(),
      // Timers fire at once above 2^31 - 1 ms (Node's setTimeout limit), so a longer delay is refused.
      delayMs: z.number().int().min(0).max(0x7fffffff).optional(),
      manual: z.boolean().optional(),
      switchOnAdd: z.boolean().optional(),
      reset: z.boolean().optional(),
    })
    .strict(),
]);

/**
 * MetaMask refuses typed data for another chain than the active one, with this text and, as the
 * signature controller throws a plain Error that serializeError turns into -32603, that code
 * (MetaMask/core signature-controller utils/validation.ts, validateTypedSignatureRequestV3V4).
 * A chainId that is a string is read as hex when 0x-prefixed, else as decimal.
 */
function assertTypedDataChain(provided: unknown, active: Hex): void {
  if (provided === undefined || provided === null || provided === "" || provided === 0) return;
  let chainId: bigint | undefined;
  try {
    chainId = typeof provided === "string" || typeof provided === "number" || typeof provided === "bigint" ? BigInt(provided) : undefined;
  } catch {
    chainId = undefined;
  }
  if (chainId === undefined) throw invalidParams("params[1].domain.chainId", "expected a chain id (number, decimal or 0x string)");
  if (chainId !== BigInt(active)) throw typedDataChainMismatch(chainId, BigInt(active));
}

/** The `from` of eth_sendTransaction's first param, before any schema runs. */
function senderOf(params: unknown): string | undefined {
  try {
    const first: unknown = Array.isArray(params) ? params[0] : undefined;
    if (typeof first !== "object" || first === null || !("from" in first)) return undefined;
    return typeof first.from === "string" ? first.from : undefined;
  } catch {
    // Unreadable params (a throwing getter, in process): parseParams refuses them.
    return undefined;
  }
}

export const walletMethods: MethodTable = {
  eth_chainId: method(positional(), (_, ctx) => ctx.wallet.activeChainId),
  eth_accounts: method(positional(), (_, ctx) => ctx.wallet.visibleAccounts),

  eth_requestAccounts: method(raw, (params, { wallet }) =>
    wallet.prompt("eth_requestAccounts", params, {
      validate: () => parseParams(positional(), params),
      withoutPrompt: () => (wallet.connected ? wallet.visibleAccounts : undefined),
      perform: () => {
        wallet.connect();
        return wallet.visibleAccounts;
      },
    }),
  ),
  wallet_requestPermissions: method(raw, (params, { wallet }) =>
    wallet.prompt("wallet_requestPermissions", params, {
      validate: () => parseParams(requestPermissionsParams, params),
      perform: () => wallet.connect(),
    }),
  ),
  wallet_getPermissions: method(raw, (params, { wallet }) =>
    wallet.answer("wallet_getPermissions", params, () => {
      parseParams(positional(), params);
      return wallet.permissions();
    }),
  ),
  wallet_revokePermissions: method(raw, (params, { wallet }) =>
    wallet.answer("wallet_revokePermissions", params, () => {
      parseParams(requestPermissionsParams, params);
      wallet.disconnectAccounts();
      return null;
    }),
  ),

  wallet_addEthereumChain: method(raw, (params, { wallet }) =>
    wallet.prompt("wallet_addEthereumChain", params, {
      validate: async () => {
        const [data] = parseParams(addEthereumChainParams, params);
        checkNativeCurrency(wallet.personality, data.nativeCurrency);
        const known = wallet.knownChain(data.chainId);
        if (known !== undefined && known.nativeCurrency.symbol !== data.nativeCurrency.symbol) {
          throw invalidParams("params[0].nativeCurrency.symbol", `chain ${data.chainId} is known with the currency symbol ${known.nativeCurrency.symbol}`);
        }
        if (checksRpcUrlChainId(wallet.personality)) await checkRpcUrl(data.rpcUrls[0]!, data.chainId);
        return data;
      },
      perform: (data) => {
        wallet.rememberChain(data);
        if (wallet.switchOnAdd) wallet.switchTo(data.chainId);
        return null;
      },
    }),
  ),
  wallet_switchEthereumChain: method(raw, (params, { wallet }) =>
    wallet.prompt("wallet_switchEthereumChain", params, {
      validate: () => {
        const [{ chainId }] = parseParams(switchEthereumChainParams, params);
        // An unknown chain is answered before any prompt, as MetaMask does.
        if (wallet.knownChain(chainId) === undefined) throw unknownChainError(wallet.personality, chainId);
        return chainId;
      },
      withoutPrompt: (chainId) => (chainId === wallet.activeChainId ? null : undefined),
      perform: (chainId) => {
        wallet.switchTo(chainId);
        return null;
      },
    }),
  ),
  wallet_watchAsset: method(raw, (params, { wallet }) =>
    wallet.prompt("wallet_watchAsset", params, {
      validate: () => parseParams(watchAssetParams, params),
      answerBeforeDecision: watchAssetAnswersBeforeDecision(wallet.personality) ? true : undefined,
      perform: (asset) => {
        wallet.watch(asset);
        return true;
      },
    }),
  ),

  eth_sendTransaction: method(raw, (params, ctx) => {
    // An impersonated sender has no key for the user to approve with: the send service sends as
    // it at once, unprompted and unlogged, as Hardhat's node does for hardhat_impersonateAccount.
    const from = senderOf(params);
    if (from !== undefined && signerOf(ctx, from)?.kind === "impersonated") {
      const [request] = parseParams(sendTransactionParams, params);
      return signAndSend(ctx, request, IMPERSONATED);
    }
    // Otherwise the approval policy first, then the send service with the wallet's key.
    return ctx.wallet.prompt("eth_sendTransaction", params, {
      validate: () => {
        const [request] = parseParams(sendTransactionParams, params);
        ctx.wallet.assertAuthorized(request.from);
        const privateKey = accountKey(ctx.wallet, request.from, "params[0].from");
        checkSendRequest(ctx, request);
        return { request, privateKey };
      },
      perform: ({ request, privateKey }) => signAndSend(ctx, request, { kind: "key", privateKey }),
    });
  }),
  personal_sign: method(raw, (params, { wallet }) =>
    wallet.prompt("personal_sign", params, {
      validate: () => {
        const [message, address] = parseParams(personalSignParams, params);
        wallet.assertAuthorized(address);
        return { key: accountKey(wallet, address, "params[1]"), digest: personalMessageDigest(message) };
      },
      perform: ({ key, digest }) => signDigest(digest, key),
    }),
  ),
  eth_signTypedData_v4: method(raw, (params, { wallet }) =>
    wallet.prompt("eth_signTypedData_v4", params, {
      validate: () => {
        const [address, typedData] = parseParams(signTypedDataParams, params);
        wallet.assertAuthorized(address);
        const key = accountKey(wallet, address, "params[0]");
        assertTypedDataChain(typedData.domain.chainId, wallet.activeChainId);
        try {
          return { key, digest: typedDataDigest(typedData) };
        } catch (error) {
          const reason =
            error instanceof Error ? ("shortMessage" in error && typeof error.shortMessage === "string" && error.shortMessage) || error.message : String(error);
          throw invalidParams("params[1]", reason);
        }
      },
      perform: ({ key, digest }) => signDigest(digest, key),
    }),
  ),

  /**
   * This client's wallet starts as a fresh MetaMask (`{ connected: false }`: accounts hidden until
   * it connects) or as one it connected before (`{ connected: true }`). Over the server it changes
   * only the calling connection's wallet (the injected browser wallet sends it first).
   */
  preconf_walletConnection: method(positional(z.object({ connected: z.boolean() }).strict()), ([{ connected }], { wallet }) => {
    wallet.requireConnection(connected);
    return null;
  }),

  /** `"reject"`, or `{ default, methods: { wallet_watchAsset: "approve" }, delayMs, manual, switchOnAdd, reset }`. */
  preconf_setWalletPolicy: method(positional(policyConfig), ([config], { wallet }) => {
    const { policy } = wallet;
    if ("reset" in config && config.reset === true) policy.reset();
    if (config.default !== undefined) policy.setDefault(config.default);
    if ("methods" in config) for (const [name, chosen] of Object.entries(config.methods ?? {})) policy.setDefault(chosen, promptingMethod.parse(name));
    if ("delayMs" in config && config.delayMs !== undefined) policy.delayMs = config.delayMs;
    if ("manual" in config && config.manual !== undefined) policy.manual(config.manual);
    if ("switchOnAdd" in config && config.switchOnAdd !== undefined) wallet.switchOnAdd = config.switchOnAdd;
    return null;
  }),
  /** `[method, [decision, ...]]`; answers how many decisions are now queued for the method. */
  preconf_queueWalletDecisions: method(positional(promptingMethod, z.array(decision).min(1)), ([name, decisions], { wallet }) => {
    wallet.policy.queue(name, ...decisions);
    return wallet.policy.queued(name).length;
  }),
  preconf_walletRequests: method(positional(), (_, { wallet }) => jsonSafe(wallet.requests)),
  /** Manual mode over JSON-RPC: the waiting prompts, and an answer to one of them. */
  preconf_walletPending: method(positional(), (_, { wallet }) => jsonSafe(wallet.policy.pending())),
  preconf_resolveWalletRequest: method(positional(z.number().int(), decision), ([id, chosen], { wallet }) => {
    if (!wallet.policy.pending().some((pending) => pending.id === id)) throw invalidParams("params[0]", `no pending wallet request with id ${id}`);
    if (chosen === "approve") wallet.policy.approve(id);
    else wallet.policy.reject(id, chosen);
    return null;
  }),
};

/**
 * The test's methods: they read every client's wallet requests or script the user for all. Over
 * the server, a browser page (a request with an Origin) gets 4100 for them (docs/browser.md).
 */
const WALLET_CONTROL = new Set([
  "preconf_setWalletPolicy",
  "preconf_queueWalletDecisions",
  "preconf_walletRequests",
  "preconf_walletPending",
  "preconf_resolveWalletRequest",
]);

export const isWalletControlMethod = (name: string): boolean => WALLET_CONTROL.has(name);

/** Methods the wallet answers from its own state, even on a chain known only by URL. */
const WALLET_ONLY = new Set(Object.keys(walletMethods).filter((name) => name !== "eth_sendTransaction"));

/**
 * The context a request runs in: the wallet's own for wallet methods, the active simulated
 * chain's for node methods, and EIP-1193 4901 when the active chain has no simulator.
 */
export function routeContext(wallet: Wallet, name: string): MethodContext {
  if (WALLET_ONLY.has(name)) return wallet.ownContext;
  const node = wallet.activeNode();
  if (node === undefined) throw chainDisconnected(wallet.activeChainId);
  return node;
}
