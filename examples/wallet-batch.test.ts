import FakeTimers from "@sinonjs/fake-timers";
import { expect } from "chai";
import { createPreconfProvider } from "hardhat-preconf";
import { createPublicClient, createWalletClient, custom, encodeFunctionData, parseEther } from "viem";
import { hardhat } from "viem/chains";

import Token from "../fixtures/artifacts/Token.json" with { type: "json" };
import Vault from "../fixtures/artifacts/Vault.json" with { type: "json" };

import type { Abi, Hex } from "viem";

it("approves and spends in one atomic batch: the first one upgrades the account (EIP-7702)", async () => {
  const provider = await createPreconfProvider({ clock: FakeTimers.createClock() });
  const user = provider.accounts[0]!.address;
  // A JSON-RPC account: the wallet holds the key, so every action is a request to the wallet.
  const wallet = createWalletClient({ account: user, chain: hardhat, transport: custom(provider) });
  const client = createPublicClient({ chain: hardhat, transport: custom(provider), cacheTime: 0 });
  const deploy = async (artifact: { abi: unknown; bytecode: string }, args: unknown[]) => {
    const hash = await wallet.deployContract({ abi: artifact.abi as Abi, bytecode: artifact.bytecode as Hex, args });
    await provider.preconf.advance();
    return (await client.getTransactionReceipt({ hash })).contractAddress!;
  };
  const token = await deploy(Token, ["Token", "TKN", parseEther("100")]);
  const vault = await deploy(Vault, []);

  // MetaMask's answer for a plain account: atomic batches are "ready" (after an upgrade).
  expect(await wallet.getCapabilities()).to.deep.equal({ 31337: { atomic: { status: "ready" } } });
  const { id } = await wallet.sendCalls({
    calls: [
      { to: token, data: encodeFunctionData({ abi: Token.abi as Abi, functionName: "approve", args: [vault, parseEther("5")] }) },
      { to: vault, data: encodeFunctionData({ abi: Vault.abi as Abi, functionName: "deposit", args: [token, parseEther("5")] }) },
    ],
  });
  await provider.preconf.advance(); // one fragment: the batch is pre-confirmed
  const { statusCode, receipts } = await wallet.waitForCallsStatus({ id });
  expect(statusCode).to.equal(200);
  expect(receipts).to.have.length(1); // one transaction: the account's call to its own execute()

  // The account is now delegated to the wallet's ERC-7821 executor (0xef0100 ‖ delegate).
  expect(await client.getCode({ address: user, blockTag: "pending" })).to.equal("0xef01007702000000000000000000000000000000007821");
  expect(await wallet.getCapabilities()).to.deep.equal({ 31337: { atomic: { status: "supported" } } });
  // The upgrade was its own prompt, before the batch's: a test can decline it (5750).
  expect(provider.wallet.requests.map((request) => request.method)).to.include.members(["wallet_upgradeAccount", "wallet_sendCalls"]);
  await provider.close();
});
