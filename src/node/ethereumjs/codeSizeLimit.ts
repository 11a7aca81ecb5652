/**
 * Code size limits other than EIP-170's 24,576 bytes and EIP-3860's 49,152 bytes of initcode:
 * Hardhat's `allowUnlimitedContractSize` and anvil's `--code-size-limit` (docs/options.md). As in
 * revm (which both Hardhat's EDR and anvil run), the initcode limit is twice the code limit, and
 * "unlimited" lifts both.
 *
 * Patch (@ethereumjs/common 10.1.3): the EVM (contract creation, CREATE/CREATE2) and the tx
 * constructor read the limits as `common.param("maxCodeSize")` / `common.param("maxInitCodeSize")`.
 * Changing the params themselves would not hold: every tx and block Common re-merges its package's
 * default params into the params object that all copies share (sharedCommon.ts). So the chain's
 * Common gets its own `param` that answers these two names; `Common.copy` (an Object.assign of
 * own enumerable properties) hands it to every copy: state views, tx and block Commons. It answers
 * these two names only: an opcode's fee (`<name>Gas`) is read from the params cache by the opcode
 * tables' cache (opcodeTables.ts), which this `param` would not reach.
 * test/hardhatSemantics.test.ts fails if a copy stops applying the limit.
 */
import { Common } from "@ethereumjs/common";

/** The chain's code size rule: `"unlimited"`, or the largest deployed code in bytes. */
export type CodeSizeLimit = number | "unlimited";

/** Far above any code a block can deploy, and still a safe integer (ethereumjs compares with Number()). */
const UNLIMITED = BigInt(Number.MAX_SAFE_INTEGER);

export function applyCodeSizeLimit(common: Common, limit: CodeSizeLimit): void {
  const maxCodeSize = limit === "unlimited" ? UNLIMITED : BigInt(limit);
  const maxInitCodeSize = limit === "unlimited" ? UNLIMITED : 2n * maxCodeSize;
  const param = Common.prototype.param;
  Object.defineProperty(common, "param", {
    value(this: Common, name: string): bigint {
      if (name === "maxCodeSize") return maxCodeSize;
      if (name === "maxInitCodeSize") return maxInitCodeSize;
      return param.call(this, name);
    },
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
