/**
 * The dev chain's genesis as a geth-format genesis file: one format for the default chain and for
 * user-supplied genesis files. `createCommonFromGethGenesis` is the way @ethereumjs builds a custom
 * chain whose forks are all active at block 0 (DESIGN: `createCustomCommon` breaks on header reload).
 */
import { createCommonFromGethGenesis, Hardfork } from "@ethereumjs/common";
import { Account, bigIntToHex, createAddressFromString, hexToBytes, intToHex, setLengthLeft } from "@ethereumjs/util";

import type { Common, CustomCrypto, GethGenesis, ParamsDict } from "@ethereumjs/common";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import type { Hex } from "../rpc/schema.ts";

export interface GenesisAccount {
  balance: bigint;
  nonce?: bigint;
  code?: Hex;
  storage?: Record<Hex, Hex>;
}

/** The post-merge forks a dev chain can start at, oldest first. */
export const SUPPORTED_HARDFORKS = [Hardfork.Paris, Hardfork.Shanghai, Hardfork.Cancun, Hardfork.Prague] as const;
export type SupportedHardfork = (typeof SUPPORTED_HARDFORKS)[number];
/** ethereumjs' own default: the newest fork it supports completely (DECISIONS §9). */
export const DEFAULT_HARDFORK: SupportedHardfork = Hardfork.Prague;

/** EIP-4844 / EIP-7691 blob parameters, as geth genesis files carry them. */
const BLOB_SCHEDULE = {
  cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
  prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
};

export interface DevGenesisParams {
  chainId: bigint;
  hardfork: SupportedHardfork;
  gasLimit: bigint;
  baseFeePerGas: bigint;
  timestamp: bigint;
  alloc: Map<Hex, GenesisAccount>;
}

/** A geth genesis with every fork up to `hardfork` active from block 0. */
export function devGethGenesis(params: DevGenesisParams): GethGenesis {
  const forkIndex = SUPPORTED_HARDFORKS.indexOf(params.hardfork);
  const timeFork = (fork: SupportedHardfork) => (SUPPORTED_HARDFORKS.indexOf(fork) <= forkIndex ? 0 : undefined);
  const config = {
    chainId: Number(params.chainId),
    homesteadBlock: 0,
    eip150Block: 0,
    eip155Block: 0,
    eip158Block: 0,
    byzantiumBlock: 0,
    constantinopleBlock: 0,
    petersburgBlock: 0,
    istanbulBlock: 0,
    berlinBlock: 0,
    londonBlock: 0,
    mergeNetsplitBlock: 0,
    terminalTotalDifficulty: 0,
    terminalTotalDifficultyPassed: true,
    shanghaiTime: timeFork(Hardfork.Shanghai),
    cancunTime: timeFork(Hardfork.Cancun),
    pragueTime: timeFork(Hardfork.Prague),
    blobSchedule: BLOB_SCHEDULE,
  };
  const alloc: GethGenesis["alloc"] = {};
  for (const [address, account] of params.alloc) {
    alloc[address] = {
      balance: bigIntToHex(account.balance),
      ...(account.nonce !== undefined && { nonce: bigIntToHex(account.nonce) }),
      ...(account.code !== undefined && { code: account.code }),
      ...(account.storage !== undefined && { storage: account.storage }),
    };
  }
  return {
    config: config as GethGenesis["config"],
    nonce: "0x0",
    timestamp: bigIntToHex(params.timestamp),
    extraData: "0x",
    gasLimit: bigIntToHex(params.gasLimit),
    difficulty: "0x0",
    mixHash: `0x${"00".repeat(32)}`,
    coinbase: `0x${"00".repeat(20)}`,
    baseFeePerGas: bigIntToHex(params.baseFeePerGas),
    alloc,
  };
}

export function commonFromGenesis(genesis: GethGenesis, customCrypto: CustomCrypto, hardfork?: string): Common {
  const params = bpoBlobParams(genesis);
  return createCommonFromGethGenesis(genesis, { chain: "preconf", customCrypto, params, ...(hardfork !== undefined && { hardfork }) });
}

/**
 * ethereumjs 10.1 reads a BPO fork's blob schedule as `target`/`max` params, but its geth-genesis
 * parser stores a `blobSchedule` entry as `targetBlobGasPerBlock`/`maxBlobGasPerBlock`, so the
 * genesis' BPO entries are given again here, under the names the BPO forks read.
 */
function bpoBlobParams(genesis: GethGenesis): ParamsDict {
  const params: ParamsDict = {};
  for (const [fork, schedule] of Object.entries(genesis.config.blobSchedule ?? {})) {
    const { target, max, baseFeeUpdateFraction } = schedule;
    if (!fork.startsWith("bpo") || target === undefined || max === undefined || baseFeeUpdateFraction === undefined) continue;
    params[fork] = { target, max, blobGasPriceUpdateFraction: baseFeeUpdateFraction };
  }
  return params;
}

/** Writes a geth `alloc` into an empty state and returns the state root. */
export async function writeGenesisState(stateManager: MerkleStateManager, alloc: GethGenesis["alloc"]): Promise<Uint8Array> {
  for (const [addressHex, entry] of Object.entries(alloc)) {
    const address = createAddressFromString(addressHex.startsWith("0x") ? addressHex : `0x${addressHex}`);
    const balance = BigInt(entry.balance ?? 0);
    const nonce = BigInt(entry.nonce ?? 0);
    await stateManager.putAccount(address, new Account(nonce, balance));
    if (entry.code !== undefined && entry.code !== "0x") {
      await stateManager.putCode(address, hexToBytes(entry.code as Hex));
    }
    for (const [key, value] of Object.entries(entry.storage ?? {})) {
      await stateManager.putStorage(address, setLengthLeft(hexToBytes(key as Hex), 32), stripZeros(hexToBytes(value as Hex)));
    }
  }
  return stateManager.getStateRoot();
}

function stripZeros(bytes: Uint8Array): Uint8Array {
  let start = 0;
  while (start < bytes.length && bytes[start] === 0) start++;
  return bytes.subarray(start);
}

export const toQuantity = (value: number) => intToHex(value) as Hex;
