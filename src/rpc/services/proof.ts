/**
 * eth_getProof (EIP-1186) as go-ethereum answers it (internal/ethapi/api.go GetProof, read at
 * v1.17.5): the storage keys are checked before any state is read, each key is echoed as given
 * when it was 32 bytes and as a quantity otherwise, a slot of an account without storage has an
 * empty proof. The proof is of the state the block names (node/state/proof.ts); `pending` proves the
 * pre-confirmed state, against the root the open block would seal with now (docs/behaviour.md).
 */
import { bigIntToHex, bytesToHex, setLengthLeft } from "@ethereumjs/util";
import { z } from "zod";

import { proveAccount } from "../../node/state/proof.ts";
import { LATEST } from "../schema.ts";
import { resolveOrThrow } from "./calls.ts";

import type { AccountProof } from "../../node/state/proof.ts";
import type { BlockSelector, Hex } from "../schema.ts";
import type { NodeContext } from "./context.ts";

/** go-ethereum's maxGetProofKeys: the most storage keys one request may ask for. */
export const MAX_PROOF_KEYS = 1024;

/** A storage key as the caller gave it: the slot, and whether it was given as 32 bytes. */
export interface StorageKey {
  slot: Uint8Array;
  as32Bytes: boolean;
}

/**
 * go-ethereum's decodeStorageKey: hex with or without `0x`, an odd digit count padded with a
 * leading 0, at most 32 bytes (its texts are the reasons).
 */
const storageKey = z.string({ invalid_type_error: "expected a hex storage key string" }).transform((given, ctx): StorageKey => {
  let digits = given.startsWith("0x") || given.startsWith("0X") ? given.slice(2) : given;
  if (digits.length % 2 === 1) digits = `0${digits}`;
  if (digits.length > 64) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: `storage key too long (want at most 32 bytes): ${JSON.stringify(given)}` });
    return z.NEVER;
  }
  if (!/^[0-9a-fA-F]*$/.test(digits)) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: `invalid hex in storage key: ${JSON.stringify(given)}` });
    return z.NEVER;
  }
  return { slot: setLengthLeft(Buffer.from(digits, "hex"), 32), as32Bytes: digits.length === 64 };
});

export const storageKeys = z.array(storageKey).superRefine((keys, ctx) => {
  if (keys.length > MAX_PROOF_KEYS) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: `too many storage keys requested (max ${MAX_PROOF_KEYS}, got ${keys.length})` });
  }
});

/** The key as go-ethereum echoes it: as given when 32 bytes, else as a quantity (the execution-apis spec's encoding). */
export const echoKey = (key: StorageKey): Hex => (key.as32Bytes ? bytesToHex(key.slot) : bigIntToHex(BigInt(bytesToHex(key.slot))));

/** go-ethereum's AccountResult, its fields in its order. */
export function formatProof(proof: AccountProof, keys: readonly StorageKey[]) {
  return {
    address: proof.address,
    accountProof: proof.accountProof,
    balance: bigIntToHex(proof.balance),
    codeHash: proof.codeHash,
    nonce: bigIntToHex(proof.nonce),
    storageHash: proof.storageHash,
    storageProof: proof.storageProof.map((item, i) => ({ key: echoKey(keys[i]!), value: bigIntToHex(item.value), proof: item.proof })),
  };
}

/** eth_getProof on the chain's own state. */
export async function getProof(ctx: NodeContext, address: Hex, keys: readonly StorageKey[], selector: BlockSelector | undefined) {
  const resolved = resolveOrThrow(ctx, selector ?? LATEST);
  // A snapshot of the live state when the block is the open one: the proof never holds up a fragment.
  const proof = await ctx.chain.withState(
    resolved,
    (vm) =>
      proveAccount(
        vm.stateManager,
        address,
        keys.map((key) => key.slot),
      ),
    { snapshot: true },
  );
  return formatProof(proof, keys);
}
