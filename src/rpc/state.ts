/**
 * State dump and load over JSON-RPC: `preconf_dumpState` answers the dump object
 * (src/node/state/stateDump.ts), `preconf_loadState(dump)` replaces the chain by it and answers `true`.
 * The `anvil_` names take and give anvil's envelope, hex bytes of gzipped JSON (the content is
 * still our format); both load methods accept either form. Hardhat has no such methods.
 */
import { gunzipSync, gzipSync } from "node:zlib";

import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { z } from "zod";

import { StateDumpError, stateDumpSchema } from "../node/state/stateDump.ts";
import { invalidParams } from "./errors.ts";
import { method, positional } from "./table.ts";
import { BYTES_PATTERN } from "../node/common/hex.ts";

import type { ParsedStateDump } from "../node/state/stateDump.ts";
import type { MethodContext } from "./context.ts";
import type { Hex } from "./schema.ts";
import type { MethodTable } from "./table.ts";

/** Most bytes a gzipped dump may inflate to (64 MiB, ~13 times the 5 MiB body limit): a 1 MiB gzip bomb inflates to 500 MiB. */
export const MAX_INFLATED_DUMP_BYTES = 64 * 1024 * 1024;

/** A dump object, or hex bytes of its JSON, gzipped or not (anvil's envelope). */
const dumpParam = z.unknown().transform((value, ctx): ParsedStateDump => {
  let json: unknown = value;
  if (typeof value === "string") {
    try {
      if (!BYTES_PATTERN.test(value)) throw new Error("expected a dump object or 0x-prefixed hex bytes of its (gzipped) JSON");
      const bytes = hexToBytes(value as Hex);
      const text = bytes[0] === 0x1f && bytes[1] === 0x8b ? inflate(bytes) : bytes;
      json = JSON.parse(new TextDecoder().decode(text));
    } catch (error) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: error instanceof Error ? error.message : String(error) });
      return z.NEVER;
    }
  }
  const parsed = stateDumpSchema.safeParse(json);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, code: z.ZodIssueCode.custom });
    return z.NEVER;
  }
  return parsed.data;
});

function inflate(bytes: Uint8Array): Uint8Array {
  try {
    return gunzipSync(bytes, { maxOutputLength: MAX_INFLATED_DUMP_BYTES });
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
      throw new Error(`the gzipped dump inflates to more than ${MAX_INFLATED_DUMP_BYTES} bytes`);
    }
    throw error;
  }
}

async function load(ctx: MethodContext, dump: ParsedStateDump): Promise<true> {
  try {
    await ctx.chain.loadState(dump);
  } catch (error) {
    if (error instanceof StateDumpError) throw invalidParams(`params[0].${error.path}`, error.reason);
    throw error;
  }
  return true;
}

export const stateMethods: MethodTable = {
  preconf_dumpState: method(positional(), (_, ctx) => ctx.chain.dumpState()),
  preconf_loadState: method(positional(dumpParam), ([dump], ctx) => load(ctx, dump)),
  anvil_dumpState: method(positional(), async (_, ctx) => bytesToHex(gzipSync(JSON.stringify(await ctx.chain.dumpState())))),
  anvil_loadState: method(positional(dumpParam), ([dump], ctx) => load(ctx, dump)),
};
