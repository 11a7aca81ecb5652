// Serve a chain over HTTP and WebSocket from code, then talk to it as to any node.
import { createPreconfProvider, startServer } from "hardhat-preconf";
import { createPublicClient, http } from "viem";

const provider = await createPreconfProvider({ mining: "manual" });
const server = await startServer(provider, { port: 0 }); // 0: any free port
const client = createPublicClient({ transport: http(server.url) });

console.log(`${server.url}: chain ${await client.getChainId()}, block ${await client.getBlockNumber()}`);
await server.close();
await provider.close();
