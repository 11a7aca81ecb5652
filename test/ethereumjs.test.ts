/**
 * What the patches in src/node/ethereumjs/ rely on in @ethereumjs 10.1.3, one describe per patch.
 * Each test fails if an upgrade changes that (a private member renamed or reshaped, a method no
 * longer called the way the patch expects, or upstream fixing what a patch works around: then drop
 * the patch). The statemanager's storage patches are checked in test/engineInternals.test.ts and
 * the jump-analysis cache in test/jumpAnalysis.test.ts.
 */
import { Block, BlockHeader, createBlock, createBlockHeader, paramsBlock } from "@ethereumjs/block";
import { createBlockchain } from "@ethereumjs/blockchain";
import { Common, Mainnet } from "@ethereumjs/common";
import { createEVM, EVM } from "@ethereumjs/evm";
import { Caches, MerkleStateManager } from "@ethereumjs/statemanager";
import { createTx, createTxFromRLP, paramsTx } from "@ethereumjs/tx";
import { Account, bytesToUnprefixedHex, createAddressFromString, eoaCode7702SignAuthorization, KECCAK256_NULL, setLengthLeft } from "@ethereumjs/util";
import { createVM, runTx } from "@ethereumjs/vm";
import { RLP } from "@ethereumjs/rlp";
import { keccak_256 as keccak256Of } from "@noble/hashes/sha3.js";
import { expect } from "chai";

import { assertSender, runTxAllowingAssertedSender } from "../src/node/ethereumjs/assertedSender.ts";
import { hashOnlyBlock, shareBlocks } from "../src/node/ethereumjs/blockchain.ts";
import { overrideBlobGasPrice, withExtraBlocks } from "../src/node/ethereumjs/blockLookup.ts";
import { editPrecompiles } from "../src/node/ethereumjs/precompiles.ts";
import { hashUnsigned } from "../src/node/ethereumjs/unsignedTx.ts";
import { checkpointDepth, copyOptionsOf, merkleInternals, nodeStoreOf, openStorageRoots } from "../src/node/ethereumjs/internals.ts";
import { opcodeTableOf } from "../src/node/ethereumjs/opcodeHooks.ts";
import { activateHardforkAtBlock } from "../src/node/ethereumjs/forkBlocks.ts";
import { preparedKey, SignedTxs, signHashWithPreparedKey, signWithPreparedKey } from "../src/node/ethereumjs/preparedSigner.ts";
import { nativeCrypto } from "../src/node/common/crypto.ts";
import { installSenderAddresses, senderAddressKept } from "../src/node/ethereumjs/senderAddress.ts";
import { sharedCommon } from "../src/node/ethereumjs/sharedCommon.ts";
import { executionHeader, executionHeaderBuilds, sealedHeader, zeroBaseFeeHeader } from "../src/node/ethereumjs/sealedHeader.ts";
import { BLOCK_FORKS_AT_ZERO, commonFromGenesis, devGethGenesis } from "../src/node/state/genesis.ts";
import { MAX_TIMESTAMP } from "../src/node/common/time.ts";
import { dropStorageTrie } from "../src/node/ethereumjs/stateManager.ts";
import { createLiveState } from "../src/node/state/liveState.ts";
import { onStateWrites, watchStateWrites } from "../src/node/ethereumjs/stateWrites.ts";
// Installs the opcode hook (src/node/ethereumjs/opcodeHooks.ts) as the engine does.
import "../src/node/execution/evmBudget.ts";

import type { CustomCrypto } from "@ethereumjs/common";
import type { AccessList } from "@ethereumjs/tx";

const ADDRESS = createAddressFromString("0x00000000000000000000000000000000000000aa");
const OTHER = createAddressFromString("0x00000000000000000000000000000000000000bb");
const slot = (n: number) => setLengthLeft(Uint8Array.of(n), 32);
const mainnet = () => new Common({ chain: Mainnet, hardfork: "prague" });

async function withSlot(stateManager: MerkleStateManager): Promise<void> {
  await stateManager.putAccount(ADDRESS, new Account(1n, 10n));
  await stateManager.putStorage(ADDRESS, slot(1), Uint8Array.of(7));
  await stateManager.flush();
}

describe("@ethereumjs 10.1.3 internals the patches rely on (src/node/ethereumjs/)", () => {
  describe("MerkleStateManager's private members (internals.ts)", () => {
    it("has each member of MerkleInternals, with the shape the engine reads", async () => {
      const stateManager = new MerkleStateManager({ common: mainnet(), caches: new Caches() });
      const internals = merkleInternals(stateManager);
      expect(internals._trie.database).to.be.a("function");
      expect(internals._caches?.storage?.get).to.be.a("function");
      expect(internals._caches?.storage?.put).to.be.a("function");
      expect(internals._getStorageTrie).to.be.a("function");
      expect(internals.originalStorageCache.getStorage).to.be.a("function");
      expect(internals.keccakFunction).to.be.a("function");
      expect([internals._prefixCodeHashes, internals._prefixStorageTrieKeys]).to.deep.equal([true, false]);
      expect(internals._storageTries).to.deep.equal({});
    });

    it("_checkpointCount counts open checkpoints (checkpointDepth)", async () => {
      const stateManager = new MerkleStateManager({ common: mainnet(), caches: new Caches() });
      expect(checkpointDepth(stateManager)).to.equal(0);
      await stateManager.checkpoint();
      await stateManager.checkpoint();
      expect(checkpointDepth(stateManager)).to.equal(2);
      await stateManager.revert();
      await stateManager.commit();
      expect(checkpointDepth(stateManager)).to.equal(0);
    });

    it("the trie's MapDB is one Map holding the state root's node (nodeStoreOf, for pruning)", async () => {
      const stateManager = new MerkleStateManager({ common: mainnet(), caches: new Caches() });
      await withSlot(stateManager);
      const store = nodeStoreOf(stateManager);
      expect(store).to.be.instanceOf(Map);
      expect(store!.has(bytesToUnprefixedHex(await stateManager.getStateRoot()))).to.equal(true);
      // A shallow copy (a state view) writes to the same Map.
      expect(nodeStoreOf(stateManager.shallowCopy(false))).to.equal(store);
    });

    it("storage tries are kept in _storageTries, read by keccak(address), each with root() (openStorageRoots)", async () => {
      const stateManager = new MerkleStateManager({ common: mainnet(), caches: new Caches() });
      await withSlot(stateManager);
      const internals = merkleInternals(stateManager);
      // _getStorageTrie reads and writes the keccak key; _modifyContractStorage also writes the plain address's.
      const keys = [bytesToUnprefixedHex(internals.keccakFunction(ADDRESS.bytes)), bytesToUnprefixedHex(ADDRESS.bytes)];
      expect(Object.keys(internals._storageTries).sort()).to.deep.equal([...keys].sort());
      const storageRoot = (await stateManager.getAccount(ADDRESS))!.storageRoot;
      expect(openStorageRoots(stateManager)).to.deep.equal([storageRoot, storageRoot]);
    });

    it("a state rebuilt from a shallow copy's options (copyOptionsOf, a fork's copies) reads the same state", async () => {
      const stateManager = new MerkleStateManager({ common: mainnet(), caches: new Caches() });
      await withSlot(stateManager);
      const rebuilt = new MerkleStateManager(copyOptionsOf(stateManager.shallowCopy(false)));
      expect(await rebuilt.getStateRoot()).to.deep.equal(await stateManager.getStateRoot());
      expect(await rebuilt.getStorage(ADDRESS, slot(1))).to.deep.equal(Uint8Array.of(7));
      expect(nodeStoreOf(rebuilt)).to.equal(nodeStoreOf(stateManager));
    });
  });

  describe("deleteAccount drops the storage trie (stateManager.ts, a fork's state)", () => {
    it("upstream still keeps a deleted account's storage trie (else drop the patch)", async () => {
      const upstream = new MerkleStateManager({ common: mainnet(), caches: new Caches() });
      await withSlot(upstream);
      await upstream.deleteAccount(ADDRESS);
      await upstream.flush();
      const internals = merkleInternals(upstream);
      expect(internals._storageTries).to.have.property(bytesToUnprefixedHex(internals.keccakFunction(ADDRESS.bytes)));
    });

    it("patched, it forgets it: an account deleted and created again has empty storage", async () => {
      const ours = new MerkleStateManager({ common: mainnet(), caches: new Caches() });
      await withSlot(ours);
      await ours.deleteAccount(ADDRESS);
      dropStorageTrie(ours, ADDRESS);
      await ours.flush();
      const internals = merkleInternals(ours);
      expect(internals._storageTries).to.not.have.property(bytesToUnprefixedHex(internals.keccakFunction(ADDRESS.bytes)));
      await ours.putAccount(ADDRESS, new Account(0n, 1n));
      await ours.flush();
      expect(await ours.getStorage(ADDRESS, slot(1))).to.deep.equal(new Uint8Array());
    });
  });

  describe("asserted senders (assertedSender.ts)", () => {
    async function contractSender() {
      const common = mainnet();
      const vm = await createVM({ common, stateManager: createLiveState(common) });
      await vm.stateManager.putAccount(ADDRESS, new Account(0n, 10n ** 18n));
      await vm.stateManager.putCode(ADDRESS, Uint8Array.of(0x00)); // STOP: any code but a delegation
      const codeHash = (await vm.stateManager.getAccount(ADDRESS))!.codeHash;
      const tx = () =>
        assertSender(createTx({ to: OTHER.toString(), value: 1n, gasLimit: 21_000n, maxFeePerGas: 10n ** 10n, type: 2 }, { common, freeze: false }), ADDRESS);
      return { vm, codeHash, tx };
    }

    it("runTx takes the sender from tx.getSenderAddress and refuses one with code (EIP-3607), so the patch is needed", async () => {
      const { vm, tx } = await contractSender();
      let error: unknown;
      await runTx(vm, { tx: tx(), skipBlockGasLimitValidation: true }).catch((caught: unknown) => (error = caught));
      expect((error as Error).message).to.match(/^invalid sender address, address is not EOA \(EIP-3607\)/);
    });

    it("runTxAllowingAssertedSender runs it, charges the sender through journal.putAccount, and keeps its code", async () => {
      const { vm, codeHash, tx } = await contractSender();
      const getAccount = vm.stateManager.getAccount;
      const result = await runTxAllowingAssertedSender(vm, { tx: tx(), skipBlockGasLimitValidation: true });
      expect(result.execResult.exceptionError).to.equal(undefined);
      const sender = (await vm.stateManager.getAccount(ADDRESS))!;
      expect(sender.nonce).to.equal(1n);
      expect(sender.balance < 10n ** 18n - 1n).to.equal(true);
      expect(sender.codeHash).to.deep.equal(codeHash);
      expect(sender.codeHash).to.not.deep.equal(KECCAK256_NULL);
      // The overrides were for this run only: the state manager's getAccount and the journal's putAccount are as they were.
      expect(vm.stateManager.getAccount).to.equal(getAccount);
      expect(Object.hasOwn(vm.evm.journal, "putAccount")).to.equal(false);
    });
  });

  describe("the shared Common of txs (sharedCommon.ts)", () => {
    it("a tx built on the shared Common copies it through copy(), and so keeps that very instance", () => {
      const common = mainnet();
      const shared = sharedCommon(common, paramsTx);
      expect(Common.prototype.copy).to.be.a("function");
      expect(Common.prototype.updateParams).to.be.a("function");
      const tx = createTx({ to: OTHER.toString(), gasLimit: 21_000n, maxFeePerGas: 1n, type: 2 }, { common: shared });
      expect(tx.common).to.equal(shared);
      // Without the sharing, each tx has its own copy.
      expect(createTx({ to: OTHER.toString(), gasLimit: 21_000n, maxFeePerGas: 1n, type: 2 }, { common }).common).to.not.equal(common);
      expect(sharedCommon(common, paramsTx)).to.equal(shared);
    });
  });

  describe("the opcode hook (opcodeHooks.ts)", () => {
    it("each EVM's _opcodeMap holds {opcodeInfo, opHandler} by opcode, and the hooked JUMP/CALL entries are async", async () => {
      expect(EVM.prototype.getActiveOpcodes).to.be.a("function");
      const common = mainnet();
      const vm = await createVM({ common });
      const table = opcodeTableOf(vm.evm as EVM);
      expect(table).to.be.an("array");
      for (const code of [0x56, 0x57, 0xf1, 0xfa]) {
        expect(table[code]!.opHandler, `opcode ${code}`).to.be.a("function");
        expect(table[code]!.opcodeInfo).to.include({ isAsync: true, isInvalid: false });
      }
      // ADD is not hooked: still synchronous.
      expect(table[0x01]!.opcodeInfo).to.include({ isAsync: false, isInvalid: false });
    });
  });

  describe("the chain's own headers and blocks (blockchain.ts)", () => {
    it("putBlock reads the parent's header through dbManager.getHeader, and shareBlocks answers it and getBlock", async () => {
      const common = mainnet();
      const blockchain = await createBlockchain({ common, validateBlocks: false, validateConsensus: false });
      const genesis = await blockchain.getBlock(0);
      const child = createBlock(
        { header: { number: 1n, parentHash: genesis.hash(), timestamp: genesis.header.timestamp + 12n, gasLimit: genesis.header.gasLimit } },
        { common },
      );
      const asked: bigint[] = [];
      shareBlocks(blockchain, {
        header: (hash) => {
          const known = [genesis, child].find((block) => bytesToUnprefixedHex(block.hash()) === bytesToUnprefixedHex(hash));
          if (known !== undefined) asked.push(known.header.number);
          return known?.header;
        },
        block: (id) => (id instanceof Uint8Array ? undefined : BigInt(id) === 1n ? child : undefined),
      });
      await blockchain.putBlock(child);
      // If nothing was asked, the package stopped decoding headers there: the patch does nothing.
      expect(asked).to.include(0n);
      expect(await blockchain.getBlock(1)).to.equal(child);
      expect((await blockchain.getBlock(0)).hash()).to.deep.equal(genesis.hash());
    });

    it("BLOCKHASH reads only hash() of the block getBlock returns (hashOnlyBlock, a fork's upstream blocks)", async () => {
      const hash = new Uint8Array(32).fill(0xab);
      const asked: number[] = [];
      const blockchain = {
        getBlock: async (number: number) => {
          asked.push(number);
          return hashOnlyBlock(hash, BigInt(number));
        },
        putBlock: async () => undefined,
        shallowCopy: () => blockchain,
      };
      const evm = await createEVM({ common: mainnet(), blockchain });
      // PUSH1 7 BLOCKHASH PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN, run in block 10.
      const code = Uint8Array.from([0x60, 7, 0x40, 0x60, 0, 0x52, 0x60, 32, 0x60, 0, 0xf3]);
      const block = createBlock({ header: { number: 10n } }, { common: mainnet() });
      const result = await evm.runCode({ code, gasLimit: 100_000n, block });
      expect(asked).to.deep.equal([7]);
      expect(result.returnValue).to.deep.equal(hash);
    });
  });

  describe("the account index's write hooks (stateWrites.ts)", () => {
    it("a tx's account writes go through the state manager instance's putAccount (a fork's MerkleStateManager is wrapped)", async () => {
      const common = mainnet();
      const stateManager = new MerkleStateManager({ common });
      const vm = await createVM({ common, stateManager });
      await stateManager.putAccount(ADDRESS, new Account(0n, 10n ** 18n));
      const accounts = new Set<string>();
      const slots: string[] = [];
      onStateWrites(stateManager, {
        account: (where) => accounts.add(where.toString()),
        slot: (where, key) => slots.push(`${where}:${bytesToUnprefixedHex(key)}`),
      });
      const tx = assertSender(
        createTx({ to: OTHER.toString(), value: 1n, gasLimit: 21_000n, maxFeePerGas: 10n ** 10n, type: 2 }, { common, freeze: false }),
        ADDRESS,
      );
      await runTx(vm, { tx, skipBlockGasLimitValidation: true });
      expect([...accounts]).to.include.members([ADDRESS.toString(), OTHER.toString()]);
      await stateManager.putStorage(OTHER, slot(3), Uint8Array.of(1));
      expect(slots).to.deep.equal([`${OTHER}:${bytesToUnprefixedHex(slot(3))}`]);
      // An account created by modifyAccountFields, putCode or clearStorage is seen too.
      const created = [
        "0x00000000000000000000000000000000000000c1",
        "0x00000000000000000000000000000000000000c2",
        "0x00000000000000000000000000000000000000c3",
      ].map((hex) => createAddressFromString(hex));
      await stateManager.modifyAccountFields(created[0]!, { balance: 1n });
      await stateManager.putCode(created[1]!, Uint8Array.of(0x00));
      await stateManager.clearStorage(created[2]!);
      expect([...accounts]).to.include.members(created.map(String));
    });

    it("the live state tells its watchers of every write itself, keeping its methods the class's; a view tells nothing", async () => {
      const common = mainnet();
      const stateManager = createLiveState(common);
      const vm = await createVM({ common, stateManager });
      await stateManager.putAccount(ADDRESS, new Account(0n, 10n ** 18n));
      const told: string[] = [];
      watchStateWrites(stateManager, {
        account: (id) => told.push(`account ${id}`),
        slot: (id, key) => told.push(`slot ${id}:${bytesToUnprefixedHex(key)}`),
        reset: () => told.push("reset"),
      });
      // No own-property wrapper: every state manager the EVM calls has the class's methods.
      for (const method of ["putAccount", "modifyAccountFields", "putCode", "putStorage", "clearStorage", "setStateRoot", "revert", "deleteAccount"]) {
        expect(Object.hasOwn(stateManager, method), method).to.equal(false);
      }
      const tx = assertSender(
        createTx({ to: OTHER.toString(), value: 1n, gasLimit: 21_000n, maxFeePerGas: 10n ** 10n, type: 2 }, { common, freeze: false }),
        ADDRESS,
      );
      await runTx(vm, { tx, skipBlockGasLimitValidation: true });
      expect(told).to.include.members([`account ${ADDRESS}`, `account ${OTHER}`]);
      told.length = 0;
      await stateManager.putStorage(OTHER, slot(3), Uint8Array.of(1));
      // A write refused by its checks is not told.
      const refused = await stateManager.putStorage(OTHER, Uint8Array.of(1), Uint8Array.of(1)).catch((error: unknown) => error);
      expect((refused as Error).message).to.equal("Storage key must be 32 bytes long");
      expect(told).to.deep.equal([`slot ${OTHER}:${bytesToUnprefixedHex(slot(3))}`]);
      const [c1, c2, c3] = [
        "0x00000000000000000000000000000000000000c1",
        "0x00000000000000000000000000000000000000c2",
        "0x00000000000000000000000000000000000000c3",
      ];
      told.length = 0;
      await stateManager.modifyAccountFields(createAddressFromString(c1), { balance: 1n });
      await stateManager.putCode(createAddressFromString(c2), Uint8Array.of(0x00));
      await stateManager.clearStorage(createAddressFromString(c3));
      expect(told).to.deep.equal([`account ${c1}`, `account ${c2}`, `account ${c2}`, `account ${c3}`, "reset"]);
      // What bypasses the account and slot writes: a checkpoint reverted, an account deleted, a root set.
      told.length = 0;
      await stateManager.checkpoint();
      await stateManager.revert();
      await stateManager.deleteAccount(createAddressFromString(c1));
      await stateManager.setStateRoot(await stateManager.getStateRoot());
      expect(told).to.deep.equal(["reset", "reset", "reset"]);
      // A view (a copy) has no watchers: dry runs on it tell the live state's nothing.
      told.length = 0;
      const view = stateManager.shallowCopy();
      await view.putStorage(OTHER, slot(4), Uint8Array.of(2));
      await view.revert();
      expect(told).to.deep.equal([]);
    });

    it("a state manager that does not tell its writes (a fork's MerkleStateManager) has them wrapped, told by the same keys", async () => {
      const stateManager = new MerkleStateManager({ common: mainnet() });
      await stateManager.putAccount(OTHER, new Account());
      const told: string[] = [];
      watchStateWrites(stateManager, { account: (id) => told.push(`account ${id}`), slot: (id) => told.push(`slot ${id}`), reset: () => told.push("reset") });
      expect(Object.hasOwn(stateManager, "putStorage")).to.equal(true);
      await stateManager.putStorage(OTHER, slot(1), Uint8Array.of(1));
      await stateManager.checkpoint();
      await stateManager.revert();
      // Its putStorage puts the account's new storage root through its (wrapped) putAccount: told twice.
      expect(told).to.deep.equal([`slot ${OTHER}`, `account ${OTHER}`, "reset"]);
    });
  });

  describe("BLOCKHASH through the EVM's blockchain field, blob gas price per header (blockLookup.ts)", () => {
    /** PUSH1 1; NUMBER; SUB; BLOCKHASH; PUSH1 0; MSTORE; PUSH1 32; PUSH1 0; RETURN: the parent's hash. */
    const PARENT_HASH = Uint8Array.from(Buffer.from("600143034060005260206000f3", "hex"));

    it("BLOCKHASH asks evm.blockchain.getBlock(number) when the message starts, so withExtraBlocks answers it", async () => {
      const common = mainnet();
      const vm = await createVM({ common });
      await vm.stateManager.putAccount(ADDRESS, new Account());
      await vm.stateManager.putCode(ADDRESS, PARENT_HASH);
      const parent = createBlock({ header: { number: 9n, extraData: Uint8Array.of(1) } }, { common });
      const child = createBlock({ header: { number: 10n } }, { common });
      const field = () => (vm.evm as unknown as { blockchain: unknown }).blockchain;
      const original = field();
      const seen = await withExtraBlocks(vm, new Map([[9n, parent]]), () => vm.evm.runCall({ to: ADDRESS, block: child, gasLimit: 100_000n }));
      expect(seen.execResult.returnValue).to.deep.equal(parent.hash());
      // Afterwards the chain's own blockchain answers again.
      expect(field()).to.equal(original);
    });

    it("runTx and BLOBBASEFEE read the header's getBlobGasPrice()", async () => {
      const common = mainnet();
      const vm = await createVM({ common });
      // BLOBBASEFEE; PUSH1 0; MSTORE; PUSH1 32; PUSH1 0; RETURN
      await vm.stateManager.putAccount(ADDRESS, new Account());
      await vm.stateManager.putCode(ADDRESS, Uint8Array.from(Buffer.from("4a60005260206000f3", "hex")));
      const block = createBlock({ header: { number: 1n, excessBlobGas: 0n } }, { common, freeze: false });
      overrideBlobGasPrice(block, 12_345n);
      const result = await vm.evm.runCall({ to: ADDRESS, block, gasLimit: 100_000n });
      expect(BigInt(`0x${Buffer.from(result.execResult.returnValue).toString("hex")}`)).to.equal(12_345n);
    });
  });

  describe("go-ethereum's hash of an unsigned tx (unsignedTx.ts)", () => {
    it("ethereumjs refuses to hash an unsigned tx, which serializes V, R and S as empty (0x80), as zeros", () => {
      const common = mainnet();
      const data = { to: OTHER.toString(), gasLimit: 21_000n, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n, type: 2 } as const;
      const unsigned = createTx(data, { common, freeze: false });
      expect(() => unsigned.hash()).to.throw(/not signed/);
      const zeros = createTx({ ...data, v: 0n, r: 0n, s: 0n }, { common });
      expect(unsigned.serialize()).to.deep.equal(zeros.serialize());
      expect(hashUnsigned(unsigned).hash()).to.deep.equal(zeros.hash());
    });
  });

  describe("the precompile table (precompiles.ts)", () => {
    it("runTx warms the addresses of evm.precompiles.entries(), which an edit keeps at the fork's list", async () => {
      const common = mainnet();
      const vm = await createVM({ common });
      let warmed: string[] = [];
      const journal = vm.evm.journal;
      const addAlwaysWarm = journal.addAlwaysWarmAddress.bind(journal);
      journal.addAlwaysWarmAddress = (address: string, addToAccessList?: boolean) => {
        warmed.push(address);
        addAlwaysWarm(address, addToAccessList);
      };
      await vm.stateManager.putAccount(ADDRESS, new Account(0n, 10n ** 18n));
      const send = () =>
        runTx(vm, {
          tx: assertSender(createTx({ to: OTHER.toString(), gasLimit: 21_000n, maxFeePerGas: 10n ** 10n, type: 2 }, { common, freeze: false }), ADDRESS),
          skipBlockGasLimitValidation: true,
          skipNonce: true,
        }).catch(() => undefined);
      await runTxAllowingAssertedSender(vm, {
        tx: assertSender(createTx({ to: OTHER.toString(), gasLimit: 21_000n, maxFeePerGas: 10n ** 10n, type: 2 }, { common, freeze: false }), ADDRESS),
        skipBlockGasLimitValidation: true,
      });
      expect(warmed).to.include("0000000000000000000000000000000000000001");
      const edit = editPrecompiles(vm);
      const ecrecover = edit.at("0x0000000000000000000000000000000000000001")!;
      edit.remove("0x0000000000000000000000000000000000000001");
      edit.set("0x0000000000000000000000000000000000123456", ecrecover);
      expect(vm.evm.getPrecompile!("0x0000000000000000000000000000000000123456")).to.equal(ecrecover);
      expect(vm.evm.getPrecompile!("0x0000000000000000000000000000000000000001")).to.equal(undefined);
      warmed = [];
      await send();
      expect(warmed).to.include("0000000000000000000000000000000000000001");
      expect(warmed).to.not.include("0000000000000000000000000000000000123456");
      edit.restore();
      expect(vm.evm.getPrecompile!("0x0000000000000000000000000000000000000001")).to.equal(ecrecover);
      expect(Object.hasOwn(vm.evm.precompiles, "entries")).to.equal(false);
    });
  });

  describe("a post-merge fork at a block number (forkBlocks.ts)", () => {
    it("getHardforkBy honours the block of an entry the genesis scheduled at a placeholder time, and every copy sees it", () => {
      const genesis = devGethGenesis({
        chainId: 31337n,
        hardfork: "prague",
        gasLimit: 30_000_000n,
        baseFeePerGas: 1n,
        timestamp: 1_700_000_000n,
        alloc: new Map(),
        forkTimes: { osaka: MAX_TIMESTAMP },
      });
      const common = commonFromGenesis(genesis, {});
      const copy = common.copy();
      activateHardforkAtBlock(common, "osaka", 5n);
      const at = (c: Common, block: bigint) => c.getHardforkBy({ blockNumber: block, timestamp: 1_700_000_010n });
      expect([at(common, 4n), at(common, 5n), at(common, 6n)]).to.deep.equal(["prague", "osaka", "osaka"]);
      expect(at(copy, 4n)).to.equal("prague");
      expect(at(copy, 5n)).to.equal("osaka");
      expect(() => activateHardforkAtBlock(common, "bpo1", 9n)).to.throw("the genesis schedules no bpo1 fork to move to block 9");
    });
  });

  describe("signing with a prepared key (preparedSigner.ts)", () => {
    it("a tx signed with a prepared key reads its sender from tx.cache.senderPubKey, never from ecrecover, and the signature recovers to it", () => {
      const key = preparedKey("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
      const sender = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
      // A Common whose ecrecover fails: the prepared sender must not need it.
      const noRecovery = new Common({
        chain: Mainnet,
        hardfork: "prague",
        customCrypto: {
          ecrecover: () => {
            throw new Error("ecrecover called");
          },
        },
      });
      const fields = { type: 2, nonce: 3n, to: OTHER.toString(), value: 1n, gasLimit: 21_000n, maxFeePerGas: 10n ** 10n } as const;
      const signed = signWithPreparedKey(createTx(fields, { common: noRecovery }), key);
      expect(signed.getSenderAddress().toString()).to.equal(sender);
      expect(preparedKey("0xAC0974BEC39A17E36BA4A6B4D238FF944BACB478CBED5EFCAE784D7BF4F2FF80")).to.equal(key);
      // Its bytes, decoded on their own, recover the same sender.
      expect(createTxFromRLP(signed.serialize(), { common: mainnet() }).getSenderAddress().toString()).to.equal(sender);
      // Without the prepared key the same tx's sender is recovered (the cache is the patch's only lever).
      expect(() => createTx(fields, { common: noRecovery }).sign(key.secret).getSenderAddress()).to.throw();
    });

    it("signing the message hash already computed gives ethereumjs' own `sign`'s tx, byte for byte, for every tx type and signer", () => {
      const key = preparedKey("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
      const base = { nonce: 7n, to: OTHER.toString(), value: 5n, gasLimit: 60_000n, data: "0xa9059cbb" } as const;
      const authorization = eoaCode7702SignAuthorization([Uint8Array.of(1), OTHER.bytes, Uint8Array.of()], key.secret);
      const accessList: AccessList = [{ address: ADDRESS.toString(), storageKeys: [`0x${"00".repeat(31)}01`] }];
      for (const [signer, customCrypto] of [
        ["noble", {}],
        ["native", nativeCrypto()],
      ] as const) {
        const prague = new Common({ chain: Mainnet, hardfork: "prague", customCrypto });
        // Before Spurious Dragon a legacy tx has no EIP-155: `sign` itself signs it.
        const homestead = new Common({ chain: Mainnet, hardfork: "homestead", customCrypto });
        const unsignedTxs = [
          createTx({ ...base, type: 0, gasPrice: 10n }, { common: prague }),
          createTx({ ...base, type: 0, gasPrice: 10n }, { common: homestead }),
          createTx({ ...base, type: 1, gasPrice: 10n, accessList }, { common: prague }),
          createTx({ ...base, type: 2, maxFeePerGas: 10n, maxPriorityFeePerGas: 1n, accessList }, { common: prague }),
          createTx({ ...base, type: 4, maxFeePerGas: 10n, authorizationList: [authorization] }, { common: prague }),
        ];
        for (const unsigned of unsignedTxs) {
          const label = `type ${unsigned.type} on ${unsigned.common.hardfork()}, ${signer} signer`;
          const message = unsigned.getMessageToSign();
          const hash = (unsigned.common.customCrypto.keccak256 ?? keccak256Of)(message instanceof Uint8Array ? message : RLP.encode(message));
          const signed = signHashWithPreparedKey(unsigned, key, hash);
          expect(signed.serialize(), label).to.deep.equal(unsigned.sign(key.secret).serialize());
          expect(signed.getSenderAddress().toString(), label).to.equal("0x70997970c51812dc3a010c7d01b50e0d17dc79c8");
          // Through the memo: the same tx.
          expect(new SignedTxs().sign(unsigned, key).serialize(), label).to.deep.equal(signed.serialize());
        }
      }
      // A key that is not 32 bytes: ethereumjs' own error.
      const short = { id: -1, secret: new Uint8Array(31), publicKey: key.publicKey };
      const unsigned = createTx({ ...base, type: 2, maxFeePerGas: 10n }, { common: mainnet() });
      expect(() => signHashWithPreparedKey(unsigned, short, new Uint8Array(32))).to.throw(/Private key must be 32 bytes in length/);
    });
  });

  describe("sender addresses derived once per tx (senderAddress.ts)", () => {
    it("every signed tx type answers the package's own address through the patched method, kept for a frozen tx only", () => {
      installSenderAddresses();
      const key = preparedKey("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
      const sender = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
      const base = { nonce: 1n, to: OTHER.toString(), value: 1n, gasLimit: 100_000n, chainId: 1n };
      const withKzg = new Common({ chain: Mainnet, hardfork: "prague", customCrypto: { kzg: {} as NonNullable<CustomCrypto["kzg"]> } });
      const txs = [
        createTx({ ...base, type: 0, gasPrice: 10n }, { common: mainnet() }),
        createTx({ ...base, type: 1, gasPrice: 10n }, { common: mainnet() }),
        createTx({ ...base, type: 2, maxFeePerGas: 10n }, { common: mainnet() }),
        // A blob tx without its network wrapper: @ethereumjs/tx only asks that a KZG be there.
        createTx({ ...base, type: 3, maxFeePerGas: 10n, maxFeePerBlobGas: 1n, blobVersionedHashes: [`0x01${"00".repeat(31)}`] }, { common: withKzg }),
        createTx(
          {
            ...base,
            type: 4,
            maxFeePerGas: 10n,
            authorizationList: [eoaCode7702SignAuthorization([Uint8Array.of(1), OTHER.bytes, Uint8Array.of()], key.secret)],
          },
          { common: mainnet() },
        ),
      ].map((unsigned) => createTxFromRLP(unsigned.sign(key.secret).serialize(), { common: unsigned.type === 3 ? withKzg : mainnet() }));
      for (const tx of txs) {
        // Kept once asked: the patched method answered.
        expect(senderAddressKept(tx), `type ${tx.type}`).to.equal(false);
        const first = tx.getSenderAddress();
        expect(first.toString()).to.equal(sender);
        // The package's own derivation, for comparison: the last 20 bytes of keccak256 of the public key.
        expect(bytesToUnprefixedHex(keccak256Of(tx.getSenderPublicKey()).subarray(-20))).to.equal(sender.slice(2));
        expect(senderAddressKept(tx), `type ${tx.type}`).to.equal(true);
        const second = tx.getSenderAddress();
        expect(second).to.not.equal(first);
        expect(second.toString()).to.equal(sender);
      }
      expect(txs.map((tx) => tx.type)).to.deep.equal([0, 1, 2, 3, 4]);
      // A tx that is not frozen is not kept: its fields could still change.
      const loose = createTx({ ...base, type: 2, maxFeePerGas: 10n }, { common: mainnet(), freeze: false }).sign(key.secret);
      expect(Object.isFrozen(loose)).to.equal(false);
      expect(loose.getSenderAddress().toString()).to.equal(sender);
      expect(senderAddressKept(loose)).to.equal(false);
    });
  });

  describe("the execution header as a copy of the last one built (sealedHeader.ts executionHeader)", () => {
    const bytes = (length: number, fill: number) => new Uint8Array(length).fill(fill);
    for (const hardfork of ["shanghai", "cancun", "osaka"] as const) {
      it(`equals the header the constructor builds from the same fields, block after block, the constructor run once (${hardfork})`, () => {
        const common = sharedCommon(
          commonFromGenesis(devGethGenesis({ hardfork, chainId: 31337n, gasLimit: 30_000_000n, baseFeePerGas: 1n, timestamp: 0n, alloc: new Map() }), {}),
          paramsBlock,
        );
        const opts = { common, skipConsensusFormatValidation: true };
        const blobs = hardfork !== "shanghai";
        const builds = executionHeaderBuilds.count;
        for (let i = 1; i <= 6; i++) {
          const fields = {
            number: BigInt(i),
            parentHash: bytes(32, i),
            timestamp: 1_700_000_000n + BigInt(i),
            gasLimit: 30_000_000n - BigInt(i),
            baseFeePerGas: 875_000_000n + BigInt(i),
            coinbase: bytes(20, 0x10 + i),
            mixHash: bytes(32, 0x20 + i),
            // Optional fields present in some blocks only: a copy must not keep the last block's.
            ...(blobs && i % 2 === 0 && { excessBlobGas: BigInt(i) * 1000n }),
            ...(i % 3 === 0 && { extraData: bytes(i, 0x30) }),
            ...(blobs && i % 2 === 1 && { parentBeaconBlockRoot: bytes(32, 0x40 + i) }),
          };
          const copy = executionHeader(common, fields);
          const built = createBlockHeader({ ...fields, difficulty: 0n, ...(fields.excessBlobGas !== undefined && { blobGasUsed: 0n }) }, opts);
          expectSameHeader(copy, built);
        }
        expect(executionHeaderBuilds.count - builds).to.equal(1);
      });
    }

    it("has the constructor build what it would reject, for its error", () => {
      const common = sharedCommon(
        commonFromGenesis(
          devGethGenesis({ hardfork: "cancun", chainId: 31337n, gasLimit: 30_000_000n, baseFeePerGas: 1n, timestamp: 0n, alloc: new Map() }),
          {},
        ),
        paramsBlock,
      );
      const fields = { number: 1n, parentHash: bytes(32, 1), timestamp: 1n, gasLimit: 1n, baseFeePerGas: 1n, coinbase: bytes(20, 2), mixHash: bytes(32, 3) };
      executionHeader(common, fields);
      expect(() => executionHeader(common, { ...fields, number: 2n, parentHash: bytes(31, 1) })).to.throw("parentHash must be 32 bytes, received 31 bytes");
      expect(() => executionHeader(common, { ...fields, number: 2n, parentBeaconBlockRoot: bytes(8, 0) })).to.throw("parentBeaconBlockRoot must be 32 bytes");
    });
  });

  describe("the sealed header as a copy of the executed one (sealedHeader.ts)", () => {
    const bytes = (length: number, fill: number) => new Uint8Array(length).fill(fill);
    for (const [hardfork, end] of [
      ["cancun", {}],
      ["osaka", { requestsHash: bytes(32, 5) }],
      ["osaka", { requestsHash: bytes(32, 6), withdrawalsRoot: bytes(32, 7) }],
    ] as const) {
      it(`equals the header the constructor builds from the same fields (${hardfork}${"withdrawalsRoot" in end ? ", withdrawals" : ""})`, () => {
        const common = sharedCommon(
          commonFromGenesis(devGethGenesis({ hardfork, chainId: 31337n, gasLimit: 30_000_000n, baseFeePerGas: 1n, timestamp: 0n, alloc: new Map() }), {}),
          paramsBlock,
        );
        const opts = { common, skipConsensusFormatValidation: true };
        const data = {
          number: 7n,
          parentHash: bytes(32, 1),
          timestamp: 1_700_000_000n,
          gasLimit: 30_000_000n,
          baseFeePerGas: 875_000_000n,
          coinbase: OTHER.toString(),
          mixHash: bytes(32, 2),
          difficulty: 0n,
          excessBlobGas: 0n,
          blobGasUsed: 0n,
          parentBeaconBlockRoot: bytes(32, 0),
        };
        const executed = createBlockHeader(data, opts);
        const executedHash = executed.hash();
        const fields = {
          stateRoot: bytes(32, 3),
          transactionsTrie: bytes(32, 4),
          receiptTrie: bytes(32, 8),
          logsBloom: bytes(256, 9),
          gasUsed: 63_000n,
          blobGasUsed: 0n,
          ...end,
        };
        const copy = sealedHeader(executed, fields);
        const built = createBlockHeader({ ...data, ...fields }, opts);
        expectSameHeader(copy, built);
        // The executed header is untouched, its hash cache included.
        expect(executed.hash()).to.deep.equal(executedHash);
        expect(executed.stateRoot).to.deep.equal(new Uint8Array(32));
        expect(() => sealedHeader(executed, { ...fields, gasUsed: 30_000_001n })).to.throw("too much gas used");
      });
    }
  });

  describe("a header with base fee 0 as a copy (sealedHeader.ts zeroBaseFeeHeader)", () => {
    const bytes = (length: number, fill: number) => new Uint8Array(length).fill(fill);
    for (const hardfork of ["shanghai", "cancun", "osaka"] as const) {
      it(`equals what createBlock builds from the header's JSON with base fee 0 (${hardfork})`, () => {
        const common = sharedCommon(
          commonFromGenesis(devGethGenesis({ hardfork, chainId: 31337n, gasLimit: 30_000_000n, baseFeePerGas: 1n, timestamp: 0n, alloc: new Map() }), {}),
          paramsBlock,
        );
        const opts = { common, skipConsensusFormatValidation: true };
        const cancun = hardfork !== "shanghai";
        const header = createBlockHeader(
          {
            number: 9n,
            parentHash: bytes(32, 1),
            stateRoot: bytes(32, 3),
            timestamp: 1_700_000_000n,
            gasLimit: 30_000_000n,
            gasUsed: 21_000n,
            baseFeePerGas: 875_000_000n,
            coinbase: OTHER.toString(),
            mixHash: bytes(32, 2),
            difficulty: 0n,
            ...(cancun && { excessBlobGas: 0n, blobGasUsed: 0n, parentBeaconBlockRoot: bytes(32, 4) }),
            ...(hardfork === "osaka" && { requestsHash: bytes(32, 5) }),
          },
          opts,
        );
        const hash = header.hash();
        const copy = zeroBaseFeeHeader(header);
        const built = createBlock({ header: { ...header.toJSON(), baseFeePerGas: "0x0" } }, opts);
        expect(copy.baseFeePerGas).to.equal(0n);
        expectSameHeader(copy, built.header);
        // As a block: what createBlock makes of it (no txs, the fork's withdrawals), hash and encoding.
        const block = new Block(copy);
        expect(block.hash()).to.deep.equal(built.hash());
        expect(block.serialize()).to.deep.equal(built.serialize());
        expect(block.withdrawals).to.deep.equal(built.withdrawals);
        // The source header is untouched, its hash cache included.
        expect(header.baseFeePerGas).to.equal(875_000_000n);
        expect(header.hash()).to.deep.equal(hash);
      });
    }

    it("builds at London's first block, where the constructor refuses any base fee but the initial one (a call there runs, as go-ethereum's NoBaseFee runs it)", () => {
      const dev = devGethGenesis({ hardfork: "cancun", chainId: 31337n, gasLimit: 30_000_000n, baseFeePerGas: 1n, timestamp: 0n, alloc: new Map() });
      const genesis = { ...dev, config: { chainId: 31337, ...BLOCK_FORKS_AT_ZERO, londonBlock: 5 } };
      const common = sharedCommon(commonFromGenesis(genesis as typeof dev, {}), paramsBlock);
      common.setHardforkBy({ blockNumber: 5n });
      const opts = { common, skipConsensusFormatValidation: true };
      const header = createBlockHeader({ number: 5n, gasLimit: 30_000_000n, baseFeePerGas: 1_000_000_000n, difficulty: 1n }, opts);
      expect(() => createBlock({ header: { ...header.toJSON(), baseFeePerGas: "0x0" } }, opts)).to.throw(
        "Initial EIP1559 block does not have initial base fee",
      );
      const block = new Block(zeroBaseFeeHeader(header));
      expect(block.header.baseFeePerGas).to.equal(0n);
      expect(block.header.number).to.equal(5n);
    });
  });
});

/** A header copy is the constructor's header: a frozen BlockHeader, the same own keys, hash, encoding, JSON and Common. */
function expectSameHeader(copy: BlockHeader, built: BlockHeader): void {
  expect(copy).to.be.instanceOf(BlockHeader);
  expect(Object.isFrozen(copy)).to.equal(true);
  expect(Object.keys(copy).sort()).to.deep.equal(Object.keys(built).sort());
  expect(copy.hash()).to.deep.equal(built.hash());
  expect(copy.serialize()).to.deep.equal(built.serialize());
  expect(copy.toJSON()).to.deep.equal(built.toJSON());
  expect(copy.common).to.equal(built.common);
}
