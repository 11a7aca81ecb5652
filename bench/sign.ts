/**
 * Fast pre-signing for the peer bench: EIP-1559 txs built with @ethereumjs/tx and signed with the
 * native secp256k1 addon when it loads (viem's pure-JS signer takes ~2 ms a tx, which would make
 * pre-signing tens of thousands of txs slower than the bench itself). Signing happens outside
 * every timed region.
 */
import { createRequire } from "node:module";

import { createTx } from "@ethereumjs/tx";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";

import { nativeCrypto } from "../src/node/common/crypto.ts";
import { commonFromGenesis, devGethGenesis } from "../src/node/state/genesis.ts";

import type { Common } from "@ethereumjs/common";
import type { Hex } from "viem";

interface NativeSign {
  ecdsaSign(msg32: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number };
}

const native = (() => {
  try {
    return createRequire(import.meta.url)("secp256k1") as NativeSign;
  } catch {
    return undefined;
  }
})();

const commons = new Map<number, Common>();

/** A Prague Common for `chainId` (the dev chain's genesis), only used to serialize and sign. */
function commonFor(chainId: number): Common {
  let common = commons.get(chainId);
  if (common === undefined) {
    const genesis = devGethGenesis({
      chainId: BigInt(chainId),
      hardfork: "prague",
      gasLimit: 30_000_000n,
      baseFeePerGas: 10n ** 9n,
      timestamp: 0n,
      alloc: new Map(),
    });
    common = commonFromGenesis(genesis, nativeCrypto(), "prague");
    commons.set(chainId, common);
  }
  return common;
}

export interface TxFields {
  chainId: number;
  nonce: number;
  to?: Hex | undefined;
  value?: bigint;
  data?: Hex;
  gas: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
}

/** A fee cap well above every peer's base fee, so that no tx waits for the fee to fall. */
export const FEE_CAP = 100_000_000_000n;
export const TIP = 1_000_000_000n;

export function signTx(privateKey: Hex, fields: TxFields): Hex {
  const unsigned = createTx(
    {
      type: 2,
      chainId: BigInt(fields.chainId),
      nonce: BigInt(fields.nonce),
      to: fields.to,
      value: fields.value ?? 0n,
      data: fields.data ?? "0x",
      gasLimit: fields.gas,
      maxFeePerGas: fields.maxFeePerGas ?? FEE_CAP,
      maxPriorityFeePerGas: fields.maxPriorityFeePerGas ?? TIP,
    },
    { common: commonFor(fields.chainId) },
  );
  const key = hexToBytes(privateKey);
  if (native === undefined) return bytesToHex(unsigned.sign(key).serialize()) as Hex;
  const { signature, recid } = native.ecdsaSign(unsigned.getHashedMessageToSign(), key);
  return bytesToHex(unsigned.addSignature(BigInt(recid), signature.subarray(0, 32), signature.subarray(32, 64)).serialize()) as Hex;
}
