/** How the CLI writes values: ether, gas, addresses (EIP-55), why a tx failed, and colours. */
import { toChecksumAddress } from "@ethereumjs/util";

import { ETHER, GWEI } from "../node/common/defaults.ts";
import { errorStringOf } from "../node/common/errors.ts";

import type { ColorMode } from "./flags.ts";

/** 1 ETH, 0.5 ETH, 10000 ETH: exact, without trailing zeros. */
export function formatEther(wei: bigint): string {
  const sign = wei < 0n ? "-" : "";
  const abs = wei < 0n ? -wei : wei;
  const fraction = (abs % ETHER).toString().padStart(18, "0").replace(/0+$/, "");
  return `${sign}${abs / ETHER}${fraction === "" ? "" : `.${fraction}`} ETH`;
}

/** 1000000000 → "1 gwei"; amounts that are not whole gwei in wei. */
export function formatGwei(wei: bigint): string {
  return wei % GWEI === 0n ? `${wei / GWEI} gwei` : `${wei} wei`;
}

export const formatGas = (gas: bigint | number): string => gas.toLocaleString("en-US");

/** EIP-55 mixed-case checksum, as anvil prints addresses. */
export const checksummed = (address: string): string => toChecksumAddress(address);

/**
 * Solidity's panic codes (docs.soliditylang.org, "Panic via assert and Error via require"), read
 * 2025-11: what `Panic(uint256)` reverts mean.
 */
const PANICS: Record<number, string> = {
  0: "generic compiler panic",
  1: "assert(false)",
  17: "arithmetic overflow or underflow",
  18: "division or modulo by zero",
  33: "invalid enum value",
  34: "incorrectly encoded storage byte array",
  49: "pop() on an empty array",
  50: "array index out of bounds",
  65: "too much memory allocated",
  81: "call to a zero-initialized function pointer",
};

/** keccak256("Panic(uint256)")[0..4] */
const PANIC_SELECTOR = "0x4e487b71";

/** `reverted: nope`, `reverted: panic 0x11 (arithmetic overflow or underflow)`, `failed: out of gas`. */
export function describeFailure(failure: { error: string; returnData: string } | undefined): string {
  if (failure === undefined) return "failed";
  if (failure.error !== "revert") return `failed: ${failure.error}`;
  const data = failure.returnData;
  const reason = errorStringOf(data);
  if (reason !== undefined) return `reverted: ${reason}`;
  if (data.toLowerCase().startsWith(PANIC_SELECTOR) && data.length === 10 + 64) {
    const code = Number(BigInt(`0x${data.slice(10)}`));
    return `reverted: panic 0x${code.toString(16).padStart(2, "0")} (${PANICS[code] ?? "unknown panic code"})`;
  }
  if (data === "0x") return "reverted (no reason)";
  // A custom error: its selector and arguments, which the contract's ABI decodes.
  return `reverted with data ${data.length > 2 + 8 + 256 ? `${data.slice(0, 2 + 8 + 256)}…` : data}`;
}

export interface Colors {
  readonly enabled: boolean;
  green(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

/** Colours on a terminal only (or when asked), never with NO_COLOR set (no-color.org). */
export function colorsFor(mode: ColorMode, isTty: boolean, env: NodeJS.ProcessEnv = process.env): Colors {
  const enabled = mode === "always" || (mode === "auto" && isTty && (env.NO_COLOR === undefined || env.NO_COLOR === ""));
  const wrap = (open: number, close: number) => (text: string) => (enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text);
  return { enabled, green: wrap(32, 39), red: wrap(31, 39), yellow: wrap(33, 39), dim: wrap(2, 22), bold: wrap(1, 22) };
}
