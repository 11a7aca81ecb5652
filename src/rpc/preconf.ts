/** Control of the sequencer over JSON-RPC: the same as `provider.preconf` in process. */
import { bigIntToHex, intToHex } from "@ethereumjs/util";

import { smallQuantity } from "./schema.ts";
import { method, positional } from "./table.ts";

import type { MethodTable } from "./table.ts";

/** Each interval may be a fragment and every tenth a block: more would stall the node for minutes. */
const MAX_ADVANCE = 100_000;

export const preconfMethods: MethodTable = {
  /** Produces one fragment now; answers its block number and index. */
  preconf_fragment: method(positional(), async (_, ctx) => {
    const fragment = await ctx.chain.produceFragment();
    return {
      blockNumber: bigIntToHex(fragment.blockNumber),
      index: intToHex(fragment.index),
      transactions: fragment.transactions.map((record) => record.hash),
    };
  }),
  /** Seals the open block now; answers the sealed block's number and hash. */
  preconf_seal: method(positional(), async (_, ctx) => {
    const sealed = await ctx.chain.seal();
    return { number: bigIntToHex(sealed.block.header.number), hash: sealed.hash };
  }),
  /** Moves the clock by n fragment intervals (1 by default; at most 100,000, as hardhat_mine's blocks). */
  preconf_advance: method(
    positional(smallQuantity.refine((count) => count <= MAX_ADVANCE, `at most ${MAX_ADVANCE} intervals per call`).optional()),
    async ([count], ctx) => {
      await ctx.sequencer.advance(count ?? 1);
      return null;
    },
  ),
};
