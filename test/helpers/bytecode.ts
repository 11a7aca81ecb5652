/**
 * Hand-assembled contracts for the RPC-surface tests and scripts/compare-peers.ts: each runtime is a
 * few opcodes doing one thing (a panic, INVALID, SELFDESTRUCT, a call it cannot pay for), so a
 * test reads exactly what it exercises. Opcode bytes are the Yellow Paper's (appendix H).
 */
import type { Hex } from "viem";

const code = (...parts: string[]): Hex => `0x${parts.join("")}`;

/** Init code that deploys `runtime` as is: CODECOPY the runtime after this 12-byte prefix, RETURN it. */
export function initCodeFor(runtime: Hex): Hex {
  const length = (runtime.length - 2) / 2;
  // PUSH2 len, DUP1, PUSH1 12, PUSH1 0, CODECOPY, PUSH1 0, RETURN
  return code(`61${length.toString(16).padStart(4, "0")}`, "80", "600c", "6000", "39", "6000", "f3", runtime.slice(2));
}

/**
 * Reverts with `Panic(uint256)` whose code is the first calldata word, as Solidity encodes a panic:
 * the selector 0x4e487b71 shifted into memory word 0, the code stored at byte 4, REVERT(0, 36).
 */
export const PANIC_RUNTIME = code("634e487b71", "60e0", "1b", "6000", "52", "6000", "35", "6004", "52", "6024", "6000", "fd");

/** The designated invalid instruction, 0xfe (EIP-141). */
export const INVALID_RUNTIME = code("fe");

/** SELFDESTRUCT to the caller. */
export const SELFDESTRUCT_RUNTIME = code("33", "ff");

/** CALLs its caller with 1 ether it does not have (the call fails before a frame runs); returns CALL's flag as a word. */
export const UNPAYABLE_CALL_RUNTIME = code("6000", "6000", "6000", "6000", "670de0b6b3a7640000", "33", "5a", "f1", "6000", "52", "6020", "6000", "f3");

/** The address ACCESS_RUNTIME reads the balance of. */
export const PROBED_ADDRESS: Hex = "0x000000000000000000000000000000000000dead";

/**
 * SLOAD(1), SSTORE(2, 42), BALANCE(0x…dead), a STATICCALL to the ecrecover precompile (0x01), STOP:
 * what an access list records (slots 1 and 2 of itself, 0x…dead) and leaves out (the precompile).
 */
export const ACCESS_RUNTIME = code(
  "6001",
  "54",
  "50",
  "602a",
  "6002",
  "55",
  `73${PROBED_ADDRESS.slice(2)}`,
  "31",
  "50",
  "6000",
  "6000",
  "6000",
  "6000",
  "6001",
  "5a",
  "fa",
  "50",
  "00",
);

/** A Panic(uint256) code as eth_call data (one word). */
export const panicCode = (value: number): Hex => `0x${value.toString(16).padStart(64, "0")}`;

/** Puts 42 in memory, STATICCALLs the identity precompile (0x04) with it, POPs the flag, STOPs: the POP sees 42 as return data. */
export const RETURN_DATA_RUNTIME = code("602a", "6000", "52", "6000", "6000", "6020", "6000", "6004", "5a", "fa", "50", "00");

/** CREATEs with 1 ether it does not have (no frame runs: geth's callTracer shows one with the error), then STOP. */
export const UNPAYABLE_CREATE_RUNTIME = code("6000", "6000", "670de0b6b3a7640000", "f0", "50", "00");
