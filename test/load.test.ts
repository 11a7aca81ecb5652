/**
 * Mempool invariants under load (docs/server.md, "Bad input and load"): txs from 50 senders submitted concurrently (one
 * Promise.all of eth_sendRawTransaction per wave), in a seeded random order, with nonce gaps filled
 * in later waves, duplicates, fee-bump replacements and under-priced replacements; the fake clock
 * runs fragments and seals between waves. Every answer is checked against a model of the pool
 * (geth's admission order, docs/behaviour.md), and at the end:
 *   - every accepted tx is in exactly one sealed block, except replaced ones, which never ran;
 *   - each sender's nonces in blocks are 0, 1, 2, … without gaps; no tx hash appears twice;
 *   - ether is conserved: the genesis supply = balances of senders, recipients and the coinbase
 *     + the burned base fees (Σ baseFee × gasUsed over blocks).
 *
 * Size: LOAD_TXS (default 500 in npm test) and LOAD_SENDERS (50); `npm run stress` runs 5,000 and
 * prints the figures (requests, outcomes, duration, memory).
 */
import { expect } from "chai";
import { keccak256, parseGwei } from "viem";
import { privateKeyToAccount } from "viem/accounts";

import { RpcError } from "../src/rpc/errors.ts";
import { createTestChain } from "./helpers/chain.ts";

import type { Hex, TransactionSerializable } from "viem";

const TXS = Number(process.env.LOAD_TXS ?? 500);
const SENDERS = Number(process.env.LOAD_SENDERS ?? 50);
const WAVES = Number(process.env.LOAD_WAVES ?? 5);
const STRESS = process.env.LOAD_STRESS !== undefined;
const SEED = process.env.FC_SEED === undefined ? 20_240_905 : Number(process.env.FC_SEED);

const ETHER = 10n ** 18n;
const BALANCE = 1_000n * ETHER;
const COINBASE = `0x${"c0".repeat(19)}fe` as Hex;
const RECIPIENTS = Array.from({ length: 20 }, (_, i) => `0x${"be".repeat(18)}${i.toString(16).padStart(4, "0")}` as Hex);

/** go-ethereum's 10 % bump, rounded up (admission.ts). */
const bumped = (old: bigint) => (old * 110n + 99n) / 100n;

interface PlannedTx {
  raw: Hex;
  hash: Hex;
  sender: number;
  nonce: number;
  tip: bigint;
  feeCap: bigint;
  kind: "original" | "duplicate" | "bump" | "underpriced";
}

/** A seeded source of choices (FC_SEED reproduces a run). */
function random(seed: number) {
  let state = BigInt(seed) || 1n;
  const next = () => {
    // xorshift64*: small, deterministic, good enough to shuffle and pick.
    state ^= state >> 12n;
    state ^= (state << 25n) & 0xffffffffffffffffn;
    state ^= state >> 27n;
    return Number(((state * 0x2545f4914f6cdd1dn) & 0xffffffffffffffffn) >> 11n) / 2 ** 53;
  };
  return {
    chance: (p: number) => next() < p,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!,
    shuffle: <T>(items: T[]) => {
      for (let i = items.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [items[i], items[j]] = [items[j]!, items[i]!];
      }
      return items;
    },
  };
}

describe(`mempool under load: ${TXS} txs from ${SENDERS} senders in ${WAVES} concurrent waves`, function () {
  this.timeout(0);

  it("admits exactly what the pool rules say, seals every accepted tx once, keeps nonces gap-free and conserves ether", async () => {
    const rand = random(SEED);
    const keys = Array.from({ length: SENDERS }, (_, i) => `0x${(0x1000 + i).toString(16).padStart(64, "0")}` as Hex);
    const wallets = keys.map((key) => privateKeyToAccount(key));
    const senders = wallets.map((wallet) => wallet.address.toLowerCase() as Hex);
    const { provider } = await createTestChain({
      accounts: keys.map((privateKey) => ({ privateKey, balance: BALANCE })),
      coinbase: COINBASE,
      mining: "interval",
      // The model has no pool capacity: a 5,000-tx stress wave outgrows the default (see "pool memory when full").
      poolSlots: 0,
    });
    /** Txs per sender: TXS spread evenly. */
    const countOf = (sender: number) => Math.floor(TXS / SENDERS) + (sender < TXS % SENDERS ? 1 : 0);

    // ── Plan: every (sender, nonce) once, plus duplicates, bumps and under-priced replacements ──
    const sign = async (sender: number, nonce: number, tip: bigint, feeCap: bigint, legacy: boolean, kind: PlannedTx["kind"]): Promise<PlannedTx> => {
      const tx: TransactionSerializable = legacy
        ? {
            type: "legacy",
            chainId: 31337,
            nonce,
            gas: 21_000n,
            gasPrice: feeCap,
            to: rand.pick([...RECIPIENTS, ...senders]),
            value: BigInt(rand.int(1, 1_000_000)) * 10n ** 9n,
          }
        : {
            type: "eip1559",
            chainId: 31337,
            nonce,
            gas: 21_000n,
            maxPriorityFeePerGas: tip,
            maxFeePerGas: feeCap,
            to: rand.pick([...RECIPIENTS, ...senders]),
            value: BigInt(rand.int(1, 1_000_000)) * 10n ** 9n,
          };
      const raw = await wallets[sender]!.signTransaction(tx);
      return { raw, hash: keccak256(raw), sender, nonce, tip: legacy ? feeCap : tip, feeCap, kind };
    };
    const waves: PlannedTx[][] = Array.from({ length: WAVES }, () => []);
    const planStart = performance.now();
    for (let sender = 0; sender < SENDERS; sender++) {
      const planned = countOf(sender);
      for (let nonce = 0; nonce < planned; nonce++) {
        const natural = Math.min(WAVES - 1, Math.floor((nonce * WAVES) / planned));
        // A gap: this nonce arrives one or more waves late, so the sender's later ones queue.
        const wave = rand.chance(0.12) ? Math.min(WAVES - 1, natural + rand.int(1, 2)) : natural;
        const legacy = rand.chance(0.2);
        const tip = parseGwei(String(rand.int(1, 3)));
        const original = await sign(sender, nonce, tip, parseGwei("20") + tip, legacy, "original");
        waves[wave]!.push(original);
        if (rand.chance(0.05)) waves[Math.min(WAVES - 1, wave + rand.int(0, 1))]!.push({ ...original, kind: "duplicate" });
        if (rand.chance(0.08)) {
          const bump = await sign(sender, nonce, bumped(original.tip) + 1n, bumped(original.feeCap) + 1n, legacy, "bump");
          waves[Math.min(WAVES - 1, wave + rand.int(0, 1))]!.push(bump);
        }
        if (rand.chance(0.05)) {
          // 5 % more, or only the fee cap bumped: both must be refused while the original is pooled.
          const [tipUp, capUp] = rand.chance(0.5) ? [(original.tip * 105n) / 100n, (original.feeCap * 105n) / 100n] : [original.tip, bumped(original.feeCap)];
          const under = await sign(sender, nonce, legacy ? capUp : tipUp, capUp, legacy, "underpriced");
          waves[wave]!.push(under);
        }
      }
    }
    const signMs = performance.now() - planStart;
    for (const wave of waves) rand.shuffle(wave);

    // ── The model of the pool: geth's admission order against the pre-confirmed state ──
    const stateNonce = async (sender: Hex) =>
      Number(await provider.request({ method: "eth_getTransactionCount", params: [sender, `0x${provider.chain.open.number.toString(16)}`] }));
    type Expected = { accepted: true; replaces: Hex | undefined } | { accepted: false; message: string };
    const modelPool = new Map<string, PlannedTx>();
    const slot = (tx: PlannedTx) => `${tx.sender}:${tx.nonce}`;
    const expect1 = (tx: PlannedTx, nonces: number[]): Expected => {
      const existing = modelPool.get(slot(tx));
      if (existing?.hash === tx.hash) return { accepted: false, message: "already known" };
      if (tx.nonce < nonces[tx.sender]!) return { accepted: false, message: "nonce too low" };
      if (existing !== undefined) {
        const ok = tx.feeCap >= bumped(existing.feeCap) && tx.tip >= bumped(existing.tip) && tx.feeCap > existing.feeCap && tx.tip > existing.tip;
        if (!ok) return { accepted: false, message: "replacement transaction underpriced" };
        return { accepted: true, replaces: existing.hash };
      }
      return { accepted: true, replaces: undefined };
    };

    const figures = { requests: 0, accepted: 0, refused: new Map<string, number>(), waveMs: [] as number[] };
    const accepted = new Map<Hex, PlannedTx>();
    const replaced = new Set<Hex>();
    const memoryBefore = memory();
    const start = performance.now();
    for (const [w, wave] of waves.entries()) {
      // Sync the model with the chain: what fragments executed, and what is still pooled.
      const nonces = await Promise.all(senders.map(stateNonce));
      modelPool.clear();
      for (const entry of provider.chain.pool.all()) {
        const tx = accepted.get(entry.hash)!;
        modelPool.set(slot(tx), tx);
      }
      const expected = wave.map((tx) => {
        const outcome = expect1(tx, nonces);
        if (outcome.accepted) modelPool.set(slot(tx), tx);
        return outcome;
      });
      const waveStart = performance.now();
      const answers = await Promise.all(
        wave.map((tx) =>
          provider.request({ method: "eth_sendRawTransaction", params: [tx.raw] }).then(
            (hash) => ({ hash: hash as Hex, error: undefined }),
            (error: unknown) => ({ hash: undefined, error }),
          ),
        ),
      );
      figures.waveMs.push(performance.now() - waveStart);
      figures.requests += wave.length;
      answers.forEach((answer, i) => {
        const tx = wave[i]!;
        const want = expected[i]!;
        const where = `wave ${w}, ${tx.kind} tx of sender ${tx.sender} nonce ${tx.nonce}`;
        if (want.accepted) {
          expect(answer.error, `${where}: ${answer.error instanceof Error ? answer.error.message : ""}`).to.equal(undefined);
          expect(answer.hash, where).to.equal(tx.hash);
          accepted.set(tx.hash, tx);
          if (want.replaces !== undefined) replaced.add(want.replaces);
          figures.accepted++;
        } else {
          expect(answer.error, `${where}: expected ${want.message}`).to.be.instanceOf(RpcError);
          const error = answer.error as RpcError;
          expect([error.code, error.message], where).to.deep.equal([-32000, want.message]);
          figures.refused.set(error.message, (figures.refused.get(error.message) ?? 0) + 1);
        }
      });
      // Between waves the clock runs: some fragments, sometimes across a seal.
      await provider.preconf.advance(rand.int(1, 14));
      // Nothing accepted is lost on the way: pooled, pre-confirmed or sealed, unless replaced (then gone).
      for (const hash of accepted.keys()) {
        const where = provider.chain.pool.get(hash) !== undefined ? "pool" : provider.chain.transaction(hash) !== undefined ? "executed" : "nowhere";
        if (replaced.has(hash)) expect(where, `after wave ${w}: replaced tx ${hash}`).to.equal("nowhere");
        else expect(where, `after wave ${w}: accepted tx ${hash}`).not.to.equal("nowhere");
      }
    }
    // Drain: every nonce was submitted, so every accepted tx that was not replaced executes.
    for (let round = 0; provider.chain.pool.size > 0 && round < 200; round++) await provider.preconf.advance(provider.preconf.fragmentsPerBlock);
    await provider.preconf.seal();
    const durationMs = performance.now() - start;
    const memoryAfter = memory();
    expect(provider.chain.pool.size, "pool drained").to.equal(0);

    // ── Invariants over the sealed chain ──
    const head = Number(await provider.request({ method: "eth_blockNumber" }));
    const seen = new Map<Hex, number>();
    const noncesInBlocks = new Map<Hex, number[]>();
    let burned = 0n;
    for (let number = 1; number <= head; number++) {
      const block = (await provider.request({ method: "eth_getBlockByNumber", params: [`0x${number.toString(16)}`, true] })) as {
        baseFeePerGas: Hex;
        gasUsed: Hex;
        transactions: { hash: Hex; from: Hex; nonce: Hex }[];
      };
      burned += BigInt(block.baseFeePerGas) * BigInt(block.gasUsed);
      for (const tx of block.transactions) {
        expect(seen.has(tx.hash), `tx ${tx.hash} executed twice (blocks ${seen.get(tx.hash)} and ${number})`).to.equal(false);
        seen.set(tx.hash, number);
        const list = noncesInBlocks.get(tx.from.toLowerCase() as Hex) ?? [];
        list.push(Number(tx.nonce));
        noncesInBlocks.set(tx.from.toLowerCase() as Hex, list);
      }
    }
    for (const [hash] of accepted) {
      if (replaced.has(hash)) expect(seen.has(hash), `replaced tx ${hash} executed`).to.equal(false);
      else expect(seen.has(hash), `accepted tx ${hash} sealed`).to.equal(true);
    }
    expect(seen.size, "only accepted txs were sealed").to.equal(accepted.size - replaced.size);
    for (const [index, sender] of senders.entries()) {
      const list = noncesInBlocks.get(sender) ?? [];
      expect(list, `nonces of sender ${index} in block order`).to.deep.equal(Array.from({ length: countOf(index) }, (_, i) => i));
    }
    const balanceOf = async (address: Hex) => BigInt((await provider.request({ method: "eth_getBalance", params: [address, "latest"] })) as Hex);
    const touched = [...new Set([...senders, ...RECIPIENTS.map((address) => address.toLowerCase() as Hex), COINBASE])];
    const balances = await Promise.all(touched.map(balanceOf));
    const supply = balances.reduce((sum, balance) => sum + balance, 0n);
    expect(supply + burned, "ether conserved").to.equal(BALANCE * BigInt(SENDERS));

    const summary = {
      txs: TXS,
      senders: SENDERS,
      requests: figures.requests,
      accepted: figures.accepted,
      replaced: replaced.size,
      refused: Object.fromEntries(figures.refused),
      blocks: head,
      signMs: Math.round(signMs),
      submitMs: figures.waveMs.map(Math.round),
      durationMs: Math.round(durationMs),
      requestsPerSecond: Math.round((figures.requests / figures.waveMs.reduce((a, b) => a + b, 0)) * 1000),
      heapMiB: { before: memoryBefore, after: memoryAfter },
    };
    if (STRESS) console.log(JSON.stringify(summary, null, 2));
    // Each kind of refusal happened, so the run checked what it claims to.
    expect(Object.keys(summary.refused)).to.include.members(["already known", "replacement transaction underpriced"]);
    await provider.close();
  });
});

/**
 * The pool's memory bound (docs/limits.md): the pool filled to its slot capacity by unfunded keys
 * with zero-fee txs, once with txs of one slot (32 KiB, the most bytes per slot with the most
 * per-tx overhead) and once with txs of the most size (128 KiB, four slots). Each fill takes
 * exactly the capacity and refuses one more as "txpool is full". With --expose-gc (`npm run
 * stress`, at the default 1536 slots) the heap and external memory the pool holds are measured
 * and must stay under 64 MiB; `npm test` fills a 96-slot pool and checks the accounting only.
 */
describe("pool memory when full", function () {
  this.timeout(0);
  const DEFAULT_SLOTS = 1536;
  const slots = STRESS ? DEFAULT_SLOTS : 96;
  const gc = (globalThis as { gc?: () => void }).gc;
  /** Bytes the process holds: JS heap plus external (tx bytes live in ArrayBuffers). */
  const held = async () => {
    // ArrayBuffers are freed after the collection that finds them dead: collect until the figure settles.
    for (let i = 0; i < 3; i++) {
      gc?.();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const { heapUsed, external } = process.memoryUsage();
    return heapUsed + external;
  };

  for (const [name, size, slotsEach] of [
    ["32 KiB (one slot each)", 32 * 1024, 1],
    ["128 KiB (four slots each, the most a tx may be)", 128 * 1024, 4],
  ] as const) {
    it(`txs of ${name}: exactly the capacity is pooled, one more is "txpool is full", and the pool holds < 64 MiB`, async () => {
      const { provider } = await createTestChain({ mining: "manual", ...(slots !== DEFAULT_SLOTS && { poolSlots: slots }) });
      const count = slots / slotsEach;
      const perSender = 16;
      // Sized so that the signed tx is just under `size` bytes: the data, plus ~120 bytes of fields and signature.
      const data = `0x${"ab".repeat(size - 200)}` as Hex;
      const gas = 21_000n + BigInt(size) * 40n;
      const raws: Hex[] = [];
      const signStart = performance.now();
      for (let i = 0; i <= count; i++) {
        const wallet = privateKeyToAccount(`0x${(0x5000 + Math.floor(i / perSender)).toString(16).padStart(64, "0")}`);
        raws.push(
          await wallet.signTransaction({ chainId: 31337, nonce: i % perSender, to: RECIPIENTS[0]!, gas, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n, data }),
        );
      }
      const signMs = performance.now() - signStart;
      expect((raws[0]!.length - 2) / 2).to.be.within(size - 200, size);
      const before = await held();
      for (const raw of raws.slice(0, count)) await provider.request({ method: "eth_sendRawTransaction", params: [raw] });
      const after = await held();
      expect(await provider.request({ method: "txpool_status" })).to.deep.equal({ pending: `0x${count.toString(16)}`, queued: "0x0" });
      const refusal = await provider.request({ method: "eth_sendRawTransaction", params: [raws[count]!] }).catch((error: RpcError) => error.toJSON());
      expect(refusal).to.deep.include({ code: -32000, message: "transaction underpriced" });
      expect((refusal as { data: { reason: string } }).data.reason).to.equal("txpool is full");
      const poolMiB = (after - before) / 2 ** 20;
      if (STRESS)
        console.log(
          JSON.stringify({ pool: name, slots, txs: count, signMs: Math.round(signMs), poolMiB: Math.round(poolMiB * 10) / 10, measured: gc !== undefined }),
        );
      // Without --expose-gc the figure is garbage not yet collected: only the accounting is checked.
      if (gc !== undefined) expect(poolMiB, `pool of ${slots} slots holds ${poolMiB.toFixed(1)} MiB`).to.be.below((64 * slots) / DEFAULT_SLOTS);
      await provider.close();
    });
  }
});

/** Heap and RSS in MiB, after a full GC when node runs with --expose-gc. */
function memory(): { heapUsed: number; rss: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const { heapUsed, rss } = process.memoryUsage();
  return { heapUsed: Math.round(heapUsed / 2 ** 20), rss: Math.round(rss / 2 ** 20) };
}
