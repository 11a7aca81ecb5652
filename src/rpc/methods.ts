/** Every method family, in one table. */
import { debugMethods } from "./debug.ts";
import { devMethods, withImpersonation } from "./dev.ts";
import { ethMethods } from "./eth.ts";
import { faultMethods } from "./faults.ts";
import { filterMethods } from "./filters.ts";
import { opstackMethods } from "./opstack.ts";
import { withForkLookups } from "./fork.ts";
import { preconfMethods } from "./preconf.ts";
import { stateMethods } from "./state.ts";
import { statusMethods } from "./status.ts";
import { subscriptionMethods } from "./subscriptions.ts";
import { walletMethods } from "./wallet.ts";

import type { MethodTable } from "./table.ts";

// withImpersonation: eth_sendTransaction from an impersonated sender skips keys and prompts.
// withForkLookups: on a forked chain, blocks, txs and logs up to the fork block are the upstream's.
export const methods: MethodTable = withForkLookups(
  withImpersonation({
    ...ethMethods,
    // After ethMethods: the wallet's prompting eth_sendTransaction, eth_chainId and eth_accounts win.
    ...walletMethods,
    ...preconfMethods,
    ...faultMethods,
    ...statusMethods,
    ...subscriptionMethods,
    ...filterMethods,
    ...devMethods,
    ...debugMethods,
    ...stateMethods,
    ...opstackMethods,
  }),
);
