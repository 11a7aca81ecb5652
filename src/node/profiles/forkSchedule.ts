/**
 * Which fork of its profile's ladder a local block runs under. The chain starts at one fork (the
 * profile's newest, or the one `hardfork` pins) and may have later forks scheduled at a local block
 * number or timestamp (`forkSchedule`, docs/profiles.md "Scheduling a fork"). A scheduled fork
 * activates every fork of the ladder before it with it; forks after the last scheduled one never
 * activate. Activations only move forward: once a block runs a fork, every later block does.
 */
import { SUPPORTED_HARDFORKS } from "../state/genesis.ts";
import { rulesOf, scaleParams } from "./ladder.ts";

import type { ActivationScaling, ForkRules, ForkRung } from "./ladder.ts";
import type { SupportedHardfork } from "../state/genesis.ts";

/** When a scheduled fork activates on the local chain: at a block number, or at the first block with this timestamp or later. */
export type ForkActivation = { block: bigint; timestamp?: undefined } | { timestamp: bigint; block?: undefined };

/** A fork as a block runs it: its place on the ladder and the rules it adds up to. */
export interface ActiveFork {
  index: number;
  name: string;
  rules: ForkRules;
}

export class ForkSchedule {
  readonly ladder: readonly ForkRung[];
  /** The fork block 0 runs. */
  readonly genesisIndex: number;
  /** Ladder index → activation, in ladder order. */
  readonly scheduled: ReadonlyMap<number, ForkActivation>;
  readonly #forks: ActiveFork[];

  constructor(ladder: readonly ForkRung[], genesisIndex: number, scheduled: ReadonlyMap<number, ForkActivation> = new Map()) {
    this.ladder = ladder;
    this.genesisIndex = genesisIndex;
    this.scheduled = new Map([...scheduled].sort(([a], [b]) => a - b));
    this.#forks = ladder.map((rung, index) => ({ index, name: rung.name, rules: rulesOf(ladder, index) }));
  }

  /** The fork block 0 runs. */
  get genesis(): ActiveFork {
    return this.#forks[this.genesisIndex]!;
  }

  /** The fork a block with this number and timestamp runs. */
  at(number: bigint, timestamp: bigint): ActiveFork {
    let index = this.genesisIndex;
    for (const [scheduledIndex, activation] of this.scheduled) {
      const active = activation.block !== undefined ? number >= activation.block : timestamp >= activation.timestamp;
      if (!active) break;
      index = scheduledIndex;
    }
    return this.#forks[index]!;
  }

  /** The fork named `name` of the ladder (undefined when it has none). */
  fork(name: string): ActiveFork | undefined {
    return this.#forks.find((fork) => fork.name === name);
  }

  /** The forks that may still activate after block 0, with when, oldest first. */
  get upcoming(): { fork: ActiveFork; activation: ForkActivation }[] {
    return [...this.scheduled].map(([index, activation]) => ({ fork: this.#forks[index]!, activation }));
  }

  /**
   * What the first block of `to` (after a block that ran `from`) does to the chain parameters: the
   * scalings of every fork between them, composed (Base's Denim: gas limit ÷ 10, denominator × 10).
   */
  scalingBetween(
    from: ActiveFork,
    to: ActiveFork,
  ): ((params: { gasLimit: bigint; eip1559: { denominator: bigint; elasticity: bigint } | undefined }) => typeof params) | undefined {
    const scalings: ActivationScaling[] = [];
    for (let i = from.index + 1; i <= to.index; i++) {
      const scaling = this.ladder[i]!.scaling;
      if (scaling !== undefined) scalings.push(scaling);
    }
    if (scalings.length === 0) return undefined;
    return (params) => scalings.reduce((scaled, scaling) => scaleParams(scaled, scaling), params);
  }

  /**
   * The Ethereum forks the chain moves through after block 0 and when: each activates with the
   * first scheduled fork that runs it or a later one (for the Common's fork schedule).
   */
  evmActivations(): { evm: SupportedHardfork; activation: ForkActivation }[] {
    const activations: { evm: SupportedHardfork; activation: ForkActivation }[] = [];
    let reached = SUPPORTED_HARDFORKS.indexOf(this.genesis.rules.evm);
    for (const [index, activation] of this.scheduled) {
      const target = SUPPORTED_HARDFORKS.indexOf(this.#forks[index]!.rules.evm);
      for (let evm = reached + 1; evm <= target; evm++) activations.push({ evm: SUPPORTED_HARDFORKS[evm]!, activation });
      if (target > reached) reached = target;
    }
    return activations;
  }
}
