/**
 * viem's waitForTransactionReceipt on a pre-confirming chain (src/chains.ts, docs/flashblocks.md
 * "viem"): viem's own checks once per new block number, so it returns with the sealed block;
 * `preconfActions()` polls the receipt every pre-confirmation interval and returns the pre-confirmed
 * one. The chain runs on a fake clock; viem polls on real timers, so each wait takes a few real
 * polling intervals (timings are measured by bench/receipt-wait.ts, not asserted here).
 */
import { expect } from "chai";
import { createPublicClient, createWalletClient, custom, zeroHash } from "viem";
import { privateKeyToAccount } from "viem/accounts";

import { preconfActions, preconfChainOf, preconfChains } from "../src/index.ts";
import { createTestChain } from "./helpers/chain.ts";

import type { PreconfProvider } from "../src/index.ts";

describe("viem's waitForTransactionReceipt at pre-confirmation (preconfActions)", function () {
  this.timeout(20_000);
  let provider: PreconfProvider;
  afterEach(() => provider.close());

  it("returns the pre-confirmed receipt one fragment after the send; viem's own returns the sealed one", async () => {
    ({ provider } = await createTestChain());
    const chain = preconfChainOf(provider);
    expect(chain).to.include({ experimental_preconfirmationTime: 200, blockTime: 2000 });
    const account = privateKeyToAccount(provider.accounts[0]!.privateKey);
    const wallet = createWalletClient({ account, chain, transport: custom(provider) });
    // viem's own wait asks for the receipt twice at once (when called, and for the current block
    // number), then once per new block number: the fragment comes after both.
    let asked = 0;
    let bothAsked: () => void = () => undefined;
    const twice = new Promise<void>((resolve) => (bothAsked = resolve));
    const spy = custom({
      request: async (args: { method: string; params?: unknown }) => {
        try {
          return await provider.request(args as never);
        } finally {
          if (args.method === "eth_getTransactionReceipt" && ++asked === 2) bothAsked();
        }
      },
    });
    const plain = createPublicClient({ chain, transport: spy });
    const fast = createPublicClient({ chain, transport: custom(provider) }).extend(preconfActions());
    const hash = await wallet.sendTransaction({ to: provider.accounts[1]!.address, value: 1n });
    const viemOwn = plain.waitForTransactionReceipt({ hash });
    const ours = fast.waitForTransactionReceipt({ hash });
    await twice;
    await provider.preconf.advance(); // one fragment: the tx is pre-confirmed
    const preconfirmed = await ours;
    expect(preconfirmed).to.include({ transactionHash: hash, status: "success", blockNumber: 1n, blockHash: zeroHash });
    // viem's own waits for a new block number: the seal, nine fragments later.
    await provider.preconf.advance(9);
    const sealed = await viemOwn;
    expect(sealed.blockNumber).to.equal(1n);
    expect(sealed.blockHash).not.to.equal(zeroHash);
  });

  it("on Base since Denim (no pre-confirmation time) it returns the 200 ms block's receipt; with confirmations it is viem's own", async () => {
    ({ provider } = await createTestChain({ profile: "base" }));
    expect(preconfChains.base).not.to.have.property("experimental_preconfirmationTime");
    const chain = preconfChainOf(provider);
    expect(chain).to.include({ blockTime: 200 });
    const account = privateKeyToAccount(provider.accounts[0]!.privateKey);
    const wallet = createWalletClient({ account, chain, transport: custom(provider) });
    const client = createPublicClient({ chain, transport: custom(provider) }).extend(preconfActions());
    const hash = await wallet.sendTransaction({ to: provider.accounts[1]!.address, value: 1n });
    const receipt = client.waitForTransactionReceipt({ hash });
    await provider.preconf.advance(); // a 200 ms block
    expect(await receipt).to.include({ blockNumber: 1n });
    expect((await receipt).blockHash).not.to.equal(zeroHash);
    const confirmed = client.waitForTransactionReceipt({ hash, confirmations: 3 });
    await provider.preconf.advance(2);
    expect((await confirmed).blockNumber).to.equal(1n);
  });

  it("a receipt that never comes times out with viem's error", async () => {
    ({ provider } = await createTestChain());
    const client = createPublicClient({ chain: preconfChainOf(provider), transport: custom(provider) }).extend(preconfActions());
    const error = await client.waitForTransactionReceipt({ hash: `0x${"12".repeat(32)}`, timeout: 500 }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect((error as Error).name).to.equal("WaitForTransactionReceiptTimeoutError");
  });
});
