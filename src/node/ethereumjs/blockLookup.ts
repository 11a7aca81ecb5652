/**
 * Patch (@ethereumjs/evm 10.1.3, the EVM's public `blockchain` field): BLOCKHASH reads
 * `blockchain.getBlock(number)` of the EVM running it (opcodes/functions.js, 0x40), and every
 * message's interpreter takes the field when it starts (evm.js `runInterpreter`). eth_simulateV1's
 * blocks exist nowhere but in the simulation, so while it runs the field is a view of the chain's
 * blockchain that answers the simulated numbers first. test/ethereumjs.test.ts fails if BLOCKHASH
 * stops reading it.
 */
import type { Block } from "@ethereumjs/block";
import type { VM } from "@ethereumjs/vm";

type BlockReader = { getBlock(id: number | bigint | Uint8Array): Promise<unknown> };

/** Runs `run` with BLOCKHASH on `vm` seeing `extra`'s blocks (by number) before the chain's. */
export async function withExtraBlocks<T>(vm: VM, extra: ReadonlyMap<bigint, Block>, run: () => Promise<T>): Promise<T> {
  const evm = vm.evm as unknown as { blockchain: BlockReader };
  const chain = evm.blockchain;
  evm.blockchain = new Proxy(chain, {
    get(target, property) {
      if (property === "getBlock") {
        return (id: number | bigint | Uint8Array) => {
          const block = typeof id === "number" || typeof id === "bigint" ? extra.get(BigInt(id)) : undefined;
          return block === undefined ? target.getBlock(id) : Promise.resolve(block);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  try {
    return await run();
  } finally {
    evm.blockchain = chain;
  }
}

/**
 * Patch (@ethereumjs/block 10.1.3, `BlockHeader.getBlobGasPrice`): the blob base fee is computed
 * from the header's excessBlobGas, which runTx (the blob fee) and the interpreter (BLOBBASEFEE)
 * both read through this method; an eth_simulateV1 block override of `blobBaseFee` replaces it on
 * the one header it names.
 */
export function overrideBlobGasPrice(block: Block, price: bigint): void {
  Object.defineProperty(block.header, "getBlobGasPrice", { value: () => price, configurable: true });
}
