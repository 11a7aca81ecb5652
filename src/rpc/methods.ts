/**
 * Every method family, in one table (docs/methods.md lists it). `buildMethodTable` refuses a name
 * two families define, so each method has exactly one handler.
 */
import { debugMethods } from "./debug.ts";
import { devMethods } from "./dev.ts";
import { ethMethods } from "./eth.ts";
import { faultMethods } from "./faults.ts";
import { filterMethods } from "./filters.ts";
import { withForkLookups } from "./fork.ts";
import { opstackMethods } from "./opstack.ts";
import { preconfMethods } from "./preconf.ts";
import { simulateMethods } from "./simulate.ts";
import { stateMethods } from "./state.ts";
import { statusMethods } from "./status.ts";
import { subscriptionMethods } from "./subscriptions.ts";
import { buildMethodTable } from "./table.ts";
import { walletMethods } from "./wallet.ts";

import type { MethodFamily, MethodTable } from "./table.ts";

export const METHOD_FAMILIES: readonly MethodFamily[] = [
  { source: "rpc/eth.ts", methods: ethMethods },
  { source: "rpc/simulate.ts", methods: simulateMethods },
  // eth_chainId, eth_accounts and eth_sendTransaction: a dapp asks its wallet (rpc/wallet.ts).
  { source: "rpc/wallet.ts", methods: walletMethods },
  { source: "rpc/preconf.ts", methods: preconfMethods },
  { source: "rpc/faults.ts", methods: faultMethods },
  { source: "rpc/status.ts", methods: statusMethods },
  { source: "rpc/subscriptions.ts", methods: subscriptionMethods },
  { source: "rpc/filters.ts", methods: filterMethods },
  { source: "rpc/dev.ts", methods: devMethods },
  { source: "rpc/debug.ts", methods: debugMethods },
  { source: "rpc/state.ts", methods: stateMethods },
  { source: "rpc/opstack.ts", methods: opstackMethods },
];

// withForkLookups wraps (does not redefine) the lookups that a forked chain answers from its
// upstream up to the fork block: blocks, txs, logs, balances, calls (docs/forking.md).
export const methods: MethodTable = withForkLookups(buildMethodTable(METHOD_FAMILIES));
