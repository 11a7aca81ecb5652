/**
 * Writes docs/methods.md from the method table (src/rpc/methods.ts), so the list of JSON-RPC
 * methods cannot drift from what the provider answers. `npm run docs:methods` rewrites the page;
 * test/docs.test.ts fails when it is out of date.
 *
 * Usage: npx tsx scripts/methods-doc.ts [--check]
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { debugMethods } from "../src/rpc/debug.ts";
import { devMethods } from "../src/rpc/dev.ts";
import { ethMethods } from "../src/rpc/eth.ts";
import { faultMethods } from "../src/rpc/faults.ts";
import { filterMethods } from "../src/rpc/filters.ts";
import { methods } from "../src/rpc/methods.ts";
import { opstackMethods } from "../src/rpc/opstack.ts";
import { preconfMethods } from "../src/rpc/preconf.ts";
import { stateMethods } from "../src/rpc/state.ts";
import { statusMethods } from "../src/rpc/status.ts";
import { subscriptionMethods } from "../src/rpc/subscriptions.ts";
import { walletMethods } from "../src/rpc/wallet.ts";

import type { MethodTable } from "../src/rpc/table.ts";

export const METHODS_DOC = fileURLToPath(new URL("../docs/methods.md", import.meta.url));

/** The families of the table, in the order methods.ts builds it (each name belongs to one family). */
const FAMILIES: Array<{ title: string; about: string; table: MethodTable }> = [
  {
    title: "Node",
    about:
      "Standard Ethereum JSON-RPC, answered by the chain. Block parameters: `latest`, `pending`, `earliest`, `safe`, `finalized`, numbers (hex quantities or JSON numbers), block hashes and EIP-1898 objects. Each answer, and where it differs from geth, Hardhat or anvil: [behaviour.md](behaviour.md#the-rpc-surface-geths-answers-and-where-hardhat-or-anvil-differ).",
    table: ethMethods,
  },
  { title: "Wallet", about: "Answered by the simulated wallet under its approval policy. See [wallet.md](wallet.md).", table: walletMethods },
  {
    title: "Pre-confirmation control",
    about: "Move the chain by hand: fragments, seals, fake time. See [options.md](options.md#deterministic-control-providerpreconf).",
    table: preconfMethods,
  },
  { title: "Fault injection", about: "Test-only faults. See [server.md](server.md#faults-and-shutdown).", table: faultMethods },
  {
    title: "Transaction status",
    about: "Where a transaction is in its lifecycle. See [behaviour.md](behaviour.md#pre-confirmation-companions).",
    table: statusMethods,
  },
  {
    title: "Subscriptions",
    about: "`eth_subscribe` kinds are listed in [behaviour.md](behaviour.md#pre-confirmation-companions); over HTTP they are `-32001`.",
    table: subscriptionMethods,
  },
  { title: "Filters", about: "Polling filters, dropped after 5 idle minutes.", table: filterMethods },
  { title: "Dev methods (Hardhat and anvil conventions)", about: "See [hardhat.md](hardhat.md#dev-methods-in-detail).", table: devMethods },
  { title: "OP stack", about: "OP-stack profiles' own methods. See [profiles.md](profiles.md).", table: opstackMethods },
  {
    title: "Tracing",
    about:
      "geth's `debug_` tracers: struct logs (geth's shape, or Hardhat 2's with `traceFormat: \"hardhat\"`) and `callTracer`. See [dev-methods.md](dev-methods.md#tracing).",
    table: debugMethods,
  },
  { title: "State dump and load", about: "See [fixtures.md](fixtures.md#state-dump-and-load).", table: stateMethods },
];

export function renderMethodsDoc(): string {
  const owner = new Map<string, string>();
  for (const family of FAMILIES) for (const name of Object.keys(family.table)) owner.set(name, family.title);
  const lines = [
    "# JSON-RPC methods",
    "",
    "<!-- Generated from src/rpc/methods.ts by `npm run docs:methods`: do not edit by hand. -->",
    "",
    `Every method the provider answers (${Object.keys(methods).length} in all), the same in process`,
    "(`provider.request`), over HTTP and over WebSocket. Anything else is `-32601 Method not found`.",
    "Malformed params are `-32602 Invalid params` with `data: { field, reason }`.",
    "",
  ];
  for (const family of FAMILIES) {
    const names = Object.keys(methods)
      .filter((name) => owner.get(name) === family.title)
      .sort();
    if (names.length === 0) continue;
    lines.push(`## ${family.title}`, "", family.about, "", ...names.map((name) => `- \`${name}\``), "");
  }
  const unowned = Object.keys(methods)
    .filter((name) => !owner.has(name))
    .sort();
  if (unowned.length > 0) lines.push("## Other", "", ...unowned.map((name) => `- \`${name}\``), "");
  return lines.join("\n");
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = renderMethodsDoc();
  if (process.argv.includes("--check")) {
    const current = readFileSync(METHODS_DOC, "utf8");
    if (current !== text) {
      process.stderr.write("docs/methods.md is out of date: run `npm run docs:methods`\n");
      process.exit(1);
    }
  } else {
    writeFileSync(METHODS_DOC, text);
  }
}
