/**
 * zod parsers of the value types (execution-apis "base-types"): quantities without leading zeros,
 * even-length byte strings, addresses and hashes. They are the engine's, because its own formats
 * (state dumps, state overrides) are made of them; the JSON-RPC schema (src/rpc/schema.ts) builds
 * its params from the same parsers. Parsed values are what the engine uses (bigint, Uint8Array,
 * lower-case hex), so nothing re-checks them. Each also has a hand-written parser with the same
 * rule, for valid params on the hot methods (src/protocol/params.ts, withLeafParser).
 */
import { z } from "zod";

import { parsedAs, withLeafParser } from "../../protocol/params.ts";
import { ADDRESS_PATTERN, BYTES_PATTERN, BYTES32_PATTERN, bytesOfCheckedHex, QUANTITY_PATTERN } from "./hex.ts";

import type { Hex } from "./types.ts";

/** An unsigned integer up to 2^256 - 1, as a 0x-prefixed hex string without leading zeros. */
export const quantity = withLeafParser(
  z
    .string({ invalid_type_error: "expected a hex quantity string" })
    .regex(QUANTITY_PATTERN, "expected a 0x-prefixed hex quantity without leading zeros")
    .refine((value) => value.length <= 66, "quantity exceeds 256 bits")
    .transform((value) => BigInt(value)),
  (value) => (typeof value === "string" && value.length <= 66 && QUANTITY_PATTERN.test(value) ? parsedAs(BigInt(value)) : undefined),
);

/** A quantity of at most 64 bits (gas, as go-ethereum's hexutil.Uint64). */
export const uint64 = quantity.refine((value) => value <= 0xffffffffffffffffn, "quantity exceeds 64 bits");

export const bytes = withLeafParser(
  z
    .string({ invalid_type_error: "expected a hex data string" })
    .regex(BYTES_PATTERN, "expected 0x-prefixed hex data of even length")
    .transform((value) => bytesOfCheckedHex(value)),
  (value) => (typeof value === "string" && BYTES_PATTERN.test(value) ? parsedAs(bytesOfCheckedHex(value)) : undefined),
);

export const address = withLeafParser(
  z
    .string({ invalid_type_error: "expected an address string" })
    .regex(ADDRESS_PATTERN, "expected a 0x-prefixed 20-byte address")
    .transform((value) => value.toLowerCase() as Hex),
  (value) => (typeof value === "string" && ADDRESS_PATTERN.test(value) ? parsedAs(value.toLowerCase()) : undefined),
);

export const hash = withLeafParser(
  z
    .string({ invalid_type_error: "expected a hash string" })
    .regex(BYTES32_PATTERN, "expected a 0x-prefixed 32-byte hash")
    .transform((value) => value.toLowerCase() as Hex),
  (value) => (typeof value === "string" && BYTES32_PATTERN.test(value) ? parsedAs(value.toLowerCase()) : undefined),
);
