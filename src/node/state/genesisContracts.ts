/**
 * The contracts a chain holds at genesis besides its accounts and predeploys (docs/profiles.md
 * "Genesis code"): the OP preinstalls, and the system contracts whose per-block calls the forks
 * define (systemCalls.ts). Addresses and nonces are here; the bytecode is data in genesisCode.ts.
 */
import { bigIntToBytes, bytesToHex, concatBytes, hexToBytes, setLengthLeft, utf8ToBytes } from "@ethereumjs/util";

import { keccak256 } from "../common/crypto.ts";
import { GENESIS_CODE } from "./genesisCode.ts";
import { SUPPORTED_HARDFORKS } from "./genesis.ts";

import type { GenesisAccount, SupportedHardfork } from "./genesis.ts";
import type { Hex } from "../common/types.ts";

/** The caller of every system call (EIP-4788, EIP-2935, EIP-7002, EIP-7251). */
export const SYSTEM_ADDRESS = "0xfffffffffffffffffffffffffffffffffffffffe" as Hex;
/** EIP-4788's BEACON_ROOTS_ADDRESS (Cancun; OP Ecotone). */
export const BEACON_ROOTS_ADDRESS = "0x000f3df6d732807ef1319fb7b8bb8522d0beac02" as Hex;
/** EIP-2935's HISTORY_STORAGE_ADDRESS (Prague; OP Isthmus). */
export const HISTORY_STORAGE_ADDRESS = "0x0000f90827f1c53a10cb7a02335b175320002935" as Hex;
/** EIP-7002's WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS (Prague on L1; the OP Stack does not adopt it, specs/protocol/isthmus/overview.md). */
export const WITHDRAWAL_QUEUE_ADDRESS = "0x00000961ef480eb55e80d19ad83579a64c007002" as Hex;
/** EIP-7251's CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS (Prague on L1; not on the OP Stack either). */
export const CONSOLIDATION_QUEUE_ADDRESS = "0x0000bbddc7ce488642fb579f8b00f3a590007251" as Hex;

/** Permit2's address; its code embeds the chain id and EIP-712 domain separator (`permit2Code`). */
export const PERMIT2_ADDRESS = "0x000000000022d473030f116ddee9f6b43ac78ba3" as Hex;
export const MULTICALL3_ADDRESS = "0xca11bde05977b3631167028862be2a173976ca11" as Hex;
export const CREATEX_ADDRESS = "0xba5ed099633d3b313e4d5f7bdc1305d3c28ba5ed" as Hex;
/** Arachnid's deterministic deployment proxy: CREATE2 of calldata[32:] with salt calldata[0:32]. */
export const DETERMINISTIC_DEPLOYMENT_PROXY_ADDRESS = "0x4e59b44847b379578588920ca78fbf26c0b4956c" as Hex;

export interface GenesisContract {
  name: string;
  address: Hex;
  /** The nonce the account starts with. */
  nonce: bigint;
  code(chainId: bigint): Hex;
}

const fixed =
  (code: Hex) =>
  (_chainId: bigint): Hex =>
    code;

/**
 * The OP preinstalls (specs/protocol/preinstalls.md; the optimism monorepo's
 * contracts-bedrock/scripts/SetPreinstalls.s.sol): each at nonce 1, "reflecting regular user
 * execution", but Arachnid's proxy, left at 0 as the monorepo's own test asserts
 * (test/L2/Preinstalls.t.sol). EIP-4788's and EIP-2935's contracts are preinstalls there too; here
 * they are system contracts (below), installed wherever the EVM fork has them.
 */
export const PREINSTALLS: readonly GenesisContract[] = [
  { name: "Safe 1.3.0", address: "0x69f4d1788e39c87893c980c06edf4b7f686e2938", nonce: 1n, code: fixed(GENESIS_CODE.Safe_v130) },
  { name: "SafeL2 1.3.0", address: "0xfb1bffc9d739b8d520daf37df666da4c687191ea", nonce: 1n, code: fixed(GENESIS_CODE.SafeL2_v130) },
  { name: "MultiSend 1.3.0", address: "0x998739bfdaadde7c933b942a68053933098f9eda", nonce: 1n, code: fixed(GENESIS_CODE.MultiSend_v130) },
  {
    name: "MultiSendCallOnly 1.3.0",
    address: "0xa1dabef33b3b82c7814b6d82a79e50f4ac44102b",
    nonce: 1n,
    code: fixed(GENESIS_CODE.MultiSendCallOnly_v130),
  },
  { name: "SafeSingletonFactory", address: "0x914d7fec6aac8cd542e72bca78b30650d45643d7", nonce: 1n, code: fixed(GENESIS_CODE.SafeSingletonFactory) },
  { name: "Multicall3", address: MULTICALL3_ADDRESS, nonce: 1n, code: fixed(GENESIS_CODE.Multicall3) },
  { name: "Create2Deployer", address: "0x13b0d85ccb8bf860b6b79af3029fca081ae9bef2", nonce: 1n, code: fixed(GENESIS_CODE.Create2Deployer) },
  { name: "CreateX", address: CREATEX_ADDRESS, nonce: 1n, code: fixed(GENESIS_CODE.CreateX) },
  {
    name: "Arachnid's deterministic deployment proxy",
    address: DETERMINISTIC_DEPLOYMENT_PROXY_ADDRESS,
    nonce: 0n,
    code: fixed(GENESIS_CODE.DeterministicDeploymentProxy),
  },
  { name: "Permit2", address: PERMIT2_ADDRESS, nonce: 1n, code: (chainId) => permit2Code(chainId) },
  { name: "ERC-4337 EntryPoint v0.6.0", address: "0x5ff137d4b0fdcd49dca30c7cf57e578a026d2789", nonce: 1n, code: fixed(GENESIS_CODE.EntryPoint_v060) },
  { name: "ERC-4337 SenderCreator v0.6.0", address: "0x7fc98430eaedbb6070b35b39d798725049088348", nonce: 1n, code: fixed(GENESIS_CODE.SenderCreator_v060) },
  { name: "ERC-4337 EntryPoint v0.7.0", address: "0x0000000071727de22e5e9d8baf0edac6f37da032", nonce: 1n, code: fixed(GENESIS_CODE.EntryPoint_v070) },
  { name: "ERC-4337 SenderCreator v0.7.0", address: "0xefc2c1444ebcc4db75e7613d20c6a62ff67a167c", nonce: 1n, code: fixed(GENESIS_CODE.SenderCreator_v070) },
];

/** A system contract and the first fork whose blocks call it. */
export interface SystemContract extends GenesisContract {
  since: SupportedHardfork;
  /** An EIP-7685 request contract: an L1 chain calls it at the end of each block; OP chains have none. */
  requests: boolean;
}

/**
 * Each at nonce 1, as EIP-4788 and EIP-2935 ("the account will have code and a nonce of 1")
 * deploy them and go-ethereum's developer genesis (core/genesis.go) places all four.
 */
export const SYSTEM_CONTRACTS: readonly SystemContract[] = [
  { name: "EIP-4788 beacon roots", address: BEACON_ROOTS_ADDRESS, nonce: 1n, since: "cancun", requests: false, code: fixed(GENESIS_CODE.BeaconRoots) },
  { name: "EIP-2935 block hashes", address: HISTORY_STORAGE_ADDRESS, nonce: 1n, since: "prague", requests: false, code: fixed(GENESIS_CODE.HistoryStorage) },
  {
    name: "EIP-7002 withdrawal requests",
    address: WITHDRAWAL_QUEUE_ADDRESS,
    nonce: 1n,
    since: "prague",
    requests: true,
    code: fixed(GENESIS_CODE.WithdrawalQueue),
  },
  {
    name: "EIP-7251 consolidation requests",
    address: CONSOLIDATION_QUEUE_ADDRESS,
    nonce: 1n,
    since: "prague",
    requests: true,
    code: fixed(GENESIS_CODE.ConsolidationQueue),
  },
];

/**
 * The senders of EIP-4788's and EIP-2935's deployment transactions, at nonce 1 on OP chains so
 * that the upgrade transaction deploying the contract cannot collide with the copy in the genesis
 * (SetPreinstalls.s.sol bumps both).
 */
const OP_SYSTEM_DEPLOYERS: readonly { address: Hex; since: SupportedHardfork }[] = [
  { address: "0x0b799c86a49deeb90402691f1041aa3af2d3c875", since: "cancun" },
  { address: "0x3462413af4609098e1e27a490f554f260213d685", since: "prague" },
];

/** What a new chain's genesis holds: which fork it runs up to, and on which stack. */
export interface GenesisCodeParams {
  chainId: bigint;
  /** The newest EVM fork the chain runs (or schedules): system contracts up to it are placed. */
  hardfork: SupportedHardfork;
  /** An OP Stack chain: no EIP-7685 request contracts, and the deployers' nonces bumped. */
  opStack: boolean;
  /** Whether the OP preinstalls are placed. */
  preinstalls: boolean;
}

const reached = (hardfork: SupportedHardfork, since: SupportedHardfork) => SUPPORTED_HARDFORKS.indexOf(hardfork) >= SUPPORTED_HARDFORKS.indexOf(since);

/** The system contracts a chain of `params` has. */
export function systemContractsOf(params: Pick<GenesisCodeParams, "hardfork" | "opStack">): SystemContract[] {
  return SYSTEM_CONTRACTS.filter((contract) => reached(params.hardfork, contract.since) && !(params.opStack && contract.requests));
}

/** The genesis accounts of `params`' genesis code (no balance). */
export function genesisCodeAlloc(params: GenesisCodeParams): Map<Hex, GenesisAccount> {
  const alloc = new Map<Hex, GenesisAccount>();
  const contracts = [...systemContractsOf(params), ...(params.preinstalls ? PREINSTALLS : [])];
  for (const contract of contracts) alloc.set(contract.address, { balance: 0n, nonce: contract.nonce, code: contract.code(params.chainId) });
  if (params.opStack) {
    for (const deployer of OP_SYSTEM_DEPLOYERS) if (reached(params.hardfork, deployer.since)) alloc.set(deployer.address, { balance: 0n, nonce: 1n });
  }
  return alloc;
}

/**
 * Byte offsets of Permit2's immutables `_CACHED_CHAIN_ID` and `_CACHED_DOMAIN_SEPARATOR` in its
 * runtime code (Preinstalls.sol getPermit2Code, which the genesis of every OP chain goes through).
 */
const PERMIT2_CHAIN_ID_OFFSET = 6945;
const PERMIT2_DOMAIN_SEPARATOR_OFFSET = 6983;

/** Permit2's EIP-712 domain separator on `chainId`: keccak256(abi.encode(typeHash, keccak256("Permit2"), chainId, address)). */
export function permit2DomainSeparator(chainId: bigint): Uint8Array {
  const typeHash = keccak256(utf8ToBytes("EIP712Domain(string name,uint256 chainId,address verifyingContract)"));
  const word = (value: bigint) => setLengthLeft(bigIntToBytes(value), 32);
  return keccak256(concatBytes(typeHash, keccak256(utf8ToBytes("Permit2")), word(chainId), setLengthLeft(hexToBytes(PERMIT2_ADDRESS), 32)));
}

/**
 * Permit2's code for `chainId`: the template (Ethereum mainnet's deployment, chain 1) with the
 * chain id and domain separator its constructor would have computed written over its immutables,
 * as the OP Stack's genesis does (Preinstalls.sol getPermit2Code).
 */
export function permit2Code(chainId: bigint): Hex {
  const code = hexToBytes(GENESIS_CODE.Permit2Template);
  code.set(setLengthLeft(bigIntToBytes(chainId), 32), PERMIT2_CHAIN_ID_OFFSET);
  code.set(permit2DomainSeparator(chainId), PERMIT2_DOMAIN_SEPARATOR_OFFSET);
  return bytesToHex(code);
}
