/**
 * Row W7: a test file as a Hardhat 3 user writes it, through Hardhat's own network connection,
 * hardhat-viem and hardhat-network-helpers: `loadFixture` (deploy a token), a transfer and a read,
 * repeated. Ours is a `preconf` network of the plugin (`mining: "auto"`, fake clock); EDR is
 * Hardhat's in-process `edr-simulated` network. Both run the fixtures' committed artifacts
 * (fixtures/hardhat-artifacts, Prague) in one Hardhat runtime, so everything but the chain is the
 * same code.
 */
import { fileURLToPath } from "node:url";

import { check } from "./check.ts";
import { stopwatch } from "./timing.ts";

import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";
import type { Hex } from "viem";
import type { PeerId } from "./peers.ts";
import type { Sample } from "./workloads.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SUPPLY = 10n ** 24n;
const AMOUNT = 10n;

/** The network each peer runs on in the shared runtime; peers without one have no W7. */
const NETWORK: Partial<Record<PeerId, string>> = { ours: "preconf", edr: "edrBench" };

let runtime: Promise<HardhatRuntimeEnvironment> | undefined;

function hardhatRuntime(): Promise<HardhatRuntimeEnvironment> {
  runtime ??= (async () => {
    const [{ createHardhatRuntimeEnvironment }, { default: hardhatViem }, { default: hardhatNetworkHelpers }, { default: hardhatPreconf }] = await Promise.all([
      import("hardhat/hre"),
      import("@nomicfoundation/hardhat-viem"),
      import("@nomicfoundation/hardhat-network-helpers"),
      import("../src/hardhat/index.ts"),
    ]);
    return createHardhatRuntimeEnvironment(
      {
        plugins: [hardhatPreconf, hardhatViem, hardhatNetworkHelpers],
        paths: { artifacts: "fixtures/hardhat-artifacts" },
        networks: {
          preconf: { type: "http", url: "http://preconf.invalid", preconf: { clock: "fake", mining: "auto" } },
          edrBench: { type: "edr-simulated", chainId: 31337, hardfork: "prague" },
        },
      },
      {},
      ROOT,
    );
  })();
  return runtime;
}

export const hasHardhatRow = (peer: PeerId) => NETWORK[peer] !== undefined;

/** Checks the network runs what it claims (the fixture deploys code; balances move) and times `iterations` rounds. */
export async function hardhatTestFile(peer: PeerId, iterations: number): Promise<Sample | undefined> {
  const network = NETWORK[peer];
  if (network === undefined) return undefined;
  const hre = await hardhatRuntime();
  const connection = await hre.network.connect({ network });
  try {
    const { viem, networkHelpers } = connection;
    const [, holder] = await viem.getWalletClients();
    const to = holder!.account.address;
    async function deployToken(): Promise<{ token: TokenContract }> {
      return { token: (await viem.deployContract("Token", ["Token", "TOK", SUPPLY])) as unknown as TokenContract };
    }
    const elapsed = stopwatch();
    for (let i = 0; i < iterations; i++) {
      const { token } = await networkHelpers.loadFixture(deployToken);
      await token.write.transfer([to, AMOUNT]);
      // Each round starts from the fixture's state: exactly one transfer has happened.
      const balance = await token.read.balanceOf([to]);
      check(balance === AMOUNT, peer, `W7 balanceOf after the fixture and one transfer is ${balance}, expected ${AMOUNT}`);
    }
    const time = elapsed();
    // The fixture really deployed code at the tag the reads use.
    const { token } = await networkHelpers.loadFixture(deployToken);
    const code = (await connection.provider.request({ method: "eth_getCode", params: [token.address, "latest"] })) as string;
    check(code.length > 2, peer, "W7: no code at the token's address at latest");
    return time;
  } finally {
    await connection.close();
  }
}

interface TokenContract {
  address: Hex;
  write: { transfer(args: [Hex, bigint]): Promise<Hex> };
  read: { balanceOf(args: [Hex]): Promise<bigint> };
}
