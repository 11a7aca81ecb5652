/**
 * Units and the defaults more than one module uses, in one place: everything imports them from here.
 * Per-chain numbers (chain ids, fragment cadence, EIP-1559 parameters) live in profiles.ts, which
 * builds the `dev` profile from these; docs/behaviour.md ("Defaults") and docs/options.md list them.
 */

export const GWEI = 10n ** 9n;
export const ETHER = 10n ** 18n;

/** The dev chain's id: Hardhat's and anvil's 31337. */
export const DEV_CHAIN_ID = 31337n;

/** Base's flashblock cadence, which the dev profile copies: a fragment every 200 ms (docs.base.org "Flashblocks"). */
export const FRAGMENT_INTERVAL_MS = 200;
/** Ten fragments per 2 s block, as on Base. */
export const FRAGMENTS_PER_BLOCK = 10;

/** The block gas limit a new dev chain starts with: Hardhat 3's 60M (its default network config). */
export const DEFAULT_BLOCK_GAS_LIMIT = 60_000_000n;

/** EIP-7825's per-transaction gas cap (go-ethereum's params.MaxTxGas), 2^24. */
export const EIP7825_MAX_TX_GAS = 1n << 24n;

/** The tip eth_maxPriorityFeePerGas suggests on L1 profiles (as Hardhat and anvil answer) and fills in: 1 gwei. */
export const SUGGESTED_TIP = GWEI;
