/** `eth_config` (EIP-7910): the chain's current, next and last fork configurations (node/profiles/forkConfig.ts). */
import { bigIntToHex, bytesToHex, hexToBytes } from "@ethereumjs/util";

import { forkConfigs } from "../node/profiles/forkConfig.ts";
import { ErrorCode, RpcError } from "./errors.ts";

import type { ForkConfig } from "../node/profiles/forkConfig.ts";
import type { MethodContext } from "./context.ts";

/** JSON numbers for `activationTime` and the blob schedule, a quantity for the chain id, 4 bytes for the fork id (EIP-7910; geth's encoding). */
function formatConfig(config: ForkConfig | null): Record<string, unknown> | null {
  if (config === null) return null;
  return {
    activationTime: Number(config.activationTime),
    blobSchedule: config.blobSchedule,
    chainId: bigIntToHex(config.chainId),
    forkId: bytesToHex(config.forkId),
    precompiles: config.precompiles,
    systemContracts: config.systemContracts,
  };
}

export function ethConfig(ctx: MethodContext): Record<string, unknown> {
  const { chain } = ctx;
  const head = chain.latest.block.header;
  const current = chain.schedule.at(head.number, head.timestamp);
  // Base answers eth_config from Azul on (docs/profiles.md); every other ladder from its start.
  if (!current.rules.ethConfig) {
    throw new RpcError(ErrorCode.methodNotFound, "Method not found", {
      method: "eth_config",
      reason: `not served before this chain's Osaka fork (it runs ${current.name})`,
    });
  }
  // A fork's first block is its genesis (its upstream's first block here: the fork block).
  const first = chain.sealedByNumber(0n) ?? chain.latest;
  const configs = forkConfigs({
    schedule: chain.schedule,
    chainId: chain.chainId,
    genesisHash: hexToBytes(first.hash),
    genesisTime: first.block.header.timestamp,
    head: { number: head.number, timestamp: head.timestamp },
    activatedAt: (fork) => {
      const activation = chain.schedule.scheduled.get(fork.index);
      if (activation?.block === undefined || activation.block > head.number) return undefined;
      return chain.sealedByNumber(activation.block)?.block.header.timestamp;
    },
  });
  return { current: formatConfig(configs.current), next: formatConfig(configs.next), last: formatConfig(configs.last) };
}
