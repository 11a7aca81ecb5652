/**
 * The header of a block being opened (execution/openBlock.ts), as a copy of one the constructor
 * built earlier on the same Common. Under automine every tx opens a block, and BlockHeader's
 * constructor converts each field (every bigint through hex and bytes, every hex string through a
 * regular expression), looks up the London and DAO blocks and re-validates what an earlier header
 * with the same Common passed (~40 µs a block on the bench machine).
 *
 * Patch (@ethereumjs/block 10.1.3, BlockHeader): a header is a frozen object of own fields, plus
 * `common`, `keccakFunction` and a `cache` of its hash; every method reads only those (as
 * sealedHeader.ts relies on). What the constructor derives from its Common alone (the hardfork's
 * default fields, the hash function) is the same for every header built on one Common object (a
 * shared one, sharedCommon.ts, is rebuilt when the hardfork moves) from data with the same fields:
 * the copy takes those from the template, and the given fields converted as `toType` converts them.
 * The checks that depend on the given values (lengths of the 32-byte fields, non-negative
 * integers, the London and DAO blocks' special cases) send the data to the constructor instead,
 * which builds it or throws its own error. test/ethereumjs.test.ts fails if a copy stops being
 * equal, field for field and in its hash and encoding, to the header the constructor builds.
 */
import { BlockHeader, createBlockHeader } from "@ethereumjs/block";
import { Hardfork } from "@ethereumjs/common";
import { Address, hexToBytes } from "@ethereumjs/util";

import type { HeaderData } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";

interface Template {
  header: BlockHeader;
  /** The Common's hardfork when the template was built: the defaults are that hardfork's. */
  hardfork: string;
  london: bigint | null;
  dao: bigint | null;
}

/**
 * Per Common (held weakly: it goes with its chain or hardfork), one template per set of given
 * fields (a bit per field of FIELDS): the few shapes openBlock.ts builds (with or without blob
 * gas, extraData, a beacon root), so each Common holds a handful at most.
 */
const templates = new WeakMap<Common, Map<number, Template>>();

/** Headers built by the constructor and copied from a template (test/ethereumjs.test.ts counts them). */
export const openedHeaderCounts = { constructed: 0, copied: 0 };

/** The fields a copy may take from the data; any other sends it to the constructor. */
const FIELDS = [
  "number",
  "parentHash",
  "timestamp",
  "gasLimit",
  "baseFeePerGas",
  "coinbase",
  "mixHash",
  "difficulty",
  "excessBlobGas",
  "blobGasUsed",
  "extraData",
  "parentBeaconBlockRoot",
] as const;
const BIT = new Map<string, number>(FIELDS.map((field, index) => [field, 1 << index]));

/** The constructor's own fields, in its order: a template with others is never copied. */
const OWN_FIELDS =
  "cache,common,keccakFunction,parentHash,uncleHash,coinbase,stateRoot,transactionsTrie,receiptTrie,logsBloom,difficulty,number,gasLimit,gasUsed,timestamp,extraData,mixHash,nonce,baseFeePerGas,withdrawalsRoot,blobGasUsed,excessBlobGas,parentBeaconBlockRoot,requestsHash,blockAccessListHash,slotNumber";

/** `createBlockHeader(data, opts)`, copied from an earlier header of `opts.common` where that gives the same header. */
export function openedHeader(data: HeaderData, opts: { common: Common; skipConsensusFormatValidation: true }): BlockHeader {
  let shape = 0;
  for (const key in data) {
    if ((data as Record<string, unknown>)[key] === undefined) continue;
    const bit = BIT.get(key);
    if (bit === undefined) {
      shape = -1;
      break;
    }
    shape |= bit;
  }
  let byShape = templates.get(opts.common);
  const template = shape < 0 ? undefined : byShape?.get(shape);
  const copy = template === undefined ? undefined : copyOrNot(template.header as unknown as Own, data as Given, template);
  if (copy !== undefined) {
    openedHeaderCounts.copied++;
    return copy;
  }
  const header = createBlockHeader(data, opts);
  openedHeaderCounts.constructed++;
  if (template === undefined && shape >= 0 && Object.keys(header).join(",") === OWN_FIELDS) {
    if (byShape === undefined) {
      byShape = new Map();
      templates.set(opts.common, byShape);
    }
    byShape.set(shape, {
      header,
      hardfork: header.common.hardfork(),
      london: header.common.hardforkBlock(Hardfork.London),
      dao: header.common.hardforkBlock(Hardfork.Dao),
    });
  }
  return header;
}

/** A header's own fields (OWN_FIELDS). */
interface Own {
  common: Common;
  keccakFunction: unknown;
  parentHash: Uint8Array;
  uncleHash: Uint8Array;
  coinbase: Address;
  stateRoot: Uint8Array;
  transactionsTrie: Uint8Array;
  receiptTrie: Uint8Array;
  logsBloom: Uint8Array;
  difficulty: bigint;
  number: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  timestamp: bigint;
  extraData: Uint8Array;
  mixHash: Uint8Array;
  nonce: Uint8Array;
  baseFeePerGas: bigint | undefined;
  withdrawalsRoot: Uint8Array | undefined;
  blobGasUsed: bigint | undefined;
  excessBlobGas: bigint | undefined;
  parentBeaconBlockRoot: Uint8Array | undefined;
  requestsHash: Uint8Array | undefined;
  blockAccessListHash: Uint8Array | undefined;
  slotNumber: bigint | undefined;
}

/** What FIELDS may be given as. */
type Given = Partial<Record<(typeof FIELDS)[number], unknown>>;

/** `copy`, or undefined where a conversion throws: the constructor throws its own error then. */
function copyOrNot(template: Own, data: Given, meta: Template): BlockHeader | undefined {
  try {
    return copy(template, data, meta);
  } catch {
    return undefined;
  }
}

/** The non-negative bigint `toType(value, BigInt)` answers, the template's when not given; null where only the constructor may decide. */
function bigintOf(value: unknown, kept: bigint | undefined): bigint | undefined | null {
  if (value === undefined) return kept;
  return typeof value === "bigint" && value >= 0n ? value : null;
}

/**
 * The bytes `toType(value, Uint8Array)` answers (a copy of given bytes; util's `hexToBytes` throws
 * for exactly the strings `isHexString` refuses: no 0x, a character not hex), a fresh copy of the
 * template's when not given; null where only the constructor may decide.
 */
function bytesOf(value: unknown, kept: Uint8Array | undefined, length?: number): Uint8Array | undefined | null {
  const bytes =
    value === undefined ? kept?.slice() : typeof value === "string" ? hexToBytes(value as `0x${string}`) : value instanceof Uint8Array ? value.slice() : null;
  return length !== undefined && bytes !== undefined && bytes !== null && bytes.length !== length ? null : bytes;
}

/** The header the constructor builds from `data` on the template's Common, or undefined where only it may decide. */
function copy(template: Own, data: Given, meta: Template): BlockHeader | undefined {
  if (template.common.hardfork() !== meta.hardfork) return undefined;
  const number = bigintOf(data.number, undefined);
  // The default base fee depends on the number (the London block's is the initial one), and the
  // London block must have the initial base fee, the DAO fork's first ten blocks its extraData.
  if (number === undefined || number === null || data.baseFeePerGas === undefined || data.coinbase === undefined) return undefined;
  if (number === meta.london || (meta.dao !== null && number >= meta.dao && number - meta.dao <= 9n)) return undefined;
  const parentHash = bytesOf(data.parentHash, template.parentHash, 32);
  const mixHash = bytesOf(data.mixHash, template.mixHash, 32);
  const parentBeaconBlockRoot = bytesOf(data.parentBeaconBlockRoot, template.parentBeaconBlockRoot, 32);
  const extraData = bytesOf(data.extraData, template.extraData);
  const timestamp = bigintOf(data.timestamp, template.timestamp);
  const gasLimit = bigintOf(data.gasLimit, template.gasLimit);
  const baseFeePerGas = bigintOf(data.baseFeePerGas, template.baseFeePerGas);
  const difficulty = bigintOf(data.difficulty, template.difficulty);
  const excessBlobGas = bigintOf(data.excessBlobGas, template.excessBlobGas);
  const blobGasUsed = bigintOf(data.blobGasUsed, template.blobGasUsed);
  if (parentHash === null || mixHash === null || parentBeaconBlockRoot === null || extraData === null) return undefined;
  if (timestamp === null || gasLimit === null || baseFeePerGas === null || difficulty === null || excessBlobGas === null || blobGasUsed === null)
    return undefined;
  // gasUsed is the template's (no data here gives it): the constructor refuses more than the limit.
  if (template.gasUsed > gasLimit!) return undefined;
  const coinbase = new Address(hexToBytes(data.coinbase as `0x${string}`));
  const header = Object.create(BlockHeader.prototype) as Own & { cache: { hash: undefined } };
  header.cache = { hash: undefined };
  header.common = template.common;
  header.keccakFunction = template.keccakFunction;
  header.parentHash = parentHash!;
  header.uncleHash = template.uncleHash.slice();
  header.coinbase = coinbase;
  header.stateRoot = template.stateRoot.slice();
  header.transactionsTrie = template.transactionsTrie.slice();
  header.receiptTrie = template.receiptTrie.slice();
  header.logsBloom = template.logsBloom.slice();
  header.difficulty = difficulty!;
  header.number = number;
  header.gasLimit = gasLimit!;
  header.gasUsed = template.gasUsed;
  header.timestamp = timestamp!;
  header.extraData = extraData!;
  header.mixHash = mixHash!;
  header.nonce = template.nonce.slice();
  header.baseFeePerGas = baseFeePerGas;
  header.withdrawalsRoot = template.withdrawalsRoot?.slice();
  header.blobGasUsed = blobGasUsed;
  header.excessBlobGas = excessBlobGas;
  header.parentBeaconBlockRoot = parentBeaconBlockRoot;
  header.requestsHash = template.requestsHash?.slice();
  header.blockAccessListHash = template.blockAccessListHash?.slice();
  header.slotNumber = template.slotNumber;
  return Object.freeze(header) as unknown as BlockHeader;
}
