/**
 * eth_config (EIP-7910), as geth answers it (internal/ethapi/api.go `Config`): the configuration of
 * the head's fork, the next scheduled one and the last one, with EIP-2124's fork id.
 */
import { crc32 } from "node:zlib";

import { expect } from "chai";
import { hexToBytes, toHex } from "viem";

import { createTestChain, rpcError, START_MS } from "./helpers/chain.ts";

import type { PreconfProvider, PreconfProviderOptions } from "../src/index.ts";

type Config = {
  activationTime: number;
  blobSchedule: { baseFeeUpdateFraction: number; max: number; target: number } | null;
  chainId: string;
  forkId: string;
  precompiles: Record<string, string>;
  systemContracts: Record<string, string>;
};
type Answer = { current: Config; next: Config | null; last: Config | null };

const START_SECOND = START_MS / 1000;
const ETHEREUM_PRECOMPILES = {
  ECREC: "0x0000000000000000000000000000000000000001",
  SHA256: "0x0000000000000000000000000000000000000002",
  RIPEMD160: "0x0000000000000000000000000000000000000003",
  ID: "0x0000000000000000000000000000000000000004",
  MODEXP: "0x0000000000000000000000000000000000000005",
  BN254_ADD: "0x0000000000000000000000000000000000000006",
  BN254_MUL: "0x0000000000000000000000000000000000000007",
  BN254_PAIRING: "0x0000000000000000000000000000000000000008",
  BLAKE2F: "0x0000000000000000000000000000000000000009",
  KZG_POINT_EVALUATION: "0x000000000000000000000000000000000000000a",
  BLS12_G1ADD: "0x000000000000000000000000000000000000000b",
  BLS12_G1MSM: "0x000000000000000000000000000000000000000c",
  BLS12_G2ADD: "0x000000000000000000000000000000000000000d",
  BLS12_G2MSM: "0x000000000000000000000000000000000000000e",
  BLS12_PAIRING_CHECK: "0x000000000000000000000000000000000000000f",
  BLS12_MAP_FP_TO_G1: "0x0000000000000000000000000000000000000010",
  BLS12_MAP_FP2_TO_G2: "0x0000000000000000000000000000000000000011",
};
const P256VERIFY = { P256VERIFY: "0x0000000000000000000000000000000000000100" };
/** EIP-7910's sample (Hoodi's Prague) names and addresses; the deposit contract is mainnet's. */
const PRAGUE_SYSTEM_CONTRACTS = {
  BEACON_ROOTS_ADDRESS: "0x000f3df6d732807ef1319fb7b8bb8522d0beac02",
  CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS: "0x0000bbddc7ce488642fb579f8b00f3a590007251",
  DEPOSIT_CONTRACT_ADDRESS: "0x00000000219ab540356cbb839cbe05303d7705fa",
  HISTORY_STORAGE_ADDRESS: "0x0000f90827f1c53a10cb7a02335b175320002935",
  WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS: "0x00000961ef480eb55e80d19ad83579a64c007002",
};

async function configOf(options: PreconfProviderOptions): Promise<{ provider: PreconfProvider; answer: Answer }> {
  const { provider } = await createTestChain({ mining: "manual", ...options });
  return { provider, answer: (await provider.request({ method: "eth_config" })) as Answer };
}

/** EIP-2124's fork hash: CRC32 of the genesis hash, updated with each passed fork time as 8 big-endian bytes. */
async function forkId(provider: PreconfProvider, times: number[] = []): Promise<string> {
  const genesis = (await provider.request({ method: "eth_getBlockByNumber", params: ["0x0", false] })) as { hash: `0x${string}` };
  let hash = crc32(hexToBytes(genesis.hash));
  for (const time of times) hash = crc32(hexToBytes(toHex(BigInt(time), { size: 8 })), hash);
  return toHex(hash, { size: 4 });
}

describe("eth_config (EIP-7910)", () => {
  it("dev: Osaka from the genesis, no fork scheduled", async () => {
    const { provider, answer } = await configOf({});
    expect(answer).to.deep.equal({
      current: {
        activationTime: 0,
        blobSchedule: { baseFeeUpdateFraction: 5007716, max: 9, target: 6 },
        chainId: "0x7a69",
        forkId: await forkId(provider),
        precompiles: { ...ETHEREUM_PRECOMPILES, ...P256VERIFY },
        systemContracts: PRAGUE_SYSTEM_CONTRACTS,
      },
      next: null,
      last: null,
    });
    await provider.close();
  });

  it("a fork scheduled at a time is next, with its time and fork id, until the head reaches it", async () => {
    const at = START_SECOND + 3;
    const { provider, answer } = await configOf({ hardfork: "prague", forkSchedule: { osaka: { timestamp: at } } });
    expect(answer.current.precompiles).to.deep.equal(ETHEREUM_PRECOMPILES);
    expect(answer.current.forkId).to.equal(await forkId(provider));
    expect(answer.next).to.deep.include({ activationTime: at, forkId: await forkId(provider, [at]), precompiles: { ...ETHEREUM_PRECOMPILES, ...P256VERIFY } });
    expect(answer.last).to.deep.equal(answer.next);
    // Blocks at +1 s, +2 s (Prague), then +3 s: Osaka.
    for (let i = 0; i < 3; i++) await provider.preconf.seal();
    const after = (await provider.request({ method: "eth_config" })) as Answer;
    expect(after.current).to.deep.equal(answer.next);
    expect([after.next, after.last]).to.deep.equal([null, null]);
    await provider.close();
  });

  it("a fork scheduled at a block has no known time before that block (left out), its block's time after", async () => {
    const { provider, answer } = await configOf({ hardfork: "prague", forkSchedule: { osaka: { block: 2 } } });
    expect([answer.next, answer.last]).to.deep.equal([null, null]);
    await provider.preconf.seal();
    await provider.preconf.seal();
    const second = (await provider.request({ method: "eth_getBlockByNumber", params: ["0x2", false] })) as { timestamp: `0x${string}` };
    const after = (await provider.request({ method: "eth_config" })) as Answer;
    expect(after.current.activationTime).to.equal(Number(second.timestamp));
    expect(after.current.precompiles).to.include(P256VERIFY);
    await provider.close();
  });

  it("OP chains: their precompiles (P256VERIFY) and system contracts (EIP-4788's and EIP-2935's only)", async () => {
    for (const [profile, chainId] of [
      ["base", "0x2105"],
      ["optimism", "0xa"],
      ["unichain", "0x82"],
    ] as const) {
      const { provider, answer } = await configOf({ profile });
      expect(answer.current, profile).to.deep.include({ activationTime: 0, chainId, precompiles: { ...ETHEREUM_PRECOMPILES, ...P256VERIFY } });
      expect(answer.current.systemContracts, profile).to.deep.equal({
        BEACON_ROOTS_ADDRESS: PRAGUE_SYSTEM_CONTRACTS.BEACON_ROOTS_ADDRESS,
        HISTORY_STORAGE_ADDRESS: PRAGUE_SYSTEM_CONTRACTS.HISTORY_STORAGE_ADDRESS,
      });
      await provider.close();
    }
    // OP Mainnet before Karst: Jovian's RIP-7212 P256VERIFY is listed too.
    const { provider, answer } = await configOf({ profile: "optimism", hardfork: "jovian" });
    expect(answer.current.precompiles).to.include(P256VERIFY);
    await provider.close();
  });

  it("Base answers it from Azul on: before, -32601", async () => {
    const { provider } = await createTestChain({ profile: "base", hardfork: "jovian" });
    expect(await rpcError(provider, "eth_config", [])).to.deep.include({ code: -32601, message: "Method not found" });
    await provider.close();
  });
});
