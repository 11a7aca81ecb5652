/** A seeded generator (mulberry32) of numbers in [0, 1), so that a failing seed reproduces. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Draws from one seeded generator: a number, an item of a list, a string of hex digits in mixed case. */
export function seededDraws(seed: number): { next: () => number; pick: <T>(list: readonly T[]) => T; hex: (digits: number) => string } {
  const next = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const hex = (digits: number) => Array.from({ length: digits }, () => pick([..."0123456789abcdefABCDEF"])).join("");
  return { next, pick, hex };
}
