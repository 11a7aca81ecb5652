/** Limits on block time that every way of setting it (dev methods, loaded dumps) shares. */

/**
 * The latest timestamp a block may get: @ethereumjs/common compares timestamps as JS numbers when
 * it picks the hardfork, so one past 2^53 breaks every later block. 2^52 leaves 2^52 blocks (each
 * a second later than its parent) before that point.
 */
export const MAX_TIMESTAMP = 2n ** 52n;
