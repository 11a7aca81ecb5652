/**
 * OP-stack execution on top of ethereumjs (which has none of it): the L1-attributes deposit that
 * opens every block, user deposits (type 0x7E), and the fee flows of op-geth's state transition —
 * the L1 data fee charged to the sender and credited to the L1FeeVault, the base fee credited to
 * the BaseFeeVault instead of burnt, the tip to the coinbase (the SequencerFeeVault). The chain
 * calls in here only on OP-stack profiles: the `dev` profile's path never reaches this module.
 */
import { Block } from "@ethereumjs/block";
import { createTx, paramsTx, TransactionType } from "@ethereumjs/tx";
import {
  Account,
  bigIntToBytes,
  bytesToBigInt,
  bytesToHex,
  concatBytes,
  createAddressFromString,
  hexToBytes,
  setLengthLeft,
  utf8ToBytes,
} from "@ethereumjs/util";
import { Bloom } from "@ethereumjs/vm";

import { sharedCommon } from "../ethereumjs/sharedCommon.ts";
import { assertSender, runTxAllowingAssertedSender } from "../ethereumjs/assertedSender.ts";
import { keccak256 } from "../common/crypto.ts";
import { AdmissionMessage, TxRejectedError } from "../common/errors.ts";
import { callBlock } from "../execution/dryRun.ts";
import { baseTimeDeposit, systemDepositGas } from "./baseTime.ts";
import { DepositTx, isDeposit } from "./deposit.ts";
import { l1CostOf, operatorFeeOf, readL1BlockFees } from "./l1Fee.ts";
import { PREDEPLOY_CODE } from "./predeployCode.ts";
import { BASE_FEE_VAULT, BASE_TIME, DEPOSITOR_ACCOUNT, L1_BLOCK, L1_FEE_VAULT, L1_INFO_GAS, OPERATOR_FEE_VAULT } from "./predeploys.ts";

import type { TypedTransaction } from "@ethereumjs/tx";
import type { Address } from "@ethereumjs/util";
import type { RunTxOpts, RunTxResult, VM } from "@ethereumjs/vm";
import type { StateManagerInterface } from "@ethereumjs/common";
import type { CallRequest, Hex } from "../common/types.ts";
import type { SnapshotPart } from "../chain/chain.ts";
import type { L1FeeParams, OpStackParams } from "../profiles/profiles.ts";
import type { L1Cost } from "./l1Fee.ts";

/** Seconds between simulated L1 blocks (Ethereum's slot time). */
export const L1_BLOCK_TIME = 12n;
/** keccak256("setL1BlockValuesJovian()")[0:4] (specs/protocol/jovian/l1-attributes.md). */
export const SET_L1_BLOCK_VALUES_JOVIAN = Uint8Array.of(0x3d, 0xb6, 0xbe, 0x2b);
/** The DA footprint gas scalar the L1 attributes carry when the SystemConfig's is 0 (specs/protocol/jovian/l1-attributes.md). */
export const DEFAULT_DA_FOOTPRINT_GAS_SCALAR = 400;

const L1_BLOCK_ADDRESS = createAddressFromString(L1_BLOCK);
const L1_FEE_VAULT_ADDRESS = createAddressFromString(L1_FEE_VAULT);
const BASE_FEE_VAULT_ADDRESS = createAddressFromString(BASE_FEE_VAULT);
const OPERATOR_FEE_VAULT_ADDRESS = createAddressFromString(OPERATOR_FEE_VAULT);
const DEPOSITOR = createAddressFromString(DEPOSITOR_ACCOUNT);
const BASE_TIME_ADDRESS = createAddressFromString(BASE_TIME);

/** What the deposits opening a block need of it: its number, second and (on a Denim block) millisecond part. */
export interface BlockTime {
  number: bigint;
  timestamp: bigint;
  /** Defined on Base's Denim blocks, which carry the BaseTime deposit (opstack/baseTime.ts). */
  millisPart?: number | undefined;
}

/** The simulated L1's attributes of the L2 block at `timestamp`, as the L1-attributes deposit reports them. */
export interface L1Attributes {
  origin: { number: bigint; timestamp: bigint; hash: Uint8Array };
  sequenceNumber: bigint;
  fees: L1FeeParams;
}

export interface DepositRun {
  result: RunTxResult;
  /** The sender's nonce before the deposit (the receipt's depositNonce). */
  depositNonce: bigint;
}

/**
 * The simulated L1 block the L2 block at `timestamp` has as origin: one every 12 s since the epoch.
 * Its `parentBeaconRoot` is what the L2 header carries as parentBeaconBlockRoot and EIP-4788's
 * contract stores (specs/protocol/exec-engine.md "Ecotone: Beacon Block Root").
 */
export function l1OriginAt(timestamp: bigint): { number: bigint; timestamp: bigint; hash: Uint8Array; parentBeaconRoot: Uint8Array } {
  const number = timestamp / L1_BLOCK_TIME;
  // Deterministic stand-ins for a block hash and a beacon root: nothing on L2 can check them against an L1.
  const stamp = (what: string) => keccak256(concatBytes(utf8ToBytes(what), setLengthLeft(bigIntToBytes(number), 8)));
  return {
    number,
    timestamp: number * L1_BLOCK_TIME,
    hash: stamp("hardhat-preconf simulated L1 block"),
    parentBeaconRoot: stamp("hardhat-preconf simulated L1 beacon root"),
  };
}

export class OpStack {
  /** What the next L1-attributes deposits report (`preconf_setL1Fees`). */
  l1: L1FeeParams;
  /** Deposits sent with eth_sendRawTransaction, executed at the start of the next fragment. */
  #queued: DepositTx[] = [];
  #initial: L1FeeParams;
  /** Whether blocks of this chain may carry Base's BaseTime deposit after their L1-attributes one (Denim is on its ladder, at genesis or scheduled). */
  readonly baseTime: boolean;

  constructor(params: OpStackParams, baseTime = false) {
    this.#initial = { ...params.l1 };
    this.l1 = { ...params.l1 };
    this.baseTime = baseTime;
  }

  /** The gas of the deposits that open a block: the L1-attributes one, and BaseTime's where it may run. */
  get systemGas(): bigint {
    return systemDepositGas(this.baseTime);
  }

  /** The parentBeaconBlockRoot of the L2 block at `timestamp`: its L1 origin's (specs/protocol/exec-engine.md). */
  parentBeaconBlockRoot(timestamp: bigint): Hex {
    return bytesToHex(l1OriginAt(timestamp).parentBeaconRoot);
  }

  /** evm_snapshot / evm_revert cover the simulated L1 and the queued deposits. */
  readonly snapshotPart: SnapshotPart = {
    capture: () => {
      const l1 = { ...this.l1 };
      const queued = [...this.#queued];
      return () => {
        this.l1 = l1;
        this.#queued = queued;
      };
    },
  };

  setL1Fees(change: Partial<L1FeeParams>): L1FeeParams {
    this.l1 = { ...this.l1, ...Object.fromEntries(Object.entries(change).filter(([, value]) => value !== undefined)) };
    return { ...this.l1 };
  }

  /**
   * Queues a deposit sent over RPC. One whose gas could never fit a block beside the deposits that
   * open every block is refused (geth's txpool text): run, it would push the block past its gas
   * limit and the block could not be sealed.
   */
  queueDeposit(deposit: DepositTx, blockGasLimit: bigint): void {
    if (deposit.gasLimit > blockGasLimit - this.systemGas) {
      throw new TxRejectedError(AdmissionMessage.gasLimit, { gas: deposit.gasLimit, blockGasLimit });
    }
    this.#queued.push(deposit);
  }

  isQueued(hash: Uint8Array): boolean {
    return this.#queued.some((deposit) => Buffer.from(deposit.hash()).equals(Buffer.from(hash)));
  }

  get queuedCount(): number {
    return this.#queued.length;
  }

  /**
   * From now on (and after a reset) the L1 fees are those L1Block holds in `state`: a fork goes
   * on with its upstream's L1 fees at the fork block rather than the profile's.
   */
  async adoptL1Fees(state: StateManagerInterface): Promise<void> {
    const fees = await readL1BlockFees(state);
    this.#initial = {
      baseFee: fees.l1BaseFee,
      blobBaseFee: fees.l1BlobBaseFee,
      baseFeeScalar: Number(fees.baseFeeScalar),
      blobBaseFeeScalar: Number(fees.blobBaseFeeScalar),
      operatorFeeScalar: Number(fees.operatorFeeScalar),
      operatorFeeConstant: fees.operatorFeeConstant,
      daFootprintGasScalar: Number(fees.daFootprintGasScalar),
    };
    this.l1 = { ...this.#initial };
  }

  /** Back to the start (hardhat_reset): no queued deposit, the profile's (or the fork's) L1 fees. */
  clear(): void {
    this.#queued = [];
    this.l1 = { ...this.#initial };
  }

  /**
   * The deposits a fragment starts with: in a block's first fragment the L1-attributes deposit,
   * then (with BaseTime) the deposit of the block's millisecond part, as Base's tx[0] and tx[1];
   * then the queued ones, in order, as long as they fit the block's `remainingGas`; the rest wait
   * for the next block.
   */
  async fragmentDeposits(state: StateManagerInterface, block: BlockTime, firstOfBlock: boolean, remainingGas: bigint): Promise<DepositTx[]> {
    const deposits: DepositTx[] = [];
    if (firstOfBlock) {
      deposits.push(await this.#l1InfoDeposit(state, block.timestamp));
      if (block.millisPart !== undefined) {
        await installBaseTime(state);
        deposits.push(baseTimeDeposit(block.number, block.millisPart));
      }
    }
    let gas = remainingGas - (firstOfBlock ? this.systemGas : 0n);
    let taken = 0;
    for (const deposit of this.#queued) {
      if (deposit.gasLimit > gas) break;
      gas -= deposit.gasLimit;
      deposits.push(deposit);
      taken++;
    }
    this.#queued = this.#queued.slice(taken);
    return deposits;
  }

  /**
   * The L1-attributes deposit (specs/protocol/deposits.md): from the depositor account to L1Block,
   * 1,000,000 gas, calling the Jovian setter with the simulated L1's attributes. The sequence number
   * counts the L2 blocks since the L1 origin last changed (read from L1Block).
   */
  async #l1InfoDeposit(state: StateManagerInterface, timestamp: bigint): Promise<DepositTx> {
    const origin = l1OriginAt(timestamp);
    const word = async (slot: number) => setLengthLeft(await state.getStorage(L1_BLOCK_ADDRESS, setLengthLeft(Uint8Array.of(slot), 32)), 32);
    const previousNumber = bytesToBigInt((await word(0)).subarray(24, 32));
    const previousSequence = bytesToBigInt((await word(3)).subarray(24, 32));
    const sequenceNumber = previousNumber === origin.number ? previousSequence + 1n : 0n;
    const data = jovianL1AttributesCalldata({ origin, sequenceNumber, fees: this.l1 });
    // L1-attributes source hash: keccak256(uint256(1) ++ keccak256(l1BlockHash ++ uint256(seqNumber))).
    const be = (value: bigint, bytes: number) => setLengthLeft(bigIntToBytes(value), bytes);
    const sourceHash = keccak256(concatBytes(be(1n, 32), keccak256(concatBytes(origin.hash, be(sequenceNumber, 32)))));
    return new DepositTx({ sourceHash, from: DEPOSITOR, to: L1_BLOCK_ADDRESS, mint: 0n, value: 0n, gas: L1_INFO_GAS, isSystemTx: false, data });
  }

  /**
   * Executes a deposit (specs/protocol/deposits.md "Execution"): `mint` is credited to `from`
   * first and stays whatever follows; the call runs as an unsigned tx at gas price 0 (no fee
   * checks, no nonce check: it uses `from`'s nonce). A deposit that cannot run (too little gas, a
   * value above the balance) is still included: failed, its gas limit used, `from`'s nonce bumped.
   * It runs against the block with base fee 0, so BASEFEE reads 0 inside a deposit.
   */
  async runDeposit(vm: VM, deposit: DepositTx, block: Block, blockGasUsed: bigint): Promise<DepositRun> {
    const state = vm.stateManager;
    const from = deposit.from;
    const before = (await state.getAccount(from)) ?? new Account();
    if (deposit.mint > 0n) await state.putAccount(from, accountWith(before, { balance: before.balance + deposit.mint }));
    const depositNonce = before.nonce;
    let tx: TypedTransaction;
    try {
      tx = createTx(
        {
          type: TransactionType.Legacy,
          nonce: depositNonce,
          gasPrice: 0n,
          gasLimit: deposit.gasLimit,
          to: deposit.to,
          value: deposit.value,
          data: deposit.data,
        },
        // Deposits are exempt from EIP-7825's per-tx cap (specs/protocol/deposits.md; base/base azul exec-engine).
        { common: sharedCommon(vm.common, DEPOSIT_TX_PARAMS), freeze: false },
      );
    } catch {
      return { result: await failedDeposit(state, from, deposit, blockGasUsed), depositNonce };
    }
    assertSender(tx, from);
    try {
      const result = await runTxAllowingAssertedSender(vm, {
        tx,
        block: callBlock(block, {} as CallRequest),
        blockGasUsed,
        skipHardForkValidation: true,
      });
      return { result, depositNonce };
    } catch {
      return { result: await failedDeposit(state, from, deposit, blockGasUsed), depositNonce };
    }
  }

  /**
   * A user tx with op-geth's fee flows: the L1 fee of its signed encoding and the worst-case
   * operator fee (at the gas limit) are taken from the sender before execution (so the balance
   * check covers gas × price + value + L1 fee + operator fee, as op-geth's buyGas), the unused
   * operator fee is refunded after; the L1 fee goes to the L1FeeVault, the operator fee spent to the
   * OperatorFeeVault, and the base fee ethereumjs burns to the BaseFeeVault (specs/protocol/
   * isthmus/exec-engine.md "EVM Fee Semantics"). Throws, changing nothing, when the tx cannot run.
   */
  async runUserTx(vm: VM, opts: RunTxOpts, cost?: L1Cost): Promise<{ result: RunTxResult; l1Cost: L1Cost }> {
    const state = vm.stateManager;
    const tx = opts.tx;
    const l1Cost = cost ?? (await this.l1CostOf(state, tx));
    const { fees } = l1Cost;
    const operatorWorstCase = operatorFeeOf(tx.gasLimit, fees);
    const upfront = l1Cost.fee + operatorWorstCase;
    const sender = tx.getSenderAddress();
    await state.checkpoint();
    try {
      if (upfront > 0n) {
        const account = (await state.getAccount(sender)) ?? new Account();
        if (account.balance < upfront) throw new Error(`insufficient funds for l1 fee: have ${account.balance} want ${upfront}`);
        await state.putAccount(sender, accountWith(account, { balance: account.balance - upfront }));
      }
      const result = await runTxAllowingAssertedSender(vm, opts);
      if (operatorWorstCase > 0n) {
        // The unused gas's share of the scalar part comes back; the constant is spent.
        const refund = operatorFeeOf(tx.gasLimit - result.totalGasSpent, { ...fees, operatorFeeConstant: 0n });
        await credit(state, sender, refund);
        await credit(state, OPERATOR_FEE_VAULT_ADDRESS, operatorWorstCase - refund);
      }
      await credit(state, L1_FEE_VAULT_ADDRESS, l1Cost.fee);
      await credit(state, BASE_FEE_VAULT_ADDRESS, result.totalGasSpent * (opts.block?.header.baseFeePerGas ?? 0n));
      await state.commit();
      return { result, l1Cost };
    } catch (error) {
      await state.revert();
      throw error;
    }
  }

  /** The L1 data fee and DA footprint of a tx run now (its signed encoding priced at L1Block's values). */
  async l1CostOf(state: StateManagerInterface, tx: TypedTransaction): Promise<L1Cost> {
    return l1CostOf(tx.serialize(), await readL1BlockFees(state));
  }

  /** The L1 fee and worst-case operator fee a tx would pay now: admission requires them on top of gas × price + value. */
  async l1FeeOf(state: StateManagerInterface, tx: TypedTransaction): Promise<bigint> {
    const fees = await readL1BlockFees(state);
    return l1CostOf(tx.serialize(), fees).fee + operatorFeeOf(tx.gasLimit, fees);
  }

  /**
   * The block as @ethereumjs/blockchain stores it: without its deposits, which ethereumjs could
   * not decode when it reads a block back. The header (and so the hash and roots) is the real one.
   */
  storable(block: Block): Block {
    if (!block.transactions.some(isDeposit)) return block;
    return new Block(
      block.header,
      block.transactions.filter((tx) => !isDeposit(tx)),
      [],
      block.withdrawals,
      { common: block.common },
    );
  }
}

/** The transaction params of deposit txs: those of every tx, without EIP-7825's cap (a deposit may have more gas). */
const DEPOSIT_TX_PARAMS = { ...paramsTx, 7825: { maxTransactionGasLimit: 2 ** 64 - 1 } };

/**
 * `setL1BlockValuesJovian()`'s calldata, 178 bytes packed (specs/protocol/jovian/l1-attributes.md):
 * selector, baseFeeScalar u32, blobBaseFeeScalar u32, sequenceNumber u64, l1BlockTimestamp u64,
 * l1BlockNumber u64, basefee u256, blobBaseFee u256, l1BlockHash, batcherHash (zero: there is no
 * batcher), operatorFeeScalar u32, operatorFeeConstant u64, daFootprintGasScalar u16 (400 when the
 * chain's is 0).
 */
export function jovianL1AttributesCalldata({ origin, sequenceNumber, fees }: L1Attributes): Uint8Array {
  const be = (value: bigint | number, bytes: number) => setLengthLeft(bigIntToBytes(BigInt(value)), bytes);
  return concatBytes(
    SET_L1_BLOCK_VALUES_JOVIAN,
    be(fees.baseFeeScalar, 4),
    be(fees.blobBaseFeeScalar, 4),
    be(sequenceNumber, 8),
    be(origin.timestamp, 8),
    be(origin.number, 8),
    be(fees.baseFee, 32),
    be(fees.blobBaseFee, 32),
    origin.hash,
    new Uint8Array(32),
    be(fees.operatorFeeScalar, 4),
    be(fees.operatorFeeConstant, 8),
    be(fees.daFootprintGasScalar === 0 ? DEFAULT_DA_FOOTPRINT_GAS_SCALAR : fees.daFootprintGasScalar, 2),
  );
}

/** L1Block's storage at a genesis with timestamp `timestamp`: the attributes of its L1 origin, sequence number 0. */
export const l1BlockStorageAt = (timestamp: bigint, fees: L1FeeParams): Record<Hex, Hex> =>
  l1BlockStorage({ origin: l1OriginAt(timestamp), sequenceNumber: 0n, fees });

/**
 * L1Block's storage as the Jovian setter leaves it for `attributes` (contracts/predeploys/L1Block.sol,
 * the OP Stack's layout): the genesis of an OP chain holds it, so that the L1 fee is known from
 * block 0 (viem's getL1BaseFee, estimateL1Fee) before any block has run its L1-attributes deposit.
 */
export function l1BlockStorage({ origin, sequenceNumber, fees }: L1Attributes): Record<Hex, Hex> {
  const slot = (n: number) => bytesToHex(setLengthLeft(Uint8Array.of(n), 32));
  // Packed slots: the first-declared variable in the lowest-order bytes (Solidity's layout).
  const packed = (...parts: [bigint | number, number][]) => {
    let word = 0n;
    let shift = 0n;
    for (const [value, bytes] of parts) {
      word |= BigInt(value) << shift;
      shift += BigInt(bytes * 8);
    }
    return bytesToHex(setLengthLeft(bigIntToBytes(word), 32));
  };
  const daScalar = fees.daFootprintGasScalar === 0 ? DEFAULT_DA_FOOTPRINT_GAS_SCALAR : fees.daFootprintGasScalar;
  return {
    [slot(0)]: packed([origin.number, 8], [origin.timestamp, 8]),
    [slot(1)]: packed([fees.baseFee, 32]),
    [slot(2)]: bytesToHex(origin.hash),
    [slot(3)]: packed([sequenceNumber, 8], [fees.blobBaseFeeScalar, 4], [fees.baseFeeScalar, 4]),
    [slot(7)]: packed([fees.blobBaseFee, 32]),
    [slot(8)]: packed([fees.operatorFeeScalar, 4], [fees.operatorFeeConstant, 8], [daScalar, 2]),
  };
}

/**
 * The BaseTime predeploy's code, written at the start of a chain's first Denim block when it is
 * not there yet (a Denim scheduled after genesis; Base deployed it with the upgrade).
 */
async function installBaseTime(state: StateManagerInterface): Promise<void> {
  const code = await state.getCode(BASE_TIME_ADDRESS);
  if (code.length > 0) return;
  const account = (await state.getAccount(BASE_TIME_ADDRESS)) ?? new Account();
  await state.putAccount(BASE_TIME_ADDRESS, accountWith(account, { nonce: 1n }));
  await state.putCode(BASE_TIME_ADDRESS, hexToBytes(PREDEPLOY_CODE.BaseTime));
}

function accountWith(account: Account, change: { balance?: bigint; nonce?: bigint }): Account {
  return new Account(change.nonce ?? account.nonce, change.balance ?? account.balance, account.storageRoot, account.codeHash, account.codeSize);
}

async function credit(state: StateManagerInterface, address: Address, amount: bigint): Promise<void> {
  if (amount === 0n) return;
  const account = (await state.getAccount(address)) ?? new Account();
  await state.putAccount(address, accountWith(account, { balance: account.balance + amount }));
}

/** A deposit that could not run: failed, `gas` used, `from`'s nonce bumped, nothing else changed but the mint. */
async function failedDeposit(state: StateManagerInterface, from: Address, deposit: DepositTx, blockGasUsed: bigint): Promise<RunTxResult> {
  const account = (await state.getAccount(from)) ?? new Account();
  await state.putAccount(from, accountWith(account, { nonce: account.nonce + 1n }));
  const bloom = new Bloom();
  return {
    bloom,
    totalGasSpent: deposit.gasLimit,
    amountSpent: 0n,
    gasRefund: 0n,
    minerValue: 0n,
    execResult: { executionGasUsed: deposit.gasLimit, returnValue: new Uint8Array(), logs: [] },
    receipt: { status: 0, cumulativeBlockGasUsed: blockGasUsed + deposit.gasLimit, bitvector: bloom.bitvector, logs: [] },
  } as unknown as RunTxResult;
}
