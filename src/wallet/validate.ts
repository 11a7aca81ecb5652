/**
 * Params schemas of the simulated wallet's methods (docs/behaviour.md#wallet-methods): EIP-3085 chain data, EIP-747
 * assets, chain switches, permissions and signing requests. Parsed values are normalised
 * (lower-case chain ids, EIP-55 addresses), so the wallet never re-checks its input.
 */
import { isValidChecksumAddress, toChecksumAddress } from "@ethereumjs/util";
import { z } from "zod";

import { ADDRESS_PATTERN, HEX_DIGITS_PATTERN } from "../node/common/hex.ts";
import { invalidParams } from "../protocol/errors.ts";
import { fieldOf, parseValid, positional } from "../protocol/params.ts";

import type { Hex } from "../node/common/types.ts";

/** The largest chain id MetaMask accepts: (2^53 - 1) / 2 - 36, so `v` stays a safe integer (EIP-155). */
export const MAX_CHAIN_ID = 0xfffffffffffecn;

/** Keys whose value is `undefined` count as absent (viem sends `blockExplorerUrls: undefined`). */
function withoutUndefined(value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined));
}

export const chainId = z
  .string({ required_error: "missing chain id", invalid_type_error: "expected a 0x-prefixed hex string" })
  .superRefine((value, ctx) => {
    // One issue per value: later checks assume the earlier ones passed.
    const reason = !HEX_DIGITS_PATTERN.test(value)
      ? "expected a 0x-prefixed hex string"
      : /^0x0/.test(value)
        ? "expected no leading zeros and a chain id above 0"
        : BigInt(value) > MAX_CHAIN_ID
          ? "chain id exceeds 0xfffffffffffec"
          : undefined;
    if (reason !== undefined) ctx.addIssue({ code: z.ZodIssueCode.custom, message: reason });
  })
  .transform((value) => value.toLowerCase() as Hex);

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Bounds on what a page can make the wallet store and log (our choice, in
 * docs/wallet-personalities.md): a name, a URL, a list of URLs, a token image.
 */
export const WALLET_LIMITS = { nameChars: 128, urlChars: 2048, urlsPerList: 32, imageChars: 256 * 1024 } as const;

function parsedUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

const boundedUrl = z
  .string({ invalid_type_error: "expected a URL string" })
  .max(WALLET_LIMITS.urlChars, `a URL must be at most ${WALLET_LIMITS.urlChars} characters`);

const httpsUrl = boundedUrl.refine((value) => parsedUrl(value)?.protocol === "https:", "expected a valid https: URL");

/** `https:`, or `http:` for a local node (a dev chain is usually on 127.0.0.1). */
const rpcUrl = boundedUrl.refine((value) => {
  const url = parsedUrl(value);
  return url !== undefined && (url.protocol === "https:" || (url.protocol === "http:" && LOCAL_HOSTS.has(url.hostname)));
}, "expected a valid https: URL (http: only for localhost, 127.0.0.1 or [::1])");

const urlList = (item: z.ZodTypeAny, what: string) =>
  z.array(item, { invalid_type_error: `expected an array of ${what}` }).max(WALLET_LIMITS.urlsPerList, `at most ${WALLET_LIMITS.urlsPerList} ${what}`);

const nonEmptyString = (what: string) =>
  z
    .string({ required_error: `missing ${what}`, invalid_type_error: `expected ${what} to be a string` })
    .min(1, `${what} must not be empty`)
    .max(WALLET_LIMITS.nameChars, `${what} must be at most ${WALLET_LIMITS.nameChars} characters`);

const decimals = z
  .number({ required_error: "missing decimals", invalid_type_error: "expected decimals to be a number" })
  .int("expected an integer number of decimals")
  .min(0, "decimals must not be negative")
  .max(36, "decimals must be at most 36");

const nativeCurrency = z.preprocess(
  withoutUndefined,
  z
    .object(
      {
        name: nonEmptyString("currency name"),
        symbol: z
          .string({ required_error: "missing currency symbol", invalid_type_error: "expected the currency symbol to be a string" })
          .min(1, "currency symbol must not be empty")
          .max(6, "currency symbol must be at most 6 characters"),
        decimals,
      },
      { required_error: "missing native currency", invalid_type_error: "expected a native currency object" },
    )
    .strict(),
);

/** EIP-3085 `chainData`; any key not listed is invalid. */
export const chainData = z.preprocess(
  withoutUndefined,
  z
    .object(
      {
        chainId,
        chainName: nonEmptyString("chain name"),
        nativeCurrency,
        rpcUrls: urlList(rpcUrl, "RPC URLs").min(1, "expected at least one RPC URL"),
        blockExplorerUrls: urlList(httpsUrl, "block explorer URLs").optional(),
        iconUrls: urlList(httpsUrl, "icon URLs").optional(),
      },
      { required_error: "missing chain data", invalid_type_error: "expected a chain data object" },
    )
    .strict(),
);

export type ChainData = z.output<typeof chainData>;

export const addEthereumChainParams = positional(chainData);

/** An address in one case, or in mixed case with a valid EIP-55 checksum (MetaMask's HexChecksumAddressStruct too). */
export const passesEip55 = (address: string): boolean => {
  const digits = address.slice(2);
  return digits === digits.toLowerCase() || digits === digits.toUpperCase() || isValidChecksumAddress(address);
};

/** `0x` + 40 hex; an address in mixed case must pass its EIP-55 checksum. Stored checksummed. */
const tokenAddress = z
  .string({ required_error: "missing token address", invalid_type_error: "expected the token address to be a string" })
  .regex(ADDRESS_PATTERN, "expected a 0x-prefixed 20-byte (42-character) hex address")
  .refine(passesEip55, "invalid EIP-55 checksum")
  .transform((value) => toChecksumAddress(value));

/**
 * A token image a wallet will render: `https:` or an inline `data:image/` URI only (never
 * `javascript:`, `data:text/html` or `file:`), and bounded in size.
 */
const imageUrl = z
  .string({ invalid_type_error: "expected the image to be a URL string" })
  .max(WALLET_LIMITS.imageChars, `the image must be at most ${WALLET_LIMITS.imageChars} characters`)
  .refine((value) => {
    const url = parsedUrl(value);
    return url !== undefined && (url.protocol === "https:" || (url.protocol === "data:" && /^data:image\//i.test(value)));
  }, "expected an https: or data:image/ URL");

/** EIP-747 `{ type, options }`; unknown option keys are ignored (stripped). */
const watchedAsset = z.object(
  {
    type: z.literal("ERC20", { errorMap: () => ({ message: 'the only supported asset type is "ERC20"' }) }),
    options: z.preprocess(
      withoutUndefined,
      z.object(
        {
          address: tokenAddress,
          symbol: z
            .string({ required_error: "missing token symbol", invalid_type_error: "expected the token symbol to be a string" })
            .min(1, "token symbol must not be empty")
            .max(11, "token symbol must be at most 11 characters"),
          decimals,
          image: imageUrl.optional(),
        },
        { required_error: "missing token options", invalid_type_error: "expected a token options object" },
      ),
    ),
  },
  { required_error: "missing asset", invalid_type_error: "expected an object { type, options }" },
);

export type WatchedAssetParams = z.output<typeof watchedAsset>;

/** Object params, or (for Hardhat's provider, which refuses object params) `[object]`. */
export const watchAssetParams = z.preprocess((value) => {
  if (Array.isArray(value) && value.length === 1) return value[0];
  return value;
}, watchedAsset);

export const switchEthereumChainParams = positional(
  z.object({ chainId }, { required_error: "missing { chainId }", invalid_type_error: "expected an object { chainId }" }).strict(),
);

/**
 * EIP-2255: `[{ eth_accounts: {} }]`, and MetaMask's `endowment:permitted-chains` (one grant covers
 * both, @metamask/eip1193-permission-middleware); any other permission is not one this wallet grants.
 */
export const PERMISSION_NAMES = ["eth_accounts", "endowment:permitted-chains"] as const;
export const requestPermissionsParams = positional(
  z
    .object(
      { eth_accounts: z.object({}).passthrough().optional(), "endowment:permitted-chains": z.object({}).passthrough().optional() },
      { required_error: "missing permissions", invalid_type_error: "expected a permissions object" },
    )
    .strict("the only permissions this wallet grants are eth_accounts and endowment:permitted-chains")
    .refine((requested) => Object.keys(requested).length > 0, "expected at least one permission"),
);

export const walletAddress = z
  .string({ required_error: "missing address", invalid_type_error: "expected an address string" })
  .regex(ADDRESS_PATTERN, "expected a 0x-prefixed 20-byte address")
  .transform((value) => value.toLowerCase() as Hex);

/** JSON params of a typed-data request may come as their JSON text (MetaMask accepts both). */
const jsonText = (value: unknown): unknown => {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
};

/** eth_signTypedData (v1, MetaMask's legacy typed data) `[typedData, address]`: an array of `{ type, name, value }`. */
export const signTypedDataV1Params = positional(
  z.preprocess(
    jsonText,
    z
      .array(z.object({ type: z.string().min(1), name: z.string().min(1), value: z.unknown() }).strict(), {
        required_error: "missing typed data",
        invalid_type_error: "expected legacy typed data: an array of { type, name, value }",
      })
      .min(1, "expected at least one typed value")
      .max(256, "at most 256 typed values"),
  ),
  walletAddress,
);

/**
 * ERC-7846 wallet_connect `[{ version?, capabilities?, chainIds? }]` (params optional), as Base
 * Account takes it; capabilities other than signInWithEthereum are accepted and not acted on.
 */
export const walletConnectParams = positional(
  z
    .object({
      version: z.string().optional(),
      capabilities: z
        .object({
          signInWithEthereum: z
            .object({ nonce: z.string().min(1).max(256), chainId: z.string().regex(HEX_DIGITS_PATTERN, "expected a 0x chain id") })
            .passthrough()
            .optional(),
        })
        .passthrough()
        .optional(),
      chainIds: z.array(z.string().regex(HEX_DIGITS_PATTERN, "expected 0x chain ids")).max(64).optional(),
    })
    .strict()
    .optional(),
);

/** personal_sign `[message, address]`: hex data, or a UTF-8 string as MetaMask accepts. */
export const personalSignParams = positional(z.string({ required_error: "missing message", invalid_type_error: "expected a message string" }), walletAddress);

/** eth_signTypedData_v4 `[address, typedData]`; typed data as a JSON string or an object. */
export const signTypedDataParams = positional(
  walletAddress,
  z.preprocess(
    jsonText,
    z.object(
      {
        types: z.record(z.array(z.object({ name: z.string(), type: z.string() }))),
        primaryType: z.string(),
        domain: z.record(z.unknown()),
        message: z.record(z.unknown()),
      },
      { required_error: "missing typed data", invalid_type_error: "expected EIP-712 typed data (an object or its JSON)" },
    ),
  ),
);

/**
 * Validates as `dispatch` does (the first zod issue becomes `-32602` with `{ field, reason }`).
 * Wallet methods validate inside their handler so that malformed requests are logged too.
 */
export function parseParams<S extends z.ZodTypeAny>(schema: S, params: unknown): z.output<S> {
  let parsed: z.SafeParseReturnType<unknown, z.output<S>>;
  try {
    // Valid params through the schema's fast path when it has one (positional: protocol/params.ts), else zod.
    parsed = (parseValid(schema, params) as z.SafeParseReturnType<unknown, z.output<S>> | undefined) ?? schema.safeParse(params);
  } catch (error) {
    // In process, params can be anything: a getter or a proxy that throws is unreadable params.
    throw invalidParams("params", error instanceof Error ? error.message : String(error));
  }
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw invalidParams(fieldOf(issue.path), issue.message);
  }
  return parsed.data;
}
