/**
 * What the chain's state is built on in @ethereumjs 10.1.3: the account trie of the live state
 * (liveState.ts), accounts encoded as the package encodes them, and the patch a fork's
 * MerkleStateManager carries. Each is checked by test/engineInternals.test.ts or
 * test/ethereumjs.test.ts, which fail if an upgrade changes what it relies on.
 */
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { bytesToUnprefixedHex, MapDB, ValueEncoding } from "@ethereumjs/util";

import { merkleInternals } from "./internals.ts";
import { NodeStoreMap } from "./nodeStore.ts";
import { encodeNode } from "./trieNodeEncoding.ts";

import type { Common } from "@ethereumjs/common";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import type { Account, Address } from "@ethereumjs/util";

/**
 * The live state's account trie (liveState.ts), as MerkleStateManager would build it
 * (`useKeyHashing`, the chain's keccak), with its nodes kept as bytes. Its default already keeps the account trie's nodes as bytes, but it passes
 * no `valueEncoding` on to `shallowCopy`, whose copies (every storage trie, every state view) get
 * @ethereumjs/mpt 10.1.3's default for a trie given a database: hex strings (mpt.js constructor).
 * Each storage-trie node read then decodes hex and each write encodes it, the larger part of a
 * storage write's cost; with `valueEncoding` in the trie's options, every copy inherits bytes. The
 * database's map is a NodeStoreMap, which tells pruning what was written since its last pass.
 */
export function bytesTrie(common: Common): MerklePatriciaTrie {
  return new MerklePatriciaTrie({
    useKeyHashing: true,
    common,
    db: new MapDB<string, Uint8Array>(new NodeStoreMap() as Map<string, Uint8Array>),
    valueEncoding: ValueEncoding.Bytes,
  });
}

/**
 * Patch (@ethereumjs/statemanager 10.1.3, `deleteAccount`): the package keeps a storage trie per
 * account in `_storageTries` and `deleteAccount` leaves it there, so an account deleted (EIP-161
 * touch, SELFDESTRUCT before Cancun) and created again would read its old storage, and the next
 * state root would include it. Dropping the trie makes the account's storage read from its (empty)
 * storage root again. A fork's state (fork/forkState.ts) applies it.
 */
export function dropStorageTrie(stateManager: MerkleStateManager, address: Address): void {
  const internals = merkleInternals(stateManager);
  // Keyed as _getStorageTrie keys it: the unprefixed hex of keccak(address).
  delete internals._storageTries[bytesToUnprefixedHex(internals.keccakFunction(address.bytes))];
}

/**
 * `account.serialize()` byte for byte (@ethereumjs/util 10.1.3 account.js: `RLP.encode` of nonce
 * and balance as unpadded big-endian bytes, storage root, code hash), in one pass: the package
 * turns each bigint into bytes through a hex string, `hexToBytes` and its regex check, then
 * `RLP.encode` builds an array per item. Every account written is encoded so at each root the live
 * state writes (sender, fee recipient, callee, system contracts: ~3 % of W5's CPU in `serialize`). The account's fields
 * are valid (the Account constructor checks them). test/engineInternals.test.ts compares the two.
 */
export function accountRLP(account: Account): Uint8Array {
  return encodeNode([unpaddedBytes(account.nonce), unpaddedBytes(account.balance), account.storageRoot, account.codeHash]);
}

/** A non-negative bigint as big-endian bytes without leading zeros (0: no bytes), as util's `bigIntToUnpaddedBytes`. */
function unpaddedBytes(value: bigint): Uint8Array {
  if (value === 0n) return new Uint8Array(0);
  if (value <= 0xffffffffn) {
    const number = Number(value);
    const length = number > 0xffffff ? 4 : number > 0xffff ? 3 : number > 0xff ? 2 : 1;
    const bytes = new Uint8Array(length);
    for (let i = length - 1, rest = number; i >= 0; i--, rest = Math.floor(rest / 256)) bytes[i] = rest & 0xff;
    return bytes;
  }
  const hex = value.toString(16);
  const bytes = Buffer.from(hex.length % 2 === 0 ? hex : `0${hex}`, "hex");
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
}
