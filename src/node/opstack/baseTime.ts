/**
 * Base's BaseTime metadata deposit (the Denim upgrade): blocks come every 200 ms but the header's
 * `timestamp` stays in whole seconds, so every block carries, right after its L1-attributes deposit
 * (tx[1]), a deposit that writes the block's millisecond part to the BaseTime predeploy. Fields as
 * base/base's `BaseTimeUpdateTx` (crates/common/consensus/src/base_time.rs): from the depositor
 * account to 0x42…30, no mint or value, 1,000,000 gas, not a system tx, calling
 * `setTimestampMillisPart(uint16)` with standard ABI encoding; source hash in its own domain (3)
 * committing to the L2 block number (crates/common/consensus/src/source.rs).
 */
import { bigIntToBytes, bytesToHex, concatBytes, createAddressFromString, setLengthLeft } from "@ethereumjs/util";

import { keccak256 } from "../common/crypto.ts";
import { DepositTx, isDeposit } from "./deposit.ts";
import { BASE_TIME, DEPOSITOR_ACCOUNT, L1_INFO_GAS } from "./predeploys.ts";

import type { Block } from "@ethereumjs/block";

/** Milliseconds between Denim blocks: the BaseTime millisecond parts are its multiples below 1000. */
export const DENIM_BLOCK_MS = 200;
/** keccak256("setTimestampMillisPart(uint16)")[0:4]. */
export const SET_TIMESTAMP_MILLIS_PART = Uint8Array.of(0x86, 0xbd, 0xf3, 0x94);
/** Gas of the BaseTime deposit: the same constant as the L1-attributes deposit's (REGOLITH_SYSTEM_TX_GAS). */
export const BASE_TIME_GAS = L1_INFO_GAS;
/** The gas of the deposits that open every block: the L1-attributes one, and BaseTime's where it runs. */
export const systemDepositGas = (baseTime: boolean): bigint => L1_INFO_GAS + (baseTime ? BASE_TIME_GAS : 0n);
/** What those deposits are, for messages. */
export const systemDepositsName = (baseTime: boolean): string =>
  baseTime ? "the L1-attributes and BaseTime deposits' gas" : "the L1-attributes deposit's gas";
/** The deposit source-hash domain of BaseTime deposits (0 user, 1 L1 info, 2 upgrade). */
const BASE_TIME_SOURCE_DOMAIN = 3n;

const BASE_TIME_ADDRESS = createAddressFromString(BASE_TIME);
const DEPOSITOR = createAddressFromString(DEPOSITOR_ACCOUNT);
const word = (value: bigint) => setLengthLeft(bigIntToBytes(value), 32);

/** The BaseTime deposit of block `blockNumber`, whose millisecond part is `millisPart` (0, 200, …, 800). */
export function baseTimeDeposit(blockNumber: bigint, millisPart: number): DepositTx {
  if (millisPart < 0 || millisPart >= 1000 || millisPart % DENIM_BLOCK_MS !== 0) throw new RangeError(`invalid BaseTime millisecond part ${millisPart}`);
  const sourceHash = keccak256(concatBytes(word(BASE_TIME_SOURCE_DOMAIN), keccak256(word(blockNumber))));
  const data = concatBytes(SET_TIMESTAMP_MILLIS_PART, word(BigInt(millisPart)));
  return new DepositTx({ sourceHash, from: DEPOSITOR, to: BASE_TIME_ADDRESS, mint: 0n, value: 0n, gas: BASE_TIME_GAS, isSystemTx: false, data });
}

/**
 * The millisecond part a sealed block's BaseTime deposit wrote, read from its tx[1] as Base's node
 * does (`BaseTimeUpdateTx::decode_timestamp_ms`); undefined for a block without one (before Denim,
 * the genesis).
 */
export function denimMillisPartOf(block: Block): number | undefined {
  const tx: unknown = block.transactions[1];
  if (!isDeposit(tx) || tx.to === undefined || bytesToHex(tx.to.bytes) !== BASE_TIME) return undefined;
  const { data } = tx;
  if (data.length !== 36 || bytesToHex(data.subarray(0, 4)) !== bytesToHex(SET_TIMESTAMP_MILLIS_PART)) return undefined;
  return (data[34] as number) * 256 + (data[35] as number);
}

/** A block's millisecond part: its BaseTime deposit's, 0 for a block without one. */
export const millisPartOf = (block: Block): number => denimMillisPartOf(block) ?? 0;

/**
 * A block's time in milliseconds as Base's RPC reports it (`timestampMs`, a quantity: base/base PRs
 * #4014, #4025): on a Denim block, timestamp × 1000 + its BaseTime millisecond part; undefined on
 * any other block (the field is left out).
 */
export function timestampMsOf(block: Block): bigint | undefined {
  const millis = denimMillisPartOf(block);
  return millis === undefined ? undefined : block.header.timestamp * 1000n + BigInt(millis);
}
