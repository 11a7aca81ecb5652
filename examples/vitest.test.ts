import FakeTimers from "@sinonjs/fake-timers";
import { createPreconfProvider } from "hardhat-preconf";
import { expect, test } from "vitest";

test("pre-confirmed in the first fragment, sealed with the tenth", async () => {
  const provider = await createPreconfProvider({ clock: FakeTimers.createClock() });
  const [alice, bob] = provider.accounts;
  if (alice === undefined || bob === undefined) throw new Error("no dev accounts");

  const hash = await provider.request({
    method: "eth_sendTransaction",
    params: [{ from: alice.address, to: bob.address, value: "0x1" }],
  });
  await provider.preconf.advance(); // 200 ms of fake time
  expect(await provider.request({ method: "preconf_transactionStatus", params: [hash] })).toMatchObject({ status: "preconfirmed" });

  await provider.preconf.advance(9);
  expect(await provider.request({ method: "preconf_transactionStatus", params: [hash] })).toMatchObject({ status: "sealed" });
  await provider.close();
});
