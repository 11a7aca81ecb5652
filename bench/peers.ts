/**
 * The providers the bench compares, behind one small interface: ours (hardhat-preconf, fake clock),
 * Hardhat 3's EDR network in process, ganache 7 and tevm. Every one is driven through its EIP-1193
 * `request`, holds the Hardhat mnemonic's 20 accounts with 10,000 ETH each, and is imported lazily
 * so that the first creation in the process can be timed cold (import included).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

import { stopwatch } from "./timing.ts";

import type { FakeClock } from "../src/clock.ts";

export type PeerId = "ours" | "edr" | "ganache" | "tevm";
export const PEER_IDS: readonly PeerId[] = ["ours", "edr", "ganache", "tevm"];

export type Request = (method: string, params?: unknown[]) => Promise<unknown>;

export interface Instance {
  request: Request;
  /** Whether a sent tx is executed before `eth_sendRawTransaction` returns. */
  readonly automines: boolean;
  /** Whether pooled txs are executed in batches by `tick` (ours: a fragment executes the whole pool). */
  readonly batches: boolean;
  /** Moves the chain one step: ours one fragment of fake time, tevm one mined block. */
  tick(): Promise<void>;
  /** Makes everything executed so far part of `latest` (ours: seals the open block; others mine every tx already). */
  settle(): Promise<void>;
  /** Absent where the peer has no evm_snapshot / evm_revert (tevm). */
  snapshot?: () => Promise<unknown>;
  revert?: (id: unknown) => Promise<void>;
  close(): Promise<void>;
}

export interface CreateOptions {
  /** Ours only: Hardhat-style automine (the Hardhat plugin's `mining: "auto"`) instead of fragments. */
  automine?: boolean;
}

export interface Peer {
  id: PeerId;
  label: string;
  version: string;
  /** Chain id its txs are signed for. */
  chainId: number;
  create(options?: CreateOptions): Promise<Instance>;
  /** Peer-specific notes printed under the table. */
  note?: string;
  /** At most this many repetitions (tevm: one, or the bench takes an hour). */
  maxReps?: number;
}

const MNEMONIC = "test test test test test test test test test test test junk";
const ETHER = 10n ** 18n;
const BALANCE = 10_000n * ETHER;
const require = createRequire(import.meta.url);

/** A package's version from its package.json (some packages' `exports` hide it from require). */
export function packageVersion(name: string): string {
  try {
    const entry = require.resolve(name);
    for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
      try {
        const json = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string; version?: string };
        if (json.name === name) return json.version ?? "?";
      } catch {
        // not this directory
      }
    }
  } catch {
    // fall through
  }
  try {
    return (JSON.parse(readFileSync(join(process.cwd(), "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
  } catch {
    return "?";
  }
}

async function ours(): Promise<Peer> {
  const [{ createPreconfProvider }, FakeTimers] = await Promise.all([import("../src/index.ts"), import("@sinonjs/fake-timers")]);
  const version = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
  return {
    id: "ours",
    label: "hardhat-preconf",
    version,
    chainId: 31337,
    async create(options = {}) {
      const clock: FakeClock = FakeTimers.default.createClock(1_700_000_000_000);
      const provider = await createPreconfProvider({ clock });
      const request: Request = (method, params = []) => provider.request({ method, params });
      if (options.automine === true) await request("evm_setAutomine", [true]);
      return {
        request,
        automines: options.automine === true,
        batches: true,
        tick: () => provider.preconf.advance(),
        settle: async () => {
          await provider.preconf.seal();
        },
        snapshot: () => request("evm_snapshot"),
        revert: async (id) => {
          if ((await request("evm_revert", [id])) !== true) throw new Error("evm_revert failed");
        },
        close: () => provider.close(),
      };
    },
  };
}

async function edr(): Promise<Peer> {
  const { createHardhatRuntimeEnvironment } = await import("hardhat/hre");
  // A minimal config: one in-process EDR network, Hardhat's default mnemonic accounts (20 × 10,000 ETH).
  const hre = await createHardhatRuntimeEnvironment({
    networks: { bench: { type: "edr-simulated", chainId: 31337, hardfork: "prague", allowUnlimitedContractSize: false } },
  });
  return {
    id: "edr",
    label: "Hardhat 3 (EDR)",
    version: `hardhat ${packageVersion("hardhat")}, edr ${packageVersion("@nomicfoundation/edr")}`,
    chainId: 31337,
    async create() {
      const connection = await hre.network.connect({ network: "bench" });
      return automineSession(
        (method, params = []) => connection.provider.request({ method, params }),
        () => connection.close(),
      );
    },
  };
}

/** A peer that mines every tx at once and has Hardhat's evm_mine / evm_snapshot / evm_revert. */
function automineSession(request: Request, close: () => Promise<void>): Instance {
  return {
    request,
    automines: true,
    batches: false,
    tick: async () => {
      await request("evm_mine");
    },
    settle: async () => {},
    snapshot: () => request("evm_snapshot"),
    revert: async (id) => {
      if ((await request("evm_revert", [id])) !== true) throw new Error("evm_revert failed");
    },
    close,
  };
}

async function ganache(): Promise<Peer> {
  // ganache's optional uWS addon complains on stderr when it is not built for this Node; it is
  // only used by ganache's server, not by the in-process provider.
  const { error, warn } = console;
  console.error = console.warn = () => {};
  const module = await import("ganache").finally(() => {
    console.error = error;
    console.warn = warn;
  });
  const Ganache = module.default;
  return {
    id: "ganache",
    label: "ganache",
    version: packageVersion("ganache"),
    chainId: 31337,
    async create() {
      const provider = Ganache.provider({
        logging: { quiet: true },
        chain: { chainId: 31337 },
        wallet: { mnemonic: MNEMONIC, totalAccounts: 20, defaultBalance: 10_000 },
      });
      return automineSession(
        (method, params = []) => provider.request({ method, params } as never),
        () => provider.disconnect(),
      );
    },
  };
}

async function tevm(): Promise<Peer> {
  const { createMemoryClient } = await import("tevm");
  const { accountsFromMnemonic } = await import("../src/node/common/accounts.ts");
  const accounts = accountsFromMnemonic(MNEMONIC, 20);
  return {
    id: "tevm",
    label: "tevm",
    version: packageVersion("tevm"),
    chainId: 0, // read from the node by loadPeer
    maxReps: 1,
    note:
      "tevm: eth_sendRawTransaction never automines (only tevm's own call/contract actions do), so the bench mines " +
      "with anvil_mine after each tx, as automine would; it runs one repetition per workload (it is 10-100× slower); it has no evm_snapshot and its " +
      "anvil_dumpState/loadState do not restore state, so W5 runs without the revert and W6's snapshot row is n/a. " +
      "Its chain id is 900 (anvil_setChainId does not reach tx validation): its txs are signed for 900.",
    async create() {
      const client = createMemoryClient({ miningConfig: { type: "auto" } });
      await client.tevmReady();
      // The node's own EIP-1193 request, without viem's client layer (retries, uid bookkeeping).
      const node = client.transport.tevm as unknown as { request(args: { method: string; params: unknown[] }): Promise<unknown> };
      const request: Request = (method, params = []) => node.request({ method, params });
      // Same keys as every other peer, with the same balance (tevm's default is 1,000 ETH).
      for (const { address } of accounts) await request("anvil_setBalance", [address, `0x${BALANCE.toString(16)}`]);
      return {
        request,
        automines: false,
        batches: false,
        tick: async () => {
          await request("anvil_mine", ["0x1"]);
        },
        settle: async () => {},
        close: async () => {},
      };
    },
  };
}

export const loaders: Record<PeerId, () => Promise<Peer>> = { ours, edr, ganache, tevm };

/** Loads a peer and times the first provider it creates: import + setup + first answer (cold). */
export async function loadPeer(id: PeerId): Promise<{ peer: Peer; coldMs: number; coldCpuMs: number }> {
  const elapsed = stopwatch();
  const peer = await loaders[id]();
  const instance = await peer.create();
  await instance.request("eth_blockNumber");
  const { ms: coldMs, cpuMs: coldCpuMs } = elapsed();
  // The chain id its txs must be signed for (tevm's is not configurable).
  peer.chainId = Number(await instance.request("eth_chainId"));
  await instance.close();
  return { peer, coldMs, coldCpuMs };
}
