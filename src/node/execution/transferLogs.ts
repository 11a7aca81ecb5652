/**
 * eth_simulateV1's `traceTransfers`: every ETH transfer of a call as an ERC-7528 log — address
 * 0xEeee…EEeE, topics Transfer(address,address,uint256), sender and recipient, the value as data —
 * in order among the call's own logs, and gone with the frame that made it when that frame fails,
 * as go-ethereum's simulation tracer records them (internal/ethapi/logtracer.go): the value of a
 * call or create (not of DELEGATECALL or CALLCODE), and a SELFDESTRUCT's balance.
 */
import { bigIntToBytes, bytesToHex, setLengthLeft } from "@ethereumjs/util";

import type { EVMResult, InterpreterStep, Message } from "@ethereumjs/evm";
import type { VM } from "@ethereumjs/vm";
import type { Hex } from "../common/types.ts";

/** ERC-7528's address for the native asset. */
export const NATIVE_ASSET_ADDRESS = "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee" as Hex;
/** keccak256("Transfer(address,address,uint256)"). */
const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef" as Hex;

/** A log of a call: emitted by the contract, or a transfer made into one. */
export interface CallLog {
  address: Hex;
  topics: Hex[];
  data: Hex;
}

/**
 * A frame's logs in order: the contract's own (placeholders, filled from the receipt) and
 * transfers, each numbered when it was made. go-ethereum's tracer numbers every log it captures
 * across the block, those of frames that fail after included, so later logs keep their numbers.
 */
type Entry = ({ transfer: CallLog } | { emitted: true }) & { logIndex: number };

const word = (bytes: Uint8Array) => bytesToHex(setLengthLeft(bytes, 32));
const pick = ({ address, topics, data }: CallLog): CallLog => ({ address, topics, data });

function transferLog(from: Uint8Array, to: Uint8Array, value: bigint): CallLog {
  return { address: NATIVE_ASSET_ADDRESS, topics: [TRANSFER_TOPIC, word(from), word(to)], data: word(bigIntToBytes(value)) };
}

/**
 * Listens to one tx on `vm`; `logs(emitted)` then interleaves the tx's surviving logs with its
 * transfers. `counter` numbers the logs of a block, across its txs.
 */
export function traceTransfers(vm: VM, counter: { next: number }): { detach(): void; logs(emitted: readonly CallLog[]): (CallLog & { logIndex: number })[] } {
  const frames: Entry[][] = [];
  let kept: Entry[] = [];
  let callOp = "CALL";
  const events = vm.evm.events!;
  const onStep = (step: InterpreterStep) => {
    const name = step.opcode.name;
    if (name === "CALL" || name === "CALLCODE" || name === "DELEGATECALL" || name === "STATICCALL") callOp = name;
    else if (name.startsWith("LOG")) frames[frames.length - 1]?.push({ emitted: true, logIndex: counter.next++ });
    else if (name === "SELFDESTRUCT") {
      const beneficiary = step.stack[step.stack.length - 1] ?? 0n;
      const balance = step.account.balance;
      const to = setLengthLeft(bigIntToBytes(beneficiary), 20);
      if (balance > 0n) frames[frames.length - 1]?.push({ transfer: transferLog(step.address.bytes, to, balance), logIndex: counter.next++ });
    }
  };
  const onBefore = (message: Message) => {
    const frame: Entry[] = [];
    const delegated = message.depth > 0 && message.to !== undefined && (callOp === "DELEGATECALL" || callOp === "CALLCODE");
    // A create's recipient is known only once it is made (`onAfter`): its transfer is the frame's first entry.
    if (!delegated && message.value > 0n) {
      frame.push({ transfer: transferLog(message.caller.bytes, message.to?.bytes ?? new Uint8Array(20), message.value), logIndex: counter.next++ });
    }
    frames.push(frame);
    callOp = "CALL";
  };
  const onAfter = (result: EVMResult) => {
    const frame = frames.pop();
    if (frame === undefined) return;
    const first = frame[0];
    if (result.createdAddress !== undefined && first !== undefined && "transfer" in first && first.transfer.topics[2] === word(new Uint8Array(20))) {
      first.transfer.topics[2] = word(result.createdAddress.bytes);
    }
    if (result.execResult.exceptionError !== undefined) return;
    const parent = frames[frames.length - 1];
    if (parent === undefined) kept = frame;
    else parent.push(...frame);
  };
  events.on("step", onStep);
  events.on("beforeMessage", onBefore);
  events.on("afterMessage", onAfter);
  return {
    detach() {
      events.off("step", onStep);
      events.off("beforeMessage", onBefore);
      events.off("afterMessage", onAfter);
    },
    logs(emitted) {
      const out: (CallLog & { logIndex: number })[] = [];
      let next = 0;
      for (const entry of kept) {
        if ("transfer" in entry) out.push({ ...entry.transfer, logIndex: entry.logIndex });
        else if (next < emitted.length) out.push({ ...pick(emitted[next++]!), logIndex: entry.logIndex });
      }
      // Whatever the frames did not account for (none, when the tx ran to its end).
      for (const log of emitted.slice(next)) out.push({ ...pick(log), logIndex: counter.next++ });
      return out;
    },
  };
}
