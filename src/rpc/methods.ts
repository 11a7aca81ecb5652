/** Every method family, in one table. */
import { ethMethods } from "./eth.ts";
import { filterMethods } from "./filters.ts";
import { preconfMethods } from "./preconf.ts";
import { statusMethods } from "./status.ts";
import { subscriptionMethods } from "./subscriptions.ts";

import type { MethodTable } from "./table.ts";

export const methods: MethodTable = {
  ...ethMethods,
  ...preconfMethods,
  ...statusMethods,
  ...subscriptionMethods,
  ...filterMethods,
};
