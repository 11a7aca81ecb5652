/** The Hardhat 3 plugin, through programmatic Hardhat runtimes: config checks, order, lifecycle. */
import { expect } from "chai";

import type { HardhatUserConfig } from "hardhat/config";
import type { HardhatPlugin } from "hardhat/types/plugins";
import type { PreconfNetworkUserConfig } from "../src/hardhat/index.ts";

// Loaded with import(), not statically: mocha loads test files through require when it can, and
// Hardhat's modules loaded that way are a second copy whose builtin plugins clash with the first.
const { createHardhatRuntimeEnvironment } = await import("hardhat/hre");
const ROOT = new URL("..", import.meta.url).pathname;
const { default: hardhatPreconf } = await import("../src/hardhat/index.ts");
const { default: hardhatViem } = await import("@nomicfoundation/hardhat-viem");
const { default: hardhatNetworkHelpers } = await import("@nomicfoundation/hardhat-network-helpers");

function configWith(plugins: HardhatPlugin[], preconf: PreconfNetworkUserConfig = { clock: "fake", mining: "auto" }): HardhatUserConfig {
  return {
    plugins,
    paths: { artifacts: "fixtures/hardhat-artifacts" },
    networks: { chain: { type: "http", url: "http://preconf.invalid", preconf } },
  };
}

async function loadError(config: HardhatUserConfig): Promise<string> {
  try {
    await createHardhatRuntimeEnvironment(config);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  throw new Error("the config was expected to be refused");
}

describe("Hardhat plugin", () => {
  for (const [label, plugins] of [
    ["first", [hardhatPreconf, hardhatViem, hardhatNetworkHelpers]],
    ["last", [hardhatViem, hardhatNetworkHelpers, hardhatPreconf]],
  ] as const) {
    it(`serves the network whatever its place in plugins (${label})`, async () => {
      const hre = await createHardhatRuntimeEnvironment(configWith([...plugins]));
      const connection = await hre.network.create("chain");
      try {
        expect(await connection.provider.request({ method: "web3_clientVersion" })).to.match(/^HardhatNetwork\//);
        const counter = await connection.viem.deployContract("Counter");
        await counter.write.increment();
        expect(await counter.read.count()).to.equal(1n);
        await connection.networkHelpers.mine(2);
        expect(await connection.networkHelpers.time.latestBlock()).to.equal(4);
        expect(connection.preconf.chain.latest.block.header.number).to.equal(4n);
      } finally {
        await connection.close();
      }
    });
  }

  it("Hardhat's requests sign typed data for any domain, as Hardhat's node does; the in-process provider (a dapp's) keeps MetaMask's rule", async () => {
    const hre = await createHardhatRuntimeEnvironment(configWith([hardhatPreconf]));
    const connection = await hre.network.create("chain");
    try {
      const [from] = (await connection.provider.request({ method: "eth_accounts" })) as string[];
      const typed = {
        types: { EIP712Domain: [{ name: "chainId", type: "uint256" }], Mail: [{ name: "contents", type: "string" }] },
        primaryType: "Mail",
        domain: { chainId: 1 },
        message: { contents: "for mainnet, on purpose" },
      };
      // A suite signs for chain 1 to see a contract on 31337 refuse it (docs/wallet-personalities.md).
      expect(await connection.provider.request({ method: "eth_signTypedData_v4", params: [from, typed] })).to.match(/^0x[0-9a-f]{130}$/);
      const refused = await connection.preconf
        .request({ method: "eth_signTypedData_v4", params: [from, typed] })
        .catch((error: { code: number; message: string }) => error);
      expect(refused).to.deep.include({ code: -32603, message: 'Provided chainId "1" must match the active chainId "31337"' });
    } finally {
      await connection.close();
    }
  });

  it("resolves the preconf block with defaults", async () => {
    const hre = await createHardhatRuntimeEnvironment(configWith([hardhatPreconf], { fragmentsPerBlock: 4 }));
    const resolved = hre.config.networks.chain;
    expect(resolved?.type === "http" && resolved.preconf).to.deep.include({
      fragmentIntervalMs: 200,
      fragmentsPerBlock: 4,
      mining: "interval",
      chainId: 31337,
      clock: "real",
      walletPolicy: "approve",
    });
  });

  it("gives every connection its own chain, closed with it", async () => {
    const hre = await createHardhatRuntimeEnvironment(configWith([hardhatPreconf]));
    const first = await hre.network.create("chain");
    const second = await hre.network.create("chain");
    expect(first.preconf).to.not.equal(second.preconf);
    await first.provider.request({ method: "evm_mine" });
    expect(await second.provider.request({ method: "eth_blockNumber" })).to.equal("0x0");
    const provider = first.preconf;
    await first.close();
    expect(provider.closed).to.equal(true);
    await second.close();
  });

  it("passes chainId, fragment schedule and accounts to the provider", async () => {
    const key = `0x${"11".repeat(32)}` as const;
    const hre = await createHardhatRuntimeEnvironment(
      configWith([hardhatPreconf], { chainId: 8453, fragmentIntervalMs: 250, accounts: [{ privateKey: key, balance: "1000" }] }),
    );
    const connection = await hre.network.create("chain");
    try {
      expect(await connection.provider.request({ method: "eth_chainId" })).to.equal("0x2105");
      expect(connection.preconf.preconf.fragmentIntervalMs).to.equal(250);
      const [account] = (await connection.provider.request({ method: "eth_accounts" })) as string[];
      expect(await connection.provider.request({ method: "eth_getBalance", params: [account, "latest"] })).to.equal("0x3e8");
    } finally {
      await connection.close();
    }
  });

  it("refuses an invalid preconf block at load, naming the field and the reason", async () => {
    const message = await loadError(configWith([hardhatPreconf], { fragmentIntervalMs: -5 }));
    expect(message).to.include("networks.chain.preconf.fragmentIntervalMs");
    expect(message).to.match(/greater than 0/);

    const unknown = await loadError({
      ...configWith([hardhatPreconf]),
      networks: { chain: { type: "http", url: "http://preconf.invalid", preconf: { clock: "fake", fragmentIntervall: 100 } as PreconfNetworkUserConfig } },
    });
    expect(unknown).to.include("networks.chain.preconf").and.include('"fragmentIntervall"');

    const mode = await loadError(configWith([hardhatPreconf], { mining: "sometimes" as "auto" }));
    expect(mode).to.include("networks.chain.preconf.mining");
  });

  it("refuses conflicting chain ids and Hardhat-side accounts on a preconf network", async () => {
    const chainIds = await loadError({
      ...configWith([hardhatPreconf]),
      networks: { chain: { type: "http", url: "http://preconf.invalid", chainId: 1, preconf: { chainId: 2 } } },
    });
    expect(chainIds).to.include("networks.chain.preconf.chainId");
    const accounts = await loadError({
      ...configWith([hardhatPreconf]),
      networks: { chain: { type: "http", url: "http://preconf.invalid", accounts: [`0x${"11".repeat(32)}`], preconf: {} } },
    });
    expect(accounts).to.include("networks.chain.accounts").and.include("preconf.accounts");
  });

  it("leaves other networks alone, and says so when connection.preconf is read there", async () => {
    const hre = await createHardhatRuntimeEnvironment(configWith([hardhatPreconf]));
    const connection = await hre.network.create("default");
    try {
      expect(await connection.provider.request({ method: "eth_chainId" })).to.equal("0x7a69");
      expect(() => connection.preconf).to.throw(/only available on hardhat-preconf networks/);
    } finally {
      await connection.close();
    }
  });

  it("declares the `preconf node` task with every setting of `preconf node` (src/cli/flags.ts), under Hardhat's camelCase names", async () => {
    const hre = await createHardhatRuntimeEnvironment(configWith([hardhatPreconf]));
    const task = hre.tasks.getTask(["preconf", "node"]);
    const { TASK_FLAGS, taskOptionName } = await import("../src/cli/flags.ts");
    expect([...task.options.keys()].sort()).to.deep.equal(TASK_FLAGS.map(taskOptionName).sort());
    for (const name of ["host", "port", "cors", "blockTime", "gasLimit", "state", "stateInterval", "forkUrl", "quiet", "json", "printConfig"])
      expect(task.options.has(name), name).to.equal(true);
    // Hardhat's own global options keep their names: -v/--verbosity, --network, --init.
    for (const name of ["verbose", "network", "genesis"]) expect(task.options.has(name), name).to.equal(false);
  });

  it("`hardhat preconf node` takes the same settings as `preconf node`, over the network's preconf block", async function () {
    this.timeout(120_000);
    const { execFile } = await import("node:child_process");
    const run = (args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(process.execPath, ["node_modules/hardhat/dist/src/cli.js", "preconf", "node", ...args], { cwd: ROOT }, (error, stdout, stderr) =>
          resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr }),
        ),
      );
    const printed = await run(["--network", "preconf", "--print-config", "--gas-limit", "40000000", "--block-time", "1", "--order", "fifo"]);
    expect(printed.stderr).to.equal("");
    const config = JSON.parse(printed.stdout) as { chain: Record<string, unknown>; mining: Record<string, unknown> };
    expect(config.chain).to.include({ blockGasLimit: "40000000", chainId: "31337" });
    expect(config.mining).to.include({ fragmentIntervalMs: 100, fragmentsPerBlock: 10, order: "fifo" });
    const refused = await run(["--network", "preconf", "--port", "99999"]);
    expect(refused.code).to.not.equal(0);
    expect(refused.stderr).to.include('--port must be an integer from 0 to 65535, got "99999"');
  });
});
