/**
 * Genesis code (docs/profiles.md "Genesis code"): the OP preinstalls and the system contracts at
 * their addresses with their published bytecode, on every profile that has them, and the per-block
 * system calls that make EIP-4788, EIP-2935, EIP-7002 and EIP-7251 work.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { expect } from "chai";
import {
  concat,
  createPublicClient,
  createWalletClient,
  custom,
  defineChain,
  encodeFunctionData,
  getContractAddress,
  keccak256,
  numberToHex,
  pad,
  parseAbi,
  toHex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { base } from "viem/chains";

import {
  BEACON_ROOTS_ADDRESS,
  CONSOLIDATION_QUEUE_ADDRESS,
  CREATEX_ADDRESS,
  DETERMINISTIC_DEPLOYMENT_PROXY_ADDRESS,
  HISTORY_STORAGE_ADDRESS,
  MULTICALL3_ADDRESS,
  PERMIT2_ADDRESS,
  permit2Code,
  permit2DomainSeparator,
  PREINSTALLS,
  SYSTEM_CONTRACTS,
  WITHDRAWAL_QUEUE_ADDRESS,
} from "../src/node/state/genesisContracts.ts";
import { GENESIS_CODE } from "../src/node/state/genesisCode.ts";
import { OP_PROFILE_NAMES } from "../src/node/profiles/profiles.ts";
import { createTestChain, devChain } from "./helpers/chain.ts";

import type { Hex } from "viem";
import type { PreconfProvider } from "../src/index.ts";
import type { ProfileName } from "../src/node/profiles/profiles.ts";

type Block = { hash: Hex; number: Hex; timestamp: Hex; parentBeaconBlockRoot: Hex; requestsHash?: Hex };

const rpc = (provider: PreconfProvider, method: string, params: unknown[] = []) => provider.request({ method, params }) as Promise<never>;
const code = (provider: PreconfProvider, address: string) => rpc(provider, "eth_getCode", [address, "latest"]) as Promise<Hex>;
const nonceOf = async (provider: PreconfProvider, address: string) =>
  BigInt(await (rpc(provider, "eth_getTransactionCount", [address, "latest"]) as Promise<Hex>));
const block = (provider: PreconfProvider, number: bigint | "latest") =>
  rpc(provider, "eth_getBlockByNumber", [number === "latest" ? number : numberToHex(number), false]) as Promise<Block>;
const word = (value: bigint) => pad(numberToHex(value));

/** A contract whose code returns 42 (initcode: copy the 10-byte runtime to memory and return it). */
const ANSWER_INITCODE = "0x69602a60005260206000f3600052600a6016f3" as Hex;
const ANSWER_RUNTIME = "0x602a60005260206000f3";

async function chainOn(profile: ProfileName, options: { preinstalls?: boolean } = {}) {
  return (await createTestChain({ profile, mining: "manual", ...options })).provider;
}

/** Seals `count` blocks, each with one fragment. */
async function seal(provider: PreconfProvider, count: number): Promise<void> {
  for (let i = 0; i < count; i++) await provider.preconf.seal();
}

describe("genesis code: the published bytecode (src/node/state/genesisCode.ts)", () => {
  it("matches the code hashes its publishers give", () => {
    const hash = (hex: Hex) => keccak256(hex);
    // OP specs specs/protocol/preinstalls.md "CreateX" (and the optimism monorepo's Preinstalls.t.sol).
    expect(hash(GENESIS_CODE.CreateX)).to.equal("0xbd8a7ea8cfca7b4e5f5041d7d4b17bc317c5ce42cfbc42066a00cf26b43eb53f");
    // safe-deployments' codeHash of GnosisSafe and GnosisSafeL2 1.3.0.
    expect(hash(GENESIS_CODE.Safe_v130)).to.equal("0xbba688fbdb21ad2bb58bc320638b43d94e7d100f6f3ebaab0a4e4de6304b1c2e");
    expect(hash(GENESIS_CODE.SafeL2_v130)).to.equal("0x21842597390c4c6e3c1239e434a682b054bd9548eee5e9b1d6a4482731023c0f");
  });

  it("writes the chain id and its EIP-712 domain separator into Permit2's code (the monorepo's test vectors)", () => {
    // packages/contracts-bedrock/test/L2/Preinstalls.t.sol test_getPermit2Code_templating_works.
    expect(toHex(permit2DomainSeparator(1234n))).to.equal("0x6cda538cafce36292a6ef27740629597f85f6716f5694d26d5c59fc1d07cfd95");
    expect(toHex(permit2DomainSeparator(1n))).to.equal("0x866a5aba21966af95d6c7ab78eb2b2fc913915c28be3b9aa07cc04ff903e3f28");
    // The template is Ethereum mainnet's deployment: chain 1 gives it back unchanged.
    expect(permit2Code(1n)).to.equal(GENESIS_CODE.Permit2Template);
    const code1234 = permit2Code(1234n);
    expect(code1234.length).to.equal(GENESIS_CODE.Permit2Template.length);
    expect(`0x${code1234.slice(2 + 6945 * 2, 2 + 6977 * 2)}`).to.equal(word(1234n));
  });

  it("has the system contracts' code of the EIPs' deployment transactions, each guarded by SYSTEM_ADDRESS", () => {
    for (const contract of SYSTEM_CONTRACTS) {
      // caller; push20 0xff…fe; eq: the set/dequeue path is the system's only.
      expect(contract.code(1n).startsWith("0x3373fffffffffffffffffffffffffffffffffffffffe14"), contract.name).to.equal(true);
    }
    expect(
      [GENESIS_CODE.BeaconRoots, GENESIS_CODE.HistoryStorage, GENESIS_CODE.WithdrawalQueue, GENESIS_CODE.ConsolidationQueue].map((hex) => (hex.length - 2) / 2),
    ).to.deep.equal([97, 83, 504, 414]);
  });

  it("places EIP-4788's contract as Hardhat's EDR does on Prague", async function () {
    this.timeout(60_000);
    const { createHardhatRuntimeEnvironment } = await import("hardhat/hre");
    const hre = await createHardhatRuntimeEnvironment({ networks: { edr: { type: "edr-simulated", hardfork: "prague" } } });
    const connection = await hre.network.create("edr");
    const provider = await chainOn("dev");
    try {
      const edrCode = await connection.provider.request({ method: "eth_getCode", params: [BEACON_ROOTS_ADDRESS, "latest"] });
      expect(await code(provider, BEACON_ROOTS_ADDRESS)).to.equal(edrCode);
    } finally {
      await connection.close();
      await provider.close();
    }
  });
});

describe("genesis code: who has what", () => {
  for (const profile of OP_PROFILE_NAMES) {
    it(`${profile}: every preinstall and system contract at its address, nonce 1 (Arachnid's proxy 0)`, async () => {
      const provider = await chainOn(profile);
      try {
        const { chainId } = { chainId: BigInt(await (rpc(provider, "eth_chainId") as Promise<Hex>)) };
        for (const contract of PREINSTALLS) {
          expect(await code(provider, contract.address), contract.name).to.equal(contract.code(chainId));
          expect(await nonceOf(provider, contract.address), contract.name).to.equal(contract.address === DETERMINISTIC_DEPLOYMENT_PROXY_ADDRESS ? 0n : 1n);
        }
        expect(await code(provider, BEACON_ROOTS_ADDRESS)).to.equal(GENESIS_CODE.BeaconRoots);
        expect(await code(provider, HISTORY_STORAGE_ADDRESS)).to.equal(GENESIS_CODE.HistoryStorage);
        // The OP Stack adopts neither request contract (specs/protocol/isthmus/overview.md).
        expect(await code(provider, WITHDRAWAL_QUEUE_ADDRESS)).to.equal("0x");
        expect(await code(provider, CONSOLIDATION_QUEUE_ADDRESS)).to.equal("0x");
        // The EIP-4788 and EIP-2935 deployers at nonce 1 (SetPreinstalls.s.sol).
        expect(await nonceOf(provider, "0x0b799c86a49deeb90402691f1041aa3af2d3c875")).to.equal(1n);
        expect(await nonceOf(provider, "0x3462413af4609098e1e27a490f554f260213d685")).to.equal(1n);
      } finally {
        await provider.close();
      }
    });
  }

  it("debug_traceTransaction replays a tx after its block's system writes: EIP-2935's get(parent) answers the parent's hash", async () => {
    const provider = await chainOn("dev");
    await seal(provider, 2);
    const parent = (await block(provider, "latest")) as Block;
    // Runtime: mem[0] := parent's number; STATICCALL the history contract (32 bytes in, 32 out); RETURN them.
    const history = HISTORY_STORAGE_ADDRESS.slice(2).toLowerCase();
    const reader = `0x60${parent.number.slice(2).padStart(2, "0")}5f5260205f60205f73${history}5afa5060205ff3` as Hex;
    const READER = "0x00000000000000000000000000000000000002d5";
    await rpc(provider, "hardhat_setCode", [READER, reader]);
    const from = provider.accounts[0]!.address;
    const hash = (await rpc(provider, "eth_sendTransaction", [{ from, to: READER, gas: "0x186a0" }])) as Hex;
    await seal(provider, 1);
    const trace = (await rpc(provider, "debug_traceTransaction", [hash])) as { failed: boolean; returnValue: Hex };
    expect(trace.failed).to.equal(false);
    expect(trace.returnValue).to.equal(parent.hash);
    await provider.close();
  });

  it("dev: the four Prague system contracts at nonce 1, no preinstalls (as Hardhat and anvil)", async () => {
    const provider = await chainOn("dev");
    try {
      for (const contract of SYSTEM_CONTRACTS) {
        expect(await code(provider, contract.address), contract.name).to.equal(contract.code(31337n));
        expect(await nonceOf(provider, contract.address), contract.name).to.equal(1n);
      }
      for (const contract of PREINSTALLS) expect(await code(provider, contract.address), contract.name).to.equal("0x");
    } finally {
      await provider.close();
    }
  });

  it("dev on Shanghai has none of them; on Cancun only EIP-4788's", async () => {
    for (const [hardfork, present] of [
      ["shanghai", []],
      ["cancun", [BEACON_ROOTS_ADDRESS]],
    ] as const) {
      const provider = (await createTestChain({ hardfork })).provider;
      try {
        for (const contract of SYSTEM_CONTRACTS) {
          expect(await code(provider, contract.address), `${hardfork} ${contract.name}`).to.equal(
            (present as readonly string[]).includes(contract.address) ? contract.code(31337n) : "0x",
          );
        }
      } finally {
        await provider.close();
      }
    }
  });

  it("dev with `preinstalls: true`: the preinstalls too, Permit2's domain separator on chain 31337", async () => {
    const provider = await chainOn("dev", { preinstalls: true });
    try {
      for (const contract of PREINSTALLS) expect(await code(provider, contract.address), contract.name).to.equal(contract.code(31337n));
      const separator = await rpc(provider, "eth_call", [{ to: PERMIT2_ADDRESS, data: "0x3644e515" }, "latest"]);
      expect(separator).to.equal(toHex(permit2DomainSeparator(31337n)));
    } finally {
      await provider.close();
    }
  });

  it("`preinstalls` must be a boolean", async () => {
    let failure: unknown;
    await createTestChain({ preinstalls: "yes" as unknown as boolean }).catch((error: unknown) => {
      failure = error;
    });
    expect(failure).to.include({ message: "Invalid hardhat-preconf option preinstalls: Expected boolean, received string" });
  });
});

describe("genesis code: the per-block system calls", () => {
  for (const profile of ["dev", "base"] as const) {
    it(`${profile}: EIP-2935's contract answers get(n) with block n's hash; EIP-4788's the header's beacon root`, async () => {
      const provider = await chainOn(profile);
      try {
        await seal(provider, 4);
        const latest = await block(provider, "latest");
        const history = (n: bigint) => rpc(provider, "eth_call", [{ to: HISTORY_STORAGE_ADDRESS, data: word(n) }, "latest"]) as Promise<Hex>;
        for (const n of [0n, 1n, 2n, 3n]) expect(await history(n), `get(${n})`).to.equal((await block(provider, n)).hash);
        // The newest block's own hash is written by its child: asking for it reverts (EIP-2935's range check).
        let error: unknown;
        await history(BigInt(latest.number)).catch((failure: unknown) => {
          error = failure;
        });
        expect(error).to.include({ code: 3, message: "execution reverted" });
        const beacon = (timestamp: Hex) => rpc(provider, "eth_call", [{ to: BEACON_ROOTS_ADDRESS, data: pad(timestamp) }, "latest"]) as Promise<Hex>;
        expect(await beacon(latest.timestamp)).to.equal(latest.parentBeaconBlockRoot);
        if (profile === "dev") {
          // geth --dev's and anvil's: a zero beacon root.
          expect(latest.parentBeaconBlockRoot).to.equal(pad("0x0"));
        } else {
          // The L1 origin's (specs/protocol/exec-engine.md): a stand-in root per simulated L1 block, never zero.
          expect(latest.parentBeaconBlockRoot).to.not.equal(pad("0x0"));
        }
      } finally {
        await provider.close();
      }
    });
  }

  it("dev: a withdrawal request (EIP-7002) is dequeued at the end of its block into the header's requestsHash", async () => {
    const provider = await chainOn("dev");
    try {
      const empty = (await block(provider, 0n)).requestsHash;
      expect(empty).to.equal("0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
      const fee = BigInt(await (rpc(provider, "eth_call", [{ to: WITHDRAWAL_QUEUE_ADDRESS, data: "0x" }, "latest"]) as Promise<Hex>));
      expect(fee).to.equal(1n); // MIN_WITHDRAWAL_REQUEST_FEE with no excess
      const account = privateKeyToAccount(provider.accounts[0]!.privateKey);
      const wallet = createWalletClient({ account, transport: custom(provider), chain: devChain });
      const pubkey = `0x${"ab".repeat(48)}` as Hex;
      const amount = 0x0102030405060708n;
      await wallet.sendTransaction({ to: WITHDRAWAL_QUEUE_ADDRESS, data: concat([pubkey, numberToHex(amount, { size: 8 })]), value: fee, gas: 200_000n });
      await provider.preconf.seal();
      const sealed = await block(provider, "latest");
      // EIP-7002: source address, pubkey, amount as little-endian uint64; EIP-7685: sha256(sha256(type ‖ data)).
      const amountLe = toHex(Buffer.from(numberToHex(amount, { size: 8 }).slice(2), "hex").reverse());
      const request = concat(["0x01", account.address.toLowerCase() as Hex, pubkey, amountLe]);
      expect(sealed.requestsHash).to.equal(toHex(sha256(sha256(Buffer.from(request.slice(2), "hex")))));
      // The queue is empty again and the count reset: the next block has no request.
      await provider.preconf.seal();
      expect((await block(provider, "latest")).requestsHash).to.equal(empty);
      expect(await rpc(provider, "eth_getStorageAt", [WITHDRAWAL_QUEUE_ADDRESS, "0x1", "latest"])).to.equal(pad("0x0"));
    } finally {
      await provider.close();
    }
  });

  it("dev: a queue known idle is called again after a dev edit writes to it, and after a snapshot revert brings its count back", async () => {
    const provider = await chainOn("dev");
    const count = () => rpc(provider, "eth_getStorageAt", [WITHDRAWAL_QUEUE_ADDRESS, "0x1", "latest"]) as Promise<Hex>;
    try {
      // Empty blocks: the queue is idle and not called.
      await seal(provider, 2);
      const snapshot = await rpc(provider, "evm_snapshot");
      // A count of 1 and no queued request: the end-of-block call resets the count (EIP-7002) and returns nothing.
      await rpc(provider, "hardhat_setStorageAt", [WITHDRAWAL_QUEUE_ADDRESS, "0x1", word(1n)]);
      await seal(provider, 1);
      expect(await count()).to.equal(word(0n));
      await seal(provider, 1);
      await rpc(provider, "evm_revert", [snapshot]);
      await rpc(provider, "hardhat_setStorageAt", [WITHDRAWAL_QUEUE_ADDRESS, "0x1", word(1n)]);
      const revertedTo = await rpc(provider, "evm_snapshot");
      await seal(provider, 2);
      expect(await count()).to.equal(word(0n));
      // Back to a state whose count is 1 while the queue was last seen idle: the next block calls it.
      await rpc(provider, "evm_revert", [revertedTo]);
      expect(await count()).to.equal(word(1n));
      await seal(provider, 1);
      expect(await count()).to.equal(word(0n));
    } finally {
      await provider.close();
    }
  });
});

describe("genesis code through clients", () => {
  it("viem multicall on `base` (viem lists Multicall3 for chain 8453)", async () => {
    const provider = await chainOn("base");
    try {
      const client = createPublicClient({ chain: base, transport: custom(provider) });
      const abi = parseAbi(["function getChainId() view returns (uint256)", "function getBasefee() view returns (uint256)"]);
      const [chainId, baseFee] = await client.multicall({
        contracts: [
          { address: MULTICALL3_ADDRESS, abi, functionName: "getChainId" },
          { address: MULTICALL3_ADDRESS, abi, functionName: "getBasefee" },
        ],
        allowFailure: false,
      });
      expect(chainId).to.equal(8453n);
      expect(baseFee).to.be.a("bigint");
    } finally {
      await provider.close();
    }
  });

  it("viem multicall on dev with `preinstalls: true` (a chain that names Multicall3)", async () => {
    const provider = await chainOn("dev", { preinstalls: true });
    try {
      const chain = defineChain({ ...base, id: 31337, contracts: { multicall3: { address: MULTICALL3_ADDRESS } } });
      const client = createPublicClient({ chain, transport: custom(provider) });
      const abi = parseAbi(["function getChainId() view returns (uint256)"]);
      const [chainId] = await client.multicall({ contracts: [{ address: MULTICALL3_ADDRESS, abi, functionName: "getChainId" }], allowFailure: false });
      expect(chainId).to.equal(31337n);
    } finally {
      await provider.close();
    }
  });

  it("deploys through CreateX (CREATE) and through Arachnid's proxy (CREATE2) on `base`", async () => {
    const provider = await chainOn("base");
    try {
      const account = privateKeyToAccount(provider.accounts[0]!.privateKey);
      const wallet = createWalletClient({ account, chain: base, transport: custom(provider) });
      const createx = encodeFunctionData({ abi: parseAbi(["function deployCreate(bytes initCode) payable returns (address)"]), args: [ANSWER_INITCODE] });
      await wallet.sendTransaction({ to: CREATEX_ADDRESS, data: createx, gas: 500_000n });
      // Base's pending nonce leaves the pool out: the first tx is sealed before the second is sent.
      await provider.preconf.seal();
      const salt = pad("0x1234");
      await wallet.sendTransaction({ to: DETERMINISTIC_DEPLOYMENT_PROXY_ADDRESS, data: concat([salt, ANSWER_INITCODE]), gas: 500_000n });
      await provider.preconf.seal();
      // CreateX's first CREATE is at its nonce 1 (the preinstall's).
      expect(await code(provider, getContractAddress({ from: CREATEX_ADDRESS, nonce: 1n }))).to.equal(ANSWER_RUNTIME);
      const create2 = getContractAddress({ opcode: "CREATE2", from: DETERMINISTIC_DEPLOYMENT_PROXY_ADDRESS, salt, bytecode: ANSWER_INITCODE });
      expect(await code(provider, create2)).to.equal(ANSWER_RUNTIME);
    } finally {
      await provider.close();
    }
  });

  it("Permit2's DOMAIN_SEPARATOR() names the chain it is on", async () => {
    const provider = await chainOn("base");
    try {
      expect(await rpc(provider, "eth_call", [{ to: PERMIT2_ADDRESS, data: "0x3644e515" }, "latest"])).to.equal(toHex(permit2DomainSeparator(8453n)));
    } finally {
      await provider.close();
    }
  });
});
