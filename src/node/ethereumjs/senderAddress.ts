/**
 * A signed tx's sender address computed once per tx, with the chain's keccak. @ethereumjs/tx
 * 10.1.3 caches a frozen tx's sender public key (`cache.senderPubKey`) but derives the address
 * from it on every `getSenderAddress()` (capabilities/legacy.js → @ethereumjs/util
 * `pubToAddress`, which hashes with @noble/hashes' pure-JS keccak: ~20 µs), and each tx asks at
 * least twice, at admission and in runTx: ~10 % of W1's CPU.
 *
 * Patch (@ethereumjs/tx 10.1.3, `getSenderAddress` of LegacyTx, AccessList2930Tx,
 * FeeMarket1559Tx, Blob4844Tx and EOACode7702Tx prototypes): the address is the last 20 bytes of
 * keccak256 of the 64-byte public key (`tx.getSenderPublicKey()`, recovery and its errors
 * unchanged), hashed with the tx Common's keccak (WebAssembly of our own: common/keccak.ts)
 * and, for a frozen tx, kept by tx: a frozen tx's fields and signature cannot change, and ethereumjs
 * caches its public key on the same condition. Each call gets an `Address` of its own, as before.
 * A key of another length goes to the package's method, which throws its own error. Txs whose
 * sender is asserted (assertedSender.ts) carry their own `getSenderAddress` and are not affected.
 * test/ethereumjs.test.ts fails if a tx class stops answering through this method, or answers
 * another address than the package's.
 */
import { AccessList2930Tx, Blob4844Tx, EOACode7702Tx, FeeMarket1559Tx, LegacyTx } from "@ethereumjs/tx";
import { Address } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";

import type { TypedTransaction } from "@ethereumjs/tx";

const TX_CLASSES = [LegacyTx, AccessList2930Tx, FeeMarket1559Tx, Blob4844Tx, EOACode7702Tx];

/** The sender address bytes of each frozen tx that was asked for it. */
const senders = new WeakMap<TypedTransaction, Uint8Array>();

let installed = false;

export function installSenderAddresses(): void {
  if (installed) return;
  installed = true;
  for (const TxClass of TX_CLASSES) {
    const prototype = TxClass.prototype as unknown as { getSenderAddress(this: TypedTransaction): Address };
    const original = prototype.getSenderAddress;
    prototype.getSenderAddress = function getSenderAddress(this: TypedTransaction): Address {
      let sender = senders.get(this);
      if (sender === undefined) {
        const publicKey = this.getSenderPublicKey();
        if (publicKey.length !== 64) return original.call(this);
        sender = (this.common.customCrypto.keccak256 ?? keccak_256)(publicKey).slice(-20);
        if (Object.isFrozen(this)) senders.set(this, sender);
      }
      return new Address(sender.slice());
    };
  }
}

/** Whether `tx`'s sender address is kept (for tests). */
export function senderAddressKept(tx: TypedTransaction): boolean {
  return senders.has(tx);
}
