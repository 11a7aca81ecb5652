/**
 * The sealed block's header as the header its txs executed against with what executing them
 * produced. Sealing otherwise runs BlockHeader's constructor a second time per block for the same
 * fields: it converts every one of them (each bigint through hex and bytes), re-derives the fork
 * defaults and validates what the open block's header already passed (~40 µs a block, an automined
 * block per tx).
 *
 * Patch (@ethereumjs/block 10.1.3, BlockHeader): a header is a frozen object of own fields, plus
 * `common`, `keccakFunction` and a `cache` of its hash; every method reads only those. The copy
 * gets the same own fields, a fresh `cache`, the sealed values (fresh byte arrays, as the
 * constructor copies its inputs), and is frozen as the constructor freezes it. Its hash, which the
 * seal asks for at once, is put in the cache as `hash()` computes it (keccak of the RLP of `raw()`),
 * the RLP written in one pass (trieNodeEncoding.ts) instead of an array per field concatenated.
 * test/ethereumjs.test.ts fails if a copy stops being equal, field for field and in its hash and
 * encoding, to the header the constructor builds from the same data.
 */
import { BlockHeader, createBlockHeader } from "@ethereumjs/block";
import { Hardfork } from "@ethereumjs/common";
import { Address } from "@ethereumjs/util";

import { encodeNode } from "./trieNodeEncoding.ts";

import type { Common } from "@ethereumjs/common";

/** What executing a block's txs decides of its header. */
export interface SealedFields {
  stateRoot: Uint8Array;
  transactionsTrie: Uint8Array;
  receiptTrie: Uint8Array;
  logsBloom: Uint8Array;
  gasUsed: bigint;
  /** Only where the header has the field (EIP-4844, or an OP chain's DA footprint). */
  blobGasUsed?: bigint;
  /** Only where the header has the field (EIP-7685). */
  requestsHash?: Uint8Array;
  /** Only where the header has the field (EIP-4895). */
  withdrawalsRoot?: Uint8Array;
}

/** `executed` with `sealed`'s fields; `executed` itself is unchanged. */
export function sealedHeader(executed: BlockHeader, sealed: SealedFields): BlockHeader {
  if (sealed.gasUsed > executed.gasLimit) throw new Error(`Invalid block: too much gas used. Used: ${sealed.gasUsed}, gas limit: ${executed.gasLimit}`);
  const header = copyHeader(executed);
  header.stateRoot = sealed.stateRoot.slice();
  header.transactionsTrie = sealed.transactionsTrie.slice();
  header.receiptTrie = sealed.receiptTrie.slice();
  header.logsBloom = sealed.logsBloom.slice();
  header.gasUsed = sealed.gasUsed;
  if (sealed.blobGasUsed !== undefined) header.blobGasUsed = sealed.blobGasUsed;
  if (sealed.requestsHash !== undefined) header.requestsHash = sealed.requestsHash.slice();
  if (sealed.withdrawalsRoot !== undefined) header.withdrawalsRoot = sealed.withdrawalsRoot.slice();
  header.cache.hash = header.keccakFunction(encodeNode((header as unknown as BlockHeader).raw()));
  Object.freeze(header);
  return header as unknown as BlockHeader;
}

/** The last header `executionHeader` built per shared Common (ethereumjs/sharedCommon.ts): one per Common, held weakly. */
const lastBuilt = new WeakMap<Common, BlockHeader>();

/** Headers `executionHeader` had the constructor build (test/ethereumjs.test.ts counts the ones it saves). */
export const executionHeaderBuilds = { count: 0 };

/** The header fields an open block sets (openBlock.ts headerDataOf); every other field takes its default. */
export interface ExecutionFields {
  number: bigint;
  parentHash: Uint8Array;
  timestamp: bigint;
  gasLimit: bigint;
  baseFeePerGas: bigint;
  coinbase: Uint8Array;
  mixHash: Uint8Array;
  /** Only where EIP-4844 is active (its blobGasUsed is then 0). */
  excessBlobGas?: bigint | undefined;
  extraData?: Uint8Array | undefined;
  /** Only where EIP-4788 is active. */
  parentBeaconBlockRoot?: Uint8Array | undefined;
}

/**
 * The header an open block's txs execute against, `createBlockHeader(fields, { common,
 * skipConsensusFormatValidation: true })` with difficulty 0 and every other field at its default.
 * The constructor converts every field (each bigint through bytes and back), looks the fork's
 * defaults up and validates, once per block (an automined block per tx). After the first header on
 * a shared Common, the next one is the last one's copy with these fields set: same Common, so the
 * same hardfork, the same fields present and the same defaults for those not set here (the last
 * header took them from this same Common: every header built here sets the same fields). The
 * validations that could fail on such fields are kept: a 32-byte parentHash, mixHash and
 * parentBeaconBlockRoot (the only ones set that it checks), the base fee of London's first block
 * and the DAO fork's extra data (the constructor builds those blocks), and the EIPs' field rules
 * (a Common without EIP-4844 given an excessBlobGas, or EIP-4788's root out of its fork: the
 * constructor again, for its errors).
 */
export function executionHeader(common: Common, fields: ExecutionFields): BlockHeader {
  const last = lastBuilt.get(common);
  if (last === undefined || !copiable(common, fields)) {
    executionHeaderBuilds.count++;
    const built = createBlockHeader(
      { ...fields, difficulty: 0n, ...(fields.excessBlobGas !== undefined && { blobGasUsed: 0n }) },
      { common, skipConsensusFormatValidation: true },
    );
    lastBuilt.set(common, built);
    return built;
  }
  const has4844 = common.isActivatedEIP(4844);
  const header = copyHeader(last);
  header.parentHash = fields.parentHash;
  header.coinbase = new Address(fields.coinbase);
  header.number = fields.number;
  header.gasLimit = fields.gasLimit;
  header.timestamp = fields.timestamp;
  header.extraData = fields.extraData ?? new Uint8Array(0);
  header.mixHash = fields.mixHash;
  header.baseFeePerGas = fields.baseFeePerGas;
  header.blobGasUsed = has4844 ? 0n : undefined;
  header.excessBlobGas = fields.excessBlobGas ?? (has4844 ? 0n : undefined);
  header.parentBeaconBlockRoot = fields.parentBeaconBlockRoot ?? (common.isActivatedEIP(4788) ? new Uint8Array(32) : undefined);
  Object.freeze(header);
  lastBuilt.set(common, header as unknown as BlockHeader);
  return header as unknown as BlockHeader;
}

/** Whether `fields` pass every check the constructor makes of them (see `executionHeader`), so a copy builds the same header. */
function copiable(common: Common, fields: ExecutionFields): boolean {
  if (fields.parentHash.length !== 32 || fields.mixHash.length !== 32 || fields.coinbase.length !== 20) return false;
  if (fields.excessBlobGas !== undefined && !common.isActivatedEIP(4844)) return false;
  if (fields.parentBeaconBlockRoot !== undefined && (!common.isActivatedEIP(4788) || fields.parentBeaconBlockRoot.length !== 32)) return false;
  if (!common.isActivatedEIP(1559)) return false;
  const { london, dao } = forkBlocksOf(common);
  if (london === fields.number) return false;
  // The DAO fork's first ten blocks must carry its extra data (header.js _validateDAOExtraData).
  return dao === null || dao === 0n || fields.number < dao || fields.number - dao > 9n;
}

/**
 * `header` with base fee 0, as `createBlockHeader({ ...header.toJSON(), baseFeePerGas: 0 }, { common:
 * header.common, skipConsensusFormatValidation: true })` builds it, without the constructor (~30 µs
 * a new block): the header a dry run without fee fields executes against (execution/dryRun.ts
 * `callBlock`, go-ethereum's NoBaseFee). Same patch as `sealedHeader`: the same own fields, a fresh
 * hash cache, frozen; it shares `header`'s Common as the constructor would (a shared Common answers
 * `copy()` with itself: sharedCommon.ts). test/ethereumjs.test.ts compares it with the constructor's.
 */
export function zeroBaseFeeHeader(header: BlockHeader): BlockHeader {
  const copy = copyHeader(header);
  copy.baseFeePerGas = 0n;
  return Object.freeze(copy) as unknown as BlockHeader;
}

/**
 * A new header (not frozen) with `source`'s own fields, a fresh hash cache, every field set in the
 * constructor's order: one object shape (copying a frozen header's fields with Object.assign cost
 * as much as running the constructor, measured: ~10 µs against ~1).
 */
function copyHeader(source: BlockHeader): HeaderFields {
  const from = source as unknown as HeaderFields;
  const header = Object.create(BlockHeader.prototype) as HeaderFields;
  header.cache = { hash: undefined };
  header.common = from.common;
  header.keccakFunction = from.keccakFunction;
  header.parentHash = from.parentHash;
  header.uncleHash = from.uncleHash;
  header.coinbase = from.coinbase;
  header.stateRoot = from.stateRoot;
  header.transactionsTrie = from.transactionsTrie;
  header.receiptTrie = from.receiptTrie;
  header.logsBloom = from.logsBloom;
  header.difficulty = from.difficulty;
  header.number = from.number;
  header.gasLimit = from.gasLimit;
  header.gasUsed = from.gasUsed;
  header.timestamp = from.timestamp;
  header.extraData = from.extraData;
  header.mixHash = from.mixHash;
  header.nonce = from.nonce;
  header.baseFeePerGas = from.baseFeePerGas;
  header.withdrawalsRoot = from.withdrawalsRoot;
  header.blobGasUsed = from.blobGasUsed;
  header.excessBlobGas = from.excessBlobGas;
  header.parentBeaconBlockRoot = from.parentBeaconBlockRoot;
  header.requestsHash = from.requestsHash;
  header.blockAccessListHash = from.blockAccessListHash;
  header.slotNumber = from.slotNumber;
  return header;
}

/** A header's own fields in 10.1.3 (header.js constructor); test/ethereumjs.test.ts compares the copy's keys with a built header's. */
type HeaderFields = Mutable<
  Pick<
    BlockHeader,
    | "common"
    | "parentHash"
    | "uncleHash"
    | "coinbase"
    | "stateRoot"
    | "transactionsTrie"
    | "receiptTrie"
    | "logsBloom"
    | "difficulty"
    | "number"
    | "gasLimit"
    | "gasUsed"
    | "timestamp"
    | "extraData"
    | "mixHash"
    | "nonce"
    | "baseFeePerGas"
    | "withdrawalsRoot"
    | "blobGasUsed"
    | "excessBlobGas"
    | "parentBeaconBlockRoot"
    | "requestsHash"
    | "blockAccessListHash"
    | "slotNumber"
  >
> & { cache: { hash: Uint8Array | undefined }; keccakFunction: (data: Uint8Array) => Uint8Array };
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * London's and the DAO fork's blocks per Common (a look-up through the hardfork list each,
 * ~0.5 µs): a Common's hardfork list never changes once made. One entry per Common, held weakly.
 */
const forkBlocks = new WeakMap<Common, { london: bigint | null; dao: bigint | null }>();

function forkBlocksOf(common: Common): { london: bigint | null; dao: bigint | null } {
  let blocks = forkBlocks.get(common);
  if (blocks === undefined) {
    blocks = { london: common.hardforkBlock(Hardfork.London), dao: common.hardforkBlock(Hardfork.Dao) };
    forkBlocks.set(common, blocks);
  }
  return blocks;
}
