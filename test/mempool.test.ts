/**
 * The pool's executable run per sender (mempool.ts `contiguousCount`), which it remembers between
 * calls: after any sequence of adds, replacements and removals it answers what counting the
 * sender's nonces afresh answers. Seeded, so a failure reproduces.
 */
import { expect } from "chai";
import fc from "fast-check";

import { Mempool } from "../src/node/pool/mempool.ts";

import type { TypedTransaction } from "@ethereumjs/tx";
import type { Hex } from "../src/node/common/types.ts";
import type { PooledTx } from "../src/node/pool/mempool.ts";

const SENDERS = ["0x01", "0x02"] as Hex[];
/** A tx of one slot: the pool reads only its serialized length. */
const tx = { serialize: () => new Uint8Array(100) } as unknown as TypedTransaction;

type Op = { kind: "add" | "remove" | "dropStale" | "count"; sender: number; nonce: number };

const op = fc.record({
  kind: fc.constantFrom<Op["kind"]>("add", "add", "remove", "dropStale", "count", "count"),
  sender: fc.integer({ min: 0, max: SENDERS.length - 1 }),
  nonce: fc.integer({ min: 0, max: 12 }),
});

function freshCount(pool: Mempool, sender: Hex, from: bigint): number {
  const nonces = new Set(pool.ofSender(sender).map((entry) => entry.nonce));
  let count = 0;
  while (nonces.has(from + BigInt(count))) count++;
  return count;
}

describe("mempool: each sender's executable run", () => {
  it("answers as a fresh count after any adds, replacements and removals", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        const pool = new Mempool();
        let version = 0;
        for (const { kind, sender: which, nonce: n } of ops) {
          const sender = SENDERS[which]!;
          const nonce = BigInt(n);
          if (kind === "add") {
            const entry: PooledTx = { tx, hash: `0x${(version++).toString(16)}` as Hex, sender, nonce, feeCap: 1n, tipCap: 1n, cost: 1n, seq: pool.nextSeq() };
            pool.add(entry, 0);
          } else if (kind === "remove") {
            const entry = pool.at(sender, nonce);
            if (entry !== undefined) pool.remove(entry.hash);
          } else if (kind === "dropStale") {
            pool.dropStale(sender, nonce);
          } else {
            expect(pool.contiguousCount(sender, nonce)).to.equal(freshCount(pool, sender, nonce), `${sender} from ${nonce}`);
          }
          // From the nonce the sender's last count started at (what the pool remembers), and from 0.
          for (const who of SENDERS) expect(pool.contiguousCount(who, 0n)).to.equal(freshCount(pool, who, 0n), `${who} from 0`);
        }
      }),
      { seed: 27, numRuns: 300 },
    );
  });
});
