/** The types the chain's modules and its callers share: its configuration, events and block selection. */
import type { BlockHeader } from "@ethereumjs/block";
import type { CustomCrypto, GethGenesis } from "@ethereumjs/common";
import type { Hex } from "../common/types.ts";
import type { Clock } from "../../clock.ts";
import type { OpenBlock } from "../execution/openBlock.ts";
import type { OpStack } from "../opstack/execution.ts";
import type { PoolLimits, PooledTx } from "../pool/mempool.ts";
import type { Fragment, SealedBlock } from "./records.ts";
import type { ParsedStateDump } from "../state/stateDump.ts";
import type { RestoredState } from "./dumpRestore.ts";
import type { ForkSource } from "../fork/source.ts";
import type { TxOrder } from "../execution/fragmentRunner.ts";
import type { CodeSizeLimit } from "../ethereumjs/codeSizeLimit.ts";
import type { ForkSchedule } from "../profiles/forkSchedule.ts";
import type { FeeParams } from "../opstack/feeParams.ts";
import type { CustomPrecompile } from "@ethereumjs/evm";

export interface ChainConfig {
  genesis: GethGenesis;
  hardfork: string | undefined;
  customCrypto: CustomCrypto;
  clock: Clock;
  coinbase: Hex;
  minTip: bigint;
  allowUnprotectedTxs: boolean;
  /** Concatenated RLP blocks executed and indexed on top of the genesis (importChain.ts). */
  chainRlp?: Uint8Array | undefined;
  /** A state dump to start from (stateDump.ts); `genesis` must be its genesis. */
  state?: ParsedStateDump | undefined;
  /** Sealed blocks whose state stays readable (the head's included); undefined keeps every block's. */
  stateHistory?: number | undefined;
  /** The newest sealed blocks kept (the first block always is); undefined keeps every block (blockStore.ts). */
  blockHistory?: number | undefined;
  /** OP-stack execution (profiles.ts); undefined on the `dev` profile. */
  op?: OpStack | undefined;
  /** Which fork of the profile's ladder each block runs (forkSchedule.ts). */
  schedule: ForkSchedule;
  /** Fragments per block whatever the fork (the `fragmentsPerBlock` option); undefined: the fork's. */
  fragmentsPerBlock?: number | undefined;
  /** An OP chain's fee parameters when its head's extraData has none (a genesis without them). */
  feeParams?: FeeParams | undefined;
  /** The next block's base fee when the profile has its own EIP-1559 rule; else ethereumjs'. */
  nextBaseFee?: ((parent: BlockHeader) => bigint) | undefined;
  /** The parentBeaconBlockRoot of the block at a timestamp (an OP chain's L1 origin's, opstack/execution.ts); zero when absent. */
  parentBeaconBlockRoot?: ((timestamp: bigint) => Hex) | undefined;
  /** The chain's own precompiles (OP stack: opstack/precompiles.ts). */
  precompiles?: CustomPrecompile[] | undefined;
  /** An upstream chain to fork at one of its blocks (fork/): state and old blocks are read from it. */
  fork?: ForkSource | undefined;
  /** A block may have its parent's timestamp (Hardhat's allowBlocksWithSameTimestamp). */
  allowBlocksWithSameTimestamp?: boolean | undefined;
  /** The pool's bounds (geth's legacypool defaults when absent). */
  poolLimits?: PoolLimits | undefined;
  /** The order of a fragment's txs (fragmentRunner.ts; `fees` when absent). */
  txOrder?: TxOrder | undefined;
  /** evm_increaseTime's offset at the start, in seconds (a genesis timestamp other than the clock's). */
  initialTimeOffset?: bigint | undefined;
  /** Another code size limit than EIP-170's (ethereumjs/codeSizeLimit.ts). */
  codeSizeLimit?: CodeSizeLimit | undefined;
}

/**
 * Header fields dev methods set for the next block only (hardhat_setNextBlockBaseFeePerGas,
 * hardhat_setPrevRandao, evm_setNextBlockTimestamp), as Hardhat/EDR take them for the next block
 * they mine.
 */
export interface NextBlockFields {
  baseFeePerGas?: bigint;
  prevRandao?: Hex;
}

/**
 * Header fields that hold for every block from the next one on (hardhat_setCoinbase,
 * evm_setBlockGasLimit; an OP chain's fee parameters, as its SystemConfig sets them).
 */
export interface BlockDefaults {
  coinbase?: Hex;
  gasLimit?: bigint;
  feeParams?: FeeParams;
}

/**
 * Something outside the chain that evm_snapshot / evm_revert also cover (the wallet, the
 * sequencer's phase): `capture` runs at the snapshot and returns what the revert calls.
 */
export interface SnapshotPart {
  capture(): () => void;
}

export interface ChainEvents {
  fragment: [Fragment];
  sealed: [SealedBlock];
  pendingTransaction: [PooledTx];
  dropped: [PooledTx, string];
  /** The sealed chain went back (evm_revert, a load, a reset): the head is now this block. */
  rewound: [SealedBlock];
}

/** Where a block selector points: a sealed block, or the open block (`pending`). */
export type ResolvedBlock =
  | { kind: "sealed"; sealed: SealedBlock }
  /** `stateRoot`: a pending view frozen by an injected stall (pendingFeed.ts) reads that state, not the live one. */
  | { kind: "open"; open: OpenBlock; stateRoot?: Uint8Array };

/** A chain's whole state at creation, load or reset; `historyFrom`: the first block with state (default: the head's). */
export type InitialState = RestoredState & { historyFrom?: bigint };
