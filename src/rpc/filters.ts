/** The polling filter methods; the filters themselves are services/filters.ts's. */
import { z } from "zod";

import { checkLogCriteria, logFilter } from "./services/logs.ts";
import { method, positional } from "./table.ts";

import type { MethodTable } from "./table.ts";

export { FilterManager } from "./services/filters.ts";

const filterId = z.string({ invalid_type_error: "expected a filter id" });

export const filterMethods: MethodTable = {
  eth_newFilter: method(positional(logFilter), ([filter], ctx) => {
    checkLogCriteria(filter);
    return ctx.filters.newLogFilter(filter);
  }),
  eth_newBlockFilter: method(positional(), (_, ctx) => ctx.filters.newBlockFilter()),
  eth_newPendingTransactionFilter: method(positional(z.boolean().optional()), (_, ctx) => ctx.filters.newPendingTransactionFilter()),
  eth_getFilterChanges: method(positional(filterId), ([id], ctx) => ctx.filters.changes(id)),
  eth_getFilterLogs: method(positional(filterId), ([id], ctx) => ctx.filters.logs(id)),
  eth_uninstallFilter: method(positional(filterId), ([id], ctx) => ctx.filters.uninstall(id)),
};
