import { expect } from "chai";
import { network } from "hardhat";
import { zeroHash } from "viem";

describe("connection.preconf", () => {
  it("moves fake time fragment by fragment, and scripts the wallet's answers", async () => {
    const connection = await network.create("preconf");
    const { preconf } = connection; // this connection's hardhat-preconf provider
    await connection.provider.request({ method: "evm_setAutomine", params: [false] });
    preconf.preconf.setMining("interval"); // fragments on the (fake) clock

    const publicClient = await connection.viem.getPublicClient();
    const [wallet] = await connection.viem.getWalletClients();
    if (wallet === undefined) throw new Error("no wallet client");
    const hash = await wallet.sendTransaction({ to: wallet.account.address, value: 1n }); // in the pool
    await preconf.preconf.advance(); // one fragment of fake time: pre-confirmed
    expect((await publicClient.getTransactionReceipt({ hash })).blockHash).to.equal(zeroHash); // block still open
    await preconf.preconf.advance(preconf.preconf.fragmentsPerBlock - 1); // the block seals
    expect((await publicClient.getTransactionReceipt({ hash })).blockHash).to.not.equal(zeroHash);

    preconf.wallet.policy.queue("eth_sendTransaction", "reject"); // the user rejects the next send
    const refused: unknown = await wallet.sendTransaction({ to: wallet.account.address, value: 1n }).catch((error: unknown) => error);
    expect(String(refused)).to.include("User rejected the request");
    expect(preconf.wallet.requests.at(-1)?.decision).to.equal("reject");
    await connection.close();
  });
});
