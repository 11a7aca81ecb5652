/**
 * State dump and load (`preconf_dumpState` / `preconf_loadState`, the `state` option,
 * `preconf node --dump-state / --load-state`): a versioned JSON document that holds everything a
 * chain needs to continue where it stopped, and a restore that rebuilds a chain from it without
 * re-executing anything (dumpCapture.ts writes it, dumpRestore.ts loads it).
 *
 * Why not re-execute the blocks: dev edits (hardhat_setBalance...) make the live state differ from
 * what the blocks give, so `accounts` is the authority for the latest (pre-confirmed) state; blocks
 * and receipts are stored as they are and only indexed. The state of blocks before the dump is not
 * kept, so reads at those blocks answer "historical state not available".
 *
 * The format is defined once, as the zod schema below: the document's type (`StateDump`) is what
 * the schema takes in, the loaded one (`ParsedStateDump`) what it gives out.
 */
import { z } from "zod";

import { address, bytes, hash, quantity } from "../common/values.ts";

import type { GethGenesis } from "@ethereumjs/common";
import type { Hex } from "../common/types.ts";

export const STATE_DUMP_FORMAT = "hardhat-preconf/state";
export const STATE_DUMP_VERSION = 1;

// ── The format (version 1); a wrong shape is -32602 naming the field ───────────────────────────

/** A field written as a hex string: the document holds a `Hex`, the parsed dump what `schema` makes of it. */
const hex = <Out>(schema: z.ZodType<Out, z.ZodTypeDef, string>) => schema as unknown as z.ZodType<Out, z.ZodTypeDef, Hex>;

/** Quantities without leading zeros. */
const qty = hex(quantity);
/** 32-byte words: hashes, storage slots and values. */
const word = hex(hash);
const data = hex(bytes);
const addr = hex(address);
const count = z.number().int().nonnegative().safe();

/** One account: quantities without leading zeros; storage slots and values as 32-byte words. */
const dumpAccount = z.object({ balance: qty, nonce: qty, code: data, storage: z.record(word, word) }).strict();

const dumpLog = z.object({ address: addr, topics: z.array(word), data }).strict();

/** What a receipt needs beyond the tx itself. `root` replaces `status` before Byzantium. */
const dumpReceipt = z
  .object({
    from: addr,
    status: z.enum(["0x0", "0x1"]),
    root: word.optional(),
    gasUsed: qty,
    cumulativeGasUsed: qty,
    effectiveGasPrice: qty,
    contractAddress: addr.nullable(),
    /** Index of the fragment that pre-confirmed the tx (0 for imported blocks). */
    fragment: count,
    logs: z.array(dumpLog),
    blobGasUsed: qty.optional(),
  })
  .strict();

const dumpBlock = z
  .object({
    /** The block as RLP (header, txs, uncles, withdrawals). */
    rlp: data,
    /** Fragments the block was built in (0 for the genesis and imported blocks). */
    fragments: count,
    /** One per tx of the block, in order. */
    receipts: z.array(dumpReceipt),
  })
  .strict();

const geth = z.object({ config: z.object({ chainId: z.number().int().positive() }).passthrough(), alloc: z.record(z.unknown()) }).passthrough();

/** The geth genesis the chain started from (its fork schedule names the chain's rules), kept as given: the next dump writes it back unchanged. */
const genesis = z
  .unknown()
  .superRefine((value, ctx) => {
    const parsed = geth.safeParse(value);
    if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, code: z.ZodIssueCode.custom });
  })
  .transform((value) => structuredClone(value) as GethGenesis) as unknown as z.ZodType<GethGenesis, z.ZodTypeDef, GethGenesis>;

export const stateDumpSchema = z
  .object({
    format: z.literal(STATE_DUMP_FORMAT, { errorMap: () => ({ message: `expected "${STATE_DUMP_FORMAT}"` }) }),
    version: z.literal(STATE_DUMP_VERSION, {
      errorMap: () => ({ message: `unsupported dump version (this hardhat-preconf reads version ${STATE_DUMP_VERSION})` }),
    }),
    chainId: qty,
    genesis,
    head: z
      .object({
        number: qty,
        hash: word,
        stateRoot: word,
        /** Accounts whose state at the head block differs from `accounts` (`null`: absent there). */
        accounts: z.record(addr, dumpAccount.nullable()),
      })
      .strict(),
    /** evm_increaseTime's offset (seconds) and evm_setNextBlockTimestamp's pending value. */
    time: z.object({ offset: qty, nextTimestamp: qty.nullable() }).strict(),
    /** Every sealed block, the genesis first. */
    blocks: z.array(dumpBlock).min(1, "must hold the genesis block at least"),
    /** The open block, when it has pre-confirmed fragments. */
    open: z
      .object({
        header: z
          .object({
            number: qty,
            parentHash: word,
            timestamp: qty,
            gasLimit: qty,
            baseFeePerGas: qty,
            coinbase: addr,
            prevRandao: word,
            excessBlobGas: qty.nullable(),
          })
          .strict(),
        fragments: count.min(1),
        transactions: z.array(dumpReceipt.extend({ raw: data })),
      })
      .strict()
      .nullable(),
    /** Pooled txs in arrival order; `from` is taken as the sender (impersonated txs have no real signature). */
    pool: z.array(z.object({ raw: data, from: addr }).strict()),
    /** The latest (pre-confirmed) state: every account, sorted by address. */
    accounts: z.record(addr, dumpAccount),
    /**
     * A forked chain's dump: the upstream block it forks (not the URL, which may hold a key). Its
     * first block is the fork block, `accounts` hold only what the fork wrote (docs/forking.md), and
     * it loads only into a fork of that same block.
     */
    fork: z.object({ blockNumber: qty, blockHash: word }).strict().optional(),
  })
  .strict();

/** The dump as a JSON document. */
export type StateDump = z.input<typeof stateDumpSchema>;
export type DumpAccount = z.input<typeof dumpAccount>;
export type DumpLog = z.input<typeof dumpLog>;
export type DumpReceipt = z.input<typeof dumpReceipt>;
export type DumpBlock = z.input<typeof dumpBlock>;

/** The dump as loaded: quantities are bigints, data bytes, addresses and hashes lower case. */
export type ParsedStateDump = z.output<typeof stateDumpSchema>;
export type ParsedAccount = z.output<typeof dumpAccount>;
export type ParsedReceipt = z.output<typeof dumpReceipt>;

/** A dump that has the right shape but cannot be loaded; `path` is relative to the dump. */
export class StateDumpError extends Error {
  readonly path: string;
  readonly reason: string;

  constructor(path: string, reason: string) {
    super(`state dump ${path}: ${reason}`);
    this.name = "StateDumpError";
    this.path = path;
    this.reason = reason;
  }
}
