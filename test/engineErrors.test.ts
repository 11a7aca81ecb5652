/**
 * The engine's errors (src/node/common/errors.ts) as JSON-RPC answers them: the table in src/rpc/errors.ts
 * (docs/behaviour.md "Engine errors"), each row exactly, and every engine error class has a row.
 */
import { expect } from "chai";

import * as engine from "../src/node/common/errors.ts";
import { engineErrorAsRpc, ErrorCode, toRpcError, txConstructionError } from "../src/rpc/errors.ts";

const REVERT_DATA = // Error("no")
  "0x08c379a0000000000000000000000000000000000000000000000000000000000000002000000000000000000000000000000000000000000000000000000000000000026e6f000000000000000000000000000000000000000000000000000000000000";

const CASES: [engine.NodeError, { code: number; message: string; data?: unknown }][] = [
  [new engine.NonceTooLowError(5n, 3n), { code: -32000, message: "nonce too low", data: { nextNonce: "0x5", txNonce: "0x3" } }],
  [
    new engine.InsufficientFundsError(1n, 256n),
    { code: -32000, message: "insufficient funds for gas * price + value", data: { balance: "0x1", cost: "0x100" } },
  ],
  [new engine.AlreadyKnownError(), { code: -32000, message: "already known" }],
  [
    new engine.ReplacementUnderpricedError(11n, 2n),
    { code: -32000, message: "replacement transaction underpriced", data: { minMaxFeePerGas: "0xb", minMaxPriorityFeePerGas: "0x2" } },
  ],
  [
    new engine.GasCapError(16_777_216n, 16_777_217n),
    { code: -32000, message: "transaction gas limit too high (cap: 16777216, tx: 16777217)", data: { cap: "0x1000000", gas: "0x1000001" } },
  ],
  [
    new engine.TxRejectedError(engine.AdmissionMessage.oversizedData, { size: 131073, limit: 131072 }),
    { code: -32000, message: "oversized data", data: { size: 131073, limit: 131072 } },
  ],
  [
    new engine.TxRejectedError(engine.AdmissionMessage.gasLimit, { gas: 31n, blockGasLimit: 30n }),
    { code: -32000, message: "exceeds block gas limit", data: { gas: "0x1f", blockGasLimit: "0x1e" } },
  ],
  [new engine.TxRejectedError(engine.AdmissionMessage.invalidSender), { code: -32000, message: "invalid sender" }],
  // Hardhat's refusals under automine (EDR crates/edr_provider/src/error.rs): its texts, code -32000.
  [
    new engine.AutomineNonceTooHighError(14n, 19n),
    {
      code: -32000,
      message: "Nonce too high. Expected nonce to be 14 but got 19. Note that transactions can't be queued when automining.",
      data: { expectedNonce: "0xe", txNonce: "0x13" },
    },
  ],
  [
    new engine.AutomineFeeTooLowError("maxFeePerGas", 7n, 875000000n),
    {
      code: -32000,
      message: "Transaction maxFeePerGas (7) is too low for the next block, which has a baseFeePerGas of 875000000",
      data: { maxFeePerGas: "0x7", baseFeePerGas: "0x342770c0" },
    },
  ],
  [
    new engine.InvalidTransactionError("params[0]", "gasLimit cannot exceed MAX_UINT64"),
    { code: -32602, message: "Invalid params", data: { field: "params[0]", reason: "gasLimit cannot exceed MAX_UINT64" } },
  ],
  [new engine.ExecutionRevertedError(REVERT_DATA, "call"), { code: 3, message: "execution reverted: no", data: REVERT_DATA }],
  [new engine.ExecutionRevertedError("0x", "call"), { code: 3, message: "execution reverted", data: "0x" }],
  [new engine.ExecutionRevertedError(REVERT_DATA, "estimate"), { code: -32000, message: "execution reverted", data: REVERT_DATA }],
  [new engine.ExecutionFailedError("out of gas"), { code: -32000, message: "out of gas" }],
  // An invalid opcode carries empty return data, as Hardhat's error (docs/dev-methods.md, "Reverts and estimates").
  [new engine.ExecutionFailedError("invalid opcode: INVALID", "0x"), { code: -32000, message: "invalid opcode: INVALID", data: "0x" }],
  // A panic decodes in go-ethereum's words (accounts/abi UnpackRevert).
  [
    new engine.ExecutionRevertedError(`0x4e487b71${"11".padStart(64, "0")}`, "call"),
    { code: 3, message: "execution reverted: arithmetic underflow or overflow", data: `0x4e487b71${"11".padStart(64, "0")}` },
  ],
  [new engine.InsufficientFundsForTransferError(), { code: -32000, message: "insufficient funds for transfer" }],
  [new engine.GasRequiredExceedsAllowanceError(30_000_000n), { code: -32000, message: "gas required exceeds allowance (30000000)" }],
  [new engine.ExecutionTimeoutError(5000, "5s"), { code: -32000, message: "execution aborted (timeout = 5s)" }],
  [new engine.HistoricalStateUnavailableError(3n, 16n), { code: -32000, message: "historical state not available", data: { block: "0x3", loadedAt: "0x10" } }],
  [
    new engine.StateDumpUnsupportedError(["base", "optimism"]),
    { code: -32000, message: "state dumps are not supported on OP-stack profiles", data: { profiles: ["base", "optimism"] } },
  ],
  [
    new engine.BlocksDroppedError(300n),
    {
      code: -32000,
      message: "the chain dropped 300 old blocks (the blockHistory option); a dump writes every block, so it needs a chain that keeps them all",
      data: { dropped: "0x12c" },
    },
  ],
  [new engine.StateOverrideError("account 0x01 is not a precompile"), { code: -32000, message: "account 0x01 is not a precompile" }],
  [new engine.SimulationError("nonceTooLow", "err: nonce too low"), { code: -38010, message: "err: nonce too low" }],
  [new engine.SimulationError("nonceTooHigh", "x"), { code: -38011, message: "x" }],
  [new engine.SimulationError("baseFeeTooLow", "x"), { code: -38012, message: "x" }],
  [new engine.SimulationError("intrinsicGas", "x"), { code: -38013, message: "x" }],
  [new engine.SimulationError("insufficientFunds", "x"), { code: -38014, message: "x" }],
  [new engine.SimulationError("blockGasLimitReached", "x"), { code: -38015, message: "x" }],
  [new engine.SimulationError("blockNumberInvalid", "x"), { code: -38020, message: "x" }],
  [new engine.SimulationError("blockTimestampInvalid", "x"), { code: -38021, message: "x" }],
  [new engine.SimulationError("senderNotEoa", "x"), { code: -38024, message: "x" }],
  [new engine.SimulationError("maxInitCodeSize", "x"), { code: -38025, message: "x" }],
  [new engine.SimulationError("clientLimitExceeded", "too many blocks"), { code: -38026, message: "too many blocks" }],
  [new engine.SimulationError("invalidParams", "empty input"), { code: -32602, message: "empty input" }],
  [new engine.SimulationError("internal", "x"), { code: -32603, message: "x" }],
  [
    new engine.ForkUpstreamError("fork upstream http://127.0.0.1:1 is unreachable (ECONNREFUSED) after 4 attempts"),
    { code: -32603, message: "fork upstream http://127.0.0.1:1 is unreachable (ECONNREFUSED) after 4 attempts" },
  ],
  [
    new engine.ForkUpstreamError("fork upstream x refused eth_getBalance: bad", { method: "eth_getBalance" }),
    { code: -32603, message: "fork upstream x refused eth_getBalance: bad", data: { method: "eth_getBalance" } },
  ],
];

describe("engine errors as JSON-RPC answers them (src/rpc/errors.ts)", () => {
  it("maps each engine error to its code, message and data exactly", () => {
    for (const [error, expected] of CASES) {
      expect(toRpcError(error).toJSON(), error.constructor.name).to.deep.equal(expected);
      expect(engineErrorAsRpc(error)).to.deep.include({ code: expected.code, message: expected.message });
    }
  });

  it("has a row for every engine error class (the cases above cover them all)", () => {
    const classes = Object.values(engine).filter((value) => typeof value === "function" && value.prototype instanceof engine.NodeError);
    const covered = new Set(CASES.map(([error]) => error.constructor));
    expect(classes.length).to.be.greaterThan(10);
    for (const type of classes) expect(covered.has(type as never), (type as { name: string }).name).to.equal(true);
  });

  it("an engine error's message is go-ethereum's text, and its name its class", () => {
    const error = new engine.NonceTooLowError(1n, 0n);
    expect([error.name, error.message]).to.deep.equal(["NonceTooLowError", "nonce too low"]);
    expect(error).to.be.instanceOf(engine.TxRejectedError);
  });

  it("anything else is -32603, and engineErrorAsRpc passes it on unchanged", () => {
    const bug = new TypeError("x is undefined");
    expect(toRpcError(bug).toJSON()).to.deep.equal({ code: ErrorCode.internalError, message: "Internal error", data: { reason: "x is undefined" } });
    expect(engineErrorAsRpc(bug)).to.equal(bug);
  });

  it("reads ethereumjs' refusals to build a tx as go-ethereum's errors", () => {
    const cases: [string, { code: number; message: string; data?: unknown }][] = [
      [
        "Transaction gas limit 16777217 exceeds the maximum allowed by EIP-7825 (16777216)",
        { code: -32000, message: "transaction gas limit too high (cap: 16777216, tx: 16777217)", data: { cap: "0x1000000", gas: "0x1000001" } },
      ],
      [
        "nonce cannot equal or exceed MAX_UINT64 (2^64-1), given 18446744073709551615 (tx type=2 hash=...)",
        { code: -32000, message: "nonce has max value", data: { reason: "nonce cannot equal or exceed MAX_UINT64 (2^64-1), given 18446744073709551615" } },
      ],
      [
        "maxFeePerGas cannot be less than maxPriorityFeePerGas (The total must be the larger of the two)",
        { code: -32000, message: "max priority fee per gas higher than max fee per gas" },
      ],
      [
        "gasLimit cannot exceed MAX_UINT64 (2^64-1)",
        { code: -32602, message: "Invalid params", data: { field: "params[1]", reason: "gasLimit cannot exceed MAX_UINT64 (2^64-1)" } },
      ],
    ];
    for (const [reason, expected] of cases) expect(txConstructionError(new Error(reason), "params[1]").toJSON(), reason).to.deep.equal(expected);
    expect(txConstructionError(new Error("something else")).toJSON()).to.deep.equal({
      code: -32603,
      message: "Internal error",
      data: { reason: "something else" },
    });
  });
});
