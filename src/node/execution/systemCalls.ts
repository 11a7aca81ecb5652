/**
 * The system calls a block makes to the contracts of genesisContracts.ts. The open block runs
 * `runTx` per tx (openBlock.ts), so @ethereumjs/vm's `runBlock`, which makes them for imported
 * blocks, never runs on the blocks built here: the builder (fragmentRunner.ts, chainCore.ts) and
 * eth_simulateV1 call these instead, with the same effects.
 *
 * - Before a block's first tx: EIP-4788 stores the header's parent beacon block root under its
 *   timestamp, EIP-2935 the parent's hash under the parent's number (ring buffers of 8191 slots).
 * - After its last tx, on a chain that builds EIP-7685 requests (an L1 chain; the OP Stack calls
 *   neither, specs/protocol/isthmus/exec-engine.md): EIP-7002's and EIP-7251's queues are dequeued
 *   into the block's withdrawal and consolidation requests.
 */
import { Account, bigIntToBytes, bytesToBigInt, CLRequest, CLRequestType, createAddressFromString } from "@ethereumjs/util";
import { genRequestsRoot } from "@ethereumjs/block";
import { sha256 } from "@noble/hashes/sha2.js";

import { bytesOfCheckedHex } from "../common/hex.ts";
import { watchStateWrites } from "../ethereumjs/stateWrites.ts";
import { isLiveState } from "../state/liveState.ts";
import {
  BEACON_ROOTS_ADDRESS,
  CONSOLIDATION_QUEUE_ADDRESS,
  HISTORY_STORAGE_ADDRESS,
  SYSTEM_ADDRESS,
  WITHDRAWAL_QUEUE_ADDRESS,
} from "../state/genesisContracts.ts";

import type { Block } from "@ethereumjs/block";
import type { Common, StateManagerInterface } from "@ethereumjs/common";
import type { VM } from "@ethereumjs/vm";
import type { Hex } from "../common/types.ts";

/** EIP-4788's HISTORY_BUFFER_LENGTH and EIP-2935's HISTORY_SERVE_WINDOW. */
const RING_LENGTH = 8191n;
/** The gas every system call gets (EIP-4788, EIP-2935, EIP-7002, EIP-7251): it counts against nothing. */
const SYSTEM_CALL_GAS = 30_000_000n;

const BEACON_ROOTS = createAddressFromString(BEACON_ROOTS_ADDRESS);
const HISTORY_STORAGE = createAddressFromString(HISTORY_STORAGE_ADDRESS);
const SYSTEM = createAddressFromString(SYSTEM_ADDRESS);
const REQUEST_QUEUES = [
  { type: CLRequestType.Withdrawal, address: createAddressFromString(WITHDRAWAL_QUEUE_ADDRESS) },
  { type: CLRequestType.Consolidation, address: createAddressFromString(CONSOLIDATION_QUEUE_ADDRESS) },
];

/**
 * The 32-byte big-endian storage key of `value` (< 2^256), as `setLengthLeft(bigIntToBytes(value), 32)`
 * gives it, written directly: util's setLength pads by spreading both arrays into a new one, three
 * times per block here.
 */
function slot(value: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 31, rest = value; i >= 0 && rest > 0n; i--, rest >>= 8n) out[i] = Number(rest & 0xffn);
  return out;
}

/** What the start-of-block calls read of the block being built. */
export interface BlockStart {
  number: bigint;
  timestamp: bigint;
  parentHash: Hex;
  /** The header's parentBeaconBlockRoot (32 bytes). */
  parentBeaconBlockRoot: Uint8Array;
}

/**
 * The start-of-block system calls. Each writes what its contract's `set` path writes (EIP-4788
 * allows writing the storage directly, EIP-2935 names it as the clients' second option, and
 * @ethereumjs/vm's runBlock does so); a fork without the EIP, or an address without code, writes
 * nothing (the call "must fail silently").
 */
export async function startBlock(vm: VM, block: BlockStart): Promise<void> {
  const state = vm.stateManager;
  if (vm.common.isActivatedEIP(4788) && (await state.getCode(BEACON_ROOTS)).length > 0) {
    const index = block.timestamp % RING_LENGTH;
    await state.putStorage(BEACON_ROOTS, slot(index), bigIntToBytes(block.timestamp));
    await state.putStorage(BEACON_ROOTS, slot(index + RING_LENGTH), block.parentBeaconBlockRoot);
  }
  if (vm.common.isActivatedEIP(2935) && block.number > 0n && (await state.getCode(HISTORY_STORAGE)).length > 0) {
    await state.putStorage(HISTORY_STORAGE, slot((block.number - 1n) % RING_LENGTH), bytesOfCheckedHex(block.parentHash));
  }
}

/**
 * The end-of-block request calls (EIP-7002, EIP-7251): each queue contract is called as
 * SYSTEM_ADDRESS with no calldata, which dequeues up to its per-block maximum, updates its excess
 * and resets its count, and returns the requests. A queue whose four control slots (excess, count,
 * head, tail) are all zero would change nothing and return nothing, so it is not called: most
 * blocks of a dev chain cost no EVM run. A missing contract or a failed call (its code replaced)
 * gives no requests rather than an unbuildable block.
 */
export async function endBlockRequests(vm: VM, block: Block): Promise<CLRequest<CLRequestType>[]> {
  if (!vm.common.isActivatedEIP(7685)) return [];
  const state = vm.stateManager;
  const idle = idleQueuesOf(state);
  const requests: CLRequest<CLRequestType>[] = [];
  for (const queue of REQUEST_QUEUES) {
    if (idle?.has(queue.address.toString()) === true) continue;
    if ((await state.getCode(queue.address)).length === 0) continue;
    if (await isIdle(state, queue.address)) {
      idle?.add(queue.address.toString());
      continue;
    }
    const before = await state.getAccount(SYSTEM);
    const result = await vm.evm.runCall({ caller: SYSTEM, to: queue.address, gasLimit: SYSTEM_CALL_GAS, block, skipNonceIncrement: true });
    // The system address is only the caller: it ends as it began.
    if (before === undefined) await state.deleteAccount(SYSTEM);
    else await state.putAccount(SYSTEM, new Account(before.nonce, before.balance, before.storageRoot, before.codeHash));
    await vm.evm.journal.cleanup();
    if (result.execResult.exceptionError === undefined && result.execResult.returnValue.length > 0) {
      requests.push(new CLRequest(queue.type, result.execResult.returnValue));
    }
  }
  return requests;
}

/** Queues whose control slots were read (test/blockOpening.test.ts counts the reads an evm_revert saves). */
export const requestQueueChecks = { count: 0 };

async function isIdle(state: StateManagerInterface, queue: CLRequestQueueAddress): Promise<boolean> {
  requestQueueChecks.count++;
  for (let control = 0n; control < 4n; control++) if (bytesToBigInt(await state.getStorage(queue, slot(control))) !== 0n) return false;
  return true;
}
type CLRequestQueueAddress = (typeof REQUEST_QUEUES)[number]["address"];

/**
 * The queues known idle, per live state manager: the check above reads two code and eight slots at
 * every block's end, while a queue only fills when a tx (or a dev edit) writes to it. A write to a
 * queue's account or storage forgets that queue's fact; a state root set, a checkpoint reverted, an
 * account deleted or storage cleared forgets all (viewState.ts `watchWrites`). Only the chain's own live state
 * (liveState.ts, which tells every write of it: stateWrites.ts `watchStateWrites`) is watched; a fork's is read each time.
 */
const idleQueues = new WeakMap<StateManagerInterface, Set<string>>();

function idleQueuesOf(state: StateManagerInterface): Set<string> | undefined {
  let idle = idleQueues.get(state);
  if (idle !== undefined || !isLiveState(state)) return idle;
  const known = new Set<string>();
  const forget = (id: string) => known.delete(id);
  watchStateWrites(state, { account: forget, slot: forget, reset: () => known.clear() });
  idle = known;
  idleQueues.set(state, idle);
  return idle;
}

/**
 * The idle queues known for `state` now, and what puts them back once `state` is again at this
 * moment's state root (evm_revert to a snapshot taken now: chain/chainSnapshots.ts). Setting the
 * root forgets every fact, yet the facts were true of that very state, so they hold again: test
 * files revert before each test, and each revert would re-read the queues' two codes and eight
 * slots at the next block's end.
 */
export function captureIdleQueues(state: StateManagerInterface): () => void {
  const facts = [...(idleQueues.get(state) ?? [])];
  return () => {
    const idle = idleQueues.get(state);
    for (const fact of facts) idle?.add(fact);
  };
}

/** sha256 of nothing: the requests hash of a block without requests, most blocks' (computed once). */
const EMPTY_REQUESTS_HASH = sha256(new Uint8Array());

/** EIP-7685's requests hash of `requests` (sha256 of the non-empty requests' sha256s). */
export function requestsHashOf(common: Common, requests: readonly CLRequest<CLRequestType>[]): Uint8Array {
  if (requests.every((request) => request.data.length === 0)) return EMPTY_REQUESTS_HASH;
  return genRequestsRoot([...requests], common.customCrypto.sha256 ?? sha256);
}
