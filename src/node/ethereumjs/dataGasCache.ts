/**
 * A tx's calldata gas, counted once: a dry run's (below), and an admitted tx's minimum gas limit
 * (`minimumGasLimitOf`).
 *
 * A dry run's calldata gas. @ethereumjs/tx 10.1.3 caches a tx's data gas
 * (capabilities/legacy.js `getDataGas`, in `tx.cache.dataFee`) only when the tx is frozen; a dry
 * run's tx is built unfrozen (each run sets its gas limit: dryRun.ts), and the intrinsic-gas and
 * calldata-floor checks of prepareCall, runTx and the estimate ask for it several times per run,
 * each a BigInt addition per calldata byte. The data gas depends on the data, the recipient and
 * the hardfork (the cache's key), none of which a run changes; it is counted here once, in numbers.
 *
 * Patch (`tx.cache.dataFee`, read before the package looks at whether the tx is frozen): filled
 * for legacy txs only, whose getDataGas is that function alone; typed txs add their access list's
 * gas to it, so their cache would hold a different sum. test/engineInternals.test.ts fails if the
 * package stops reading the cache of an unfrozen tx.
 */
import { getCalldataFloorGas, getEip2780FloorBaseGas, TransactionType } from "@ethereumjs/tx";

import type { TypedTransaction } from "@ethereumjs/tx";
import type { Address } from "@ethereumjs/util";

interface DataGasCache {
  cache: { dataFee?: { value: bigint; hardfork: string } };
}

export function cacheLegacyDataGas(tx: TypedTransaction): void {
  if (tx.type !== TransactionType.Legacy) return;
  (tx as unknown as DataGasCache).cache.dataFee = { value: legacyDataGas(tx), hardfork: tx.common.hardfork() };
}

/**
 * A legacy tx's data gas as @ethereumjs/tx 10.1.3 computes it (capabilities/legacy.js `getDataGas`:
 * `txDataZeroGas` per zero byte and `txDataNonZeroGas` per other byte, plus EIP-3860's
 * `initCodeWordGas` per 32-byte word of a creation's data), with the bytes counted in a number
 * where the package adds a BigInt per byte. test/engineInternals.test.ts compares the two.
 */
function legacyDataGas(tx: TypedTransaction): bigint {
  const { common, data } = tx;
  let zeros = 0;
  for (let i = 0; i < data.length; i++) if (data[i] === 0) zeros++;
  let gas = common.param("txDataZeroGas") * BigInt(zeros) + common.param("txDataNonZeroGas") * BigInt(data.length - zeros);
  if ((tx.to === undefined || tx.to === null) && common.isActivatedEIP(3860)) gas += common.param("initCodeWordGas") * BigInt(Math.ceil(data.length / 32));
  return gas;
}

/** Each admitted tx's minimum gas limit, with the hardfork it was computed under. */
const minimumGasLimits = new WeakMap<TypedTransaction, { hardfork: string; gas: bigint }>();

/**
 * `tx.getMinimumGasLimit()` (intrinsic gas, or EIP-7623's calldata floor when higher), computed once
 * per tx object and hardfork: the floor counts tokens with a BigInt addition per calldata byte
 * (@ethereumjs/tx 10.1.3 util/intrinsic.js `countCalldataFloorTokens`, uncached), and a test file
 * sends the same decoded tx again after each evm_revert (decodedTxs.ts hands back the same object).
 * An admitted tx's fields never change (a decoded or signed tx is frozen; an impersonated one,
 * built unfrozen, is never written to after), and its Common is its own copy or the shared one.
 */
export function minimumGasLimitOf(tx: TypedTransaction): bigint {
  const hardfork = tx.common.hardfork();
  const known = minimumGasLimits.get(tx);
  if (known !== undefined && known.hardfork === hardfork) return known.gas;
  const gas = tx.getMinimumGasLimit();
  minimumGasLimits.set(tx, { hardfork, gas });
  return gas;
}

/**
 * EIP-7623's calldata floor of `tx`, as @ethereumjs/tx 10.1.3 computes it (util/intrinsic.js
 * `getCalldataFloorGas`: the floor base, EIP-2780's where active, plus `totalCostFloorPerToken` per
 * token), with the calldata's tokens (1 per zero byte and 4 per other byte, or 4 per byte under
 * EIP-7976) counted in a number: the package adds a BigInt per calldata byte, and every dry run
 * asks for the floor twice (its minimum gas limit, then leanDryRun's check). Under EIP-7981, whose
 * tokens count the access list too, the package's function answers. `sender` as the package takes
 * it (undefined: the tx's own, when signed). test/engineInternals.test.ts compares the two.
 */
export function calldataFloorGas(tx: TypedTransaction, sender?: Address): bigint {
  const common = tx.common;
  if (!common.isActivatedEIP(7623)) return 0n;
  if (common.isActivatedEIP(7981)) return getCalldataFloorGas(tx, sender);
  const data = tx.data;
  let tokens = 0;
  if (common.isActivatedEIP(7976)) tokens = data.length * 4;
  else for (let i = 0; i < data.length; i++) tokens += data[i] === 0 ? 1 : 4;
  return getEip2780FloorBaseGas(tx, sender) + common.param("totalCostFloorPerToken") * BigInt(tokens);
}
