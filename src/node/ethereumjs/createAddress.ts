/**
 * Patch (@ethereumjs/evm 10.1.3, `EVM.prototype._generateAddress`): the address a CREATE or CREATE2
 * gives its contract, hashed with the EVM's Common's keccak (the chain's: WebAssembly,
 * common/keccak.ts) where the package calls @ethereumjs/util's `generateAddress` and
 * `generateAddress2`, which hash with noble's JavaScript keccak directly rather than through
 * `customCrypto` (util account.js): ~1 % of a test file's instructions, a deploy per test
 * (`npx tsx bench/instructions.ts testfile`). A create inside a call still has its address hashed
 * with noble once more by the interpreter (interpreter.js `create` computes it for EIP-8038's warm
 * address whether that EIP is active or not, a call into util no patch reaches): only the EVM's
 * own derivation, a create tx's and each create's in `_executeCreate`, is hashed here.
 *
 * The addresses are the Yellow Paper's (section 7, eq. 85–86) and EIP-1014's, as util computes them:
 * - CREATE: the last 20 bytes of keccak256(rlp([sender, nonce])), the nonce the sender had before
 *   this create (the package reads the account, its nonce already incremented, minus one), zero
 *   encoded as the empty string;
 * - CREATE2: the last 20 bytes of keccak256(0xff ++ sender ++ salt ++ keccak256(init_code)).
 * A Common without a keccak of its own, or a salt that is not 32 bytes (util's error), takes the
 * package's path. test/engineInternals.test.ts compares the two on random senders, nonces, salts
 * and codes.
 */
import { EVM } from "@ethereumjs/evm";
import { RLP } from "@ethereumjs/rlp";
import { Account, Address, bigIntToBytes } from "@ethereumjs/util";

/** What `_generateAddress` reads of a message (evm.js 10.1.3). */
interface CreateMessage {
  caller: Address;
  salt?: Uint8Array;
  code?: Uint8Array;
}

interface AddressGenerator {
  _generateAddress(message: CreateMessage): Promise<Address>;
}

const EMPTY = new Uint8Array(0);
const CREATE2_PREFIX = 0xff;

let installed = false;

/** Installs the patch on the package's EVM (the ES module build the chain runs on), once per process. */
export function installCreateAddress(): void {
  if (installed) return;
  const proto = EVM.prototype as unknown as AddressGenerator;
  if (typeof proto._generateAddress !== "function") {
    throw new Error("@ethereumjs/evm: EVM._generateAddress is gone; update src/node/ethereumjs/createAddress.ts");
  }
  installed = true;
  const upstream = proto._generateAddress;
  proto._generateAddress = async function (this: EVM, message: CreateMessage): Promise<Address> {
    const keccak = this.common.customCrypto.keccak256;
    if (keccak === undefined) return upstream.call(this, message);
    const sender = message.caller.bytes;
    if (message.salt) {
      if (message.salt.length !== 32 || sender.length !== 20) return upstream.call(this, message);
      const input = new Uint8Array(1 + 20 + 32 + 32);
      input[0] = CREATE2_PREFIX;
      input.set(sender, 1);
      input.set(message.salt, 21);
      input.set(keccak(message.code ?? EMPTY), 53);
      return new Address(keccak(input).subarray(12));
    }
    const account = (await this.stateManager.getAccount(message.caller)) ?? new Account();
    const nonce = account.nonce - 1n;
    return new Address(keccak(RLP.encode([sender, nonce === 0n ? EMPTY : bigIntToBytes(nonce)])).subarray(12));
  };
}
