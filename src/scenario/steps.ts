/** What each kind of step does, and how a report names it. */
import { renderValue } from "./diff.ts";
import { addressOf, signDescribedTx } from "./sign.ts";
import { applyWalletSetup } from "./start.ts";

import type { PreconfProvider } from "../provider.ts";
import type { Scope } from "./references.ts";
import type { Step } from "./schema.ts";

export interface StepContext {
  provider: PreconfProvider;
  scope: Scope;
  tickAsync(ms: number): Promise<unknown>;
}

/** More fragments than any `at` step may need to reach its target. */
const MAX_FRAGMENTS_TO_TARGET = 10_000;

/** Runs a step; resolves with its result (JSON-RPC result, hash, ...) or rejects with the error. */
export async function executeStep(step: Step, ctx: StepContext): Promise<unknown> {
  const { provider, scope } = ctx;
  const rpc = (method: string, params: unknown) => provider.request({ method, params: params as unknown[] });
  switch (step.kind) {
    case "send": {
      const raw = typeof step.send === "string" ? scope.resolve(step.send) : await signDescribedTx(provider, scope, step.send);
      return rpc("eth_sendRawTransaction", [raw]);
    }
    case "call":
      return rpc(step.call, step.params === undefined ? [] : scope.resolve(step.params));
    case "receipt":
      return rpc("eth_getTransactionReceipt", [scope.resolve(step.receipt)]);
    case "balance":
      return rpc("eth_getBalance", [addressOf(provider, scope, step.balance), step.block]);
    case "txStatus":
      return rpc("preconf_transactionStatus", [scope.resolve(step.txStatus)]);
    case "advance":
      await provider.preconf.advance(step.advance);
      return null;
    case "at":
      await driveTo(provider, step.at.block, step.at.fragment);
      return null;
    case "fragment":
      for (let i = 0; i < (step.fragment === true ? 1 : step.fragment); i++) await provider.preconf.fragment();
      return null;
    case "seal":
      return rpc("preconf_seal", []);
    case "wait":
      await ctx.tickAsync(step.wait);
      await provider.preconf.idle();
      return null;
    case "wallet":
      applyWalletSetup(provider.wallet, step.wallet);
      return null;
  }
}

/**
 * Produces fragments (ticking the clock in interval mode, directly in manual mode) until fragment
 * `index` of block `block` (the open block by default) has been produced.
 */
async function driveTo(provider: PreconfProvider, block: number | undefined, index: number): Promise<void> {
  const { chain, preconf } = provider;
  if (index >= preconf.fragmentsPerBlock)
    throw new Error(`fragment ${index} does not exist: a block has ${preconf.fragmentsPerBlock} fragments (0…${preconf.fragmentsPerBlock - 1})`);
  const target = block === undefined ? chain.open.header.number : BigInt(block);
  const open = chain.open;
  if (open.header.number === target && open.fragments.length === index + 1) return;
  const passed = () => chain.latest.block.header.number >= target || (chain.open.header.number === target && chain.open.fragments.length > index + 1);
  if (passed()) throw new Error(`block ${target} fragment ${index} is already past`);

  let reached = false;
  const onFragment = (fragment: { blockNumber: bigint; index: number }) => {
    if (fragment.blockNumber === target && fragment.index === index) reached = true;
  };
  chain.on("fragment", onFragment);
  try {
    for (let produced = 0; !reached; produced++) {
      if (produced >= MAX_FRAGMENTS_TO_TARGET) throw new Error(`block ${target} fragment ${index} not reached after ${produced} fragments`);
      if (preconf.mining === "interval") await preconf.advance(1);
      else await preconf.fragment();
      if (!reached && passed()) throw new Error(`block ${target} fragment ${index} was skipped`);
    }
  } finally {
    chain.off("fragment", onFragment);
  }
}

const short = (value: unknown) => {
  const text = renderValue(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
};

/** `send #0 → #1 value "1 ether"`, `call eth_estimateGas`, ... with what the step expects. */
export function describeStep(step: Step): string {
  if (step.description !== undefined) return step.description;
  const expectation = "expect" in step && step.expect !== undefined ? expectationText(step.expect) : "";
  const capture = "as" in step && step.as !== undefined ? ` as $${step.as}` : "";
  return `${actionText(step)}${capture}${expectation}`;
}

function actionText(step: Step): string {
  switch (step.kind) {
    case "send": {
      if (typeof step.send === "string")
        return step.send.startsWith("$") ? `send ${step.send}` : `send raw ${step.send.slice(0, 10)}… (${(step.send.length - 2) / 2} bytes)`;
      const tx = step.send;
      const to = tx.to === undefined || tx.to === null ? "deploy" : typeof tx.to === "number" ? `#${tx.to}` : tx.to;
      const details = [
        tx.nonce !== undefined && `nonce ${tx.nonce}`,
        tx.value !== undefined && `value ${tx.value}`,
        tx.data !== undefined && "with data",
      ].filter(Boolean);
      return `send #${tx.from} → ${to}${details.length > 0 ? ` (${details.join(", ")})` : ""}`;
    }
    case "call":
      return `call ${step.call}${step.params === undefined ? "" : ` ${short(step.params)}`}`;
    case "receipt":
      return `receipt of ${step.receipt}`;
    case "balance":
      return `balance of ${typeof step.balance === "number" ? `#${step.balance}` : step.balance} at ${step.block}`;
    case "txStatus":
      return `status of ${step.txStatus}`;
    case "advance":
      return `advance ${step.advance} fragment${step.advance === 1 ? "" : "s"}`;
    case "at":
      return `at ${step.at.block === undefined ? "" : `block ${step.at.block} `}fragment ${step.at.fragment}`;
    case "fragment":
      return step.fragment === true || step.fragment === 1 ? "produce a fragment" : `produce ${step.fragment} fragments`;
    case "seal":
      return "seal the open block";
    case "wait":
      return `wait ${step.wait} ms`;
    case "wallet":
      return `wallet policy ${short(step.wallet)}`;
  }
}

function expectationText(expect: { result?: unknown; match?: unknown; error?: { code: number; message: string } }): string {
  if (expect.error !== undefined) return ` ⇒ error ${expect.error.code} ${expect.error.message}`;
  if ("match" in expect) return ` ⇒ matches ${short(expect.match)}`;
  return ` ⇒ ${short(expect.result)}`;
}
