/**
 * The chain's keccak-256 in WebAssembly (src/node/common/keccak.ts, keccak256.wat): known digests,
 * then noble's `keccak_256` as the reference over every length 0–2,000 (each rate boundary, 135/136/137,
 * 271/272/273, …) with inputs that are unaligned views of a larger buffer, inputs that make the
 * module's memory grow, and digests that stay the caller's.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

import { keccak_256 } from "@noble/hashes/sha3.js";
import { expect } from "chai";

import { keccak256, nativeCrypto } from "../src/node/common/crypto.ts";
import { keccak256Wasm } from "../src/node/common/keccak.ts";

const hex = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
const utf8 = (text: string) => new TextEncoder().encode(text);

/** A deterministic byte string of `length` bytes (xorshift), so failures reproduce. */
function bytes(seed: number, length: number): Uint8Array {
  let state = seed * 2654435761 + 1;
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = state & 0xff;
  }
  return out;
}

describe("keccak-256 in WebAssembly", () => {
  it("gives the known digests", () => {
    const known: [Uint8Array, string][] = [
      [new Uint8Array(0), "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"],
      [utf8("abc"), "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45"],
      [utf8("The quick brown fox jumps over the lazy dog"), "4d741b6f1eb29cb2a9b9911c82f56fa8d73b04959d3d9d222895df6c0b28aa15"],
      // The empty trie's root (RLP of the empty string) and the empty ommers hash (RLP of the empty list).
      [Uint8Array.of(0x80), "56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421"],
      [Uint8Array.of(0xc0), "1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347"],
      // 200 × 0xa3 (1600 bits, the state's width: two blocks) as noble and the keccak addon both give it.
      [new Uint8Array(200).fill(0xa3), "3a57666b048777f2c953dc4456f45a2588e1cb6f2da760122d530ac2ce607d4a"],
      // A selector: transfer(address,uint256).
      [utf8("transfer(address,uint256)"), "a9059cbb2ab09eb219583f4a59a5d0623ade346d962bcd4e46b11da047c9049b"],
    ];
    for (const [message, digest] of known) expect(hex(keccak256Wasm(message)), `${message.length} bytes`).to.equal(digest);
  });

  it("is the chain's keccak: crypto.ts' keccak256 and Common.customCrypto.keccak256", () => {
    const message = bytes(1, 100);
    expect(nativeCrypto().keccak256).to.equal(keccak256Wasm);
    expect(hex(keccak256(message))).to.equal(hex(keccak_256(message)));
  });

  it("matches noble's keccak_256 at every length 0–2,000, from unaligned views of a larger buffer", () => {
    const backing = bytes(7, 2_000 + 16);
    for (let length = 0; length <= 2_000; length++) {
      // Every offset 0–7 in turn: lanes are read as 8-byte words, so a copy that kept the caller's
      // alignment or read past the view would show here.
      const offset = length % 8;
      const view = backing.subarray(offset, offset + length);
      expect(hex(keccak256Wasm(view)), `${length} bytes at offset ${offset}`).to.equal(hex(keccak_256(view)));
    }
    for (const length of [135, 136, 137, 271, 272, 273, 407, 408, 409, 1087, 1088, 1089]) {
      for (let seed = 0; seed < 20; seed++) {
        const message = bytes(seed + 100 * length, length + 8).subarray(seed % 8, (seed % 8) + length);
        expect(hex(keccak256Wasm(message)), `${length} bytes, seed ${seed}`).to.equal(hex(keccak_256(message)));
      }
    }
  });

  it("hashes inputs larger than its memory (1 MB), and small ones again after growing", () => {
    const small = bytes(3, 64);
    const before = hex(keccak256Wasm(small));
    const large = new Uint8Array(1 << 20).map((_, i) => (i * 31 + (i >> 8)) & 0xff);
    expect(hex(keccak256Wasm(large))).to.equal("3c93498013070ddf16f1a827f2173165108981ea41ebe71c32c31896e771be66");
    expect(hex(keccak256Wasm(small))).to.equal(before);
    // Around a page (64 KB) of memory: the input at 256 plus one block of padding must fit.
    for (const length of [65_536 - 256 - 136 - 1, 65_536 - 256 - 136, 65_536 - 256 - 135, 65_536, 2 * 65_536 + 1]) {
      const message = bytes(length, length);
      expect(hex(keccak256Wasm(message)), `${length} bytes`).to.equal(hex(keccak_256(message)));
    }
  });

  it("does not hold a large input's size in memory after hashing it", async function () {
    this.timeout(60_000);
    for (const length of [(1 << 20) - 1, 1 << 20, (1 << 20) + 1]) {
      const message = bytes(length, length);
      expect(hex(keccak256Wasm(message)), `${length} bytes`).to.equal(hex(keccak_256(message)));
    }
    // In a fresh process: the resident set after a 64 MB hash, the input dropped and collected.
    const keccak = new URL("../src/node/common/keccak.ts", import.meta.url).href;
    const program = `const { keccak256Wasm } = await import(${JSON.stringify(keccak)});
const collect = async () => { for (let i = 0; i < 3; i++) { gc(); await new Promise((resolve) => setTimeout(resolve, 10)); } };
keccak256Wasm(new Uint8Array(1));
await collect();
const before = process.memoryUsage().rss;
keccak256Wasm(new Uint8Array(64 << 20));
await collect();
process.stdout.write(String(process.memoryUsage().rss - before));`;
    const held = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ["--expose-gc", "--no-warnings", "--import", "tsx", "--input-type=module", "-e", program],
        { timeout: 60_000 },
        (error, stdout, stderr) => (error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stderr}`))),
      ),
    );
    expect(Number(held)).to.be.below(16 << 20);
  });

  it("returns a fresh digest per call, not a view of the module's memory", () => {
    const first = keccak256Wasm(utf8("abc"));
    const second = keccak256Wasm(utf8("def"));
    expect(first.buffer).to.not.equal(second.buffer);
    expect(first.byteLength).to.equal(32);
    expect(first.buffer.byteLength).to.equal(32);
    expect(hex(first)).to.equal("4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45");
    first.fill(0);
    expect(hex(keccak256Wasm(utf8("abc")))).to.equal("4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45");
  });

  it("leaves its input as it was (the padding is written after the copy, never into the caller's bytes)", () => {
    const message = bytes(5, 300);
    const copy = message.slice();
    keccak256Wasm(message.subarray(0, 200));
    expect(hex(message)).to.equal(hex(copy));
  });

  it("refuses what is not bytes as noble does, rather than hashing it element by element", () => {
    for (const input of ["abc", [1, 2, 3], new Uint16Array([1, 2]), new ArrayBuffer(3)] as unknown as Uint8Array[]) {
      const expected = (() => {
        try {
          keccak_256(input);
        } catch (error) {
          return (error as Error).message;
        }
        throw new Error("noble hashed it");
      })();
      expect(() => keccak256Wasm(input), String(input)).to.throw(TypeError, expected);
    }
  });

  it("is what scripts/build-keccak-wasm.mjs makes: the committed .wat is its output and keccakWasm.ts was assembled from it", async () => {
    // Without wabt: the script's --check compares the text it emits with keccak256.wat, and that
    // text's sha256 with the one keccakWasm.ts records from the assembly.
    const script = fileURLToPath(new URL("../scripts/build-keccak-wasm.mjs", import.meta.url));
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [script, "--check"], { timeout: 60_000 }, (error, stdout, stderr) =>
        error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stderr}`)),
      ),
    );
    expect(out).to.equal("keccak256.wat and keccakWasm.ts are this script's\n");
  });

  it("hashes with noble's JS where there is no WebAssembly (node --jitless), as before", async function () {
    this.timeout(60_000);
    const crypto = new URL("../src/node/common/crypto.ts", import.meta.url).href;
    const program = `const { keccak256, nativeCrypto } = await import(${JSON.stringify(crypto)});
const hex = (bytes) => Buffer.from(bytes).toString("hex");
const abc = new TextEncoder().encode("abc");
process.stdout.write(JSON.stringify([typeof WebAssembly, hex(keccak256(abc)), hex(nativeCrypto().keccak256(abc))]));`;
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ["--jitless", "--no-warnings", "--import", "tsx", "--input-type=module", "-e", program],
        { timeout: 60_000 },
        (error, stdout, stderr) => (error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stderr}`))),
      ),
    );
    const abc = "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45";
    expect(JSON.parse(out)).to.deep.equal(["undefined", abc, abc]);
  });
});
