// A viem test on a pre-confirming chain with a fake clock. Run it: node viem-fake-clock.test.mjs
import assert from "node:assert/strict";
import { test } from "node:test";

import FakeTimers from "@sinonjs/fake-timers";
import { createPreconfProvider } from "hardhat-preconf";
import { createPublicClient, createWalletClient, custom, parseEther, zeroHash } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { hardhat } from "viem/chains";

test("a transfer is pre-confirmed after 200 ms and sealed after 2 s", async () => {
  const clock = FakeTimers.createClock(); // time moves only when the test says so
  const provider = await createPreconfProvider({ clock });
  const [alice, bob] = provider.accounts;
  assert.ok(alice && bob);
  const account = privateKeyToAccount(alice.privateKey);
  const wallet = createWalletClient({ account, chain: hardhat, transport: custom(provider) });
  const client = createPublicClient({ chain: hardhat, transport: custom(provider), cacheTime: 0 });

  const hash = await wallet.sendTransaction({ to: bob.address, value: parseEther("1") });
  await provider.preconf.advance(); // one 200 ms fragment: the transfer is pre-confirmed
  const preconfirmed = await client.getTransactionReceipt({ hash });
  assert.equal(preconfirmed.status, "success");
  assert.equal(preconfirmed.blockHash, zeroHash); // its block is still open
  assert.equal(await client.getBalance({ address: bob.address, blockTag: "pending" }), parseEther("10001"));

  await provider.preconf.advance(9); // the 10th fragment seals block 1
  const sealed = await client.getTransactionReceipt({ hash });
  assert.equal(sealed.blockNumber, 1n);
  assert.notEqual(sealed.blockHash, zeroHash);
  await provider.close();
});
