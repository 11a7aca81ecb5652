/**
 * op-geth's priority-fee suggestion (eth/gasprice/optimism-gasprice.go, SuggestOptimismPriorityFee):
 * with a single known block builder the tip does not matter while blocks have room, so the
 * suggestion is a fixed minimum (op-geth's DefaultMinSuggestedPriorityFee, 0.001 gwei) unless the
 * head block could not have fitted its largest tx once more; then 10 % over the head's median tip.
 */
import type { SealedBlock } from "../chain/records.ts";

export const MIN_SUGGESTED_PRIORITY_FEE = 1_000_000n;

export function suggestOptimismPriorityFee(head: SealedBlock): bigint {
  const header = head.block.header;
  const largest = head.transactions.reduce((max, record) => (record.gasUsed > max ? record.gasUsed : max), 0n);
  if (header.gasUsed + largest <= header.gasLimit) return MIN_SUGGESTED_PRIORITY_FEE;
  const baseFee = header.baseFeePerGas ?? 0n;
  // Deposits pay no gas price: they say nothing about the tips paid (our choice; op-geth counts them).
  const tips = head.transactions
    .filter((record) => record.depositNonce === undefined)
    .map((record) => record.effectiveGasPrice - baseFee)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (tips.length === 0) return MIN_SUGGESTED_PRIORITY_FEE;
  const median = tips[Math.floor(tips.length / 2)]!;
  const raised = median + median / 10n;
  return raised > MIN_SUGGESTED_PRIORITY_FEE ? raised : MIN_SUGGESTED_PRIORITY_FEE;
}
