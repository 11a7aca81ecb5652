/**
 * EIP-7910's fork configurations (`eth_config`): for a fork of the chain's ladder, its activation
 * time, blob schedule, chain id, EIP-2124 fork id, precompiles and system contracts, as geth
 * assembles them (go-ethereum internal/ethapi/api.go `Config`, core/forkid/forkid.go `NewID`,
 * params/config.go `ActiveSystemContracts`). On an OP chain a configuration is one rung of its
 * ladder: its precompiles are the chain's (P256VERIFY from Fjord on), its system contracts those the
 * OP stack runs (EIP-4788's since Ecotone, EIP-2935's since Isthmus; the EIP-7002/7251 request
 * contracts and the deposit contract are not part of it: specs/protocol/isthmus/exec-engine.md).
 */
import { crc32 } from "node:zlib";

import { bigIntToBytes, setLengthLeft } from "@ethereumjs/util";

import { BLOB_SCHEDULE, SUPPORTED_HARDFORKS } from "../state/genesis.ts";

import type { ActiveFork, ForkSchedule } from "./forkSchedule.ts";
import type { SupportedHardfork } from "../state/genesis.ts";
import type { Hex } from "../common/types.ts";

export interface ForkConfig {
  /** Unix seconds; 0 for a fork active from the genesis. */
  activationTime: bigint;
  blobSchedule: { baseFeeUpdateFraction: number; max: number; target: number } | null;
  chainId: bigint;
  /** EIP-2124's fork hash with this fork's activation passed (4 bytes). */
  forkId: Uint8Array;
  /** Name → address (geth's names: core/vm/contracts.go `Name()`). */
  precompiles: Record<string, Hex>;
  /** Name → address (the names of the EIPs that introduced them). */
  systemContracts: Record<string, Hex>;
}

export interface ForkConfigs {
  current: ForkConfig;
  next: ForkConfig | null;
  last: ForkConfig | null;
}

const precompile = (suffix: string) => `0x${suffix.padStart(40, "0")}` as Hex;

/** Ethereum's precompiles by the fork that added them (EIP-7910's names for each). */
const ETHEREUM_PRECOMPILES: [SupportedHardfork, Record<string, Hex>][] = [
  [
    "paris",
    {
      ECREC: precompile("01"),
      SHA256: precompile("02"),
      RIPEMD160: precompile("03"),
      ID: precompile("04"),
      MODEXP: precompile("05"),
      BN254_ADD: precompile("06"),
      BN254_MUL: precompile("07"),
      BN254_PAIRING: precompile("08"),
      BLAKE2F: precompile("09"),
    },
  ],
  ["cancun", { KZG_POINT_EVALUATION: precompile("0a") }],
  [
    "prague",
    {
      BLS12_G1ADD: precompile("0b"),
      BLS12_G1MSM: precompile("0c"),
      BLS12_G2ADD: precompile("0d"),
      BLS12_G2MSM: precompile("0e"),
      BLS12_PAIRING_CHECK: precompile("0f"),
      BLS12_MAP_FP_TO_G1: precompile("10"),
      BLS12_MAP_FP2_TO_G2: precompile("11"),
    },
  ],
];
const P256VERIFY = precompile("100");

/** EIP-4788, EIP-2935, EIP-7002, EIP-7251 and EIP-6110's addresses. */
export const SYSTEM_CONTRACTS = {
  BEACON_ROOTS_ADDRESS: "0x000f3df6d732807ef1319fb7b8bb8522d0beac02",
  HISTORY_STORAGE_ADDRESS: "0x0000f90827f1c53a10cb7a02335b175320002935",
  WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS: "0x00000961ef480eb55e80d19ad83579a64c007002",
  CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS: "0x0000bbddc7ce488642fb579f8b00f3a590007251",
  // EIP-6110's mainnet deposit contract: a dev chain has none of its own (our choice, documented in docs/behaviour.md).
  DEPOSIT_CONTRACT_ADDRESS: "0x00000000219ab540356cbb839cbe05303d7705fa",
} as const satisfies Record<string, Hex>;

const atLeast = (evm: SupportedHardfork, fork: SupportedHardfork) => SUPPORTED_HARDFORKS.indexOf(evm) >= SUPPORTED_HARDFORKS.indexOf(fork);

function precompilesOf(fork: ActiveFork): Record<string, Hex> {
  const { evm, p256Verify } = fork.rules;
  const active: Record<string, Hex> = {};
  for (const [since, added] of ETHEREUM_PRECOMPILES) if (atLeast(evm, since)) Object.assign(active, added);
  if (p256Verify !== undefined) active.P256VERIFY = P256VERIFY;
  return active;
}

function systemContractsOf(fork: ActiveFork): Record<string, Hex> {
  const { evm, opStack } = fork.rules;
  const active: Record<string, Hex> = {};
  if (atLeast(evm, "cancun")) active.BEACON_ROOTS_ADDRESS = SYSTEM_CONTRACTS.BEACON_ROOTS_ADDRESS;
  if (atLeast(evm, "prague")) {
    active.HISTORY_STORAGE_ADDRESS = SYSTEM_CONTRACTS.HISTORY_STORAGE_ADDRESS;
    if (!opStack) {
      active.CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS = SYSTEM_CONTRACTS.CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS;
      active.DEPOSIT_CONTRACT_ADDRESS = SYSTEM_CONTRACTS.DEPOSIT_CONTRACT_ADDRESS;
      active.WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS = SYSTEM_CONTRACTS.WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS;
    }
  }
  return Object.fromEntries(Object.entries(active).sort(([a], [b]) => (a < b ? -1 : 1)));
}

const blobScheduleOf = (evm: SupportedHardfork): ForkConfig["blobSchedule"] => {
  const schedule = (BLOB_SCHEDULE as Partial<Record<SupportedHardfork, { target: number; max: number; baseFeeUpdateFraction: number }>>)[evm];
  return schedule === undefined ? null : { baseFeeUpdateFraction: schedule.baseFeeUpdateFraction, max: schedule.max, target: schedule.target };
};

/** The chain facts a configuration needs: its schedule, id and genesis, and when the forks that have activated did. */
export interface ChainFacts {
  schedule: ForkSchedule;
  chainId: bigint;
  genesisHash: Uint8Array;
  genesisTime: bigint;
  /** The head block's number and time (the current fork is the head's). */
  head: { number: bigint; timestamp: bigint };
  /** The timestamp of the first block of a fork that activated at a block number (undefined: not yet). */
  activatedAt(fork: ActiveFork): bigint | undefined;
}

/** `eth_config`'s answer: the head's fork, the next one with a known time, the last one scheduled (null without a next). */
export function forkConfigs(facts: ChainFacts): ForkConfigs {
  const { schedule } = facts;
  const current = schedule.at(facts.head.number, facts.head.timestamp);
  const upcoming = schedule.upcoming.filter(({ fork }) => fork.index > current.index);
  const timeOf = (fork: ActiveFork): bigint | undefined => {
    if (fork.index === schedule.genesisIndex) return 0n;
    const activation = schedule.scheduled.get(fork.index);
    return activation?.timestamp ?? facts.activatedAt(fork);
  };
  const configOf = (fork: ActiveFork | undefined): ForkConfig | null => {
    if (fork === undefined) return null;
    const time = timeOf(fork);
    // EIP-7910: a fork whose activation time is unknown (scheduled at a block not reached yet) is left out.
    if (time === undefined) return null;
    return {
      activationTime: time <= facts.genesisTime ? 0n : time,
      blobSchedule: blobScheduleOf(fork.rules.evm),
      chainId: facts.chainId,
      forkId: forkIdAt(facts, time),
      precompiles: precompilesOf(fork),
      systemContracts: systemContractsOf(fork),
    };
  };
  const next = configOf(upcoming[0]?.fork);
  return { current: configOf(current)!, next, last: next === null ? null : configOf(upcoming.at(-1)!.fork) };
}

/**
 * EIP-2124's fork hash at `time`: CRC32 of the genesis hash, updated with each fork block (after
 * block 0) and each fork time after the genesis up to `time`, as 8 big-endian bytes (geth
 * core/forkid/forkid.go `NewID` with head = max, as `eth_config` asks it).
 */
function forkIdAt(facts: ChainFacts, time: bigint): Uint8Array {
  const byBlock = new Set<bigint>();
  const byTime = new Set<bigint>();
  for (const { fork, activation } of facts.schedule.upcoming) {
    if (activation.block !== undefined) byBlock.add(activation.block);
    else if (activation.timestamp > facts.genesisTime && fork !== undefined) byTime.add(activation.timestamp);
  }
  let hash = crc32(facts.genesisHash);
  const update = (fork: bigint) => {
    hash = crc32(setLengthLeft(bigIntToBytes(fork), 8), hash);
  };
  for (const block of [...byBlock].sort((a, b) => (a < b ? -1 : 1))) if (block > 0n) update(block);
  for (const at of [...byTime].sort((a, b) => (a < b ? -1 : 1))) if (at <= time) update(at);
  return setLengthLeft(bigIntToBytes(BigInt(hash)), 4);
}
