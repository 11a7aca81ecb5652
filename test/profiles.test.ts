/**
 * Profiles as dated fork ladders (src/node/profiles/profiles.ts, docs/profiles.md): the forks each chain has
 * run, when, what each changes, the chain parameters and where `hardfork` pins a chain.
 */
import { expect } from "chai";
import FakeTimers from "@sinonjs/fake-timers";

import { createPreconfProvider } from "../src/index.ts";
import { resolveOptions } from "../src/options.ts";
import { forkIndexOf, hardforkNames, paramsAtFork, PROFILES, rulesAtFork } from "../src/node/profiles/profiles.ts";
import { START_MS } from "./helpers/chain.ts";

const utc = (seconds: number | undefined) => (seconds === undefined ? undefined : new Date(seconds * 1000).toISOString());

describe("profiles: the fork ladders", () => {
  it("each ladder's forks, with their activation on the real chain", () => {
    const ladder = (name: keyof typeof PROFILES) => PROFILES[name].ladder.map((rung) => [rung.name, utc(rung.activation)]);
    expect(ladder("base")).to.deep.equal([
      ["jovian", "2025-12-02T16:00:01.000Z"],
      ["azul", "2026-05-28T18:00:00.000Z"],
      ["beryl", "2026-06-25T18:00:00.000Z"],
      ["cobalt", "2026-09-30T18:00:00.000Z"],
      ["denim", "2026-11-05T18:00:00.000Z"],
    ]);
    expect(ladder("base-sepolia")).to.deep.equal([
      ["jovian", "2025-11-19T16:00:01.000Z"],
      ["azul", "2026-04-20T18:00:00.000Z"],
      ["beryl", "2026-06-18T18:00:00.000Z"],
      ["cobalt", "2026-09-23T18:00:00.000Z"],
      ["denim", "2026-10-21T18:00:00.000Z"],
    ]);
    for (const name of ["optimism", "unichain"] as const) {
      expect(ladder(name), name).to.deep.equal([
        ["jovian", "2025-12-02T16:00:01.000Z"],
        ["karst", "2026-07-08T16:00:01.000Z"],
      ]);
    }
    expect(ladder("dev").map(([name]) => name)).to.deep.equal(["paris", "shanghai", "cancun", "prague", "osaka"]);
    expect(PROFILES["base-denim"]).to.equal(PROFILES.base);
  });

  it("what runs at each fork: EVM, cadence, precompile prices, Denim", () => {
    const at = (name: keyof typeof PROFILES, fork: string) => {
      const rules = rulesAtFork(PROFILES[name], forkIndexOf(PROFILES[name], fork));
      return [rules.evm, rules.fragmentsPerBlock, rules.p256Verify, rules.bn254PairingMaxInput, rules.denim, rules.flashblocks];
    };
    expect(at("base", "jovian")).to.deep.equal(["prague", 10, "rip7212", 81_984, false, true]);
    expect(at("base", "azul")).to.deep.equal(["osaka", 10, "eip7951", 81_984, false, true]);
    expect(at("base", "cobalt")).to.deep.equal(["osaka", 10, "eip7951", 81_984, false, true]);
    expect(at("base", "denim")).to.deep.equal(["osaka", 1, "eip7951", 81_984, true, false]);
    expect(at("optimism", "jovian")).to.deep.equal(["prague", 8, "rip7212", 81_984, false, true]);
    expect(at("optimism", "karst")).to.deep.equal(["osaka", 8, "eip7951", 57_600, false, true]);
    expect(at("unichain", "karst")).to.deep.equal(["osaka", 5, "eip7951", 57_600, false, true]);
    expect(at("dev", "osaka")).to.deep.equal(["osaka", 10, "eip7951", undefined, false, true]);
    expect(at("dev", "prague")).to.deep.equal(["prague", 10, undefined, undefined, false, true]);
  });

  it("chain parameters: Denim's ÷ 10 and × 10 apply from the fork on", () => {
    const params = (name: keyof typeof PROFILES, fork: string) => {
      const { gasLimit, eip1559, minBaseFee, daFootprintGasScalar } = paramsAtFork(PROFILES[name], forkIndexOf(PROFILES[name], fork));
      return [gasLimit, eip1559?.denominator, eip1559?.elasticity, minBaseFee, daFootprintGasScalar];
    };
    expect(params("base", "cobalt")).to.deep.equal([400_000_000n, 100n, 5n, 5_000_000n, 148]);
    expect(params("base", "denim")).to.deep.equal([40_000_000n, 1000n, 5n, 5_000_000n, 148]);
    expect(params("base-sepolia", "cobalt")).to.deep.equal([1_200_000_000n, 100n, 15n, 5_000_000n, 446]);
    expect(params("base-sepolia", "denim")).to.deep.equal([120_000_000n, 1000n, 15n, 5_000_000n, 446]);
    expect(params("optimism", "karst")).to.deep.equal([40_000_000n, 250n, 2n, 0n, 0]);
    expect(params("unichain", "karst")).to.deep.equal([30_000_000n, 250n, 6n, 0n, 0]);
    expect(params("dev", "osaka")).to.deep.equal([60_000_000n, undefined, undefined, 0n, 0]);
  });

  it("the names hardfork takes on each profile (the CLI's --hardfork checks against them)", () => {
    expect(hardforkNames("base")).to.deep.equal(["jovian", "azul", "beryl", "cobalt", "denim", "prague", "osaka"]);
    expect(hardforkNames("base-denim")).to.deep.equal(hardforkNames("base"));
    expect(hardforkNames("optimism")).to.deep.equal(["jovian", "karst", "prague", "osaka"]);
    expect(hardforkNames("unichain")).to.deep.equal(["jovian", "karst", "prague", "osaka"]);
    expect(hardforkNames("dev")).to.deep.equal(["paris", "shanghai", "cancun", "prague", "osaka"]);
  });

  it("resolves: the newest fork by default, a pinned one, an Ethereum name on an OP ladder, the alias", () => {
    const resolve = (options: Parameters<typeof resolveOptions>[0]) => {
      const { profile, hardfork, evmHardfork, blockGasLimit, fragmentsPerBlock } = resolveOptions(options);
      return { profile, hardfork, evmHardfork, blockGasLimit, fragmentsPerBlock };
    };
    expect(resolve({})).to.deep.equal({ profile: "dev", hardfork: "osaka", evmHardfork: "osaka", blockGasLimit: 60_000_000n, fragmentsPerBlock: 10 });
    expect(resolve({ hardfork: "prague" })).to.include({ hardfork: "prague", evmHardfork: "prague" });
    expect(resolve({ profile: "base" })).to.deep.equal({
      profile: "base",
      hardfork: "denim",
      evmHardfork: "osaka",
      blockGasLimit: 40_000_000n,
      fragmentsPerBlock: 1,
    });
    expect(resolve({ profile: "base-denim" })).to.deep.equal(resolve({ profile: "base" }));
    expect(resolve({ profile: "base", hardfork: "cobalt" })).to.deep.include({ hardfork: "cobalt", blockGasLimit: 400_000_000n, fragmentsPerBlock: 10 });
    expect(resolve({ profile: "base", hardfork: "prague" })).to.include({ hardfork: "jovian", evmHardfork: "prague" });
    expect(resolve({ profile: "base", hardfork: "osaka" })).to.include({ hardfork: "denim" });
    // A schedule without hardfork starts at the fork before the first one scheduled.
    expect(resolve({ profile: "optimism", forkSchedule: { karst: { block: 4 } } })).to.include({ hardfork: "jovian", evmHardfork: "prague" });
    // Explicit options win.
    expect(resolve({ profile: "base", blockGasLimit: 30_000_000, fragmentsPerBlock: 4 })).to.include({ blockGasLimit: 30_000_000n, fragmentsPerBlock: 4 });
    expect(() => resolveOptions({ hardfork: "denim" })).to.throw(
      'Invalid hardhat-preconf option hardfork: the dev profile has no fork "denim" (one of paris, shanghai, cancun, prague, osaka)',
    );
  });

  it("a provider reports the fork it runs and its cadence now", async () => {
    const provider = await createPreconfProvider({ profile: "unichain", hardfork: "jovian", clock: FakeTimers.createClock(START_MS) });
    expect([provider.options.hardfork, provider.options.evmHardfork, provider.chain.common.hardfork(), provider.preconf.fragmentsPerBlock]).to.deep.equal([
      "jovian",
      "prague",
      "prague",
      5,
    ]);
    await provider.close();
  });
});
