/**
 * Real signatures from the dev keys: EIP-191 (`personal_sign`) and EIP-712 v4, hashed with viem's
 * `hashMessage` / `hashTypedData` (the exact digests wallets produce) and signed with noble.
 */
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { secp256k1 } from "@noble/curves/secp256k1.js";

import { viem } from "../lazyViem.ts";
import { BYTES_PATTERN } from "../node/common/hex.ts";

import type { Hex } from "../node/common/types.ts";

/** `personal_sign` data: 0x-hex is raw bytes, anything else is UTF-8 text (as MetaMask reads it). */
export function personalMessageDigest(message: string): Hex {
  const isHex = BYTES_PATTERN.test(message);
  const { hashMessage } = viem();
  return isHex ? hashMessage({ raw: message as Hex }) : hashMessage(message);
}

/** Throws (viem's error) when the typed data is malformed, so callers validate before prompting. */
export function typedDataDigest(typedData: {
  types: Record<string, { name: string; type: string }[]>;
  primaryType: string;
  domain: Record<string, unknown>;
  message: Record<string, unknown>;
}): Hex {
  // The request's own EIP712Domain type wins over one viem would derive from the domain.
  const { domain, types, primaryType, message } = typedData;
  return viem().hashTypedData<Record<string, unknown>, string>({ domain, types, primaryType, message });
}

/** A 65-byte `r || s || v` signature with v = 27 + recovery, as eth_sign-style methods answer. */
export function signDigest(digest: Hex, privateKey: Hex): Hex {
  const recovered = secp256k1.sign(hexToBytes(digest), hexToBytes(privateKey), { prehash: false, format: "recovered" });
  const signature = new Uint8Array(65);
  signature.set(recovered.subarray(1, 65), 0);
  signature[64] = 27 + recovered[0]!;
  return bytesToHex(signature);
}

/**
 * eth_signTypedData (v1): MetaMask's legacy typed data, an array of `{ type, name, value }`, hashed
 * as @metamask/eth-sig-util's typedSignatureHash: keccak256 of the packed hashes of the schema
 * ("type name" strings) and of the values (packed by their types).
 */
export function legacyTypedDataDigest(items: readonly { type: string; name: string; value?: unknown }[]): Hex {
  const { encodePacked, keccak256 } = viem();
  const types = items.map((item) => item.type);
  const values = items.map((item) => packedValue(item.type, item.value));
  const schema = keccak256(
    encodePacked(
      items.map(() => "string"),
      items.map((item) => `${item.type} ${item.name}`),
    ),
  );
  const data = keccak256(encodePacked(types, values));
  return keccak256(encodePacked(["bytes32", "bytes32"], [schema, data]));
}

/** A legacy typed value as encodePacked takes it: integers as bigint (numbers, decimal or 0x strings), bytes as hex. */
function packedValue(type: string, value: unknown): unknown {
  if (/^u?int\d*$/.test(type)) {
    if (typeof value !== "number" && typeof value !== "string" && typeof value !== "bigint") throw new TypeError(`expected an integer for ${type}`);
    return BigInt(value);
  }
  if (type === "bool") return value === true || value === "true";
  if (type === "string") return String(value);
  if (typeof value !== "string") throw new TypeError(`expected a hex string for ${type}`);
  return value;
}

/** eth_signTypedData_v3 has no arrays (eth-sig-util: "Arrays are unimplemented in encodeData; use V4 extension"). */
export function typesHaveArrays(types: Record<string, { name: string; type: string }[]>): boolean {
  return Object.values(types).some((fields) => fields.some((field) => field.type.endsWith("]")));
}
