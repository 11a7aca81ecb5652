/**
 * The @ethereumjs 10.1.3 internals the engine relies on for speed (src/node/ethereumjs/: trie writes in
 * batches, decoded trie nodes, account encoding, opcode handlers; state/: the live state and the views'
 * memos). These tests fail when an upgrade changes what the overrides assume, and check that answers
 * stay the same.
 */
import { createBlock } from "@ethereumjs/block";
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { Caches, MerkleStateManager } from "@ethereumjs/statemanager";
import { Capability, createAccessList2930Tx, createLegacyTx, createTx, getCalldataFloorGas, paramsTx } from "@ethereumjs/tx";
import {
  Account,
  Address,
  bigIntToBytes,
  bytesToHex,
  bytesToUnprefixedHex,
  createAddressFromString,
  generateAddress,
  generateAddress2,
  MapDB,
  setLengthLeft,
  unpadBytes,
  ValueEncoding,
} from "@ethereumjs/util";
import { expect } from "chai";
import fc from "fast-check";
import { encodeDeployData, encodeFunctionData, toHex } from "viem";

import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";

import { withoutLeadingZeros } from "../src/node/common/bytes.ts";
import { nativeCrypto } from "../src/node/common/crypto.ts";
import { createEVM } from "@ethereumjs/evm";
import { createVM } from "@ethereumjs/vm";
import { installActiveEips } from "../src/node/ethereumjs/activeEips.ts";
import { installCreateAddress } from "../src/node/ethereumjs/createAddress.ts";
import { legacyCallTx } from "../src/node/ethereumjs/callTx.ts";
import { callTransaction } from "../src/node/execution/dryRun.ts";
import { cacheLegacyDataGas, calldataFloorGas, minimumGasLimitOf } from "../src/node/ethereumjs/dataGasCache.ts";
import { memoiseHardforkOrder } from "../src/node/ethereumjs/hardforkOrder.ts";
import { opcodeTableOf } from "../src/node/ethereumjs/opcodeHooks.ts";
import { installWordStore, mstore } from "../src/node/ethereumjs/wordStore.ts";
import { sharedCommon } from "../src/node/ethereumjs/sharedCommon.ts";
import { accountRLP } from "../src/node/ethereumjs/stateManager.ts";
import { createLiveState } from "../src/node/state/liveState.ts";
import { installTrieKeyHashes, originalAppliedKey, trieKeyHashCounts } from "../src/node/ethereumjs/trieKeyHashes.ts";
import { installTrieFindPath } from "../src/node/ethereumjs/trieFindPath.ts";
import { createTestChain } from "./helpers/chain.ts";
import { Counter } from "./helpers/contracts.ts";

import type { StateManagerInterface } from "@ethereumjs/common";
import type { LegacyTx } from "@ethereumjs/tx";
import type { Hex } from "viem";

const ADDRESS = createAddressFromString("0x00000000000000000000000000000000000000aa");
const slot = (n: number) => setLengthLeft(Uint8Array.of(n), 32);
type Internals = {
  _storageTries: Record<string, unknown>;
  _caches?: { storage?: unknown };
  _getStorageTrie?: unknown;
  originalStorageCache?: { getStorage?: unknown };
};

async function writeSlots(stateManager: StateManagerInterface): Promise<void> {
  await stateManager.putAccount(ADDRESS, new Account(1n, 10n));
  await stateManager.putStorage(ADDRESS, slot(1), Uint8Array.of(7));
  await stateManager.putStorage(ADDRESS, slot(2), Uint8Array.of(0, 9));
}

describe("engine internals (@ethereumjs/common 10.1.3)", () => {
  it("isActivatedEIP from its table answers as the package's includes on every hardfork of Mainnet, with EIPs given, and on a copy (activeEips.ts)", () => {
    installActiveEips();
    const packageAnswer = (common: Common, eip: number) => (common as unknown as { _activatedEIPsCache: number[] })._activatedEIPsCache.includes(eip);
    const probes = [...Array.from({ length: 9000 }, (_, eip) => eip), 65_535, 65_536, 100_000, -1, -0, 1.5, Number.NaN, 2929.0000001];
    const check = (common: Common, label: string) => {
      const wrong = probes.filter((eip) => common.isActivatedEIP(eip) !== packageAnswer(common, eip));
      expect(wrong, label).to.deep.equal([]);
    };
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Chainstart });
    const names = common.hardforks().map((hardfork) => hardfork.name);
    let active = 0;
    for (const name of names) {
      common.setHardfork(name);
      check(common, name);
      active += common.isActivatedEIP(2929) ? 1 : 0;
    }
    // Berlin and every later hardfork of the list have EIP-2929: the table follows setHardfork.
    expect(active).to.equal(names.length - names.indexOf(Hardfork.Berlin));
    const copy = common.copy();
    copy.setHardfork(Hardfork.Istanbul);
    check(copy, "a copy moved back to Istanbul");
    expect([copy.isActivatedEIP(2929), common.isActivatedEIP(2929)]).to.deep.equal([false, true]);
    const withEips = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun, eips: [7702] });
    check(withEips, "Cancun with EIP-7702");
    expect(withEips.isActivatedEIP(7702)).to.equal(true);
    // A list with an EIP number past the table's bound: every answer is the package's.
    const huge = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun });
    (huge as unknown as { _activatedEIPsCache: number[] })._activatedEIPsCache = [
      ...(huge as unknown as { _activatedEIPsCache: number[] })._activatedEIPsCache,
      1_000_000,
    ];
    check(huge, "Cancun with EIP 1000000");
    expect(huge.isActivatedEIP(1_000_000)).to.equal(true);
  });
});

describe("engine internals (@ethereumjs/evm 10.1.3)", () => {
  it("CREATE and CREATE2 addresses hashed with the Common's keccak are util's generateAddress and generateAddress2 (createAddress.ts)", async () => {
    installCreateAddress();
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Prague, customCrypto: { keccak256: nativeCrypto().keccak256 } }) });
    const generate = (message: object) => (evm as unknown as { _generateAddress(message: object): Promise<{ bytes: Uint8Array }> })._generateAddress(message);
    // util's CREATE address of a sender with no account: the package's own derivation (nonce 0 - 1).
    const originalGenerate = async (caller: Address) => generateAddress(caller.bytes, bigIntToBytes(-1n));
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 20, maxLength: 20 }),
        fc.oneof(fc.constant(1n), fc.constant(2n), fc.bigInt({ min: 1n, max: (1n << 64n) - 1n })),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ minLength: 0, maxLength: 600 }),
        async (senderBytes, nonce, salt, code) => {
          const caller = new Address(senderBytes);
          // The package reads the sender's nonce after its increment: the create used nonce - 1.
          await evm.stateManager.putAccount(caller, new Account(nonce, 0n));
          const created = await generate({ caller, code });
          const expected = generateAddress(senderBytes, bigIntToBytes(nonce - 1n));
          expect(bytesToHex(created.bytes)).to.equal(bytesToHex(expected));
          const created2 = await generate({ caller, salt, code });
          expect(bytesToHex(created2.bytes)).to.equal(bytesToHex(generateAddress2(senderBytes, salt, code)));
        },
      ),
      { numRuns: 200 },
    );
    // A sender the state does not hold (nonce 0, less one: util's error either way), as the package answers.
    const unknown = new Address(new Uint8Array(20).fill(9));
    expect(
      await generate({ caller: unknown, code: new Uint8Array() }).then(
        () => "created",
        (error: Error) => error.message,
      ),
    ).to.equal(
      await originalGenerate(unknown).then(
        () => "created",
        (error: Error) => error.message,
      ),
    );
    // A Common without a keccak of its own: the package's path, the same address.
    const plain = await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Prague }) });
    const sender = new Address(new Uint8Array(20).fill(7));
    await plain.stateManager.putAccount(sender, new Account(5n, 0n));
    const viaPackage = await (plain as unknown as { _generateAddress(message: object): Promise<{ bytes: Uint8Array }> })._generateAddress({
      caller: sender,
      code: new Uint8Array(),
    });
    expect(bytesToHex(viaPackage.bytes)).to.equal(bytesToHex(generateAddress(sender.bytes, bigIntToBytes(4n))));
    // A salt of another length is util's error, as before.
    const caller = new Address(new Uint8Array(20).fill(1));
    expect(
      await generate({ caller, salt: new Uint8Array(31), code: new Uint8Array() }).then(
        () => "created",
        (error: Error) => error.message,
      ),
    ).to.equal("Expected salt to be of length 32");
  });
});

describe("engine internals (@ethereumjs/statemanager 10.1.3)", () => {
  it("a tx's minimum gas limit is computed once per tx and hardfork (dataGasCache.ts minimumGasLimitOf, @ethereumjs/tx 10.1.3)", () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
    // Calldata of zero and non-zero bytes: under Prague the EIP-7623 floor (10 gas a token) is above the intrinsic gas.
    const data = Uint8Array.from({ length: 1000 }, (_, i) => (i % 3 === 0 ? 0 : i % 251));
    const tx = createAccessList2930Tx({ gasLimit: 100_000n, data, to: "0x1234567890123456789012345678901234567890" }, { common });
    const prototype = Object.getPrototypeOf(tx) as { getMinimumGasLimit(this: unknown): bigint };
    const upstream = prototype.getMinimumGasLimit;
    let calls = 0;
    prototype.getMinimumGasLimit = function (this: unknown) {
      calls++;
      return upstream.call(this);
    };
    try {
      const expected = upstream.call(tx);
      expect(expected > tx.getIntrinsicGas(), "the floor is the minimum here").to.equal(true);
      calls = 0;
      expect([minimumGasLimitOf(tx), minimumGasLimitOf(tx)]).to.deep.equal([expected, expected]);
      expect(calls).to.equal(1);
      // Under another hardfork (no EIP-7623 before Prague) it is computed again.
      tx.common.setHardfork(Hardfork.Cancun);
      expect(minimumGasLimitOf(tx)).to.equal(tx.getIntrinsicGas());
      expect(calls).to.equal(2);
    } finally {
      prototype.getMinimumGasLimit = upstream;
    }
  });

  it("a tx's calldata floor counted in a number is the package's getCalldataFloorGas, before and under EIP-7623, 7976 and 2780, and on Amsterdam (dataGasCache.ts calldataFloorGas)", () => {
    const forks: [Hardfork, number[]][] = [
      [Hardfork.Cancun, []],
      [Hardfork.Prague, []],
      [Hardfork.Osaka, []],
      [Hardfork.Osaka, [7976]],
      // EIP-2780's floor base (the sender and value count) with this module's own token count.
      [Hardfork.Osaka, [2780, 7708]],
      [Hardfork.Osaka, [7976, 2780, 7708]],
      [Hardfork.Amsterdam, []],
    ];
    const commons = forks.map(([hardfork, eips]) => new Common({ chain: Mainnet, hardfork, eips }));
    const address = fc.uint8Array({ minLength: 20, maxLength: 20 });
    fc.assert(
      fc.property(
        fc.constantFrom(...commons.keys()),
        fc.uint8Array({ maxLength: 300 }).map((bytes) => bytes.map((byte) => (byte < 128 ? 0 : byte))),
        fc.option(address, { nil: undefined }),
        fc.array(fc.tuple(address, fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }), { maxLength: 3 })), { maxLength: 3 }),
        fc.bigInt(0n, 10n ** 18n),
        fc.option(address, { nil: undefined }),
        (fork, data, to, accessList, value, sender) => {
          const common = commons[fork]!;
          const tx = createAccessList2930Tx({ gasLimit: 10_000_000n, data, to, accessList, value }, { common, allowUnlimitedInitCodeSize: true });
          const from = sender === undefined ? undefined : new Address(sender);
          expect(calldataFloorGas(tx, from)).to.equal(getCalldataFloorGas(tx, from));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("the live state's dumpStorage sees slots written since its last root", async () => {
    const ours = createLiveState(new Common({ chain: Mainnet }));
    await writeSlots(ours);
    expect(Object.keys(await ours.dumpStorage(ADDRESS))).to.have.length(2);
  });

  it("bad keys and values, and a missing account, are refused by the live state as upstream refuses them", async () => {
    const ours = createLiveState(new Common({ chain: Mainnet }));
    await ours.putAccount(ADDRESS, new Account());
    for (const [key, value, message] of [
      [new Uint8Array(31), Uint8Array.of(1), "Storage key must be 32 bytes long"],
      [slot(1), new Uint8Array(33), "Storage value cannot be longer than 32 bytes"],
    ] as const) {
      let error: unknown;
      await ours.putStorage(ADDRESS, key, value).catch((caught: unknown) => (error = caught));
      expect((error as Error).message).to.equal(message);
    }
    let missing: unknown;
    await ours
      .putStorage(createAddressFromString("0x00000000000000000000000000000000000000bb"), slot(1), Uint8Array.of(1))
      .catch((caught: unknown) => (missing = caught));
    expect((missing as Error).message).to.equal("putStorage() called on non-existing account");
  });

  it("native ecsign answers @noble/curves' 'recovered' layout (what @ethereumjs/tx 10.1.3's sign parses), byte for byte", () => {
    const ecsign = nativeCrypto().ecsign as unknown as ((hash: Uint8Array, key: Uint8Array) => Uint8Array) | undefined;
    expect(ecsign, "the secp256k1 addon (an optional dependency) loads in this repository").to.be.a("function");
    for (let i = 1; i <= 5; i++) {
      const key = new Uint8Array(32).fill(i);
      const hash = new Uint8Array(32).fill(100 + i);
      expect(bytesToHex(ecsign!(hash, key))).to.equal(bytesToHex(secp256k1.sign(hash, key, { format: "recovered", prehash: false, extraEntropy: false })));
    }
  });

  it("a trie node written is stored as the very bytes _formatNode queued (what the decoded-node memo is keyed by, @ethereumjs/mpt 10.1.3)", async () => {
    const store = new Map<string, Uint8Array>();
    const trie = new MerklePatriciaTrie({ useKeyHashing: true, db: new MapDB<string, Uint8Array>(store), valueEncoding: ValueEncoding.Bytes });
    for (let i = 0; i < 20; i++) await trie.put(Uint8Array.of(i), new Uint8Array(40).fill(i + 1));
    const internal = trie as unknown as {
      _formatNode(node: unknown, topLevel: boolean, opStack: { type: string; key: Uint8Array; value?: Uint8Array }[]): unknown;
    };
    const { stack } = await trie.findPath(trie.root());
    const ops: { type: string; key: Uint8Array; value?: Uint8Array }[] = [];
    internal._formatNode(stack[0], true, ops);
    expect(ops.map((op) => op.type)).to.deep.equal(["put"]);
    await (trie as unknown as { _db: { batch(ops: unknown[]): Promise<void> } })._db.batch(ops);
    expect(store.get(bytesToUnprefixedHex(ops[0]!.key))).to.equal(ops[0]!.value);
  });

  it("a trie's CheckpointDB reads its MapDB's map under the key's unprefixed hex when no checkpoint or cache is in the way (the path walk reads the map itself)", async () => {
    const store = new Map<string, Uint8Array>();
    const trie = new MerklePatriciaTrie({ useKeyHashing: true, db: new MapDB<string, Uint8Array>(store), valueEncoding: ValueEncoding.Bytes });
    await trie.put(Uint8Array.of(1), new Uint8Array(40).fill(1));
    const db = (trie as unknown as { _db: { checkpoints: unknown[]; _cache?: unknown; db: { _database: unknown }; get(key: Uint8Array): Promise<unknown> } })
      ._db;
    expect(db.checkpoints).to.deep.equal([]);
    expect(db._cache).to.equal(undefined);
    expect(db.db._database).to.equal(store);
    expect(await db.get(trie.root())).to.equal(store.get(bytesToUnprefixedHex(trie.root())));
    // A shallow copy (a storage trie, a view) shares the map.
    expect((trie.shallowCopy(false) as unknown as typeof trie & { _db: typeof db })._db.db._database).to.equal(store);
  });

  it("the path walk hands out nodes of their own: changing one leaves the trie's next walk as it was", async () => {
    installTrieFindPath();
    const trie = new MerklePatriciaTrie({ useKeyHashing: true, db: new MapDB<string, Uint8Array>(), valueEncoding: ValueEncoding.Bytes });
    for (let i = 0; i < 20; i++) await trie.put(Uint8Array.of(i), new Uint8Array(40).fill(i + 1));
    const key = keccak_256(Uint8Array.of(3));
    const before = (await trie.findPath(key)).stack.map((node) => bytesToHex(node.serialize()));
    const { stack } = await trie.findPath(key);
    for (const node of stack) {
      if ("setBranch" in node) for (let i = 0; i < 16; i++) node.setBranch(i, null);
      else node.value()?.fill(0);
    }
    expect((await trie.findPath(key)).stack.map((node) => bytesToHex(node.serialize()))).to.deep.equal(before);
    expect(bytesToHex((await trie.get(Uint8Array.of(3)))!)).to.equal(bytesToHex(new Uint8Array(40).fill(4)));
  });

  it("a trie has the members trieBatch.ts uses", async () => {
    const trie = createLiveState(new Common({ chain: Mainnet })).baseTries() as unknown as {
      _opts: Record<string, unknown>;
      appliedKey: unknown;
      _formatNode: unknown;
      _db: { batch: unknown };
    };
    expect(trie._opts.useNodePruning).to.equal(false);
    expect(trie._opts.useRootPersistence).to.equal(false);
    expect(trie.appliedKey).to.be.a("function");
    expect(trie._formatNode).to.be.a("function");
    expect(trie._db.batch).to.be.a("function");
  });

  it("the live state's root hashes each changed node once: fewer hashes than upstream's flush for the same writes, the same root", async () => {
    let hashes = 0;
    const common = new Common({
      chain: Mainnet,
      customCrypto: {
        keccak256: (bytes: Uint8Array) => {
          hashes++;
          return keccak_256(bytes);
        },
      },
    });
    const batched = createLiveState(common);
    const upstream = new MerkleStateManager({ common, caches: new Caches() });
    const counts: number[] = [];
    const roots: string[] = [];
    for (const stateManager of [batched, upstream]) {
      for (let i = 0; i < 40; i++)
        await stateManager.putAccount(createAddressFromString(`0x${(0x1000 + i).toString(16).padStart(40, "0")}`), new Account(0n, 1n));
      await stateManager.getStateRoot();
      // One block's worth: eight accounts changed, three slots of one of them.
      await stateManager.checkpoint();
      for (let i = 0; i < 8; i++)
        await stateManager.putAccount(createAddressFromString(`0x${(0x1000 + 5 * i).toString(16).padStart(40, "0")}`), new Account(1n, 2n));
      const contract = createAddressFromString("0x0000000000000000000000000000000000001000");
      for (let i = 0; i < 3; i++) await stateManager.putStorage(contract, slot(i), Uint8Array.of(i + 1));
      hashes = 0;
      await stateManager.commit();
      roots.push(bytesToHex(await stateManager.getStateRoot()));
      counts.push(hashes);
    }
    expect(roots[0]).to.equal(roots[1]);
    expect(counts[0]).to.be.lessThan(counts[1]!);
  });

  it("the member proofs of a fork's state use exists", () => {
    const stateManager = new MerkleStateManager({ common: new Common({ chain: Mainnet }), caches: new Caches() }) as unknown as Internals;
    expect(stateManager._getStorageTrie).to.be.a("function");
  });

  it("accountRLP encodes an account as Account.serialize does (@ethereumjs/util 10.1.3), byte for byte", () => {
    const word = fc.oneof(
      fc.constantFrom(0n, 1n, 0x7fn, 0x80n, 0xffn, 0x100n, 0xffffffn, 0x1000000n, 0xffffffffn, 0x100000000n, (1n << 256n) - 1n),
      fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }),
      fc.bigInt({ min: 0n, max: 1n << 40n }),
    );
    const hash = fc.uint8Array({ minLength: 32, maxLength: 32 });
    fc.assert(
      fc.property(word, word, hash, hash, (nonce, balance, storageRoot, codeHash) => {
        const account = new Account(nonce, balance, storageRoot, codeHash);
        expect(bytesToHex(accountRLP(account))).to.equal(bytesToHex(account.serialize()));
      }),
      { numRuns: 2000, seed: 20_261_128 },
    );
    expect(bytesToHex(accountRLP(new Account()))).to.equal(bytesToHex(new Account().serialize()));
  });

  it("withoutLeadingZeros answers as unpadBytes does (@ethereumjs/util 10.1.3): the array itself, or a copy of the rest", () => {
    const padded = fc
      .tuple(fc.nat(32), fc.uint8Array({ maxLength: 32 }))
      .map(([zeros, rest]) => Uint8Array.from([...new Array<number>(zeros).fill(0), ...rest]));
    fc.assert(
      fc.property(padded, (bytes) => {
        const before = bytesToHex(bytes);
        const ours = withoutLeadingZeros(bytes);
        const theirs = unpadBytes(bytes.slice());
        expect(bytesToHex(ours)).to.equal(bytesToHex(theirs));
        expect(bytesToHex(bytes), "the input is left as it was").to.equal(before);
        if (bytes.length === 0 || bytes[0] !== 0) expect(ours).to.equal(bytes);
        else expect(ours.buffer).to.not.equal(bytes.buffer);
      }),
      { numRuns: 2000, seed: 20_261_129 },
    );
    expect(withoutLeadingZeros(new Uint8Array(32))).to.deep.equal(new Uint8Array(0));
  });

  it("views answer each block's own storage, reads alternating between blocks (the memos are keyed by root)", async () => {
    const { provider } = await createTestChain({ mining: "manual" });
    try {
      const from = provider.accounts[0]!.address;
      const deploy = await provider.request({
        method: "eth_sendTransaction",
        params: [{ from, data: encodeDeployData({ abi: Counter.abi, bytecode: Counter.bytecode }) }],
      });
      await provider.preconf.seal();
      const { contractAddress: counter, blockNumber } = (await provider.request({ method: "eth_getTransactionReceipt", params: [deploy] })) as {
        contractAddress: Hex;
        blockNumber: Hex;
      };
      const increment = encodeFunctionData({ abi: Counter.abi, functionName: "increment" });
      for (let i = 0; i < 2; i++) {
        await provider.request({ method: "eth_sendTransaction", params: [{ from, to: counter, data: increment }] });
        await provider.preconf.seal();
      }
      const count = encodeFunctionData({ abi: Counter.abi, functionName: "count" });
      const at = async (block: bigint) =>
        BigInt((await provider.request({ method: "eth_call", params: [{ to: counter, data: count }, toHex(block)] })) as string);
      const first = BigInt(blockNumber);
      for (let round = 0; round < 3; round++) {
        expect([await at(first), await at(first + 1n), await at(first + 2n)]).to.deep.equal([0n, 1n, 2n]);
      }
      // An SSTORE inside a call reads the slot's original value through the memo too: the gas is the same at every block after the first write.
      const gasAt = async (block: bigint) =>
        BigInt((await provider.request({ method: "eth_estimateGas", params: [{ from, to: counter, data: increment }, toHex(block)] })) as string);
      expect(await gasAt(first + 1n)).to.equal(await gasAt(first + 2n));
      expect((await gasAt(first)) > (await gasAt(first + 1n))).to.equal(true); // 0 → 1 costs more than 1 → 2
    } finally {
      await provider.close();
    }
  });

  it("trie keys that are addresses are hashed once (trieKeyHashes.ts, @ethereumjs/mpt 10.1.3): the same hashes and roots as the package's, each caller's its own copy", async () => {
    const proto = MerklePatriciaTrie.prototype as unknown as { appliedKey(key: Uint8Array): Uint8Array };
    installTrieKeyHashes();
    const packageAppliedKey = originalAppliedKey();
    expect(packageAppliedKey).to.not.equal(proto.appliedKey);
    const tries = [
      new MerklePatriciaTrie({ useKeyHashing: true, db: new MapDB<string, Uint8Array>(), valueEncoding: ValueEncoding.Bytes }),
      new MerklePatriciaTrie({
        useKeyHashing: true,
        common: new Common({ chain: Mainnet, customCrypto: nativeCrypto() }),
        db: new MapDB<string, Uint8Array>(),
        valueEncoding: ValueEncoding.Bytes,
      }),
      new MerklePatriciaTrie({ db: new MapDB<string, Uint8Array>(), valueEncoding: ValueEncoding.Bytes }),
    ];
    const keys = Array.from({ length: 40 }, (_, i) => setLengthLeft(Uint8Array.of(i % 20), i < 20 ? 32 : 20));
    for (const trie of tries) {
      const original = (key: Uint8Array) => bytesToHex(packageAppliedKey.call(trie, key));
      for (const key of keys) {
        const first = (trie as unknown as typeof proto).appliedKey(key);
        expect(bytesToHex(first)).to.equal(original(key));
        // A trie without key hashing hands the key back, as the package's does.
        if (first === key) continue;
        first.fill(0);
        expect(bytesToHex((trie as unknown as typeof proto).appliedKey(key))).to.equal(original(key));
      }
    }
    const before = { ...trieKeyHashCounts };
    const trie = tries[0]!;
    const reference = new MerklePatriciaTrie({ useKeyHashing: true, db: new MapDB<string, Uint8Array>(), valueEncoding: ValueEncoding.Bytes });
    (reference as unknown as typeof proto).appliedKey = packageAppliedKey;
    for (const [index, key] of keys.entries()) {
      await trie.put(key, Uint8Array.of(index + 1));
      await reference.put(key, Uint8Array.of(index + 1));
    }
    expect(bytesToHex(trie.root())).to.equal(bytesToHex(reference.root()));
    expect(bytesToHex((await trie.get(keys[3]!))!)).to.equal("0x04");
    // Every address was hashed above: the puts hash none again; slots (32 bytes) are hashed each time, as the package does.
    expect(trieKeyHashCounts.hashed).to.equal(before.hashed);
    expect(trieKeyHashCounts.memoised - before.memoised).to.equal(20);
    expect(trieKeyHashCounts.direct - before.direct).to.equal(20 + 1);
  });

  describe("hardfork order from a memo (hardforkOrder.ts, @ethereumjs/common 10.1.3)", () => {
    it("answers as the package does, for every pair of hardforks at every hardfork, and after setHardfork", () => {
      const upstream = new Common({ chain: Mainnet });
      const memoised = new Common({ chain: Mainnet });
      memoiseHardforkOrder(memoised);
      const names = upstream.hardforks().map((hf) => hf.name);
      for (const at of names) {
        upstream.setHardfork(at);
        memoised.setHardfork(at);
        for (const a of [null, ...names])
          for (const b of [...names, "noSuchFork"]) {
            expect(memoised.hardforkGteHardfork(a, b), `${a ?? at} >= ${b}`).to.equal(upstream.hardforkGteHardfork(a, b));
          }
        expect(memoised.gteHardfork(Hardfork.SpuriousDragon)).to.equal(upstream.gteHardfork(Hardfork.SpuriousDragon));
        expect(memoised.copy().gteHardfork(Hardfork.Berlin)).to.equal(upstream.gteHardfork(Hardfork.Berlin));
      }
    });

    it("a legacy tx built on the shared tx Common asks the memo (its EIP-155 check)", () => {
      const shared = sharedCommon(new Common({ chain: Mainnet, hardfork: Hardfork.Prague }), paramsTx);
      expect(Object.hasOwn(shared, "hardforkGteHardfork")).to.equal(true);
      const memo = shared.hardforkGteHardfork;
      let asked = 0;
      shared.hardforkGteHardfork = (a, b) => {
        asked++;
        return memo.call(shared, a, b);
      };
      try {
        const tx = createLegacyTx({ gasLimit: 21000n, gasPrice: 1n }, { common: shared, freeze: false });
        // If this fails, the constructor no longer asks through hardforkGteHardfork: the memo saves nothing.
        expect(asked).to.be.greaterThan(0);
        expect(tx.supports(155)).to.equal(true);
      } finally {
        shared.hardforkGteHardfork = memo;
      }
    });
  });

  describe("MSTORE without setLengthLeft (wordStore.ts, @ethereumjs/evm 10.1.3)", () => {
    it("is the MSTORE handler of a new EVM, and writes the word's 32 big-endian bytes at the offset", async () => {
      installWordStore();
      const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Prague }) });
      // If this fails, the opcode table changed shape or the patch no longer reaches it.
      expect(opcodeTableOf(evm)[0x52]?.opHandler).to.equal(mstore);
      const words = [
        0n,
        1n,
        0xffn,
        0x100n,
        2n ** 64n - 1n,
        2n ** 64n,
        2n ** 128n + 5n,
        2n ** 255n,
        2n ** 256n - 1n,
        0x1234567890abcdef1122334455667788n << 100n,
        7n, // a small word after large ones: the scratch bytes above it are cleared
      ];
      for (const word of words) {
        for (const offset of [0, 5, 33]) {
          // PUSH32 word, PUSH1 offset, MSTORE, PUSH1 32, PUSH1 offset, RETURN
          const code = Uint8Array.of(0x7f, ...setLengthLeft(bigIntToBytes(word), 32), 0x60, offset, 0x52, 0x60, 32, 0x60, offset, 0xf3);
          const result = await evm.runCode({ code, gasLimit: 100_000n });
          expect(result.exceptionError, `${word} at ${offset}`).to.equal(undefined);
          expect(bytesToHex(result.returnValue), `${word} at ${offset}`).to.equal(bytesToHex(setLengthLeft(bigIntToBytes(word), 32)));
        }
      }
    });
  });

  describe("a dry run's legacy tx without the constructor (callTx.ts, @ethereumjs/tx 10.1.3)", () => {
    const commons = [Hardfork.Homestead, Hardfork.Berlin, Hardfork.London, Hardfork.Prague, Hardfork.Osaka].map((hardfork) =>
      // A keccak of the Common's own (not the package's default), which the tx must take.
      sharedCommon(new Common({ chain: Mainnet, hardfork, customCrypto: { keccak256: (message: Uint8Array) => keccak_256(message) } }), paramsTx),
    );
    const MAX_UINT64 = 2n ** 64n - 1n;
    const MAX_INTEGER = 2n ** 256n - 1n;
    /** The same values, each field in the same order, and the same answers from the package's methods. */
    function expectSameTx(lean: LegacyTx, built: LegacyTx): void {
      expect(Object.getPrototypeOf(lean)).to.equal(Object.getPrototypeOf(built));
      expect(Object.keys(lean), "fields and their order").to.deep.equal(Object.keys(built));
      const { txOptions: leanOptions, to: leanTo, ...leanFields } = lean as unknown as Record<string, unknown>;
      const { txOptions: builtOptions, to: builtTo, ...builtFields } = built as unknown as Record<string, unknown>;
      expect(leanFields).to.deep.equal(builtFields);
      expect(leanOptions).to.deep.equal(builtOptions);
      expect((leanTo as Address).toString()).to.equal((builtTo as Address).toString());
      for (const capability of [
        Capability.EIP155ReplayProtection,
        Capability.EIP1559FeeMarket,
        Capability.EIP2718TypedTransaction,
        Capability.EIP2930AccessLists,
      ]) {
        expect(lean.supports(capability), `supports ${capability}`).to.equal(built.supports(capability));
      }
      expect(lean.getIntrinsicGas()).to.equal(built.getIntrinsicGas());
      expect(lean.getUpfrontCost()).to.equal(built.getUpfrontCost());
      expect(lean.getEffectivePriorityFee(0n)).to.equal(built.getEffectivePriorityFee(0n));
      expect(lean.toJSON()).to.deep.equal(built.toJSON());
      expect(lean.getMessageToSign()).to.deep.equal(built.getMessageToSign());
      expect(bytesToHex(lean.serialize())).to.equal(bytesToHex(built.serialize()));
      expect(bytesToHex(lean.getHashedMessageToSign())).to.equal(bytesToHex(built.getHashedMessageToSign()));
      expect(lean.isSigned()).to.equal(false);
    }

    it("builds the tx createTx builds, field for field, on every fork and at the bounds", () => {
      const bigint = (max: bigint) => fc.oneof(fc.bigInt({ min: 0n, max }), fc.constantFrom(0n, 1n, max));
      fc.assert(
        fc.property(
          fc.constantFrom(...commons.keys()),
          fc.record({
            nonce: bigint(MAX_UINT64 - 1n),
            gasLimit: fc.oneof(fc.bigInt({ min: 0n, max: 60_000_000n }), fc.constantFrom(2n ** 24n, MAX_UINT64)),
            to: fc.uint8Array({ minLength: 20, maxLength: 20 }),
            value: bigint(MAX_INTEGER),
            data: fc.uint8Array({ maxLength: 100 }),
            gasPrice: fc.oneof(fc.constant(0n), fc.bigInt({ min: 0n, max: 10n ** 12n })),
          }),
          (fork, { to, ...fields }) => {
            const common = commons[fork]!;
            const address = new Address(to);
            const lean = legacyCallTx(common, { ...fields, to: address });
            let built: LegacyTx;
            try {
              built = createTx({ ...fields, to, type: 0 }, { common, freeze: false }) as LegacyTx;
            } catch {
              expect(lean, "the constructor refuses it, so must this").to.equal(undefined);
              return;
            }
            expect(lean, "the constructor builds it, so must this").to.not.equal(undefined);
            expectSameTx(lean!, built);
          },
        ),
        { numRuns: 400 },
      );
    });

    it("leaves to the constructor what it refuses or decides: a nonce at 2^64 − 1, a gas limit past 2^64 − 1 or EIP-7825's cap, a value or fee past 2^256 − 1, a Common of its own", () => {
      const [, , , prague, osaka] = commons as [Common, Common, Common, Common, Common];
      const to = createAddressFromString(`0x${"22".repeat(20)}`);
      const ok = { nonce: 1n, gasLimit: 100_000n, to, value: 0n, data: new Uint8Array(), gasPrice: 0n };
      expect(legacyCallTx(osaka, ok)).to.not.equal(undefined);
      for (const [name, fields, common] of [
        ["nonce 2^64 − 1", { ...ok, nonce: MAX_UINT64 }, prague],
        ["gas limit 2^64", { ...ok, gasLimit: MAX_UINT64 + 1n }, prague],
        ["gas limit past EIP-7825's cap", { ...ok, gasLimit: 2n ** 24n + 1n }, osaka],
        ["value 2^256", { ...ok, value: MAX_INTEGER + 1n }, prague],
        ["gas price 2^256", { ...ok, gasLimit: 0n, gasPrice: MAX_INTEGER + 1n }, prague],
        ["gas price × gas limit past 2^256 − 1", { ...ok, gasPrice: MAX_INTEGER / 50_000n }, prague],
      ] as const) {
        expect(legacyCallTx(common, fields), name).to.equal(undefined);
        expect(() => createTx({ ...fields, to: fields.to.bytes, type: 0 }, { common, freeze: false }), name).to.throw();
      }
      expect(legacyCallTx(prague, { ...ok, gasLimit: 2n ** 24n + 1n }), "no EIP-7825 before Osaka").to.not.equal(undefined);
      // A Common of its own: the constructor would copy it and merge the tx params into the copy.
      expect(legacyCallTx(new Common({ chain: Mainnet, hardfork: Hardfork.Prague }), ok)).to.equal(undefined);
    });

    it("is what eth_call builds for a legacy-shaped call (the calldata not copied), and what it refuses still answers the constructor's error", async () => {
      const vm = await createVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Prague }) });
      const block = createBlock({ header: { gasLimit: 30_000_000n } }, { common: vm.common });
      const data = Uint8Array.of(1, 2, 3);
      const request = { to: `0x${"33".repeat(20)}` as Hex, data };
      // If this fails, the call's tx came from the constructor (it copies the calldata): the lean build saves nothing.
      expect(callTransaction(vm, request, block, 0n, 100_000n).data).to.equal(data);
      expect(callTransaction(vm, { ...request, accessList: [] }, block, 0n, 100_000n).data).to.not.equal(data);

      const { provider } = await createTestChain();
      try {
        // A sender whose nonce is at its maximum (hardhat_setNonce) calls with that nonce.
        const from = `0x${"44".repeat(20)}`;
        await provider.request({ method: "hardhat_setNonce", params: [from, "0xffffffffffffffff"] });
        const refusal = await provider.request({ method: "eth_call", params: [{ from, to: request.to }, "latest"] }).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(refusal).to.include({ code: -32000, message: "nonce has max value" });
      } finally {
        await provider.close();
      }
    });
  });

  describe("a dry run's calldata gas counted once (dataGasCache.ts, @ethereumjs/tx 10.1.3)", () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
    const data = Uint8Array.of(0xa9, 0x05, 0x9c, 0xbb, 0, 0, 1);

    it("an unfrozen legacy tx answers from the cache, the same gas as without it", () => {
      const plain = createLegacyTx({ gasLimit: 100_000n, data }, { common, freeze: false });
      const cached = createLegacyTx({ gasLimit: 100_000n, data }, { common, freeze: false });
      cacheLegacyDataGas(cached);
      expect(cached.getDataGas()).to.equal(plain.getDataGas());
      expect(cached.getIntrinsicGas()).to.equal(plain.getIntrinsicGas());
      // If this fails, the package no longer reads the cache of an unfrozen tx: the patch saves nothing.
      (cached as unknown as { cache: { dataFee: { value: bigint } } }).cache.dataFee.value = 12_345n;
      expect(cached.getDataGas()).to.equal(12_345n);
    });

    it("counts the data gas in numbers as the package's getDataGas does, calls and creations, before and after EIP-3860", () => {
      const commons = [Hardfork.Berlin, Hardfork.Shanghai, Hardfork.Osaka].map((hardfork) => new Common({ chain: Mainnet, hardfork }));
      fc.assert(
        fc.property(
          fc.constantFrom(...commons.keys()),
          fc.uint8Array({ maxLength: 200 }).map((bytes) => bytes.map((byte) => (byte < 128 ? 0 : byte))),
          fc.option(fc.uint8Array({ minLength: 20, maxLength: 20 }), { nil: undefined }),
          (fork, data, to) => {
            const options = { common: commons[fork]!, freeze: false, allowUnlimitedInitCodeSize: true };
            const plain = createLegacyTx({ gasLimit: 10_000_000n, data, to }, options);
            const cached = createLegacyTx({ gasLimit: 10_000_000n, data, to }, options);
            cacheLegacyDataGas(cached);
            expect(cached.getDataGas()).to.equal(plain.getDataGas());
          },
        ),
        { numRuns: 300 },
      );
    });

    it("leaves typed txs alone (their data gas adds the access list to the cached part)", () => {
      const tx = createAccessList2930Tx(
        { gasLimit: 100_000n, data, accessList: [{ address: `0x${"11".repeat(20)}`, storageKeys: [] }] },
        { common, freeze: false },
      );
      const before = tx.getDataGas();
      cacheLegacyDataGas(tx);
      expect((tx as unknown as { cache: { dataFee?: unknown } }).cache.dataFee).to.equal(undefined);
      expect(tx.getDataGas()).to.equal(before);
    });
  });
});
