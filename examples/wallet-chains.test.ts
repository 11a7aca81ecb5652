import FakeTimers from "@sinonjs/fake-timers";
import { expect } from "chai";
import { createPreconfProvider } from "hardhat-preconf";
import { createWalletClient, custom } from "viem";
import { base } from "viem/chains";

it("sends on Base once the user has added it", async () => {
  const clock = FakeTimers.createClock();
  const l1 = await createPreconfProvider({ clock });
  const baseChain = await createPreconfProvider({ clock, chainId: 8453 });
  l1.wallet.addSimulatedChain(baseChain); // served by baseChain once the wallet knows it
  const [alice, bob] = l1.accounts;
  if (alice === undefined || bob === undefined) throw new Error("no dev accounts");
  const walletClient = createWalletClient({ account: alice.address, transport: custom(l1) });

  await walletClient.addChain({ chain: base }); // approved: switches, chainChanged "0x2105"
  const hash = await walletClient.sendTransaction({ chain: null, to: bob.address, value: 1n }); // lands on baseChain
  await baseChain.preconf.advance();
  expect(await baseChain.request({ method: "preconf_transactionStatus", params: [hash] })).to.deep.include({ status: "preconfirmed" });

  await walletClient.switchChain({ id: 31337 }); // back to l1
  expect(await l1.request({ method: "eth_chainId" })).to.equal("0x7a69");
  await l1.close();
  await baseChain.close();
});
