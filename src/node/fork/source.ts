/**
 * What a fork reads from its upstream, pinned at the fork block: accounts, code, storage, block
 * hashes, and the blocks, txs, receipts and logs at or below the fork block. Every answer at a
 * pinned block never changes, so each is cached: in memory always, and on disk when a cache
 * directory is given (one file per chain id and fork block, as anvil's RPC cache keeps
 * `~/.foundry/cache/rpc/<chain>/<block>`), so that a second run asks the upstream nothing.
 *
 * The disk file is JSON lines, `[key, answer]`, appended as answers arrive: a run that is killed
 * keeps what it read. The upstream's chain id is remembered per URL (by its SHA-256, never the URL
 * itself: URLs carry API keys), so a second run with a fork block number needs no request at all.
 */
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { BYTES32_PATTERN } from "../common/hex.ts";
import { ForkUpstreamError, UpstreamClient } from "./upstream.ts";

import type { Hex } from "../common/types.ts";

export interface ForkOptions {
  /** The upstream's JSON-RPC URL (http or https). */
  url: string;
  /** The block to fork at; the upstream's latest block when absent. */
  blockNumber?: bigint | undefined;
  /** Extra HTTP headers sent to the upstream. */
  headers?: Record<string, string> | undefined;
  /** A directory for the disk cache; memory only when absent. */
  cacheDir?: string | undefined;
  /**
   * The upstream's chain id, when known: it is then not asked (anvil's `--fork-chain-id`), so a
   * run whose fork block is in the disk cache starts without the upstream.
   */
  chainId?: bigint | undefined;
  /** Retries of a failed upstream request (3), its first backoff (200 ms, doubled each time) and time limit (30 s). */
  retries?: number | undefined;
  retryBackoffMs?: number | undefined;
  timeoutMs?: number | undefined;
}

/** The upstream's block as eth_getBlockByNumber answers it (the fields the fork uses). */
export interface RpcBlock {
  number: Hex;
  hash: Hex;
  parentHash: Hex;
  timestamp: Hex;
  [field: string]: unknown;
}

export interface UpstreamAccount {
  nonce: bigint;
  balance: bigint;
  code: Hex;
}

const hex = (value: bigint) => `0x${value.toString(16)}` as Hex;
/** A cached answer's key: the call as it goes out. */
const keyOf = (method: string, params: unknown[]) => `${method} ${JSON.stringify(params).slice(1, -1)}`;

class AnswerCache {
  readonly #memory = new Map<string, Promise<unknown>>();
  readonly #file: string | undefined;

  constructor(file: string | undefined) {
    this.#file = file;
    if (file === undefined || !existsSync(file)) return;
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (line === "") continue;
      try {
        const [key, value] = JSON.parse(line) as [string, unknown];
        this.#memory.set(key, Promise.resolve(value));
      } catch {
        // A line cut short by a killed run: that answer is asked again.
      }
    }
  }

  get size(): number {
    return this.#memory.size;
  }

  /** The cached answer of `key`, or `fetch`'s (in flight once however many ask). */
  get(key: string, fetch: () => Promise<unknown>): Promise<unknown> {
    let answer = this.#memory.get(key);
    if (answer === undefined) {
      answer = fetch().then(
        (value) => {
          if (this.#file !== undefined) appendFileSync(this.#file, `${JSON.stringify([key, value])}\n`);
          return value;
        },
        (error: unknown) => {
          // A failure is not an answer: the next read asks again.
          this.#memory.delete(key);
          throw error;
        },
      );
      this.#memory.set(key, answer);
    }
    return answer;
  }
}

export class ForkSource {
  readonly client: UpstreamClient;
  readonly chainId: bigint;
  readonly blockNumber: bigint;
  readonly block: RpcBlock;
  readonly options: ForkOptions;
  readonly #cache: AnswerCache;

  private constructor(options: ForkOptions, client: UpstreamClient, chainId: bigint, blockNumber: bigint, cache: AnswerCache, block: RpcBlock) {
    this.options = options;
    this.client = client;
    this.chainId = chainId;
    this.blockNumber = blockNumber;
    this.#cache = cache;
    this.block = block;
  }

  /** Connects to the upstream (or its disk cache) and reads the fork block. */
  static async open(options: ForkOptions): Promise<ForkSource> {
    const client = new UpstreamClient({
      url: options.url,
      headers: options.headers,
      ...(options.retries !== undefined && { retries: options.retries }),
      ...(options.retryBackoffMs !== undefined && { backoffMs: options.retryBackoffMs }),
      ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    });
    const endpoints = options.cacheDir === undefined ? undefined : new EndpointIndex(options.cacheDir);
    const urlKey = createHash("sha256").update(options.url).digest("hex");
    const knownChainId = options.chainId ?? endpoints?.chainIdOf(urlKey);
    // What is needed is asked in one tick, so one batch: the chain id, the latest block number
    // (no block given) or else the fork block itself (unless the disk cache may hold it).
    const early =
      knownChainId === undefined && options.blockNumber !== undefined
        ? client.call<RpcBlock | null>("eth_getBlockByNumber", [hex(options.blockNumber), false])
        : undefined;
    early?.catch(() => {}); // its failure is reported where it is awaited (or by the chain id's)
    const [chainIdAnswer, latest] = await Promise.all([
      knownChainId === undefined ? client.call<Hex>("eth_chainId", []) : undefined,
      options.blockNumber === undefined ? client.call<Hex>("eth_blockNumber", []) : undefined,
    ]);
    const chainId = knownChainId ?? BigInt(chainIdAnswer!);
    if (knownChainId === undefined) endpoints?.remember(urlKey, chainId);
    const blockNumber = options.blockNumber ?? BigInt(latest!);
    let file: string | undefined;
    if (options.cacheDir !== undefined) {
      const dir = join(options.cacheDir, chainId.toString());
      mkdirSync(dir, { recursive: true });
      file = join(dir, `${blockNumber}.jsonl`);
    }
    const cache = new AnswerCache(file);
    const params = [hex(blockNumber), false];
    const block = (await cache.get(keyOf("eth_getBlockByNumber", params), () => early ?? client.call("eth_getBlockByNumber", params))) as RpcBlock | null;
    if (block === null) {
      const head = BigInt(await client.call<Hex>("eth_blockNumber", []));
      throw new ForkUpstreamError(`fork upstream ${client.origin} has no block ${blockNumber} (its latest is ${head})`);
    }
    // The fork block's hash is the chain's first block's and its next block's parent hash: 32 bytes of
    // hex, kept lowercase as every hash the chain makes (common/hex.ts flatHex), or the fork is refused.
    if (typeof block.hash !== "string" || !BYTES32_PATTERN.test(block.hash)) {
      throw new ForkUpstreamError(
        `fork upstream ${client.origin} answered block ${blockNumber} without a 32-byte hash: ${JSON.stringify(block.hash)?.slice(0, 80)}`,
      );
    }
    return new ForkSource(options, client, chainId, blockNumber, cache, { ...block, hash: block.hash.toLowerCase() as Hex });
  }

  /** A call whose answer never changes (state at the fork block, blocks and txs at or below it). */
  cached<T>(method: string, params: unknown[]): Promise<T> {
    return this.#cache.get(keyOf(method, params), () => this.client.call(method, params)) as Promise<T>;
  }

  /** An account at the fork block: three calls, which go out in one batch. */
  async account(address: Hex): Promise<UpstreamAccount> {
    const at = hex(this.blockNumber);
    const [balance, nonce, code] = await Promise.all([
      this.cached<Hex>("eth_getBalance", [address, at]),
      this.cached<Hex>("eth_getTransactionCount", [address, at]),
      this.cached<Hex>("eth_getCode", [address, at]),
    ]);
    return { balance: BigInt(balance), nonce: BigInt(nonce), code };
  }

  /** A storage slot at the fork block, as a 32-byte word. */
  storage(address: Hex, slot: Hex): Promise<Hex> {
    return this.cached<Hex>("eth_getStorageAt", [address, slot, hex(this.blockNumber)]);
  }

  /** The hash of an upstream block at or below the fork block (BLOCKHASH). */
  async blockHash(number: bigint): Promise<Hex> {
    if (number === this.blockNumber) return this.block.hash;
    const block = await this.cached<RpcBlock | null>("eth_getBlockByNumber", [hex(number), false]);
    if (block === null) throw new ForkUpstreamError(`fork upstream ${this.client.origin} has no block ${number}`);
    return block.hash;
  }
}

/** `<cacheDir>/endpoints.json`: the chain id of each upstream URL seen, keyed by the URL's SHA-256. */
class EndpointIndex {
  readonly #file: string;
  readonly #ids: Record<string, string>;

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true });
    this.#file = join(dir, "endpoints.json");
    let ids: Record<string, string> = {};
    try {
      ids = JSON.parse(readFileSync(this.#file, "utf8")) as Record<string, string>;
    } catch {
      // Absent or unreadable: the chain ids are asked again.
    }
    this.#ids = ids;
  }

  chainIdOf(urlKey: string): bigint | undefined {
    const id = this.#ids[urlKey];
    return typeof id === "string" && /^\d+$/.test(id) ? BigInt(id) : undefined;
  }

  remember(urlKey: string, chainId: bigint): void {
    this.#ids[urlKey] = chainId.toString();
    // Written beside and renamed: two runs starting at once never read half a file.
    const temp = `${this.#file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(this.#ids, null, 2));
    renameSync(temp, this.#file);
  }
}
