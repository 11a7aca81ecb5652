/**
 * keccak-256 in WebAssembly of our own (src/node/common/keccak256.wat, emitted and assembled by
 * scripts/build-keccak-wasm.mjs): the chain's hash for trie nodes, keys, addresses, tx and block
 * hashes and the KECCAK256 opcode. One export call per hash, the input copied once into the module's
 * memory: ~3× the speed of the keccak addon's sponge on a trie node (three N-API crossings and two
 * Buffers per hash there) and of noble's JS (bench/benchmarks-notes.md, "keccak in WebAssembly").
 * The module is ~1.3 KB, compiled and instantiated synchronously on first use.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { abytes } from "@noble/hashes/utils.js";

import { KECCAK_DIGEST_AT, KECCAK_INPUT_AT, KECCAK_RATE, KECCAK_WASM } from "./keccakWasm.ts";

const PAGE = 65_536;

/** The parts of the WebAssembly JS API used here: the project's `lib` (ES2023, no DOM) does not declare it. */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Exports };
}

type Exports = { memory: { buffer: ArrayBuffer; grow(pages: number): number }; hash(length: number): void };

/**
 * Inputs up to this size are hashed by one instance kept for the process, whose memory grows to fit
 * the largest of them and stays at that size (WebAssembly memory never shrinks). A larger input
 * (an opcode's memory range under a high gas limit, a large web3_sha3) gets an instance of its own,
 * dropped after the hash, so that its size is not held for the life of the process; instantiating
 * the compiled module costs far less than hashing a megabyte.
 */
const RESIDENT_MAX = 1 << 20;

let hashWasm: ((message: Uint8Array) => Uint8Array) | undefined;

/** Hashing on one instance: the input copied into its memory, the digest copied out. */
function hasher({ memory, hash }: Exports): (message: Uint8Array) => Uint8Array {
  let heap = new Uint8Array(memory.buffer);
  return (message) => {
    const length = message.length;
    // The module pads the last block in place, after the input, so the memory holds the input and a
    // block more. Growing detaches the old buffer, so the view is taken again.
    const needed = KECCAK_INPUT_AT + length + KECCAK_RATE;
    if (needed > heap.length) {
      memory.grow(Math.ceil((needed - heap.length) / PAGE));
      heap = new Uint8Array(memory.buffer);
    }
    heap.set(message, KECCAK_INPUT_AT);
    hash(length);
    // A fresh array: callers keep digests (trie nodes, memos), and the next hash overwrites the memory.
    return heap.slice(KECCAK_DIGEST_AT, KECCAK_DIGEST_AT + 32);
  };
}

function instantiate(): (message: Uint8Array) => Uint8Array {
  // Node run with --jitless or --no-expose-wasm has no WebAssembly global: the chain then hashes
  // with noble's pure-JS keccak_256, as @ethereumjs does when Common.customCrypto has none.
  const wasm = (globalThis as unknown as { WebAssembly?: WebAssemblyApi }).WebAssembly;
  if (wasm === undefined) return keccak_256;
  const module = new wasm.Module(Buffer.from(KECCAK_WASM, "base64"));
  const resident = hasher(new wasm.Instance(module).exports);
  return (message) => {
    // Anything but bytes is refused as noble refuses it: `heap.set` would copy a string, an array or
    // another typed array element by element, truncated to bytes, and hash that.
    abytes(message);
    return message.length <= RESIDENT_MAX ? resident(message) : hasher(new wasm.Instance(module).exports)(message);
  };
}

/** keccak-256 of `message`, a fresh 32-byte array. */
export function keccak256Wasm(message: Uint8Array): Uint8Array {
  return (hashWasm ??= instantiate())(message);
}
