/**
 * The raw flashblocks feed on the server's `/ws` path, as Base's infrastructure stream sends it
 * (wss://mainnet.flashblocks.base.org/ws; docs.base.org "Flashblocks WebSocket reference"): one
 * message per flashblock, `{ payload_id, index, base (index 0 only), diff, metadata }` in
 * snake_case (base/base crates/alloy/flashblocks/src/payload.rs). Text JSON frames by default;
 * `/ws?compress=brotli` sends each message Brotli-compressed in a binary frame, as Base does.
 * The feed is read-only: messages from clients are ignored.
 */
import { brotliCompressSync } from "node:zlib";

import { bigIntToHex, bytesToHex, intToHex, KECCAK256_RLP } from "@ethereumjs/util";
import { WebSocketServer } from "ws";

import { DEPOSIT_TX_TYPE } from "../node/opstack/deposit.ts";
import { ZERO_HASH } from "../node/chain/records.ts";

import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { WebSocket } from "ws";
import type { Flashblock, PendingFeed } from "../node/pool/pendingFeed.ts";
import type { TxRecord } from "../node/chain/records.ts";

const q = (value: bigint) => bigIntToHex(value);

/** reth's consensus receipt (`OpReceipt`) variants by tx type, as the feed's metadata keys them. */
const RECEIPT_VARIANTS: Record<number, string> = { 0: "Legacy", 1: "Eip2930", 2: "Eip1559", 3: "Eip4844", 4: "Eip7702", [DEPOSIT_TX_TYPE]: "Deposit" };

function consensusReceipt(record: TxRecord): Record<string, unknown> {
  const variant = RECEIPT_VARIANTS[record.tx.type] ?? `Type${record.tx.type}`;
  return {
    [variant]: {
      status: intToHex(record.status),
      cumulativeGasUsed: q(record.cumulativeGasUsed),
      logs: record.logs.map((log) => ({ address: log.address, topics: log.topics, data: log.data })),
    },
  };
}

/**
 * One flashblock in Base's wire format. Roots and the block hash are not computed before the
 * seal: they are 32 zero bytes, as builders that skip the state root send them.
 */
export function formatRawFlashblock({ fragment, block }: Flashblock): Record<string, unknown> {
  const { base } = fragment;
  return {
    payload_id: fragment.payloadId,
    index: fragment.index,
    ...(base !== undefined && {
      base: {
        parent_beacon_block_root: ZERO_HASH,
        parent_hash: base.parentHash,
        fee_recipient: base.feeRecipient,
        prev_randao: base.prevRandao,
        block_number: q(base.blockNumber),
        gas_limit: q(base.gasLimit),
        timestamp: q(base.timestamp),
        extra_data: base.extraData,
        base_fee_per_gas: q(base.baseFeePerGas),
      },
    }),
    diff: {
      state_root: ZERO_HASH,
      receipts_root: ZERO_HASH,
      logs_bloom: bytesToHex(block.logsBloom()),
      gas_used: q(fragment.cumulativeGasUsed),
      block_hash: ZERO_HASH,
      transactions: fragment.transactions.map((record) => bytesToHex(record.tx.serialize())),
      withdrawals: [],
      withdrawals_root: bytesToHex(KECCAK256_RLP),
    },
    // Base's Azul dropped receipts and balances from the metadata (docs.base.org specs/upgrades/azul/exec-engine).
    metadata: block.fork.rules.flashblockReceipts
      ? {
          block_number: Number(fragment.blockNumber),
          receipts: Object.fromEntries(fragment.transactions.map((record) => [record.hash, consensusReceipt(record)])),
          new_account_balances: Object.fromEntries([...(fragment.balances ?? [])].map(([address, balance]) => [address, q(balance)])),
        }
      : { block_number: Number(fragment.blockNumber), access_list: null },
  };
}

export interface RawFeedEndpoint {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): void;
}

/** Serves the raw feed to every client upgraded through `handleUpgrade`; clients that stop reading are dropped. */
export function rawFlashblocksFeed(feed: PendingFeed, limits: { maxBufferedBytes: number }): RawFeedEndpoint {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 });
  const clients = new Map<WebSocket, { brotli: boolean }>();
  const onFlashblock = (flashblock: Flashblock) => {
    if (clients.size === 0) return;
    const text = JSON.stringify(formatRawFlashblock(flashblock));
    let compressed: Buffer | undefined;
    for (const [socket, { brotli }] of clients) {
      if (socket.readyState !== socket.OPEN) continue;
      if (brotli) socket.send((compressed ??= brotliCompressSync(text)), { binary: true });
      else socket.send(text);
      if (limits.maxBufferedBytes > 0 && socket.bufferedAmount > limits.maxBufferedBytes) socket.terminate();
    }
  };
  const dropAll = () => {
    for (const ws of clients.keys()) ws.terminate();
  };
  feed.on("flashblock", onFlashblock);
  feed.on("dropConnections", dropAll);
  return {
    handleUpgrade(req, socket, head) {
      const brotli = new URL(req.url ?? "/", "http://localhost").searchParams.get("compress") === "brotli";
      wss.handleUpgrade(req, socket, head, (ws) => {
        clients.set(ws, { brotli });
        feed.balancesWanted++;
        ws.on("close", () => {
          if (clients.delete(ws)) feed.balancesWanted--;
        });
        ws.on("error", () => ws.terminate());
      });
    },
    close() {
      feed.off("flashblock", onFlashblock);
      feed.off("dropConnections", dropAll);
      dropAll();
      wss.close();
    },
  };
}
