/**
 * Records the process warnings emitted while `run` runs, instead of printing them: tests that make
 * a listener throw on purpose assert the warning and keep the test output clean.
 */
export async function warningsDuring(run: () => Promise<unknown>): Promise<string[]> {
  const warnings: string[] = [];
  const original = process.emitWarning;
  process.emitWarning = ((warning: string | Error, type?: unknown) => {
    const name = typeof type === "string" ? type : typeof type === "object" && type !== null && "type" in type ? String(type.type) : "Warning";
    warnings.push(warning instanceof Error ? `${warning.name}: ${warning.message}` : `${name}: ${warning}`);
  }) as typeof process.emitWarning;
  try {
    await run();
  } finally {
    process.emitWarning = original;
  }
  return warnings;
}
