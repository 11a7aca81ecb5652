/**
 * eth_createAccessList with go-ethereum's algorithm (internal/ethapi/api.go AccessList and
 * eth/tracers/logger/access_list_tracer.go, read at v1.17.5): run the call with an access-list
 * tracer, run it again with the list it recorded, and stop when a run records no more than the
 * list it ran with. The sender, the recipient (or the created contract), the active precompiles and
 * the authorities of the call's EIP-7702 authorizations are left out as addresses; the slots a
 * contract reads or writes are listed whoever it is.
 */
import { createContractAddress, eoaCode7702RecoverAuthority } from "@ethereumjs/util";

import { callAddress, dryRun } from "./dryRun.ts";
import { gethErrorText } from "./vmErrors.ts";

import type { Block } from "@ethereumjs/block";
import type { InterpreterStep } from "@ethereumjs/evm";
import type { VM } from "@ethereumjs/vm";
import type { AccessListItem, CallAuthorization, CallRequest, Hex } from "../common/types.ts";

export interface CreatedAccessList {
  /** Sorted by address, each address's keys sorted (go-ethereum's order). */
  accessList: AccessListItem[];
  /** Gas the call used with that list (after refunds, as a receipt's). */
  gasUsed: bigint;
  /** go-ethereum's text of the call's failure, when it failed (`execution reverted`, `out of gas`, …). */
  error?: string;
}

const STORAGE_OPS = new Set(["SLOAD", "SSTORE"]);
/** Opcodes whose stack top names an address (go-ethereum's list). */
const ADDRESS_OPS = new Set(["EXTCODECOPY", "EXTCODEHASH", "EXTCODESIZE", "BALANCE", "SELFDESTRUCT"]);
/** Opcodes whose second stack item names the address called. */
const CALL_OPS = new Set(["CALL", "CALLCODE", "DELEGATECALL", "STATICCALL"]);

const addressOf = (word: bigint): Hex => `0x${(word & ((1n << 160n) - 1n)).toString(16).padStart(40, "0")}`;
const slotOf = (word: bigint): Hex => `0x${word.toString(16).padStart(64, "0")}`;

/** The addresses and slots a run touches, on top of the list it started from. */
class AccessListTracer {
  readonly #list = new Map<Hex, Set<Hex>>();

  constructor(
    readonly excluded: ReadonlySet<Hex>,
    start: readonly AccessListItem[],
  ) {
    for (const { address, storageKeys } of start) {
      if (excluded.has(address)) continue;
      this.#address(address);
      for (const key of storageKeys) this.#list.get(address)!.add(key);
    }
  }

  readonly onStep = (step: InterpreterStep): void => {
    const name = step.opcode.name;
    const stack = step.stack;
    const top = stack[stack.length - 1];
    if (top === undefined) return;
    if (STORAGE_OPS.has(name)) {
      // The storage context: a DELEGATECALL's slots are its caller's.
      const address = step.address.toString() as Hex;
      this.#address(address);
      this.#list.get(address)!.add(slotOf(top));
    } else if (ADDRESS_OPS.has(name)) {
      this.#include(addressOf(top));
    } else if (CALL_OPS.has(name) && stack.length >= 5) {
      this.#include(addressOf(stack[stack.length - 2]!));
    }
  };

  #include(address: Hex): void {
    if (!this.excluded.has(address)) this.#address(address);
  }

  #address(address: Hex): void {
    if (!this.#list.has(address)) this.#list.set(address, new Set());
  }

  list(): AccessListItem[] {
    return [...this.#list.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([address, keys]) => ({ address, storageKeys: [...keys].sort() }));
  }

  /** Whether both hold the same addresses and slots. */
  equals(other: AccessListTracer): boolean {
    if (this.#list.size !== other.#list.size) return false;
    for (const [address, keys] of this.#list) {
      const theirs = other.#list.get(address);
      if (theirs === undefined || theirs.size !== keys.size) return false;
      for (const key of keys) if (!theirs.has(key)) return false;
    }
    return true;
  }
}

/** The authority an authorization would delegate, when go-ethereum's checks would let it (chain id 0 or ours, nonce below 2^64 - 1). */
function authorityOf(authorization: CallAuthorization, chainId: bigint): Hex | undefined {
  if ((authorization.chainId !== 0n && authorization.chainId !== chainId) || authorization.nonce >= 0xffffffffffffffffn) return undefined;
  try {
    const hex = (value: bigint) => `0x${value.toString(16)}` as Hex;
    return eoaCode7702RecoverAuthority({
      chainId: hex(authorization.chainId),
      address: authorization.address,
      nonce: hex(authorization.nonce),
      yParity: hex(authorization.yParity ?? authorization.v ?? 0n),
      r: hex(authorization.r),
      s: hex(authorization.s),
    })
      .toString()
      .toLowerCase() as Hex;
  } catch {
    return undefined;
  }
}

/** What go-ethereum leaves out of the list as addresses: sender, recipient, precompiles, authorities. */
async function excludedAddresses(vm: VM, request: CallRequest): Promise<Set<Hex>> {
  const from = callAddress(request.from);
  const nonce = request.nonce ?? (await vm.stateManager.getAccount(from))?.nonce ?? 0n;
  const to = request.to ?? createContractAddress(from, nonce).toString();
  const excluded = new Set<Hex>([from.toString() as Hex, to.toLowerCase() as Hex]);
  for (const precompile of vm.evm.precompiles.keys()) excluded.add(`0x${precompile}`);
  for (const authorization of request.authorizationList ?? []) {
    const authority = authorityOf(authorization, vm.common.chainId());
    if (authority !== undefined) excluded.add(authority);
  }
  return excluded;
}

/**
 * The access list of `request` on `vm`'s state in `block`, run as eth_call runs it (dryRun.ts: no
 * fee fields, no balance needed for gas) with `gasLimit`. Errors that stop a dry run before it
 * runs (insufficient funds for the value, a bad transaction) are thrown as eth_call's.
 */
export async function createAccessList(vm: VM, request: CallRequest, block: Block, gasLimit: bigint): Promise<CreatedAccessList> {
  const excluded = await excludedAddresses(vm, request);
  let previous = new AccessListTracer(excluded, request.accessList ?? []);
  const events = vm.evm.events!;
  for (;;) {
    const accessList = previous.list();
    const tracer = new AccessListTracer(excluded, accessList);
    events.on("step", tracer.onStep);
    let run: Awaited<ReturnType<typeof dryRun>>;
    try {
      run = await dryRun(vm, { ...request, accessList }, block, gasLimit);
    } finally {
      events.off("step", tracer.onStep);
    }
    if (tracer.equals(previous)) {
      const failure = run.result.execResult.exceptionError?.error;
      return { accessList, gasUsed: run.result.totalGasSpent, ...(failure !== undefined && { error: gethErrorText(failure) }) };
    }
    previous = tracer;
  }
}
