/** The start state of a scenario: a provider on a fake clock, an optional state dump, the wallet policy. */
import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";

import type FakeTimers from "@sinonjs/fake-timers";

import { createPreconfProvider } from "../provider.ts";
import { ErrorCode } from "../rpc/errors.ts";
import { PROMPTING_METHODS } from "../wallet/policy.ts";
import { ScenarioFixtureError } from "./schema.ts";

import type { PreconfProvider } from "../provider.ts";
import type { Wallet } from "../wallet/wallet.ts";
import type { ScenarioStart, WalletSetup } from "./schema.ts";

export interface StartedScenario {
  provider: PreconfProvider;
  clock: ReturnType<typeof FakeTimers.createClock>;
}

export async function startScenario(start: ScenarioStart, wallet: WalletSetup | undefined, source: string): Promise<StartedScenario> {
  // Always a fake clock: nothing moves between steps, so runs are byte-for-byte reproducible.
  // Loaded here, not on import: a plain connection never runs a scenario.
  const { default: Timers } = await import("@sinonjs/fake-timers");
  const clock = Timers.createClock(start.timeMs);
  let provider: PreconfProvider;
  try {
    provider = await createPreconfProvider({ ...start.options, clock });
  } catch (error) {
    throw new ScenarioFixtureError(source, "start", (error as Error).message);
  }
  try {
    if (start.state !== undefined) await loadStartState(provider, start.state, source);
    if (wallet !== undefined) applyWalletSetup(provider.wallet, wallet);
  } catch (error) {
    await provider.close();
    throw error;
  }
  return { provider, clock };
}

/**
 * `start.state`: a dump (`preconf_dumpState`, `preconf node --dump-state`) loaded with
 * `preconf_loadState` before the first step. Its errors name the path inside `start.state`.
 */
export async function loadStartState(provider: PreconfProvider, state: unknown, source: string): Promise<void> {
  const dump = typeof state === "string" && !state.startsWith("0x") ? await readDumpFile(state, source) : state;
  try {
    await provider.request({ method: "preconf_loadState", params: [dump] });
  } catch (error) {
    const { code, data } = error as { code?: unknown; data?: { field?: unknown; reason?: unknown } };
    if (code === ErrorCode.methodNotFound) throw new ScenarioFixtureError(source, "start.state", "this provider has no preconf_loadState");
    if (code === ErrorCode.invalidParams && typeof data?.field === "string" && typeof data.reason === "string") {
      throw new ScenarioFixtureError(source, data.field.replace(/^params\[0\]/, "start.state"), data.reason);
    }
    throw error;
  }
}

/** A dump file (`preconf node --dump-state`), relative to the fixture's directory. */
async function readDumpFile(path: string, source: string): Promise<unknown> {
  const file = resolve(source === "(inline)" ? "." : dirname(source), path);
  try {
    return JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new ScenarioFixtureError(source, "start.state", `cannot read the dump ${file}: ${(error as Error).message}`);
  }
}

/** Defaults, per-method defaults and queued one-shot decisions, in the order docs/wallet.md gives. */
export function applyWalletSetup(wallet: Wallet, setup: WalletSetup): void {
  const { policy } = wallet;
  if (setup.default !== undefined) policy.setDefault(setup.default);
  for (const method of PROMPTING_METHODS) {
    const decision = setup.methods?.[method];
    if (decision !== undefined) policy.setDefault(decision, method);
    const queued = setup.queue?.[method];
    if (queued !== undefined) policy.queue(method, ...queued);
  }
  if (setup.switchOnAdd !== undefined) wallet.switchOnAdd = setup.switchOnAdd;
}
