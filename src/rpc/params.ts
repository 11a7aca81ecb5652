/** Positional params and field names: src/protocol/params.ts, shared with the wallet. */
export { fieldOf, parseValidPositional, positional } from "../protocol/params.ts";
