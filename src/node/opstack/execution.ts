/**
 * OP-stack execution on top of ethereumjs (which has none of it): the L1-attributes deposit that
 * opens every block, user deposits (type 0x7E), and the fee flows of op-geth's state transition —
 * the L1 data fee charged to the sender and credited to the L1FeeVault, the base fee credited to
 * the BaseFeeVault instead of burnt, the tip to the coinbase (the SequencerFeeVault). The chain
 * calls in here only on OP-stack profiles: the `dev` profile's path never reaches this module.
 */
import { Block } from "@ethereumjs/block";
import { createTx, TransactionType } from "@ethereumjs/tx";
import { Account, bigIntToBytes, bytesToBigInt, bytesToHex, concatBytes, createAddressFromString, setLengthLeft, utf8ToBytes } from "@ethereumjs/util";
import { Bloom } from "@ethereumjs/vm";

import { txCommonOf } from "../admission.ts";
import { assertSender, runTxAllowingAssertedSender } from "../ethereumjs/assertedSender.ts";
import { keccak256 } from "../crypto.ts";
import { AdmissionMessage, TxRejectedError } from "../errors.ts";
import { callBlock } from "../dryRun.ts";
import { baseTimeDeposit, systemDepositGas } from "./baseTime.ts";
import { DepositTx, isDeposit } from "./deposit.ts";
import { l1CostOf, operatorFeeOf, readL1BlockFees } from "./l1Fee.ts";
import { BASE_FEE_VAULT, DEPOSITOR_ACCOUNT, L1_BLOCK, L1_FEE_VAULT, L1_INFO_GAS, OPERATOR_FEE_VAULT } from "./predeploys.ts";

import type { TypedTransaction } from "@ethereumjs/tx";
import type { Address } from "@ethereumjs/util";
import type { RunTxOpts, RunTxResult, VM } from "@ethereumjs/vm";
import type { StateManagerInterface } from "@ethereumjs/common";
import type { CallRequest, Hex } from "../types.ts";
import type { SnapshotPart } from "../chain.ts";
import type { L1FeeParams, OpStackParams } from "../profiles.ts";
import type { L1Cost } from "./l1Fee.ts";

/** Seconds between simulated L1 blocks (Ethereum's slot time). */
export const L1_BLOCK_TIME = 12n;
/** keccak256("setL1BlockValuesIsthmus()")[0:4] (specs/protocol/isthmus/l1-attributes.md). */
const SET_L1_BLOCK_VALUES_ISTHMUS = Uint8Array.of(0x09, 0x89, 0x99, 0xbe);

const L1_BLOCK_ADDRESS = createAddressFromString(L1_BLOCK);
const L1_FEE_VAULT_ADDRESS = createAddressFromString(L1_FEE_VAULT);
const BASE_FEE_VAULT_ADDRESS = createAddressFromString(BASE_FEE_VAULT);
const OPERATOR_FEE_VAULT_ADDRESS = createAddressFromString(OPERATOR_FEE_VAULT);
const DEPOSITOR = createAddressFromString(DEPOSITOR_ACCOUNT);

/** What the deposits opening a block need of it: its number, second and (with BaseTime) millisecond part. */
export interface BlockTime {
  number: bigint;
  timestamp: bigint;
  millisPart?: number | undefined;
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
  /** Whether every block carries Base's BaseTime deposit after its L1-attributes one (the `base-denim` profile). */
  readonly baseTime: boolean;

  constructor(params: OpStackParams, baseTime = false) {
    this.#initial = { ...params.l1 };
    this.l1 = { ...params.l1 };
    this.baseTime = baseTime;
  }

  /** The gas of the deposits that open every block: the L1-attributes one, and BaseTime's where it runs. */
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
      if (this.baseTime) deposits.push(baseTimeDeposit(block.number, block.millisPart ?? 0));
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
   * 1,000,000 gas, calling the Isthmus setter with the simulated L1's attributes, packed as
   * specs/protocol/ecotone/l1-attributes.md and isthmus/l1-attributes.md lay them out. The
   * sequence number counts the L2 blocks since the L1 origin last changed (read from L1Block).
   */
  async #l1InfoDeposit(state: StateManagerInterface, timestamp: bigint): Promise<DepositTx> {
    const origin = l1OriginAt(timestamp);
    const word = async (slot: number) => setLengthLeft(await state.getStorage(L1_BLOCK_ADDRESS, setLengthLeft(Uint8Array.of(slot), 32)), 32);
    const previousNumber = bytesToBigInt((await word(0)).subarray(24, 32));
    const previousSequence = bytesToBigInt((await word(3)).subarray(24, 32));
    const sequenceNumber = previousNumber === origin.number ? previousSequence + 1n : 0n;
    const { l1 } = this;
    const be = (value: bigint, bytes: number) => setLengthLeft(bigIntToBytes(value), bytes);
    const data = concatBytes(
      SET_L1_BLOCK_VALUES_ISTHMUS,
      be(BigInt(l1.baseFeeScalar), 4),
      be(BigInt(l1.blobBaseFeeScalar), 4),
      be(sequenceNumber, 8),
      be(origin.timestamp, 8),
      be(origin.number, 8),
      be(l1.baseFee, 32),
      be(l1.blobBaseFee, 32),
      origin.hash,
      new Uint8Array(32), // batcherHash: there is no batcher
      be(BigInt(l1.operatorFeeScalar), 4),
      be(l1.operatorFeeConstant, 8),
    );
    // L1-attributes source hash: keccak256(uint256(1) ++ keccak256(l1BlockHash ++ uint256(seqNumber))).
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
        { common: txCommonOf(vm.common), freeze: false },
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
  async runUserTx(vm: VM, opts: RunTxOpts): Promise<{ result: RunTxResult; l1Cost: L1Cost }> {
    const state = vm.stateManager;
    const tx = opts.tx;
    const fees = await readL1BlockFees(state);
    const l1Cost = l1CostOf(tx.serialize(), fees);
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
        const refund = ((tx.gasLimit - result.totalGasSpent) * fees.operatorFeeScalar) / 1_000_000n;
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
