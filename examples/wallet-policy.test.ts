import FakeTimers from "@sinonjs/fake-timers";
import { expect } from "chai";
import { createPreconfProvider } from "hardhat-preconf";

it("scripts what the user answers", async () => {
  const provider = await createPreconfProvider({ clock: FakeTimers.createClock() });
  const [alice] = provider.accounts;
  if (alice === undefined) throw new Error("no dev accounts");
  const sign = () => provider.request({ method: "personal_sign", params: ["0x68656c6c6f", alice.address] });
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: { code: number }) => error.code,
    );

  const { policy } = provider.wallet;
  policy.setDefault("reject"); // every method
  expect(await refusal(sign())).to.equal(4001);
  policy.setDefault("approve", "personal_sign"); // one method
  policy.queue("personal_sign", "reject", "approve"); // the next two prompts, then the default
  expect(await refusal(sign())).to.equal(4001);
  expect(await refusal(sign())).to.equal(undefined);
  policy.use((request) => (request.method === "personal_sign" ? "unsupported" : undefined));
  expect(await refusal(sign())).to.equal(4100);

  policy.manual(); // requests wait for the test
  const answer = sign();
  const prompt = await policy.waitForPending(); // { id, method, params, chainId, time }
  expect(prompt.method).to.equal("personal_sign");
  policy.approve(prompt.id); // or policy.reject(prompt.id, error?)
  expect(await answer).to.match(/^0x[0-9a-f]{130}$/);
  expect(policy.pending()).to.deep.equal([]); // requests still waiting

  policy.reset(); // back to the initial default
  expect(provider.wallet.requests.map((request) => request.decision)).to.deep.equal(["reject", "reject", "approve", "unsupported", "approve"]);
  await provider.close();
});
