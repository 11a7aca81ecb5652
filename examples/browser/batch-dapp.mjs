// The dapp of examples/browser/batch-in-chromium.ts, as a dapp is written with wagmi (core actions,
// no framework): it finds its wallet through EIP-6963, connects, reads the wallet's capabilities
// and sends an ERC-20 approve and the deposit that spends it as one atomic EIP-5792 batch, then
// waits for its status. The example bundles this file for the browser with esbuild.
import { connect, createConfig, getCapabilities, getConnectors, http, sendCalls, waitForCallsStatus } from "@wagmi/core";
import { defineChain, encodeFunctionData, erc20Abi, parseAbi } from "viem";

const rpcUrl = new URL(location.href).searchParams.get("rpc");
const chain = defineChain({
  id: 31337,
  name: "hardhat-preconf",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: [rpcUrl] } },
});
// wagmi discovers injected wallets through EIP-6963 (multiInjectedProviderDiscovery, on by default).
const config = createConfig({ chains: [chain], transports: { [chain.id]: http(rpcUrl) } });
const vaultAbi = parseAbi(["function deposit(address token, uint256 amount)"]);

/** Errors as plain data for the test: viem's error name and the wallet's code. */
function failure(error) {
  let cause = error;
  while (cause?.cause !== undefined && cause.code === undefined) cause = cause.cause;
  return { error: { name: error.name, code: cause?.code, message: cause?.message } };
}

window.dapp = {
  async connect() {
    const connector = getConnectors(config).find((candidate) => candidate.name === "hardhat-preconf");
    if (connector === undefined) throw new Error("no EIP-6963 wallet named hardhat-preconf");
    const { accounts } = await connect(config, { connector });
    return accounts;
  },
  async capabilities() {
    return getCapabilities(config);
  },
  /** approve(vault, amount) + vault.deposit(token, amount) in one atomic batch; its final status. */
  async deposit(token, vault, amount) {
    try {
      const { id } = await sendCalls(config, {
        calls: [
          { to: token, data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [vault, BigInt(amount)] }) },
          { to: vault, data: encodeFunctionData({ abi: vaultAbi, functionName: "deposit", args: [token, BigInt(amount)] }) },
        ],
        forceAtomic: true,
      });
      const status = await waitForCallsStatus(config, { id, pollingInterval: 50 });
      return { id, status: status.status, statusCode: status.statusCode, transactions: status.receipts.map((receipt) => receipt.transactionHash) };
    } catch (error) {
      return failure(error);
    }
  },
};
document.getElementById("status").textContent = "ready";
