/**
 * The light blockchain (src/node/chain/lightBlockchain.ts) in place of @ethereumjs/blockchain: the genesis
 * block it builds must be the very block @ethereumjs/blockchain 10.1.3 builds (same hash) for every
 * supported hardfork, and it answers what the chain and the VM ask of a blockchain.
 */
import { createBlockchain } from "@ethereumjs/blockchain";
import { bytesToHex } from "@ethereumjs/util";
import { expect } from "chai";

import { LightBlockchain, createGenesisBlock } from "../src/node/chain/lightBlockchain.ts";
import { nativeCrypto } from "../src/node/common/crypto.ts";
import { commonFromGenesis, devGethGenesis, SUPPORTED_HARDFORKS } from "../src/node/state/genesis.ts";

const STATE_ROOT = Uint8Array.from({ length: 32 }, (_, i) => i + 1);

function commonAt(hardfork: (typeof SUPPORTED_HARDFORKS)[number], timestamp = 1_700_000_000n) {
  const genesis = devGethGenesis({ chainId: 31337n, hardfork, gasLimit: 30_000_000n, baseFeePerGas: 1_000_000_000n, timestamp, alloc: new Map() });
  return commonFromGenesis(genesis, nativeCrypto(), hardfork);
}

describe("light blockchain", () => {
  for (const hardfork of SUPPORTED_HARDFORKS) {
    it(`builds the genesis block @ethereumjs/blockchain builds (${hardfork})`, async () => {
      const common = commonAt(hardfork);
      const reference = await createBlockchain({ common, genesisStateRoot: STATE_ROOT, validateBlocks: false, validateConsensus: false });
      const expected = await reference.getBlock(0n);
      const genesis = createGenesisBlock(common, STATE_ROOT);
      expect(bytesToHex(genesis.hash())).to.equal(bytesToHex(expected.hash()));
      expect(bytesToHex(genesis.serialize())).to.equal(bytesToHex(expected.serialize()));
    });
  }

  it("answers blocks by number and hash, its head, and forgets a block and every later one", async () => {
    const common = commonAt("prague");
    const genesis = createGenesisBlock(common, STATE_ROOT);
    const store = new LightBlockchain(genesis);
    expect(store.consensus).to.equal(undefined);
    expect(store.genesisBlock).to.equal(genesis);
    expect(await store.getBlock(0n)).to.equal(genesis);
    expect(await store.getBlock(genesis.hash())).to.equal(genesis);
    expect(await store.dbManager.getHeader(genesis.hash(), 0n)).to.equal(genesis.header);
    expect(await store.getCanonicalHeadHeader()).to.equal(genesis.header);
    // A copy (a state view's VM) shares the blocks, and a method set on the store itself.
    const copy = store.shallowCopy();
    expect(await copy.getBlock(0n)).to.equal(genesis);
    store.getBlock = async () => genesis;
    expect(await store.shallowCopy().getBlock(99n)).to.equal(genesis);
    // delBlock drops the block (and any later one) for the copies too.
    await store.delBlock(genesis.hash());
    const missing = await copy.getBlock(0n).then(
      () => undefined,
      (error: Error) => error.message,
    );
    expect(missing).to.equal("no block 0");
  });
});
