/**
 * The dev chain's genesis as a geth-format genesis file: one format for the default chain and for
 * user-supplied genesis files. `createCommonFromGethGenesis` is the way @ethereumjs builds a custom
 * chain whose forks are all active at block 0 (DESIGN: `createCustomCommon` breaks on header reload).
 */
import { createCommonFromGethGenesis, Hardfork } from "@ethereumjs/common";
import { RLP } from "@ethereumjs/rlp";
import { Account, bigIntToHex, bytesToBigInt, createAddressFromString, hexToBytes, intToHex, setLengthLeft } from "@ethereumjs/util";

import { withoutLeadingZeros } from "../common/bytes.ts";

import type { Common, CustomCrypto, GethGenesis, ParamsDict, StateManagerInterface } from "@ethereumjs/common";
import type { KZG } from "@ethereumjs/util";
import type { Hex } from "../common/types.ts";

export interface GenesisAccount {
  balance: bigint;
  nonce?: bigint;
  code?: Hex;
  storage?: Record<Hex, Hex>;
}

/** The post-merge forks a dev chain can start at, oldest first. */
export const SUPPORTED_HARDFORKS = [Hardfork.Paris, Hardfork.Shanghai, Hardfork.Cancun, Hardfork.Prague, Hardfork.Osaka] as const;
export type SupportedHardfork = (typeof SUPPORTED_HARDFORKS)[number];
/**
 * The newest Ethereum mainnet fork (Osaka, live since 2025-12-03), as Hardhat 3 defaults to it
 * (docs/behaviour.md#defaults).
 */
export const DEFAULT_HARDFORK: SupportedHardfork = Hardfork.Osaka;

/** geth's block-numbered forks, Homestead through London, all active from the genesis. */
export const BLOCK_FORKS_AT_ZERO = {
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
};

/** EIP-4844 / EIP-7691 blob parameters per fork, as geth genesis files carry them (EIP-7840; Osaka keeps Prague's). */
export const BLOB_SCHEDULE = {
  cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
  prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
  osaka: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
};

export interface DevGenesisParams {
  chainId: bigint;
  hardfork: SupportedHardfork;
  gasLimit: bigint;
  baseFeePerGas: bigint;
  timestamp: bigint;
  alloc: Map<Hex, GenesisAccount>;
  /** Later forks and their activation times (a fork scheduled at a block gets a placeholder: ethereumjs/forkBlocks.ts). */
  forkTimes?: Partial<Record<SupportedHardfork, bigint>> | undefined;
  /** The genesis header's extraData (an OP chain's EIP-1559 parameters: specs/protocol/holocene/exec-engine.md). */
  extraData?: Hex | undefined;
}

/** A geth genesis with every fork up to `hardfork` active from block 0, and `forkTimes`' later. */
export function devGethGenesis(params: DevGenesisParams): GethGenesis {
  const forkIndex = SUPPORTED_HARDFORKS.indexOf(params.hardfork);
  const timeFork = (fork: SupportedHardfork) => {
    if (SUPPORTED_HARDFORKS.indexOf(fork) <= forkIndex) return 0;
    const time = params.forkTimes?.[fork];
    return time === undefined ? undefined : Number(time);
  };
  const config = {
    chainId: Number(params.chainId),
    ...BLOCK_FORKS_AT_ZERO,
    mergeNetsplitBlock: 0,
    terminalTotalDifficulty: 0,
    terminalTotalDifficultyPassed: true,
    shanghaiTime: timeFork(Hardfork.Shanghai),
    cancunTime: timeFork(Hardfork.Cancun),
    pragueTime: timeFork(Hardfork.Prague),
    osakaTime: timeFork(Hardfork.Osaka),
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
    extraData: params.extraData ?? "0x",
    gasLimit: bigIntToHex(params.gasLimit),
    difficulty: "0x0",
    mixHash: `0x${"00".repeat(32)}`,
    coinbase: `0x${"00".repeat(20)}`,
    baseFeePerGas: bigIntToHex(params.baseFeePerGas),
    alloc,
  };
}

/** The chain's Common; `chainRlp` (blocks to import) places a merge that the genesis gives by TTD only. */
export function commonFromGenesis(genesis: GethGenesis, customCrypto: CustomCrypto, hardfork?: string, chainRlp?: Uint8Array, eips?: number[]): Common {
  const params = bpoBlobParams(genesis);
  const crypto = customCrypto.kzg === undefined ? { ...customCrypto, kzg: BLOCK_BODY_KZG } : customCrypto;
  const scheduled = withMergeBlock(genesis, chainRlp);
  return createCommonFromGethGenesis(scheduled, {
    chain: "preconf",
    customCrypto: crypto,
    params,
    ...(hardfork !== undefined && { hardfork }),
    ...(eips !== undefined && { eips }),
  });
}

/**
 * EIP-3675 schedules the merge by total difficulty: the terminal PoW block is the first whose
 * total difficulty reaches `terminalTotalDifficulty`, and its child is the first PoS block. geth
 * genesis files may give TTD alone, but @ethereumjs/common 10 reads no TTD: without
 * `mergeForkBlock` or `mergeNetsplitBlock` it puts the merge at block 0, and imported PoW blocks
 * would run as PoS blocks (no block reward, wrong state root). When there are blocks to import, the
 * merge block is read off their difficulties and written into the config as `mergeNetsplitBlock`.
 * Without blocks the genesis is left as it is: every block the dev chain builds is PoS anyway.
 */
export function withMergeBlock(genesis: GethGenesis, chainRlp: Uint8Array | undefined): GethGenesis {
  const { config } = genesis;
  if (chainRlp === undefined || config.terminalTotalDifficulty === undefined || config.terminalTotalDifficulty === null) return genesis;
  if (config.mergeForkBlock !== undefined || config.mergeNetsplitBlock !== undefined || config.terminalTotalDifficultyPassed === true) return genesis;
  const ttd = BigInt(config.terminalTotalDifficulty);
  let totalDifficulty = BigInt(genesis.difficulty ?? 0);
  if (totalDifficulty >= ttd) return genesis;
  let mergeBlock: bigint | undefined;
  let last = 0n;
  let rest = chainRlp;
  try {
    while (rest.length > 0 && mergeBlock === undefined) {
      const { data, remainder } = RLP.decode(rest, true);
      const header = (data as Uint8Array[][])[0]!;
      // Header fields 7 and 8: difficulty and number (the yellow paper's order).
      last = bytesToBigInt(header[8]!);
      totalDifficulty += bytesToBigInt(header[7]!);
      if (totalDifficulty >= ttd) mergeBlock = last + 1n;
      rest = remainder;
    }
  } catch {
    return genesis; // malformed blocks: decodeBlocks reports them
  }
  // TTD not reached by the imported blocks: the dev chain's own blocks, after them, are PoS.
  mergeBlock ??= last + 1n;
  return { ...genesis, config: { ...config, mergeNetsplitBlock: Number(mergeBlock) } };
}

const noKzg = (): never => {
  throw new Error("KZG is not available: blob proofs cannot be checked");
};
/**
 * ethereumjs refuses to decode any blob tx without a KZG library, though a block body carries only
 * the blobs' versioned hashes and decoding never uses it. Imported chains hold blob txs, and their
 * blocks are decoded again whenever they are read back from the blockchain (BLOCKHASH does), so
 * without a real library the Common carries this stand-in: anything that would need KZG fails
 * loudly. (Admission refuses blob txs by type, before decoding.)
 */
export const BLOCK_BODY_KZG: KZG = {
  blobToKzgCommitment: noKzg,
  computeBlobProof: noKzg,
  verifyProof: noKzg,
  verifyBlobProofBatch: noKzg,
  computeCells: noKzg,
  computeCellsAndProofs: noKzg,
  recoverCellsAndProofs: noKzg,
  verifyCellKzgProofBatch: noKzg,
};

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
export async function writeGenesisState(stateManager: StateManagerInterface, alloc: GethGenesis["alloc"]): Promise<Uint8Array> {
  for (const [addressHex, entry] of Object.entries(alloc)) {
    const address = createAddressFromString(addressHex.startsWith("0x") ? addressHex : `0x${addressHex}`);
    const balance = BigInt(entry.balance ?? 0);
    const nonce = BigInt(entry.nonce ?? 0);
    await stateManager.putAccount(address, new Account(nonce, balance));
    if (entry.code !== undefined && entry.code !== "0x") {
      await stateManager.putCode(address, hexToBytes(entry.code as Hex));
    }
    for (const [key, value] of Object.entries(entry.storage ?? {})) {
      await stateManager.putStorage(address, setLengthLeft(hexToBytes(key as Hex), 32), withoutLeadingZeros(hexToBytes(value as Hex)));
    }
  }
  return stateManager.getStateRoot();
}

export const toQuantity = (value: number) => intToHex(value);
