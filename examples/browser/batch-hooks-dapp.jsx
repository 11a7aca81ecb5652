// The dapp of examples/browser/batch-hooks-in-chromium.ts, as a React dapp is written with wagmi's
// hooks: it connects the wallet it finds through EIP-6963 (useConnect), shows the wallet's atomic
// capability (useCapabilities), sends an ERC-20 approve and the deposit that spends it as one
// atomic EIP-5792 batch (useSendCalls) and follows it to its final status (useWaitForCallsStatus).
// Everything the test reads is rendered into the page. The example bundles this file with esbuild.
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { defineChain, encodeFunctionData, erc20Abi, parseAbi } from "viem";
import { createConfig, http, useCapabilities, useConnect, useConnection, useSendCalls, useWaitForCallsStatus, WagmiProvider } from "wagmi";

// The test passes the node's URL, its chain id and the contracts it deployed in the page's URL.
const search = new URL(location.href).searchParams;
const rpcUrl = search.get("rpc") ?? "http://127.0.0.1:8545";
const token = /** @type {`0x${string}`} */ (search.get("token"));
const vault = /** @type {`0x${string}`} */ (search.get("vault"));
const chain = defineChain({
  id: Number(search.get("chainId") ?? 31337),
  name: "hardhat-preconf",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: [rpcUrl] } },
});
// wagmi discovers injected wallets through EIP-6963 (multiInjectedProviderDiscovery, on by default).
const config = createConfig({ chains: [chain], transports: { [chain.id]: http(rpcUrl) } });
const queryClient = new QueryClient();
const vaultAbi = parseAbi(["function deposit(address token, uint256 amount)"]);

/**
 * An error as the page shows it: viem's error name, and the wallet's code and message (the first
 * error in the cause chain with a code: viem's RpcError, whose `details` is the wallet's message).
 * @param {Error} error
 */
function describeError(error) {
  /** @type {any} */
  let cause = error;
  while (cause?.cause !== undefined && cause.code === undefined) cause = cause.cause;
  return { name: error.name, code: cause?.code, message: cause?.details ?? cause?.message };
}

function Batch() {
  const { address, status } = useConnection();
  const { connect, connectors } = useConnect();
  const wallet = connectors.find((connector) => connector.name === "hardhat-preconf");
  const capabilities = useCapabilities();
  const { sendCalls, data: sent, error: sendError, reset } = useSendCalls();
  const callsStatus = useWaitForCallsStatus({ id: sent?.id, pollingInterval: 50 });
  const [amount, setAmount] = useState("5");
  const [spent, setSpent] = useState("5");
  const [attempt, setAttempt] = useState(0);

  // A batch that ran may have upgraded the account: read the capabilities again.
  const { refetch } = capabilities;
  useEffect(() => {
    if (callsStatus.data !== undefined) void refetch();
  }, [callsStatus.data, refetch]);

  const deposit = () => {
    reset();
    setAttempt(attempt + 1);
    sendCalls({
      calls: [
        { to: token, data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [vault, BigInt(amount)] }) },
        { to: vault, data: encodeFunctionData({ abi: vaultAbi, functionName: "deposit", args: [token, BigInt(spent)] }) },
      ],
      forceAtomic: true,
    });
  };

  const outcome = sendError
    ? { error: describeError(sendError) }
    : callsStatus.error
      ? { error: describeError(callsStatus.error) }
      : callsStatus.data
        ? {
            id: sent?.id,
            status: callsStatus.data.status,
            statusCode: callsStatus.data.statusCode,
            receipts: (callsStatus.data.receipts ?? []).map(({ transactionHash, blockHash, status }) => ({ transactionHash, blockHash, status })),
          }
        : undefined;

  return (
    <main>
      <p>
        <button id="connect" type="button" disabled={wallet === undefined || status === "connected"} onClick={() => wallet && connect({ connector: wallet })}>
          Connect {wallet?.name ?? "(no wallet found)"}
        </button>{" "}
        <output id="connection" data-status={status}>
          {status} {address}
        </output>
      </p>
      <p>
        Capabilities: <output id="capabilities">{capabilities.data === undefined ? capabilities.status : JSON.stringify(capabilities.data)}</output>
      </p>
      <p>
        <label>
          Approve <input id="amount" value={amount} onChange={(event) => setAmount(event.target.value)} />
        </label>{" "}
        <label>
          deposit <input id="spent" value={spent} onChange={(event) => setSpent(event.target.value)} />
        </label>{" "}
        <button id="deposit" type="button" disabled={status !== "connected"} onClick={deposit}>
          Approve and deposit
        </button>
      </p>
      <output id="batch" data-attempt={attempt} data-done={outcome !== undefined}>
        {outcome === undefined ? (sent === undefined ? "" : `${sent.id}: waiting`) : JSON.stringify(outcome)}
      </output>
    </main>
  );
}

createRoot(/** @type {HTMLElement} */ (document.getElementById("root"))).render(
  <WagmiProvider config={config}>
    <QueryClientProvider client={queryClient}>
      <Batch />
    </QueryClientProvider>
  </WagmiProvider>,
);
