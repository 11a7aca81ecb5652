/**
 * One interface over real timers and a `@sinonjs/fake-timers` clock, so the sequencer never touches
 * globals: a test that fakes its own clock does not fake the test runner's timers, and vice versa.
 */

/**
 * The part of a `@sinonjs/fake-timers` clock the chain uses (`createClock()`, `install()` and
 * sinon's `useFakeTimers()` all fit).
 */
export interface FakeClock {
  now: number;
  setInterval(callback: () => void, ms: number): unknown;
  clearInterval(handle: never): void;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: never): void;
  tickAsync(ms: number): Promise<unknown>;
}

export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  every(ms: number, callback: () => void): TimerHandle;
  after(ms: number, callback: () => void): TimerHandle;
  /** Moves a fake clock forward, running due timers; undefined for real time. */
  readonly tickAsync: ((ms: number) => Promise<unknown>) | undefined;
  readonly isFake: boolean;
}

/** Node timers keep the event loop alive; a dev chain must never keep a test process running. */
function unref(handle: unknown): void {
  if (typeof handle === "object" && handle !== null && "unref" in handle && typeof handle.unref === "function") {
    handle.unref();
  }
}

export const realClock: Clock = {
  now: () => Date.now(),
  every(ms, callback) {
    const handle = setInterval(callback, ms);
    unref(handle);
    return { cancel: () => clearInterval(handle) };
  },
  after(ms, callback) {
    const handle = setTimeout(callback, ms);
    unref(handle);
    return { cancel: () => clearTimeout(handle) };
  },
  tickAsync: undefined,
  isFake: false,
};

export function clockFromFake(fake: FakeClock): Clock {
  return {
    now: () => fake.now,
    every(ms, callback) {
      const handle = fake.setInterval(callback, ms);
      unref(handle);
      return { cancel: () => fake.clearInterval(handle as never) };
    },
    after(ms, callback) {
      const handle = fake.setTimeout(callback, ms);
      unref(handle);
      return { cancel: () => fake.clearTimeout(handle as never) };
    },
    tickAsync: (ms) => fake.tickAsync(ms),
    isFake: true,
  };
}
