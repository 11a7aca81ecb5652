/**
 * The server's own CPU per request over HTTP, round by round, from a build's sources: the server
 * rows (servers.ts) time `preconf node` as a process, one figure per workload and repetition. Here
 * ours serves over HTTP (src/server/http.ts, automine, the token deployed)
 * in this process, which measures its own `process.cpuUsage()` around each round, while a client in
 * a child process sends the requests one after another on one keep-alive connection. The first
 * round is a warm-up; the library's V8 flags are Node's defaults (`preconf node` lowers the tier-up
 * threshold: src/cli/tierUp.ts), so the first few thousand requests still run partly unoptimized.
 *
 *   npx tsx bench/server-cpu.ts <call|estimate|block> [requests=3000] [rounds=5] [--from <repo root>]
 *
 * `call`: eth_call of ERC-20 `balanceOf` (N4's request), `estimate`: eth_estimateGas of a token
 * transfer (N3's), `block`: eth_blockNumber (N5's: the server path alone). `--from` serves another
 * checkout's sources (a worktree of an earlier commit, with a `node_modules` of its own or a symlink
 * to this one) for before/after figures; alternate the two. It serves the sources through tsx, as
 * the in-process rows run them, not dist/ (`preconf node`'s build).
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";

import type { Hex } from "viem";

const KINDS = ["call", "estimate", "block"] as const;
type Kind = (typeof KINDS)[number];

const args = process.argv.slice(2);
const fromIndex = args.indexOf("--from");
const root = fromIndex === -1 ? fileURLToPath(new URL("..", import.meta.url)) : args[fromIndex + 1]!;
const [kind = "call", requestsArg = "3000", roundsArg = "5"] = args.filter((_, index) => fromIndex === -1 || (index !== fromIndex && index !== fromIndex + 1));
if (!KINDS.includes(kind as Kind)) throw new Error(`usage: npx tsx bench/server-cpu.ts <${KINDS.join("|")}> [requests] [rounds] [--from <repo root>]`);

if (process.env.SERVER_CPU_PORT !== undefined) await client(Number(process.env.SERVER_CPU_PORT));
else await serve(kind as Kind, Number(requestsArg), Number(roundsArg));

/** The child: sends `count` copies of a body (its `"id":ID` numbered) one after another, then reports the last answer. */
async function client(port: number): Promise<void> {
  const [{ Agent }, { postJson }] = await Promise.all([import("node:http"), import("./httpPost.ts")]);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const post = async (body: string) => (await postJson(agent, port, body)).text;
  process.on("message", async ({ body, count }: { body: string; count: number }) => {
    let last = "";
    for (let id = 0; id < count; id++) last = await post(body.replace('"id":"ID"', `"id":${id}`));
    process.send!({ last });
  });
  process.send!({ ready: true });
}

async function serve(kind: Kind, requests: number, rounds: number): Promise<void> {
  const [
    { createPreconfProvider },
    { startServer },
    { default: FakeTimers },
    viem,
    { compileBenchContracts },
    { signTx },
    { accountsFromMnemonic, DEFAULT_MNEMONIC },
  ] = await Promise.all([
    import(`${root}/src/index.ts`) as Promise<typeof import("../src/index.ts")>,
    import(`${root}/src/server/http.ts`) as Promise<typeof import("../src/server/http.ts")>,
    import("@sinonjs/fake-timers"),
    import("viem"),
    import("./contracts.ts"),
    import("./sign.ts"),
    import("../src/node/common/accounts.ts"),
  ]);
  const [deployer, holder] = accountsFromMnemonic(DEFAULT_MNEMONIC, 2) as [{ address: Hex; privateKey: Hex }, { address: Hex }];
  const { Token } = compileBenchContracts();
  const provider = await createPreconfProvider({ clock: FakeTimers.createClock(1_700_000_000_000) });
  await provider.request({ method: "evm_setAutomine", params: [true] });
  const deploy = viem.encodeDeployData({ abi: Token.abi, bytecode: Token.bytecode, args: ["Token", "TOK", 10n ** 24n] });
  await provider.request({
    method: "eth_sendRawTransaction",
    params: [signTx(deployer.privateKey, { chainId: 31337, nonce: 0, data: deploy, gas: 2_000_000n })],
  });
  const token = viem.getContractAddress({ from: deployer.address, nonce: 0n });
  const request =
    kind === "call"
      ? {
          method: "eth_call",
          params: [{ to: token, data: viem.encodeFunctionData({ abi: Token.abi, functionName: "balanceOf", args: [deployer.address] }) }, "latest"],
        }
      : kind === "estimate"
        ? {
            method: "eth_estimateGas",
            params: [
              { from: deployer.address, to: token, data: viem.encodeFunctionData({ abi: Token.abi, functionName: "transfer", args: [holder.address, 1n] }) },
            ],
          }
        : { method: "eth_blockNumber", params: [] };
  const server = await startServer(provider, { port: 0 });
  const child = fork(fileURLToPath(import.meta.url), [], { env: { ...process.env, SERVER_CPU_PORT: String(server.port) }, execArgv: ["--import", "tsx"] });
  // A child that dies (or cannot start) fails the run rather than leaving it waiting.
  const next = () =>
    new Promise<{ last?: string }>((resolve, reject) => {
      const exited = (code: number | null) => reject(new Error(`the client exited (${code}) before answering`));
      child.once("exit", exited);
      child.once("message", (message: { last?: string }) => {
        child.off("exit", exited);
        resolve(message);
      });
    });
  try {
    await next();
    const body = JSON.stringify({ jsonrpc: "2.0", id: "ID", ...request });
    const perRequest: string[] = [];
    for (let round = 0; round <= rounds; round++) {
      const before = process.cpuUsage();
      child.send({ body, count: requests });
      const { last = "" } = await next();
      const used = process.cpuUsage(before);
      if (!last.includes('"result"')) throw new Error(`${request.method} answered ${last.slice(0, 300)}`);
      if (round > 0) perRequest.push(((used.user + used.system) / requests).toFixed(1));
    }
    console.log(`${kind} (${request.method}), ${root}: server CPU µs per request, rounds of ${requests} after one warm-up round: ${perRequest.join(" ")}`);
  } finally {
    child.kill();
    await server.close();
    await provider.close();
  }
}
