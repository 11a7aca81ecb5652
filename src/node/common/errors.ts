/**
 * What the engine refuses, and why, as facts. Nothing here knows JSON-RPC: as go-ethereum's pool
 * errors (core/txpool/errors.go, core/error.go) carry only their text, and its API attaches codes
 * (internal/ethapi/errors.go), src/rpc/errors.ts maps each of these to a code, a message and data
 * in one table (docs/behaviour.md#engine-errors). Messages are go-ethereum's texts, so logs and
 * the pool's "dropped" reasons read as the wire does.
 */

/** Every refusal the engine makes on purpose; anything else it throws is a bug. */
export class NodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** A fact of a refusal: quantities are bigints (the RPC edge writes them as hex), sizes numbers. */
export type Fact = bigint | number | string | readonly string[];
export type Facts = Readonly<Record<string, Fact>>;

// ── Admission (go-ethereum's txpool and state-transition errors) ────────────────────────────────

/** go-ethereum's admission errors other than those with their own class, in the order it checks them. */
export const AdmissionMessage = {
  unprotected: "only replay-protected (EIP-155) transactions allowed over RPC",
  typeNotSupported: "transaction type not supported",
  oversizedData: "oversized data",
  maxInitCodeSize: "max initcode size exceeded",
  gasLimit: "exceeds block gas limit",
  tipAboveFeeCap: "max priority fee per gas higher than max fee per gas",
  invalidSender: "invalid sender",
  intrinsicGas: "intrinsic gas too low",
  floorDataGas: "insufficient gas for floor data gas cost",
  underpriced: "transaction underpriced",
  /** legacypool: a sender's queue (txs behind a nonce gap) is full. */
  accountLimit: "account limit exceeded",
} as const;

/** A transaction the pool (or a dry run) refuses: go-ethereum's text, and the facts behind it. */
export class TxRejectedError extends NodeError {
  readonly facts: Facts | undefined;

  constructor(message: string, facts?: Facts) {
    super(message);
    this.facts = facts;
  }
}

export class NonceTooLowError extends TxRejectedError {
  constructor(
    readonly nextNonce: bigint,
    readonly txNonce: bigint,
  ) {
    super("nonce too low");
  }
}

/** The sender cannot pay gas × price + value (+ the L1 fee and its queued txs' costs). */
export class InsufficientFundsError extends TxRejectedError {
  constructor(
    readonly balance: bigint,
    readonly cost: bigint,
  ) {
    super("insufficient funds for gas * price + value");
  }
}

export class AlreadyKnownError extends TxRejectedError {
  constructor() {
    super("already known");
  }
}

/** A tx with a pooled tx's sender and nonce that does not bump both fees enough. */
export class ReplacementUnderpricedError extends TxRejectedError {
  constructor(
    readonly minMaxFeePerGas: bigint,
    readonly minMaxPriorityFeePerGas: bigint,
  ) {
    super("replacement transaction underpriced");
  }
}

/**
 * Automine takes no tx that cannot be mined at once: one behind a nonce gap, as Hardhat refuses it
 * (EDR crates/edr_provider/src/error.rs, `AutoMineNonceTooHigh`; docs/behaviour.md#hardhats-semantics).
 */
export class AutomineNonceTooHighError extends TxRejectedError {
  constructor(
    readonly expected: bigint,
    readonly actual: bigint,
  ) {
    super(`Nonce too high. Expected nonce to be ${expected} but got ${actual}. Note that transactions can't be queued when automining.`);
  }
}

/** Automine: a fee cap below the next block's base fee (EDR's `AutoMineMaxFeePerGasTooLow` / `AutoMineGasPriceTooLow`). */
export class AutomineFeeTooLowError extends TxRejectedError {
  constructor(
    readonly field: "gasPrice" | "maxFeePerGas",
    readonly actual: bigint,
    readonly baseFee: bigint,
  ) {
    super(`Transaction ${field} (${actual}) is too low for the next block, which has a baseFeePerGas of ${baseFee}`);
  }
}

/** EIP-7825's per-tx gas cap (go-ethereum core.ErrGasLimitTooHigh, as its txpool and state transition word it). */
export class GasCapError extends TxRejectedError {
  constructor(
    readonly cap: bigint,
    readonly gas: bigint,
  ) {
    super(`transaction gas limit too high (cap: ${cap}, tx: ${gas})`);
  }
}

/** Params no transaction can hold (a fee past 2^256, a bad authorization): the caller's mistake, in `field`. */
export class InvalidTransactionError extends NodeError {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(reason);
  }
}

const EIP7825_REFUSAL = /Transaction gas limit (\d+) exceeds the maximum allowed by EIP-7825 \((\d+)\)/;

/** ethereumjs refuses to build a tx above EIP-7825's cap: go-ethereum's error, or undefined for another reason. */
export function gasCapError(reason: string): GasCapError | undefined {
  const match = EIP7825_REFUSAL.exec(reason);
  return match === null ? undefined : new GasCapError(BigInt(match[2]!), BigInt(match[1]!));
}

/**
 * What ethereumjs' refusal to build a tx from call or send params means: a value no tx can hold
 * is the caller's (InvalidTransactionError in `field`); a nonce at 2^64 - 1 (reachable with
 * hardhat_setNonce) and oversized initcode are go-ethereum's refusals. Anything else is returned
 * as it is: a bug.
 */
export function txConstructionFailure(error: unknown, field = "params[0]"): unknown {
  if (error instanceof NodeError) return error;
  const reason = (error instanceof Error ? error.message : String(error)).replace(/ \(tx type=.*$/s, "");
  const capped = gasCapError(reason);
  if (capped !== undefined) return capped;
  if (/nonce cannot equal or exceed MAX_UINT64/.test(reason)) return new TxRejectedError("nonce has max value", { reason });
  if (/initcode size/i.test(reason)) return new TxRejectedError(AdmissionMessage.maxInitCodeSize, { reason });
  if (/maxFeePerGas cannot be less than maxPriorityFeePerGas/.test(reason)) return new TxRejectedError(AdmissionMessage.tipAboveFeeCap);
  if (/cannot exceed MAX_INTEGER|cannot exceed MAX_UINT64|Invalid EIP-7702 transaction/.test(reason)) return new InvalidTransactionError(field, reason);
  return error;
}

// ── Dry runs (eth_call, eth_estimateGas) ─────────────────────────────────────────────────────────

/** A dry run that could not run, or ran into an exceptional halt ("out of gas", "invalid opcode: INVALID"). */
export class ExecutionFailedError extends NodeError {
  constructor(
    message: string,
    /** Return data a client may read as the failure's (`0x` for an invalid opcode: vmErrors.ts). */
    readonly returnData?: string,
  ) {
    super(message);
  }
}

/** A call without fee fields whose value exceeds the sender's balance (go-ethereum's estimator). */
export class InsufficientFundsForTransferError extends NodeError {
  constructor() {
    super("insufficient funds for transfer");
  }
}

/** No gas limit up to `cap` lets the call succeed (go-ethereum's estimator). */
export class GasRequiredExceedsAllowanceError extends NodeError {
  constructor(readonly cap: bigint) {
    super(`gas required exceeds allowance (${cap})`);
  }
}

/**
 * A dry run that reverted, with its return data. `operation` is which one: a call and an estimate
 * are answered differently (docs/behaviour.md#engine-errors).
 */
export class ExecutionRevertedError extends NodeError {
  constructor(
    readonly returnData: string,
    readonly operation: "call" | "estimate",
  ) {
    super("execution reverted");
  }

  /** The `Error(string)` reason of the return data, if it is one. */
  get reason(): string | undefined {
    return errorStringOf(this.returnData);
  }
}

/** A dry run stopped by its wall-time budget (go-ethereum's `--rpc.evmtimeout`); `duration` in Go's words ("5s"). */
export class ExecutionTimeoutError extends NodeError {
  constructor(
    readonly ms: number,
    duration: string,
  ) {
    super(`execution aborted (timeout = ${duration})`);
  }
}

/** The `Error(string)` selector, keccak256("Error(string)")[0..4]. */
const ERROR_STRING_SELECTOR = "0x08c379a0";

/** The reason of `Error(string)` revert data (ABI: offset, length, bytes); undefined for anything else. */
export function errorStringOf(returnData: string): string | undefined {
  if (!returnData.toLowerCase().startsWith(ERROR_STRING_SELECTOR) || returnData.length < 10 + 128) return undefined;
  const body = Buffer.from(returnData.slice(10), "hex");
  const word = (at: number) => (at + 32 <= body.length ? BigInt(`0x${body.subarray(at, at + 32).toString("hex")}`) : undefined);
  const offset = word(0);
  if (offset === undefined || offset > BigInt(body.length)) return undefined;
  const length = word(Number(offset));
  const start = Number(offset) + 32;
  if (length === undefined || BigInt(start) + length > BigInt(body.length)) return undefined;
  return new TextDecoder().decode(body.subarray(start, start + Number(length)));
}

/** The `Panic(uint256)` selector, keccak256("Panic(uint256)")[0..4] (Solidity's panics). */
const PANIC_SELECTOR = "0x4e487b71";

/**
 * go-ethereum's texts for Solidity's panic codes (accounts/abi/abi.go `panicReasons`, read at
 * v1.17.5; the codes are Solidity's, docs.soliditylang.org "Panic via assert and Error via require").
 */
const PANIC_REASONS: ReadonlyMap<bigint, string> = new Map([
  [0x00n, "generic panic"],
  [0x01n, "assert(false)"],
  [0x11n, "arithmetic underflow or overflow"],
  [0x12n, "division or modulo by zero"],
  [0x21n, "enum overflow"],
  [0x22n, "invalid encoded storage byte array accessed"],
  [0x31n, "out-of-bounds array access; popping on an empty array"],
  [0x32n, "out-of-bounds access of an array or bytesN"],
  [0x41n, "out of memory"],
  [0x51n, "uninitialized function"],
]);

/**
 * The reason go-ethereum gives revert data (accounts/abi `UnpackRevert`): an `Error(string)`'s
 * string, a `Panic(uint256)`'s text (`unknown panic code: 0x…` for a code Solidity does not
 * define); undefined for anything else (a custom error, empty data).
 */
export function revertReasonOf(returnData: string): string | undefined {
  if (!returnData.toLowerCase().startsWith(PANIC_SELECTOR)) return errorStringOf(returnData);
  // The code is the first ABI word after the selector; data shorter than that does not decode.
  if (returnData.length < 10 + 64) return undefined;
  const code = BigInt(`0x${returnData.slice(10, 74)}`);
  return PANIC_REASONS.get(code) ?? `unknown panic code: 0x${code.toString(16)}`;
}

/** A state override that cannot be applied (go-ethereum's override.go texts; the params themselves were valid). */
export class StateOverrideError extends NodeError {}

// ── eth_simulateV1 ──────────────────────────────────────────────────────────────────────────────

/**
 * Why a simulation stopped (execution-apis' eth_simulateV1 error list; go-ethereum's
 * internal/ethapi/errors.go gives each its code, src/rpc/errors.ts maps them).
 */
export type SimulationFailure =
  | "nonceTooLow"
  | "nonceTooHigh"
  | "baseFeeTooLow"
  | "intrinsicGas"
  | "insufficientFunds"
  | "blockGasLimitReached"
  | "blockNumberInvalid"
  | "blockTimestampInvalid"
  | "senderNotEoa"
  | "maxInitCodeSize"
  | "clientLimitExceeded"
  | "invalidParams"
  | "internal";

/** An eth_simulateV1 request that cannot be simulated as a whole: the failure's kind and go-ethereum's text. */
export class SimulationError extends NodeError {
  constructor(
    readonly failure: SimulationFailure,
    message: string,
  ) {
    super(message);
  }
}

// ── State ───────────────────────────────────────────────────────────────────────────────────────

/** A block older than the state the chain keeps (a loaded dump, or pruned history): geth's wording. */
export class HistoricalStateUnavailableError extends NodeError {
  constructor(
    readonly block: bigint,
    readonly loadedAt: bigint,
  ) {
    super("historical state not available");
  }
}

/** OP-stack profiles: their blocks hold deposit txs, which a dump could not load back. */
export class StateDumpUnsupportedError extends NodeError {
  constructor(readonly profiles: readonly string[]) {
    super("state dumps are not supported on OP-stack profiles");
  }
}

/** A chain that dropped old blocks (the blockHistory option): a dump writes every block. */
export class BlocksDroppedError extends NodeError {
  constructor(readonly dropped: bigint) {
    super(`the chain dropped ${dropped} old blocks (the blockHistory option); a dump writes every block, so it needs a chain that keeps them all`);
  }
}

// ── Forking ─────────────────────────────────────────────────────────────────────────────────────

/** The fork's upstream is down, refuses a call, or lacks what the fork needs: the message says which. */
export class ForkUpstreamError extends NodeError {
  readonly data: unknown;

  constructor(message: string, data?: unknown) {
    super(message);
    this.data = data;
  }
}
