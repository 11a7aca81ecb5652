/** Every method family, in one table. */
import { ethMethods } from "./eth.ts";
import { preconfMethods } from "./preconf.ts";

import type { MethodTable } from "./table.ts";

export const methods: MethodTable = {
  ...ethMethods,
  ...preconfMethods,
};
