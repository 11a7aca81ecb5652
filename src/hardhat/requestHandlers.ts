/**
 * What Hardhat's request handlers do on every network (hardhat/src/internal/builtin-plugins/
 * network-manager/request-handlers/handlers-array.ts), for the requests the plugin answers itself:
 * the network's `from` (or the node's first account), a fixed `gasPrice`, a fixed `gas`, and
 * automatic gas times `gasMultiplier`. Hardhat runs them in its own `onRequest` hook, which comes
 * after this plugin's in the chain, so they would never see a preconf network's requests.
 *
 * Where Hardhat's handler defers to the node (automatic gas price, automatic gas at multiplier 1)
 * the node fills the field in, as EDR does. The network's `chainId` is checked against the
 * `preconf` block when the config loads (hook-handlers/config.ts), so the chain-id handler has
 * nothing left to check. Pure: no Hardhat imports.
 */
export interface NetworkTxSettings {
  gas: "auto" | bigint;
  gasPrice: "auto" | bigint;
  gasMultiplier: number;
  from: string | undefined;
}

interface Requester {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

/** Hardhat's MultipliedGasEstimation: a multiplied estimate stays below 95 % of the block gas limit. */
const BLOCK_GAS_LIMIT_SAFETY_FACTOR = 0.95;

const SENDER_METHODS = new Set(["eth_sendTransaction", "eth_call", "eth_estimateGas"]);

const hex = (value: bigint | number) => `0x${value.toString(16)}`;

export class NetworkRequestHandlers {
  readonly #settings: NetworkTxSettings;
  readonly #node: Requester;
  #firstAccount: Promise<string | undefined> | undefined;

  constructor(settings: NetworkTxSettings, node: Requester) {
    this.#settings = settings;
    this.#node = node;
  }

  /** The params to answer `method` with: the caller's own, or a filled-in copy of its first (tx) param. */
  async apply(method: string, params: unknown): Promise<unknown> {
    if (!Array.isArray(params)) return params;
    const [first, ...rest] = params as unknown[];
    if (!SENDER_METHODS.has(method) || typeof first !== "object" || first === null || Array.isArray(first)) return params;
    const tx: Record<string, unknown> = { ...first };
    if (tx.from === undefined) {
      const from = this.#settings.from ?? (await this.#defaultSender());
      if (from !== undefined) tx.from = from;
    }
    if (method === "eth_sendTransaction") {
      const { gasPrice, gas } = this.#settings;
      if (gasPrice !== "auto" && tx.gasPrice === undefined && tx.maxFeePerGas === undefined && tx.maxPriorityFeePerGas === undefined) {
        tx.gasPrice = hex(gasPrice);
      }
      if (tx.gas === undefined) {
        if (gas !== "auto") tx.gas = hex(gas);
        else if (this.#settings.gasMultiplier !== 1) tx.gas = await this.#multipliedEstimate(tx);
      }
    }
    return [tx, ...rest];
  }

  /** Hardhat's AutomaticSenderHandler: the node's first account, asked once. */
  #defaultSender(): Promise<string | undefined> {
    this.#firstAccount ??= this.#node
      .request({ method: "eth_accounts" })
      .then((accounts) => (Array.isArray(accounts) && typeof accounts[0] === "string" ? accounts[0] : undefined));
    return this.#firstAccount;
  }

  /**
   * Hardhat's AutomaticGasHandler with a multiplier: the estimate times the multiplier, at most
   * 95 % of the block gas limit (less one). Estimated on `pending`, the state the node fills
   * eth_sendTransaction from; an estimation error (a revert) is the send's error.
   */
  async #multipliedEstimate(tx: Record<string, unknown>): Promise<string> {
    const estimate = Number(BigInt((await this.#node.request({ method: "eth_estimateGas", params: [tx, "pending"] })) as string));
    const block = (await this.#node.request({ method: "eth_getBlockByNumber", params: ["latest", false] })) as { gasLimit: string };
    const cap = Math.floor(Number(BigInt(block.gasLimit)) * BLOCK_GAS_LIMIT_SAFETY_FACTOR);
    const multiplied = Math.floor(estimate * this.#settings.gasMultiplier);
    return hex(multiplied > cap ? cap - 1 : multiplied);
  }
}
