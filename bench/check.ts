/**
 * The bench's self-checks: before and around timing, every workload checks on every peer that it
 * measures what it claims (code at the tag it reads, expected results). A failed check stops the
 * bench; a peer that cannot run a workload at all is reported n/a instead.
 */
export class BenchCheckError extends Error {}

export function check(condition: boolean, peer: string, what: string): void {
  if (!condition) throw new BenchCheckError(`${peer}: ${what}`);
}

/** Whether `error` is a failed check (the bench stops) rather than a peer that cannot run a workload (n/a). */
export const isCheckFailure = (error: unknown): boolean => error instanceof BenchCheckError;
