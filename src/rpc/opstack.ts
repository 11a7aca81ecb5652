/** Dev methods of the OP-stack profiles (docs/profiles.md). */
import { bigIntToHex } from "@ethereumjs/util";
import { z } from "zod";

import { ErrorCode, RpcError } from "./errors.ts";
import { quantity } from "./schema.ts";
import { method, positional } from "./table.ts";

import type { L1FeeParams } from "../node/profiles/profiles.ts";
import type { MethodContext } from "./context.ts";
import type { MethodTable } from "./table.ts";

const uint16 = quantity.refine((value) => value < 1n << 16n, "must fit 16 bits").transform(Number);
const uint32 = quantity.refine((value) => value < 1n << 32n, "must fit 32 bits").transform(Number);
const uint64 = quantity.refine((value) => value < 1n << 64n, "must fit 64 bits");
const uint256 = quantity.refine((value) => value < 1n << 256n, "must fit 256 bits");

const l1FeesParams = z
  .object({
    baseFee: uint256.optional(),
    blobBaseFee: uint256.optional(),
    baseFeeScalar: uint32.optional(),
    blobBaseFeeScalar: uint32.optional(),
    operatorFeeScalar: uint32.optional(),
    operatorFeeConstant: uint64.optional(),
    daFootprintGasScalar: uint16.optional(),
  })
  .strict();

const formatL1 = (l1: L1FeeParams) => ({
  baseFee: bigIntToHex(l1.baseFee),
  blobBaseFee: bigIntToHex(l1.blobBaseFee),
  baseFeeScalar: bigIntToHex(BigInt(l1.baseFeeScalar)),
  blobBaseFeeScalar: bigIntToHex(BigInt(l1.blobBaseFeeScalar)),
  operatorFeeScalar: bigIntToHex(BigInt(l1.operatorFeeScalar)),
  operatorFeeConstant: bigIntToHex(l1.operatorFeeConstant),
  daFootprintGasScalar: bigIntToHex(BigInt(l1.daFootprintGasScalar)),
});

function opOf(ctx: MethodContext, name: string) {
  const op = ctx.chain.op;
  if (op === undefined)
    throw new RpcError(ErrorCode.methodNotFound, "Method not found", {
      method: name,
      reason: "only on OP-stack profiles (base, base-sepolia, optimism, unichain)",
    });
  return op;
}

export const opstackMethods: MethodTable = {
  /**
   * Sets the simulated L1's fees: the next L1-attributes deposit (the next block's first tx) writes
   * them to L1Block, and from then on the L1 data fee follows them. Fields left out keep their
   * value; answers the values now in force for the next block.
   */
  preconf_setL1Fees: method(positional(l1FeesParams), async ([change], ctx) => {
    const op = opOf(ctx, "preconf_setL1Fees");
    return ctx.chain.exclusive(async () => formatL1(op.setL1Fees(change)));
  }),
  /** The simulated L1's fees the next L1-attributes deposit will write. */
  preconf_getL1Fees: method(positional(), (_, ctx) => formatL1(opOf(ctx, "preconf_getL1Fees").l1)),
};
