/** Module augmentation: the `preconf` block of http networks, and `connection.preconf`. */
import "hardhat/types/config";
import "hardhat/types/network";

import type { PreconfNetworkConfig, PreconfNetworkUserConfig } from "./config.ts";
import type { PreconfProvider } from "../provider.ts";

declare module "hardhat/types/config" {
  interface HttpNetworkUserConfig {
    /** Serve this network in process with a hardhat-preconf chain (the `url` is then a placeholder). */
    preconf?: PreconfNetworkUserConfig;
  }

  interface HttpNetworkConfig {
    preconf?: PreconfNetworkConfig;
  }
}

declare module "hardhat/types/network" {
  interface NetworkConnection<ChainTypeT extends ChainType | string = DefaultChainType> {
    /**
     * The connection's hardhat-preconf provider itself: `preconf` (advance, fragment, seal,
     * setMining), `wallet` (policy, requests), `chain`, and `request` with object params, which
     * Hardhat's own provider refuses. Reading it on another network throws.
     */
    preconf: PreconfProvider;
  }
}
