import { expect } from "chai";
import FakeTimers from "@sinonjs/fake-timers";
import { createWalletClient, custom, UserRejectedRequestError } from "viem";
import { base } from "viem/chains";
import { createPreconfProvider } from "hardhat-preconf";

it("asks again after the user declines adding Base", async () => {
  const provider = await createPreconfProvider({ clock: FakeTimers.createClock() });
  // A JSON-RPC account: the wallet holds the key, so every action is a prompt.
  const walletClient = createWalletClient({ account: provider.accounts[0]!.address, transport: custom(provider) });
  provider.wallet.policy.queue("wallet_addEthereumChain", "reject", "approve");

  // Your dapp's code under test: it retries once when the user declines.
  async function addBase(): Promise<"added" | "declined"> {
    try {
      await walletClient.addChain({ chain: base });
      return "added";
    } catch (error) {
      if (error instanceof UserRejectedRequestError) return "declined";
      throw error;
    }
  }

  expect(await addBase()).to.equal("declined");
  expect(await provider.request({ method: "eth_chainId" })).to.equal("0x7a69");
  expect(await addBase()).to.equal("added");
  expect(await provider.request({ method: "eth_chainId" })).to.equal("0x2105");

  expect(provider.wallet.requests.map((r) => [r.method, r.decision])).to.deep.equal([
    ["wallet_addEthereumChain", "reject"],
    ["wallet_addEthereumChain", "approve"],
  ]);
  await provider.close();
});
