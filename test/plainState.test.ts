/**
 * The plain-object state layer (src/node/state/plainState.ts) and the chain's live state
 * (liveState.ts) against @ethereumjs/statemanager's MerkleStateManager (as a forked chain runs it):
 * the same random transaction sequences run on a VM over each, and after every step the state roots,
 * the transactions' outcomes and the accounts, code and slots they touched must agree. The sequences
 * mix transfers (to new accounts too), deployments, token and storage writes and clears, refunds,
 * CREATE2, SELFDESTRUCT (EIP-6780), calls to empty accounts (EIP-161), dry runs reverted in a
 * checkpoint, nested checkpoints committed and reverted, and roots asked for mid-sequence.
 */
import { createBlock } from "@ethereumjs/block";
import { Common, Mainnet } from "@ethereumjs/common";
import { Caches, MerkleStateManager } from "@ethereumjs/statemanager";
import { createTx } from "@ethereumjs/tx";
import { Account, Address, bytesToHex, createAddressFromString, hexToBytes, setLengthLeft } from "@ethereumjs/util";
import { createVM, runTx } from "@ethereumjs/vm";
import { expect } from "chai";
import fc from "fast-check";
import { encodeDeployData, encodeFunctionData } from "viem";

import { accountsFromMnemonic, DEFAULT_MNEMONIC } from "../src/node/common/accounts.ts";
import { nativeCrypto } from "../src/node/common/crypto.ts";
import { preparedKey, signWithPreparedKey } from "../src/node/ethereumjs/preparedSigner.ts";
import { dropStorageTrie } from "../src/node/ethereumjs/stateManager.ts";
import { createLiveState } from "../src/node/state/liveState.ts";
import { PlainStateManager } from "../src/node/state/plainState.ts";
import { Counter, Refund, Token } from "./helpers/contracts.ts";

import type { StateManagerInterface } from "@ethereumjs/common";
import type { RunTxResult, VM } from "@ethereumjs/vm";
import type { Hex } from "viem";

const runs = (base: number) => (process.env.FC_RUNS === undefined ? base : Number(process.env.FC_RUNS));
const SEED = Number(process.env.FC_SEED ?? 20_261_125);

const SENDERS = accountsFromMnemonic(DEFAULT_MNEMONIC, 4);
const COINBASE = createAddressFromString("0x00000000000000000000000000000000000c0ffe");
/** Addresses nobody funds: transfers and calls create, touch and (EIP-161) remove them. */
const FRESH = [0xe1, 0xe2, 0xe3].map((n) => createAddressFromString(`0x${n.toString(16).padStart(40, "0")}`));

// Assembled programs, deployed by every sequence at fixed addresses (putCode on both states).
/** store(slot = calldata[0:32], value = calldata[32:64]): PUSH1 32 CALLDATALOAD PUSH1 0 CALLDATALOAD SSTORE STOP. */
const STORE = Uint8Array.of(0x60, 0x20, 0x35, 0x60, 0x00, 0x35, 0x55, 0x00);
/** SELFDESTRUCT to calldata[0:32]: PUSH1 0 CALLDATALOAD SELFDESTRUCT. */
const DESTROY = Uint8Array.of(0x60, 0x00, 0x35, 0xff);
/** CREATE2 of the calldata as init code, salt 7: CALLDATASIZE PUSH1 0 PUSH1 0 CALLDATACOPY PUSH1 7 CALLDATASIZE PUSH1 0 PUSH1 0 CREATE2 POP STOP. */
const CREATE2 = Uint8Array.of(0x36, 0x60, 0x00, 0x60, 0x00, 0x37, 0x60, 0x07, 0x36, 0x60, 0x00, 0x60, 0x00, 0xf5, 0x50, 0x00);
/** CALL(gas, to = calldata[0:32], value 0) and STOP: touches an account, maybe an empty one. */
const POKE = Uint8Array.of(0x5f, 0x5f, 0x5f, 0x5f, 0x5f, 0x60, 0x00, 0x35, 0x5a, 0xf1, 0x50, 0x00);
/** Init codes for CREATE2: deploy STORE's code; revert; selfdestruct in the constructor (removed under EIP-6780). */
const INIT_RETURNS_STORE = Uint8Array.of(0x67, ...STORE, 0x60, 0x00, 0x52, 0x60, 0x08, 0x60, 0x18, 0xf3);
const INIT_REVERTS = Uint8Array.of(0x60, 0x00, 0x60, 0x00, 0xfd);
const INIT_DESTROYS = Uint8Array.of(0x33, 0xff);
const PROGRAMS = { STORE, DESTROY, CREATE2, POKE };
const programAt = (index: number) => createAddressFromString(`0x${(0xa0 + index).toString(16).padStart(40, "0")}`);

type Step =
  | { kind: "transfer"; from: number; to: number; value: bigint }
  | { kind: "deploy"; from: number; contract: "Token" | "Counter" | "Refund" }
  | { kind: "call"; from: number; target: "token" | "counter" | "refund"; action: number; amount: bigint }
  | { kind: "store"; from: number; slot: number; value: bigint }
  | { kind: "destroy"; from: number; beneficiary: number; value: bigint }
  | { kind: "create2"; from: number; init: number }
  | { kind: "poke"; from: number; target: number }
  | { kind: "dryRun"; step: Step }
  | { kind: "nested"; first: Step; second: Step; keepInner: boolean; keepOuter: boolean }
  | { kind: "root" };

const sender = fc.integer({ min: 0, max: SENDERS.length - 1 });
const simple: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant("transfer" as const),
    from: sender,
    to: fc.integer({ min: 0, max: SENDERS.length + FRESH.length - 1 }),
    value: fc.bigInt({ min: 0n, max: 10n ** 18n }),
  }),
  fc.record({ kind: fc.constant("deploy" as const), from: sender, contract: fc.constantFrom("Token" as const, "Counter" as const, "Refund" as const) }),
  fc.record({
    kind: fc.constant("call" as const),
    from: sender,
    target: fc.constantFrom("token" as const, "counter" as const, "refund" as const),
    action: fc.integer({ min: 0, max: 3 }),
    amount: fc.bigInt({ min: 0n, max: 1000n }),
  }),
  fc.record({
    kind: fc.constant("store" as const),
    from: sender,
    slot: fc.integer({ min: 0, max: 5 }),
    value: fc.oneof(fc.constant(0n), fc.bigInt({ min: 0n, max: (1n << 256n) - 1n })),
  }),
  fc.record({
    kind: fc.constant("destroy" as const),
    from: sender,
    beneficiary: fc.integer({ min: 0, max: FRESH.length }),
    value: fc.bigInt({ min: 0n, max: 1000n }),
  }),
  fc.record({ kind: fc.constant("create2" as const), from: sender, init: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ kind: fc.constant("poke" as const), from: sender, target: fc.integer({ min: 0, max: FRESH.length - 1 }) }),
  fc.constant({ kind: "root" as const }),
);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: simple },
  { weight: 1, arbitrary: simple.map((inner) => ({ kind: "dryRun" as const, step: inner })) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("nested" as const), first: simple, second: simple, keepInner: fc.boolean(), keepOuter: fc.boolean() }),
  },
);

/**
 * MerkleStateManager with its caches, as a forked chain's state runs it: with the patch that drops a
 * deleted account's storage trie (stateManager.ts; without it the package reads a recreated account's old storage).
 */
function upstreamState(common: Common): MerkleStateManager {
  const state = new MerkleStateManager({ common, caches: new Caches() });
  const deleteAccount = state.deleteAccount.bind(state);
  state.deleteAccount = async (address: Address) => {
    await deleteAccount(address);
    dropStorageTrie(state, address);
  };
  return state;
}

interface Side {
  vm: VM;
  state: StateManagerInterface;
}

class Sequence {
  readonly nonces = SENDERS.map(() => 0n);
  readonly deployed: Partial<Record<"token" | "counter" | "refund", Address>> = {};
  readonly common = new Common({ chain: Mainnet, hardfork: "osaka", customCrypto: nativeCrypto() });
  readonly block = createBlock(
    { header: { number: 1n, timestamp: 1_700_000_000n, gasLimit: 60_000_000n, baseFeePerGas: 7n, coinbase: COINBASE } },
    { common: this.common, skipConsensusFormatValidation: true },
  );
  readonly touched = new Set<string>([COINBASE.toString(), ...SENDERS.map((account) => account.address), ...FRESH.map(String)]);
  sides: Side[] = [];

  async init(): Promise<void> {
    // The reference, @ethereumjs/statemanager's own (a forked chain's state is one); beside it the plain
    // layer and the chain's live state (liveState.ts), whose overlay reaches the tries at each root asked for.
    const states: StateManagerInterface[] = [upstreamState(this.common), new PlainStateManager({ common: this.common }), createLiveState(this.common)];
    this.sides = await Promise.all(states.map(async (state) => ({ vm: await createVM({ common: this.common, stateManager: state as never }), state })));
    for (const { state } of this.sides) {
      for (const account of SENDERS) await state.putAccount(createAddressFromString(account.address), new Account(0n, 10n ** 21n));
      for (const [index, code] of Object.values(PROGRAMS).entries()) await state.putCode(programAt(index), code);
    }
    for (let index = 0; index < Object.keys(PROGRAMS).length; index++) this.touched.add(programAt(index).toString());
    await this.compare("genesis");
  }

  #tx(from: number, to: Address | undefined, data: Uint8Array, value = 0n, gasLimit = 3_000_000n) {
    const nonce = this.nonces[from]!;
    this.nonces[from] = nonce + 1n;
    const unsigned = createTx({ type: 2, nonce, to, data, value, gasLimit, maxFeePerGas: 100n, maxPriorityFeePerGas: 2n }, { common: this.common });
    return signWithPreparedKey(unsigned, preparedKey(SENDERS[from]!.privateKey));
  }

  /** The tx a step sends; undefined when the step cannot run yet (no contract deployed). */
  #txOf(step: Step) {
    const fromAddress = (index: number) => createAddressFromString(SENDERS[index]!.address);
    switch (step.kind) {
      case "transfer":
        return this.#tx(step.from, step.to < SENDERS.length ? fromAddress(step.to) : FRESH[step.to - SENDERS.length], new Uint8Array(), step.value);
      case "deploy": {
        const artifact = { Token, Counter, Refund }[step.contract];
        const data =
          step.contract === "Token" ? encodeDeployData({ abi: Token.abi, bytecode: Token.bytecode, args: ["T", "T", 10n ** 24n] }) : artifact.bytecode;
        return this.#tx(step.from, undefined, hexToBytes(data));
      }
      case "call": {
        const to = this.deployed[step.target];
        if (to === undefined) return undefined;
        const recipient = step.action % 2 === 0 ? SENDERS[(step.from + 1) % SENDERS.length]!.address : (FRESH[step.action % FRESH.length]!.toString() as Hex);
        const data =
          step.target === "token"
            ? encodeFunctionData({ abi: Token.abi, functionName: "transfer", args: [recipient, step.amount] })
            : step.target === "counter"
              ? encodeFunctionData({
                  abi: Counter.abi,
                  functionName: step.action < 2 ? "increment" : "set",
                  args: step.action < 2 ? [] : [step.amount],
                } as never)
              : encodeFunctionData({ abi: Refund.abi, functionName: step.action < 2 ? "clear" : "fill" });
        return this.#tx(step.from, to, hexToBytes(data));
      }
      case "store":
        return this.#tx(
          step.from,
          programAt(0),
          Uint8Array.of(...setLengthLeft(Uint8Array.of(step.slot), 32), ...hexToBytes(`0x${step.value.toString(16).padStart(64, "0")}`)),
        );
      case "destroy": {
        const beneficiary = step.beneficiary < FRESH.length ? FRESH[step.beneficiary]! : programAt(1);
        return this.#tx(step.from, programAt(1), setLengthLeft(beneficiary.bytes, 32), step.value);
      }
      case "create2":
        return this.#tx(step.from, programAt(2), [INIT_RETURNS_STORE, INIT_REVERTS, INIT_DESTROYS][step.init]!);
      case "poke":
        return this.#tx(step.from, programAt(3), setLengthLeft(FRESH[step.target]!.bytes, 32));
      default:
        // A root asked for, or a dry run or nesting inside a dry run or nesting: nothing to send.
        return undefined;
    }
  }

  /** Runs the step's tx on both sides; their outcomes must agree. */
  async #send(step: Step, what: string): Promise<void> {
    const tx = this.#txOf(step);
    if (tx === undefined) return;
    const results: RunTxResult[] = [];
    for (const { vm } of this.sides) results.push(await runTx(vm, { tx, block: this.block, skipBlockGasLimitValidation: true, skipHardForkValidation: true }));
    const outcome = (result: RunTxResult) => ({
      error: result.execResult.exceptionError?.error,
      gas: result.totalGasSpent,
      created: result.createdAddress?.toString(),
      returned: bytesToHex(result.execResult.returnValue),
      logs: result.execResult.logs?.map(([address, topics, data]) => [bytesToHex(address), topics.map((topic) => bytesToHex(topic)), bytesToHex(data)]),
    });
    for (const result of results.slice(1)) expect(outcome(result), `${what}: the tx's outcome`).to.deep.equal(outcome(results[0]!));
    const created = results[0]!.createdAddress;
    if (created !== undefined) {
      this.touched.add(created.toString());
      if (step.kind === "deploy" && results[0]!.execResult.exceptionError === undefined) this.deployed[step.contract.toLowerCase() as "token"] = created;
    }
  }

  async run(step: Step, index: number): Promise<void> {
    const what = `step ${index} (${JSON.stringify(step, (_, value: unknown) => (typeof value === "bigint" ? value.toString() : value))})`;
    switch (step.kind) {
      case "root":
        break;
      case "dryRun": {
        // As eth_call: a checkpoint around the tx, always reverted. The sender's nonce must not move either.
        const nonces = [...this.nonces];
        for (const { state } of this.sides) await state.checkpoint();
        await this.#send(step.step, what);
        for (const { state } of this.sides) await state.revert();
        this.nonces.splice(0, this.nonces.length, ...nonces);
        break;
      }
      case "nested": {
        const nonces = [...this.nonces];
        for (const { state } of this.sides) await state.checkpoint();
        await this.#send(step.first, `${what} (outer)`);
        const afterOuter = [...this.nonces];
        for (const { state } of this.sides) await state.checkpoint();
        await this.#send(step.second, `${what} (inner)`);
        for (const { state } of this.sides) await (step.keepInner ? state.commit() : state.revert());
        if (!step.keepInner) this.nonces.splice(0, this.nonces.length, ...afterOuter);
        // Reads only: MerkleStateManager's root inside a checkpoint flushes its caches, and its reads after the
        // revert then disagree with its own root (the engine asks for roots outside checkpoints only).
        await this.compare(`${what} inside its checkpoint`, false);
        for (const { state } of this.sides) await (step.keepOuter ? state.commit() : state.revert());
        if (!step.keepOuter) this.nonces.splice(0, this.nonces.length, ...nonces);
        break;
      }
      default:
        await this.#send(step, what);
    }
    await this.compare(what);
  }

  /** Same state root (unless `root` is false), and the same account, code and slots 0-5 for every address the sequence touched. */
  async compare(what: string, root = true): Promise<void> {
    const [merkle, ...others] = this.sides.map((side) => side.state);
    const merkleRoot = root ? bytesToHex(await merkle!.getStateRoot()) : undefined;
    for (const other of others) if (root) expect(bytesToHex(await other.getStateRoot()), `${what}: state root`).to.equal(merkleRoot);
    for (const id of this.touched) {
      const address = createAddressFromString(id);
      const read = async (state: StateManagerInterface) => {
        const account = await state.getAccount(address);
        const slots: string[] = [];
        for (let slot = 0; slot < 6; slot++) slots.push(bytesToHex(await state.getStorage(address, setLengthLeft(Uint8Array.of(slot), 32))));
        return {
          // A storage root only once the roots were taken: inside a checkpoint the package's reports the slots
          // written so far (its putStorage writes the trie too), the others the root last computed (as geth's
          // state object reports until IntermediateRoot).
          account:
            account === undefined
              ? undefined
              : [account.nonce, account.balance, bytesToHex(account.codeHash), ...(root ? [bytesToHex(account.storageRoot)] : [])],
          code: bytesToHex(await state.getCode(address)),
          slots,
        };
      };
      const expected = await read(merkle!);
      for (const other of others) expect(await read(other), `${what}: ${id}`).to.deep.equal(expected);
    }
  }
}

describe("the plain-object state layer agrees with @ethereumjs/statemanager (plainState.ts)", () => {
  it("random transaction sequences: the same state roots, outcomes, accounts, code and slots after every step", async function () {
    this.timeout(120_000);
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 24 }), async (steps) => {
        const sequence = new Sequence();
        await sequence.init();
        for (const [index, item] of steps.entries()) await sequence.run(item, index);
      }),
      { numRuns: runs(25), seed: SEED, endOnFailure: true },
    );
  });

  it("checkpoints are O(1) journal marks: a revert undoes only what changed since, a commit keeps it for the outer one", async () => {
    const common = new Common({ chain: Mainnet, hardfork: "osaka" });
    const state = new PlainStateManager({ common });
    const who = createAddressFromString("0x00000000000000000000000000000000000000aa");
    const slot = setLengthLeft(Uint8Array.of(1), 32);
    await state.putAccount(who, new Account(1n, 10n));
    const empty = await state.getStateRoot();
    await state.checkpoint();
    const mark = state.journalLength;
    await state.putStorage(who, slot, Uint8Array.of(0, 0, 7));
    expect(await state.getStorage(who, slot)).to.deep.equal(Uint8Array.of(7));
    await state.checkpoint();
    await state.modifyAccountFields(who, { balance: 99n });
    await state.commit();
    expect(state.checkpointDepth).to.equal(1);
    expect(state.journalLength - mark).to.equal(2);
    const written = await state.getStateRoot();
    expect(bytesToHex(written)).to.not.equal(bytesToHex(empty));
    await state.revert();
    expect(state.journalLength).to.equal(0);
    expect(await state.getStorage(who, slot)).to.deep.equal(new Uint8Array());
    expect((await state.getAccount(who))?.balance).to.equal(10n);
    // The root computed inside the checkpoint is not kept: after the revert it is the one before.
    expect(bytesToHex(await state.getStateRoot())).to.equal(bytesToHex(empty));
    await state.setStateRoot(empty);
    let refused: unknown;
    await state.setStateRoot(written).catch((error: unknown) => (refused = error));
    expect((refused as Error).message).to.equal("PlainStateManager holds only its current state root");
  });

  it("bad input: the same errors as MerkleStateManager, and nothing changes", async () => {
    const common = new Common({ chain: Mainnet, hardfork: "osaka" });
    const who = new Address(hexToBytes("0x00000000000000000000000000000000000000bb"));
    for (const state of [upstreamState(common), new PlainStateManager({ common }), createLiveState(common)] as StateManagerInterface[]) {
      const root = bytesToHex(await state.getStateRoot());
      const message = async (run: () => Promise<unknown>) =>
        (
          (await run().then(
            () => undefined,
            (error: unknown) => error,
          )) as Error | undefined
        )?.message;
      expect(await message(() => state.getStorage(who, new Uint8Array(31)))).to.equal("Storage key must be 32 bytes long");
      expect(await message(() => state.putStorage(who, new Uint8Array(32), new Uint8Array(33)))).to.equal("Storage value cannot be longer than 32 bytes");
      expect(await message(() => state.putStorage(who, new Uint8Array(32), Uint8Array.of(1)))).to.equal("putStorage() called on non-existing account");
      expect(bytesToHex(await state.getStateRoot())).to.equal(root);
    }
  });
});
