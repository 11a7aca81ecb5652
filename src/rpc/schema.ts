/**
 * zod schemas for the JSON-RPC params (execution-apis "base-types"): block parameters, call
 * objects, storage slots and the like, built from the engine's value parsers (quantities, bytes,
 * addresses, hashes: src/node/common/values.ts) into the engine's types (src/node/common/types.ts). Parsed values
 * are what the services use (bigint, Uint8Array, lower-case hex), so handlers never re-check input.
 */
import { z } from "zod";

import { NAMED_TAGS } from "../node/common/types.ts";
import { address, bytes, hash, quantity, uint64 } from "../node/common/values.ts";

import type { BlockSelector, CallRequest } from "../node/common/types.ts";

// The value types and their parsers are the engine's vocabulary (src/node/common/types.ts, src/node/common/values.ts).
export type { BlockSelector, CallRequest, Hex, NamedTag } from "../node/common/types.ts";
export { LATEST, NAMED_TAGS, PENDING } from "../node/common/types.ts";
export { address, bytes, hash, quantity, uint64 } from "../node/common/values.ts";

/** A tx nonce: below 2^64 - 1 (EIP-2681). */
export const txNonce = quantity.refine((value) => value < 0xffffffffffffffffn, "nonce must be below 2^64 - 1 (EIP-2681)");

/** A quantity that must fit a JavaScript number (indices, counts, timeouts). */
export const smallQuantity = quantity.refine((value) => value <= BigInt(Number.MAX_SAFE_INTEGER), "quantity too large").transform(Number);

/**
 * A storage slot: hex of up to 32 bytes, leading zeros allowed (viem pads mapping slots to 32
 * bytes; go-ethereum's eth_getStorageAt decodes the key as a hash, not a quantity).
 */
export const storageSlot = z
  .string({ invalid_type_error: "expected a hex storage slot string" })
  .regex(/^0x[0-9a-fA-F]{1,64}$/, "expected a 0x-prefixed hex storage slot of at most 32 bytes")
  .transform((value) => BigInt(value));

/**
 * A block number as a JSON number (`5`), which Hardhat's and anvil's eth_getBlockByNumber accept
 * beside the hex quantity (`"0x5"`); accepted wherever a block number is. A whole number, at most
 * 2^53 - 1 (a JSON number past that is not exact).
 */
export const jsonBlockNumber = z
  .number({ invalid_type_error: "expected a block number" })
  .int("a block number must be a whole number")
  .nonnegative("a block number must not be negative")
  .safe("a block number given as a JSON number must be at most 2^53 - 1")
  .transform(BigInt);

/** A block number: a hex quantity or a JSON number. */
export const blockNumber = z.union([quantity, jsonBlockNumber]);

/** A block number, a named tag, or an EIP-1898 object (`{ blockNumber }` / `{ blockHash }`). */
export const blockSelector: z.ZodType<BlockSelector, z.ZodTypeDef, unknown> = z.union(
  [
    z.enum(NAMED_TAGS).transform((tag): BlockSelector => ({ kind: "tag", tag })),
    // A 32-byte string is a block hash (as go-ethereum reads it), never a number.
    hash.transform((value): BlockSelector => ({ kind: "hash", hash: value, requireCanonical: false })),
    blockNumber.transform((number): BlockSelector => ({ kind: "number", number })),
    z
      .object({ blockNumber: z.union([blockNumber, z.enum(NAMED_TAGS)]) })
      .strict()
      .transform(
        ({ blockNumber }): BlockSelector => (typeof blockNumber === "bigint" ? { kind: "number", number: blockNumber } : { kind: "tag", tag: blockNumber }),
      ),
    z
      .object({ blockHash: hash, requireCanonical: z.boolean().optional() })
      .strict()
      .transform(
        ({ blockHash, requireCanonical }): BlockSelector => ({
          kind: "hash",
          hash: blockHash,
          requireCanonical: requireCanonical ?? false,
        }),
      ),
  ],
  { errorMap: () => ({ message: "expected a block number, a block tag, a block hash or an EIP-1898 object" }) },
);

const accessListItem = z.object({ address, storageKeys: z.array(hash) });

const authorization = z.object({
  chainId: quantity,
  address,
  nonce: uint64,
  yParity: quantity.optional(),
  v: quantity.optional(),
  r: quantity,
  s: quantity,
});

/**
 * The transaction object of `eth_call` and `eth_estimateGas` (the interface's fields plus the fields clients
 * send: `input`, `nonce`, `accessList`, `type`, `authorizationList`, blob fields). Unknown keys are
 * ignored, as go-ethereum does.
 */
export const transactionFields = z.object({
  from: address.optional(),
  to: address.nullable().optional(),
  gas: uint64.optional(),
  gasPrice: quantity.optional(),
  maxFeePerGas: quantity.optional(),
  maxPriorityFeePerGas: quantity.optional(),
  maxFeePerBlobGas: quantity.optional(),
  value: quantity.optional(),
  data: bytes.optional(),
  input: bytes.optional(),
  nonce: txNonce.optional(),
  type: quantity.optional(),
  chainId: quantity.optional(),
  accessList: z.array(accessListItem).optional(),
  authorizationList: z.array(authorization).min(1, "an EIP-7702 authorization list must not be empty").optional(),
  blobVersionedHashes: z.array(hash).optional(),
});

/** Fee and data fields that contradict each other (go-ethereum's TransactionArgs checks). */
export function checkTransactionFields(
  tx: Pick<z.output<typeof transactionFields>, "gasPrice" | "maxFeePerGas" | "maxPriorityFeePerGas" | "data" | "input">,
  ctx: z.RefinementCtx,
): void {
  if (tx.gasPrice !== undefined && (tx.maxFeePerGas !== undefined || tx.maxPriorityFeePerGas !== undefined)) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      message: "both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified",
      path: ["gasPrice"],
    });
  }
  if (tx.data !== undefined && tx.input !== undefined && !equalBytes(tx.data, tx.input)) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      message: "both data and input specified and they are different",
      path: ["input"],
    });
  }
  if (tx.maxFeePerGas !== undefined && tx.maxPriorityFeePerGas !== undefined && tx.maxPriorityFeePerGas > tx.maxFeePerGas) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      message: "maxFeePerGas must be greater than or equal to maxPriorityFeePerGas",
      path: ["maxPriorityFeePerGas"],
    });
  }
}

/** The engine's CallRequest (src/node/common/types.ts): the annotation keeps the schema and the type in step. */
export const callRequest: z.ZodType<CallRequest, z.ZodTypeDef, unknown> = transactionFields.superRefine(checkTransactionFields);

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
