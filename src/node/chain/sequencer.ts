/**
 * Drives fragments from the clock: in `interval` mode one fragment every `fragmentIntervalMs`
 * (the chain seals after `fragmentsPerBlock` of them); in `manual` mode nothing happens unless asked.
 * evm_snapshot records how far into its interval the schedule is, and evm_revert resumes there.
 */
import type { Clock, TimerHandle } from "../../clock.ts";
import type { Chain } from "./chain.ts";

export type MiningMode = "interval" | "manual";

export class Sequencer {
  readonly #chain: Chain;
  readonly #clock: Clock;
  readonly intervalMs: number;
  #mode: MiningMode;
  #timer: TimerHandle | undefined;
  /** Errors of timer-driven fragments have no caller to reject; they are kept for the next advance. */
  #failure: unknown;
  /** Clock time (ms) at which some fragment interval began: the schedule's phase. */
  #intervalStart = 0;

  constructor(chain: Chain, clock: Clock, intervalMs: number, mode: MiningMode) {
    this.#chain = chain;
    this.#clock = clock;
    this.intervalMs = intervalMs;
    this.#mode = mode;
    if (mode === "interval") this.#start();
    chain.addSnapshotPart({ capture: () => this.#capturePhase() });
  }

  get mode(): MiningMode {
    return this.#mode;
  }

  setMode(mode: MiningMode): void {
    this.#stop();
    this.#mode = mode;
    if (mode === "interval") this.#start();
  }

  /**
   * Moves time forward by `count` fragment intervals and resolves when the fragments that time
   * brings are done. With a fake clock this ticks it one interval at a time, each fragment (and
   * seal) finishing before the clock moves on: what a block reads of the clock when it opens
   * (Denim's millisecond part) is the time of its fragment, however long the work takes. With real
   * time it waits for them.
   */
  async advance(count = 1): Promise<void> {
    if (this.#clock.tickAsync !== undefined) {
      for (let i = 0; i < count; i++) {
        await this.#clock.tickAsync(this.intervalMs);
        await this.#chain.idle();
      }
    } else if (this.#mode === "interval") {
      await new Promise<void>((resolve) => {
        let seen = 0;
        const onFragment = () => {
          if (++seen < count) return;
          this.#chain.off("fragment", onFragment);
          resolve();
        };
        this.#chain.on("fragment", onFragment);
      });
    }
    await this.#chain.idle();
    this.#rethrow();
  }

  close(): void {
    this.#stop();
  }

  /** Snapshot taken 80 ms into a 200 ms interval: after the revert, the next fragment comes 120 ms later. */
  #capturePhase(): () => void {
    if (this.#mode !== "interval") return () => undefined;
    const elapsed = (this.#clock.now() - this.#intervalStart) % this.intervalMs;
    const phase = elapsed < 0 ? elapsed + this.intervalMs : elapsed;
    return () => {
      if (this.#mode !== "interval") return;
      this.#stop();
      this.#start(this.intervalMs - phase);
    };
  }

  /** The first fragment after `firstDelayMs`, then one every interval. */
  #start(firstDelayMs = this.intervalMs): void {
    this.#intervalStart = this.#clock.now() + firstDelayMs - this.intervalMs;
    if (firstDelayMs === this.intervalMs) {
      this.#timer = this.#clock.every(this.intervalMs, () => this.#tick());
      return;
    }
    this.#timer = this.#clock.after(firstDelayMs, () => {
      this.#timer = this.#clock.every(this.intervalMs, () => this.#tick());
      this.#tick();
    });
  }

  #tick(): void {
    this.#chain.produceFragment().catch((error: unknown) => {
      this.#failure = error;
    });
  }

  #stop(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
  }

  #rethrow(): void {
    const failure = this.#failure;
    this.#failure = undefined;
    if (failure !== undefined) throw failure;
  }
}
