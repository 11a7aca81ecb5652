/**
 * The simulated wallet's methods (docs/wallet.md; docs/behaviour.md#wallet-methods). Each one
 * validates its params inside the handler (so malformed requests are logged too) before the
 * approval policy is asked, then acts on the wallet's state. eth_chainId, eth_accounts and
 * eth_sendTransaction are the wallet's: a dapp asks its wallet, which sends through the node's
 * send service (services/send.ts). EIP-5792's methods are rpc/walletCalls.ts.
 */
import { z } from "zod";

import { IN_PROCESS_ORIGIN } from "../wallet/origins.ts";
import {
  checkNativeCurrency,
  checkRpcUrl,
  checksRpcUrlChainId,
  followsMetaMask,
  unknownChainError,
  watchAssetAnswersBeforeDecision,
} from "../wallet/personality.ts";
import { DECISION_NAMES, PROMPTING_METHODS } from "../wallet/policy.ts";
import { legacyTypedDataDigest, personalMessageDigest, signDigest, typedDataDigest, typesHaveArrays } from "../wallet/sign.ts";
import {
  addEthereumChainParams,
  parseParams,
  personalSignParams,
  requestPermissionsParams,
  signTypedDataParams,
  signTypedDataV1Params,
  switchEthereumChainParams,
  walletConnectParams,
  watchAssetParams,
} from "../wallet/validate.ts";
import { viem, viemSiwe } from "../lazyViem.ts";
import { externalEip7702NotSupported, transactionChainMismatch } from "../wallet/errors.ts";
import { chainDisconnected, invalidParams, methodNotFound, typedDataChainMismatch, unauthorized } from "./errors.ts";
import { checkSendRequest, IMPERSONATED, sendTransactionParams, signAndSend, signerOf } from "./services/send.ts";
import { method, positional } from "./table.ts";
import { walletCallsMethods } from "./walletCalls.ts";

import type { Decision } from "../wallet/policy.ts";
import type { Wallet } from "../wallet/wallet.ts";
import type { MethodContext } from "./context.ts";
import type { Hex } from "./schema.ts";
import type { NodeContext } from "./services/context.ts";
import type { MethodTable } from "./table.ts";

/** Raw params: each handler validates with `parseParams`, after logging the request. */
const raw = z.unknown();

function accountKey(wallet: Wallet<NodeContext>, address: Hex, field: string): Hex {
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
 * MetaMask refuses typed data for another chain than the active one (validateTypedSignatureRequestV3V4,
 * rpc/errors' typedDataChainMismatch). A chainId that is a string is read as hex when 0x-prefixed,
 * else as decimal. Clients that are not a dapp (scripts, Hardhat) sign for any domain, as Hardhat's
 * node does: test suites sign for another chain on purpose.
 */
function assertTypedDataChain(wallet: Wallet<NodeContext>, provided: unknown): void {
  if (provided === undefined || provided === null || provided === "" || provided === 0) return;
  let chainId: bigint | undefined;
  try {
    chainId = typeof provided === "string" || typeof provided === "number" || typeof provided === "bigint" ? BigInt(provided) : undefined;
  } catch {
    chainId = undefined;
  }
  if (chainId === undefined) throw invalidParams("params[1].domain.chainId", "expected a chain id (number, decimal or 0x string)");
  if (wallet.signsAnyDomain) return;
  const active = BigInt(wallet.activeChainId);
  if (chainId !== active) throw typedDataChainMismatch(chainId, active);
}

/** viem's error text for typed data it cannot hash, as a -32602 reason. */
function typedDataReason(error: unknown): string {
  return error instanceof Error ? ("shortMessage" in error && typeof error.shortMessage === "string" && error.shortMessage) || error.message : String(error);
}

/** The `from` of eth_sendTransaction's first param, before any schema runs. */
function firstParam(params: unknown): Record<string, unknown> | undefined {
  try {
    const first: unknown = Array.isArray(params) ? params[0] : undefined;
    return typeof first === "object" && first !== null ? (first as Record<string, unknown>) : undefined;
  } catch {
    // Unreadable params (a throwing getter, in process): parseParams refuses them.
    return undefined;
  }
}

function senderOf(params: unknown): string | undefined {
  try {
    const from = firstParam(params)?.from;
    return typeof from === "string" ? from : undefined;
  } catch {
    return undefined;
  }
}

/**
 * MetaMask's checks of a dapp's eth_sendTransaction (transaction-controller utils/validation.ts):
 * no EIP-7702 authorizations of its own (validateTransactionOrigin), and the dapp's chain
 * (validateParamChainId, against the origin's selected chain).
 */
function metaMaskTransactionChecks(wallet: Wallet<NodeContext>, params: unknown): void {
  if (!followsMetaMask(wallet.personality)) return;
  let type: unknown;
  let authorizationList: unknown;
  let chainId: unknown;
  try {
    ({ type, authorizationList, chainId } = firstParam(params) ?? {});
  } catch {
    // Unreadable params (a throwing getter, in process) were refused by parseParams already.
    return;
  }
  if (authorizationList !== undefined || type === "0x4" || type === "0x04") throw externalEip7702NotSupported();
  if (typeof chainId === "string" && chainId.toLowerCase() !== wallet.activeChainId) throw transactionChainMismatch(chainId, wallet.activeChainId);
}

/** A SIWE message (EIP-4361) for ERC-7846's signInWithEthereum capability: viem's createSiweMessage. */
function siweMessage(wallet: Wallet<NodeContext>, address: Hex, request: { nonce: string; chainId: string; [key: string]: unknown }): string {
  const origin = wallet.origin === IN_PROCESS_ORIGIN || !/^https?:\/\//.test(wallet.origin) ? "http://localhost" : wallet.origin;
  const url = new URL(origin);
  const text = (key: string) => (typeof request[key] === "string" ? (request[key] as string) : undefined);
  return viemSiwe().createSiweMessage({
    address: viem().getAddress(address),
    chainId: Number(BigInt(request.chainId)),
    domain: text("domain") ?? url.host,
    nonce: request.nonce,
    uri: text("uri") ?? url.origin,
    version: "1",
    statement: text("statement"),
    issuedAt: new Date(0),
  });
}

/** eth_signTypedData_v3 and _v4: the signer authorized, the domain's chain checked (dapps), then the prompt. */
function signTypedData(wallet: Wallet<NodeContext>, name: "eth_signTypedData_v3" | "eth_signTypedData_v4", params: unknown): Promise<Hex> {
  return wallet.prompt(name, params, {
    validate: () => {
      const [address, typedData] = parseParams(signTypedDataParams, params);
      wallet.assertAuthorized(address);
      const key = accountKey(wallet, address, "params[0]");
      // eth-sig-util's V3 has no arrays: "Arrays are unimplemented in encodeData; use V4 extension".
      if (name === "eth_signTypedData_v3" && typesHaveArrays(typedData.types)) {
        throw invalidParams("params[1].types", "Arrays are unimplemented in encodeData; use V4 extension");
      }
      assertTypedDataChain(wallet, typedData.domain.chainId);
      try {
        return { key, digest: typedDataDigest(typedData) };
      } catch (error) {
        throw invalidParams("params[1]", typedDataReason(error));
      }
    },
    perform: ({ key, digest }) => signDigest(digest, key),
  });
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
      validate: () => {
        const [requested] = parseParams(requestPermissionsParams, params);
        if ("endowment:permitted-chains" in requested && !followsMetaMask(wallet.personality)) {
          throw invalidParams("params[0]", "the only permission this wallet grants is eth_accounts");
        }
        return requested;
      },
      perform: () => wallet.connect(),
    }),
  ),
  wallet_getPermissions: method(raw, (params, { wallet }) =>
    wallet.answer("wallet_getPermissions", params, () => {
      parseParams(positional(), params);
      return wallet.permissions();
    }),
  ),
  /** MetaMask revokes the one grant behind eth_accounts and endowment:permitted-chains, whichever is named. */
  wallet_revokePermissions: method(raw, (params, { wallet }) =>
    wallet.answer("wallet_revokePermissions", params, () => {
      parseParams(requestPermissionsParams, params);
      wallet.disconnectAccounts();
      return null;
    }),
  ),
  /** MetaMask's onboarding library registers its page: MetaMask answers `true` (metamask-extension rpc-method-middleware handlers). */
  wallet_registerOnboarding: method(raw, (params, { wallet }) => {
    if (!followsMetaMask(wallet.personality)) throw methodNotFound("wallet_registerOnboarding");
    return wallet.answer("wallet_registerOnboarding", params, () => {
      parseParams(positional(), params);
      return true;
    });
  }),

  wallet_addEthereumChain: method(raw, (params, { wallet }) =>
    wallet.prompt("wallet_addEthereumChain", params, {
      validate: async () => {
        const [data] = parseParams(addEthereumChainParams, params);
        checkNativeCurrency(wallet.personality, data.nativeCurrency);
        const known = wallet.knownChain(data.chainId);
        if (known !== undefined && known.nativeCurrency.symbol !== data.nativeCurrency.symbol) {
          throw invalidParams("params[0].nativeCurrency.symbol", `chain ${data.chainId} is known with the currency symbol ${known.nativeCurrency.symbol}`);
        }
        wallet.assertRoomForChain(data.chainId);
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
      validate: () => {
        const asset = parseParams(watchAssetParams, params);
        wallet.assertRoomForAsset(asset.options.address);
        return asset;
      },
      answerBeforeDecision: () => (watchAssetAnswersBeforeDecision(wallet.personality) ? true : undefined),
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
        metaMaskTransactionChecks(ctx.wallet, params);
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
  /** MetaMask's legacy typed data (v1): `[typedData, address]`, hashed as eth-sig-util's typedSignatureHash. */
  eth_signTypedData: method(raw, (params, { wallet }) =>
    wallet.prompt("eth_signTypedData", params, {
      validate: () => {
        const [items, address] = parseParams(signTypedDataV1Params, params);
        wallet.assertAuthorized(address);
        const key = accountKey(wallet, address, "params[1]");
        try {
          return { key, digest: legacyTypedDataDigest(items) };
        } catch (error) {
          throw invalidParams("params[0]", typedDataReason(error));
        }
      },
      perform: ({ key, digest }) => signDigest(digest, key),
    }),
  ),
  /** EIP-712 without arrays (v3), `[address, typedData]`: the same digest as v4 for the data v3 can hold. */
  eth_signTypedData_v3: method(raw, (params, { wallet }) => signTypedData(wallet, "eth_signTypedData_v3", params)),
  eth_signTypedData_v4: method(raw, (params, { wallet }) => signTypedData(wallet, "eth_signTypedData_v4", params)),

  /**
   * ERC-7846 (Base Account): connect, and with `signInWithEthereum` sign an EIP-4361 message in the
   * same step; answers `{ accounts: [{ address, capabilities }], chainIds }`. Other wallets: -32601.
   */
  wallet_connect: method(raw, (params, { wallet }) => {
    if (wallet.personality !== "base-account") throw methodNotFound("wallet_connect");
    return wallet.prompt("wallet_connect", params, {
      validate: () => parseParams(walletConnectParams, params)[0] ?? {},
      perform: (request) => {
        wallet.connect();
        const siwe = request.capabilities?.signInWithEthereum;
        const accounts = wallet.visibleAccounts.map((address, index) => {
          if (siwe === undefined || index > 0) return { address, capabilities: {} };
          const message = siweMessage(wallet, address, siwe);
          const signature = signDigest(personalMessageDigest(message), accountKey(wallet, address, "params[0]"));
          return { address, capabilities: { signInWithEthereum: { message, signature } } };
        });
        return {
          accounts,
          chainIds: request.chainIds?.filter((chainId) => wallet.knownChain(chainId.toLowerCase() as Hex) !== undefined) ?? [wallet.activeChainId],
        };
      },
    });
  }),
  /** ERC-7846: the dapp disconnects; the origin's grant goes (accountsChanged []). */
  wallet_disconnect: method(raw, (params, { wallet }) => {
    if (wallet.personality !== "base-account") throw methodNotFound("wallet_disconnect");
    return wallet.answer("wallet_disconnect", params, () => {
      parseParams(positional(), params);
      wallet.disconnectAccounts();
      return null;
    });
  }),

  ...walletCallsMethods,

  /**
   * This client's origin starts as a fresh MetaMask (`{ connected: false }`: accounts hidden until
   * it connects) or as one it connected before (`{ connected: true }`). Over the server it changes
   * the calling client's origin (the injected browser wallet sends it first).
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
  /** The wallet's known chains and watched assets, and each origin's selected chain and connection. */
  preconf_walletState: method(positional(), (_, { wallet }) => wallet.summary()),
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
 * The test's methods: they read every client's wallet requests and the wallet's state, or script
 * the user for all. Over the server, a browser page (a request with an Origin) gets 4100 for them
 * (docs/browser.md).
 */
const WALLET_CONTROL = new Set([
  "preconf_setWalletPolicy",
  "preconf_queueWalletDecisions",
  "preconf_walletRequests",
  "preconf_walletState",
  "preconf_walletPending",
  "preconf_resolveWalletRequest",
]);

export const isWalletControlMethod = (name: string): boolean => WALLET_CONTROL.has(name);

/** The wallet's methods: they run with the calling client's wallet (and a page may not call the control ones). */
export const isWalletMethod = (name: string): boolean => Object.hasOwn(walletMethods, name);

/** Methods that need a node besides the wallet's state: they run on the client's chain (4901 when it has none). */
const NEEDS_NODE = new Set(["eth_sendTransaction"]);

/** A node's services with this client's wallet (and its keys: it signs on every chain it simulates). */
export function contextFor(wallet: Wallet<NodeContext>, node: NodeContext): MethodContext {
  return { ...node, accounts: wallet.keys, wallet };
}

/**
 * The context a request of `wallet`'s client runs in: a wallet method with the client's wallet
 * (eth_sendTransaction on its chain's node), a node method on its chain's node, and EIP-1193 4901
 * when that chain has no node. Refuses the test's methods to a page (4100).
 */
export function routeContext(wallet: Wallet<NodeContext>, name: string): MethodContext {
  if (isWalletControlMethod(name) && !wallet.trusted) throw unauthorized();
  if (isWalletMethod(name) && !NEEDS_NODE.has(name)) return contextFor(wallet, wallet.ownContext);
  const node = wallet.activeNode();
  if (node === undefined) throw chainDisconnected(wallet.activeChainId);
  return contextFor(wallet, node);
}
