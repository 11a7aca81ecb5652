/**
 * The engine's vocabulary: the value types its callers speak (0x hex, block selectors, the fields
 * of a call). The JSON-RPC layer parses requests into these (src/rpc/schema.ts); the engine never
 * imports from it (test/layering.test.ts).
 */

/** 0x-prefixed hex: quantities, byte strings, addresses and hashes. */
export type Hex = `0x${string}`;

export const NAMED_TAGS = ["latest", "pending", "earliest", "safe", "finalized"] as const;
export type NamedTag = (typeof NAMED_TAGS)[number];

/** What a block parameter resolves to before the chain looks it up. */
export type BlockSelector = { kind: "tag"; tag: NamedTag } | { kind: "number"; number: bigint } | { kind: "hash"; hash: Hex; requireCanonical: boolean };

export const LATEST: BlockSelector = { kind: "tag", tag: "latest" };
export const PENDING: BlockSelector = { kind: "tag", tag: "pending" };

/** An EIP-2930 access list entry. */
export interface AccessListItem {
  address: Hex;
  storageKeys: Hex[];
}

/** An EIP-7702 authorization as a call names it (`yParity`, or `v` as some clients send it). */
export interface CallAuthorization {
  chainId: bigint;
  address: Hex;
  nonce: bigint;
  yParity?: bigint | undefined;
  v?: bigint | undefined;
  r: bigint;
  s: bigint;
}

/**
 * The transaction of a dry run (`eth_call`, `eth_estimateGas`, `debug_traceCall`): every field
 * optional, as go-ethereum's TransactionArgs. Addresses and hashes are lower-case hex.
 */
export interface CallRequest {
  from?: Hex | undefined;
  to?: Hex | null | undefined;
  gas?: bigint | undefined;
  gasPrice?: bigint | undefined;
  maxFeePerGas?: bigint | undefined;
  maxPriorityFeePerGas?: bigint | undefined;
  maxFeePerBlobGas?: bigint | undefined;
  value?: bigint | undefined;
  data?: Uint8Array | undefined;
  input?: Uint8Array | undefined;
  nonce?: bigint | undefined;
  type?: bigint | undefined;
  chainId?: bigint | undefined;
  accessList?: AccessListItem[] | undefined;
  authorizationList?: CallAuthorization[] | undefined;
  blobVersionedHashes?: Hex[] | undefined;
}
