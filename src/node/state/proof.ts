/**
 * EIP-1186 proofs (eth_getProof): an account's path in the state trie and each storage slot's
 * path in the account's storage trie, as the RLP of their nodes, read from the state a VM holds at
 * a block. `proveAccount` is the one function that knows how the state is stored: a state layer
 * that stores it otherwise replaces this module, not its callers.
 */
import { createMerkleProof } from "@ethereumjs/mpt";
import { bytesToBigInt, bytesToHex, createAddressFromString, equalsBytes, KECCAK256_NULL, KECCAK256_RLP } from "@ethereumjs/util";

import { merkleInternals } from "../ethereumjs/internals.ts";
import { isLiveState } from "./liveState.ts";
import { ViewStateManager } from "./viewState.ts";

import type { StateManagerInterface } from "@ethereumjs/common";
import type { MerklePatriciaTrie } from "@ethereumjs/mpt";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import type { Account, Address } from "@ethereumjs/util";
import type { Hex } from "../common/types.ts";

export interface StorageProof {
  /** The slot, 32 bytes. */
  slot: Uint8Array;
  value: bigint;
  /** Empty when the account has no storage (go-ethereum's answer: no trie to walk). */
  proof: Hex[];
}

export interface AccountProof {
  address: Hex;
  accountProof: Hex[];
  balance: bigint;
  codeHash: Hex;
  nonce: bigint;
  storageHash: Hex;
  storageProof: StorageProof[];
}

const EMPTY_CODE_HASH = bytesToHex(KECCAK256_NULL);
const EMPTY_STORAGE_ROOT = bytesToHex(KECCAK256_RLP);

/**
 * The proof of `address` and its `slots` (32 bytes each) in `stateManager`'s state. An account
 * that does not exist is proven absent and reported as an empty one: keccak256 of no code and the
 * empty trie's root, as Hardhat (EDR), anvil and reth answer (go-ethereum reports zero hashes).
 */
export async function proveAccount(stateManager: StateManagerInterface, address: Hex, slots: readonly Uint8Array[]): Promise<AccountProof> {
  const tries = await triesOf(stateManager);
  const where = createAddressFromString(address);
  const account = await stateManager.getAccount(where);
  const accountProof = (await createMerkleProof(tries.account, where.bytes)).map((node) => bytesToHex(node));
  const storageProof: StorageProof[] = [];
  const hasStorage = account !== undefined && !equalsBytes(account.storageRoot, KECCAK256_RLP);
  for (const slot of slots) {
    if (!hasStorage) {
      storageProof.push({ slot, value: 0n, proof: [] });
      continue;
    }
    const trie = tries.storage(where, account);
    const proof = (await createMerkleProof(trie, slot)).map((node) => bytesToHex(node));
    storageProof.push({ slot, value: bytesToBigInt(await stateManager.getStorage(where, slot)), proof });
  }
  return {
    address,
    accountProof,
    balance: account?.balance ?? 0n,
    codeHash: account === undefined ? EMPTY_CODE_HASH : bytesToHex(account.codeHash),
    nonce: account?.nonce ?? 0n,
    storageHash: account === undefined ? EMPTY_STORAGE_ROOT : bytesToHex(account.storageRoot),
    storageProof,
  };
}

/** The tries a proof walks: the state's account trie, and a copy of an account's storage trie at its storage root. */
interface StateTries {
  account: MerklePatriciaTrie;
  storage(where: Address, account: Account): MerklePatriciaTrie;
}

async function triesOf(stateManager: StateManagerInterface): Promise<StateTries> {
  // A view's state (viewState.ts) proves its block's tries (a proof never runs inside a dry run);
  // the live state's (liveState.ts) are its last root's once its writes are in.
  if (stateManager instanceof ViewStateManager) {
    if (isLiveState(stateManager)) await stateManager.getStateRoot();
    return { account: stateManager.baseTries(), storage: (_where, account) => stateManager.baseTries(account.storageRoot) };
  }
  // A fork's state: cached writes reach the trie first.
  const merkle = stateManager as MerkleStateManager;
  const internals = merkleInternals(merkle);
  await merkle.flush();
  return {
    account: internals._trie,
    storage: (where, account) => {
      // A copy at the account's storage root: the proof walks exactly the state read here.
      const trie = internals._getStorageTrie(where, account).shallowCopy(false);
      trie.root(account.storageRoot);
      return trie;
    },
  };
}
