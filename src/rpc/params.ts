/** Positional params and field names: src/protocol/params.ts, shared with the wallet. */
export { fieldOf, parseValid, positional, withFastPath } from "../protocol/params.ts";
