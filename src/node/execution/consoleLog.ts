/**
 * Hardhat's `console.sol` (`import "hardhat/console.sol"`, also forge-std's `console.sol`): a
 * contract's `console.log(...)` is a STATICCALL to an address with no code,
 * 0x000000000000000000636f6e736f6c652e6c6f67 ("console.log" in ASCII), whose calldata is the ABI
 * call of a `log(...)` overload. The call itself does nothing: a node that wants the output watches
 * for calls to that address while a tx runs, as Hardhat's EDR and anvil do, and decodes the
 * calldata (`src/cli/consoleLog.ts` formats it; the engine only keeps the bytes).
 *
 * Watching costs one listener call per EVM message (ethereumjs emits `beforeMessage` for every
 * call and create), so it is on only while something prints it (`Chain.captureConsoleLogs`).
 */
import { bytesToHex, hexToBytes } from "@ethereumjs/util";

import type { Message } from "@ethereumjs/evm";
import type { VM } from "@ethereumjs/vm";
import type { Hex } from "../common/types.ts";

export const CONSOLE_ADDRESS = "0x000000000000000000636f6e736f6c652e6c6f67" as Hex;
const CONSOLE_BYTES = hexToBytes(CONSOLE_ADDRESS);

function isConsole(to: Uint8Array): boolean {
  if (to.length !== CONSOLE_BYTES.length) return false;
  for (let i = to.length - 1; i >= 0; i--) if (to[i] !== CONSOLE_BYTES[i]) return false;
  return true;
}

/**
 * Runs `execute` on `vm` and collects the calldata of every call it makes to the console address,
 * in order (a reverted call frame's too: its output was printed by then, as in Hardhat).
 */
export async function withConsoleCalls<T>(vm: VM, execute: () => Promise<T>): Promise<{ result: T; calls: Hex[] }> {
  const calls: Hex[] = [];
  // One argument: ethereumjs then calls the listener without waiting for a callback.
  const listener = (message: Message) => {
    if (message.to !== undefined && isConsole(message.to.bytes)) calls.push(bytesToHex(message.data));
  };
  // ethereumjs' EVM always has its emitter (its interface makes it optional for other EVMs).
  const events = vm.evm.events!;
  events.on("beforeMessage", listener);
  try {
    return { result: await execute(), calls };
  } finally {
    events.off("beforeMessage", listener);
  }
}
