/**
 * viem, loaded on first use. Its import costs ~0.3–0.9 s, and a plain connection never needs it:
 * only wallet signatures (EIP-191 / EIP-712 digests) and scenario fixtures (ABI encoding, units)
 * do. Loaded with `require` (viem ships a CommonJS build) so that the callers stay synchronous.
 */
import { createRequire } from "node:module";

import type * as Viem from "viem";
import type * as ViemAccounts from "viem/accounts";
import type * as ViemActions from "viem/actions";
import type * as ViemSiwe from "viem/siwe";

const require = createRequire(import.meta.url);
let loaded: typeof Viem | undefined;
let loadedAccounts: typeof ViemAccounts | undefined;

export function viem(): typeof Viem {
  loaded ??= require("viem") as typeof Viem;
  return loaded;
}

/** `viem/accounts`, loaded on first use (scenario fixtures sign with it). */
export function viemAccounts(): typeof ViemAccounts {
  loadedAccounts ??= require("viem/accounts") as typeof ViemAccounts;
  return loadedAccounts;
}

let loadedSiwe: typeof ViemSiwe | undefined;

/** `viem/siwe`, loaded on first use (ERC-7846's signInWithEthereum). */
export function viemSiwe(): typeof ViemSiwe {
  loadedSiwe ??= require("viem/siwe") as typeof ViemSiwe;
  return loadedSiwe;
}

let loadedActions: typeof ViemActions | undefined;

/** `viem/actions`, loaded on first use (the package's viem client actions, chains.ts). */
export function viemActions(): typeof ViemActions {
  loadedActions ??= require("viem/actions") as typeof ViemActions;
  return loadedActions;
}
