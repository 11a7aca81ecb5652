/**
 * A dry run's unsigned legacy tx, built without @ethereumjs/tx's constructor. Most calls and
 * estimates are legacy-shaped (no fee fields, no access list: viem's and ethers' readContract,
 * wagmi's reads) and run once per request, so building their tx is a share of every `eth_call`:
 * the constructor converts each field to bytes and back (`toBytes`, a copy of the calldata), checks
 * each value by iterating an object (`valueOverflowCheck`, `validateNotArray`) and re-merges the
 * tx params into Common. For an unsigned legacy tx with a recipient those steps leave nothing to
 * decide beyond the bounds below, so this assigns the fields the constructor assigns, in its order,
 * on the class's own prototype: every method is the package's. (Every tx built here shares one
 * hidden class; V8 gives `Object.create`'s objects another than the constructor's.)
 *
 * Patch (@ethereumjs/tx 10.1.3, legacy/tx.js `LegacyTx` constructor and util/internal.js
 * `sharedConstructor`). It answers undefined, for the caller to build the tx with `createTx`
 * (which then throws its own error), wherever the constructor would throw or decide something:
 * a contract creation (EIP-3860's initcode size), a nonce at 2^64 − 1 or above, a gas limit above
 * 2^64 − 1 or EIP-7825's cap, a value or gas price above 2^256 − 1 or their product above it, and
 * a Common that is not a shared one (sharedCommon.ts: it holds the tx params, and the constructor's
 * `copy` and `updateParams` answer it as it is). test/engineInternals.test.ts builds many calls both
 * ways and fails if a field, its order or a method's answer differs.
 */
import { Capability, LegacyTx, TransactionType } from "@ethereumjs/tx";
import { MAX_INTEGER, MAX_UINT64 } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";

import type { Common } from "@ethereumjs/common";
import type { Address } from "@ethereumjs/util";

export interface LegacyCallFields {
  nonce: bigint;
  gasLimit: bigint;
  /** Undefined: a contract creation, left to the constructor. */
  to: Address | undefined;
  value: bigint;
  /** Not copied: the tx and its execution only read it. */
  data: Uint8Array;
  gasPrice: bigint;
}

/** The fields in the order the constructor first assigns them: sharedConstructor, then LegacyTx's own. */
interface LegacyTxFields {
  type: TransactionType;
  cache: object;
  activeCapabilities: number[];
  common: Common;
  txOptions: { common: Common; freeze: false };
  to: Address;
  nonce: bigint;
  gasLimit: bigint;
  value: bigint;
  data: Uint8Array;
  v: undefined;
  r: undefined;
  s: undefined;
  gasPrice: bigint;
  keccakFunction: (message: Uint8Array) => Uint8Array;
}

/** What the constructor would refuse or decide otherwise (see the module comment). */
function outOfBounds(common: Common, fields: LegacyCallFields): boolean {
  if (common.copy() !== common) return true;
  const { nonce, gasLimit, value, gasPrice } = fields;
  if (nonce < 0n || nonce >= MAX_UINT64 || gasLimit < 0n || gasLimit > MAX_UINT64) return true;
  if (value < 0n || value > MAX_INTEGER || gasPrice < 0n || gasPrice > MAX_INTEGER || gasPrice * gasLimit > MAX_INTEGER) return true;
  return common.isActivatedEIP(7825) && !common.isActivatedEIP(8037) && gasLimit > common.param("maxTransactionGasLimit");
}

/** The tx `createTx({ ...fields, type: 0 }, { common, freeze: false })` builds, or undefined (see the module comment). */
export function legacyCallTx(common: Common, fields: LegacyCallFields): LegacyTx | undefined {
  const { to } = fields;
  if (to === undefined || outOfBounds(common, fields)) return undefined;
  const tx = Object.create(LegacyTx.prototype) as LegacyTxFields;
  tx.type = TransactionType.Legacy;
  tx.cache = {};
  tx.activeCapabilities = [];
  tx.common = common;
  tx.txOptions = { common, freeze: false };
  tx.to = to;
  tx.nonce = fields.nonce;
  tx.gasLimit = fields.gasLimit;
  tx.value = fields.value;
  tx.data = fields.data;
  tx.v = undefined;
  tx.r = undefined;
  tx.s = undefined;
  tx.gasPrice = fields.gasPrice;
  tx.keccakFunction = common.customCrypto.keccak256 ?? keccak_256;
  // An unsigned tx from Spurious Dragon on is EIP-155 replay protected.
  if (common.gteHardfork("spuriousDragon")) tx.activeCapabilities.push(Capability.EIP155ReplayProtection);
  return tx as unknown as LegacyTx;
}
