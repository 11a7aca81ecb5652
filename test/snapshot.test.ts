/**
 * evm_snapshot / evm_revert beyond the chain's state: the open block's fragments and the pool
 * mid-block, the wallet's user-visible state and request log, and the sequencer's phase within
 * its fragment interval. Fake clock throughout.
 */
import { expect } from "chai";

import { createTestChain } from "./helpers/chain.ts";
import { send, signTx } from "./helpers/sign.ts";
import { USDC } from "./helpers/wallet.ts";

import type { PreconfProvider } from "../src/index.ts";
import type { Hex } from "../src/rpc/schema.ts";

const STRANGER = "0x1234567890123456789012345678901234567890";
const BASE = {
  chainId: "0x2105",
  chainName: "Base",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: ["https://mainnet.base.org"],
};

async function call<T = unknown>(provider: PreconfProvider, method: string, params: unknown[] = []): Promise<T> {
  return (await provider.request({ method, params })) as T;
}

/** What a client sees of the pre-confirmed chain. */
async function view(provider: PreconfProvider): Promise<unknown> {
  const dev = provider.accounts.slice(0, 3).map((account) => account.address);
  return {
    pending: await call(provider, "eth_getBlockByNumber", ["pending", true]),
    latest: await call(provider, "eth_getBlockByNumber", ["latest", true]),
    pool: await call(provider, "txpool_content"),
    balances: await Promise.all([...dev, STRANGER].flatMap((who) => ["latest", "pending"].map((tag) => call(provider, "eth_getBalance", [who, tag])))),
    nonces: await Promise.all(dev.map((who) => call(provider, "eth_getTransactionCount", [who, "pending"]))),
  };
}

describe("evm_snapshot / evm_revert", () => {
  let provider: PreconfProvider;
  afterEach(() => provider.close());

  it("a snapshot taken mid-block restores the open block's fragments, the pool and balances exactly", async () => {
    ({ provider } = await createTestChain({ mining: "manual" }));
    await send(provider, await signTx(provider, 0, { nonce: 0, to: STRANGER }));
    await provider.preconf.fragment();
    await send(provider, await signTx(provider, 1, { nonce: 1 })); // queued behind a gap
    const id = await call<Hex>(provider, "evm_snapshot");
    const before = await view(provider);

    const later = await send(provider, await signTx(provider, 0, { nonce: 1, to: STRANGER }));
    await send(provider, await signTx(provider, 1, { nonce: 0 })); // fills the gap
    await provider.preconf.fragment();
    await call(provider, "hardhat_setBalance", [STRANGER, "0x64"]);
    await send(provider, await signTx(provider, 2, { nonce: 0 }));
    await provider.preconf.seal();
    expect(await view(provider)).to.not.deep.equal(before);

    expect(await call(provider, "evm_revert", [id])).to.equal(true);
    expect(await view(provider)).to.deep.equal(before);
    expect(await call(provider, "eth_getTransactionReceipt", [later])).to.equal(null);
    expect(await call(provider, "preconf_transactionStatus", [later])).to.deep.equal({ status: "unknown" });
  });

  it("restores the wallet: known chains, active chain, watched assets, permissions and the request log", async () => {
    ({ provider } = await createTestChain({ mining: "manual", switchOnAdd: false }));
    const { wallet } = provider;
    await call(provider, "wallet_watchAsset", [{ type: "ERC20", options: { address: USDC, symbol: "USDC", decimals: 6 } }]);
    const id = await call<Hex>(provider, "evm_snapshot");
    const before = {
      chains: wallet.chains(),
      assets: wallet.assets(),
      permissions: wallet.permissions(),
      requests: wallet.requests,
      connected: wallet.connected,
    };

    await call(provider, "wallet_addEthereumChain", [BASE]);
    await call(provider, "eth_requestAccounts");
    await call(provider, "wallet_watchAsset", [
      { type: "ERC20", options: { address: "0x0000000000000000000000000000000000000abc", symbol: "ABC", decimals: 18 } },
    ]);
    expect(wallet.chains()).to.have.length(2);
    expect(wallet.connected).to.equal(true);
    const events: [string, unknown][] = [];
    provider.on("accountsChanged", (accounts: unknown) => events.push(["accountsChanged", accounts]));

    expect(await call(provider, "evm_revert", [id])).to.equal(true);
    expect({
      chains: wallet.chains(),
      assets: wallet.assets(),
      permissions: wallet.permissions(),
      requests: wallet.requests,
      connected: wallet.connected,
    }).to.deep.equal(before);
    expect(events).to.deep.equal([["accountsChanged", []]]);
    // Request ids keep counting: a later request never reuses a reverted one's id.
    await call(provider, "eth_requestAccounts");
    expect(wallet.requests.map((request) => request.id)).to.deep.equal([1, 5]);
  });

  it("keeps the wallet's state as it was when what the snapshot shares with it is changed in place since", async () => {
    ({ provider } = await createTestChain({ mining: "manual", switchOnAdd: false }));
    const { wallet } = provider;
    // Before the snapshot: a grant (its permitted chains), a known chain (its URLs) and a list of watched tokens.
    await call(provider, "eth_requestAccounts");
    await call(provider, "wallet_addEthereumChain", [BASE]);
    await call(provider, "wallet_watchAsset", [{ type: "ERC20", options: { address: USDC, symbol: "USDC", decimals: 6 } }]);
    const state = () => ({ chains: wallet.chains(), assets: wallet.assets(), permissions: wallet.permissions(), chainId: wallet.activeChainId });
    const before = state();
    const id = await provider.chain.snapshot();

    // Each grows or changes something the wallet already held: the token list, the chain's URLs, the grant's chains.
    await call(provider, "wallet_watchAsset", [
      { type: "ERC20", options: { address: "0x0000000000000000000000000000000000000abc", symbol: "ABC", decimals: 18 } },
    ]);
    await call(provider, "wallet_addEthereumChain", [{ ...BASE, rpcUrls: ["https://base.example"], iconUrls: ["https://base.example/icon.png"] }]);
    await call(provider, "wallet_switchEthereumChain", [{ chainId: "0x2105" }]);
    expect(state()).to.not.deep.equal(before);

    expect(await provider.chain.revert(id)).to.equal(true);
    expect(state()).to.deep.equal(before);
  });

  it("restores the active chain and tells the dapp (chainChanged)", async () => {
    ({ provider } = await createTestChain({ mining: "manual" }));
    const id = await provider.chain.snapshot();
    await call(provider, "wallet_addEthereumChain", [BASE]); // approved: the wallet switches to Base
    expect(provider.wallet.activeChainId).to.equal("0x2105");
    const changes: unknown[] = [];
    provider.on("chainChanged", (chainId: unknown) => changes.push(chainId));
    // Node methods now go to Base (URL-only here), so the revert is the chain's own, in process.
    expect(await provider.chain.revert(id)).to.equal(true);
    expect(provider.wallet.activeChainId).to.equal("0x7a69");
    expect(provider.wallet.chains().map((chain) => chain.chainId)).to.deep.equal(["0x7a69"]);
    expect(changes).to.deep.equal(["0x7a69"]);
    expect(await call(provider, "eth_chainId")).to.equal("0x7a69");
  });

  it("restores the fragment phase: 80 ms into a 200 ms interval, the next fragment comes 120 ms after the revert", async () => {
    const test = await createTestChain();
    provider = test.provider;
    const { clock } = test;
    const start = clock.now;
    const at = () => clock.now - start;
    const seen: number[] = [];
    provider.chain.on("fragment", () => seen.push(at()));

    await clock.tickAsync(80);
    const id = await call<Hex>(provider, "evm_snapshot");
    await clock.tickAsync(70); // 150 ms: no fragment yet
    expect(await call(provider, "evm_revert", [id])).to.equal(true);
    await clock.tickAsync(119);
    await provider.preconf.idle();
    expect(seen).to.deep.equal([]); // the old schedule (200 ms) is gone
    await clock.tickAsync(1);
    await provider.preconf.idle();
    expect(seen).to.deep.equal([270]);
    await clock.tickAsync(200);
    await provider.preconf.idle();
    expect(seen).to.deep.equal([270, 470]);
  });

  it("with a fake clock, the same scenario twice gives byte-identical blocks", async () => {
    async function scenario(): Promise<Hex[]> {
      const test = await createTestChain();
      const p = test.provider;
      await send(p, await signTx(p, 0, { nonce: 0 }));
      await test.clock.tickAsync(330);
      const id = await call<Hex>(p, "evm_snapshot");
      await send(p, await signTx(p, 1, { nonce: 0 }));
      await call(p, "hardhat_setBalance", [STRANGER, "0x1"]);
      await p.preconf.advance(12);
      await call(p, "evm_revert", [id]);
      await send(p, await signTx(p, 2, { nonce: 0 }));
      await p.preconf.advance(25);
      // The chain that remains after the revert, genesis to head.
      const hashes: Hex[] = [];
      for (let n = 0n; n <= p.chain.latest.block.header.number; n++) hashes.push(p.chain.sealedByNumber(n)!.hash);
      await p.close();
      return hashes;
    }
    provider = (await createTestChain()).provider;
    const first = await scenario();
    expect(first).to.have.length(3);
    expect(await scenario()).to.deep.equal(first);
  });
});
