/**
 * A dry run's calldata gas, counted once. @ethereumjs/tx 10.1.3 caches a tx's data gas
 * (capabilities/legacy.js `getDataGas`, in `tx.cache.dataFee`) only when the tx is frozen; a dry
 * run's tx is built unfrozen (each run sets its gas limit: dryRun.ts), and the intrinsic-gas and
 * calldata-floor checks of prepareCall, runTx and the estimate ask for it several times per run,
 * each a BigInt addition per calldata byte. The data gas depends on the data, the recipient and
 * the hardfork (the cache's key), none of which a run changes.
 *
 * Patch (`tx.cache.dataFee`, read before the package looks at whether the tx is frozen): filled
 * for legacy txs only, whose getDataGas is that function alone; typed txs add their access list's
 * gas to it, so their cache would hold a different sum. test/engineInternals.test.ts fails if the
 * package stops reading the cache of an unfrozen tx.
 */
import { TransactionType } from "@ethereumjs/tx";

import type { TypedTransaction } from "@ethereumjs/tx";

interface DataGasCache {
  cache: { dataFee?: { value: bigint; hardfork: string } };
}

export function cacheLegacyDataGas(tx: TypedTransaction): void {
  if (tx.type !== TransactionType.Legacy) return;
  (tx as unknown as DataGasCache).cache.dataFee = { value: tx.getDataGas(), hardfork: tx.common.hardfork() };
}
