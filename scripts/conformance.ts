/**
 * Replays ethereum/execution-apis' rpc-compat fixtures (`.io` files) against an in-process
 * provider, the way hive's rpc-compat simulator does (fixtures/execution-apis/README.md):
 * one node started from genesis.json + chain.rlp, every file in lexical path order, responses
 * compared as JSON after deleting `error.message` when both sides are errors; a `// speconly:`
 * file only checks the shape of a non-error response. Where our interface differs on purpose
 * (docs/behaviour.md), the case is reported as a divergence, never hidden.
 *
 * Cases that still fail for a reason known and written down (KNOWN_GAPS) are reported as KNOWN with
 * that reason, until they pass (test/conformance.test.ts then asks for the entry to go).
 *
 * Usage: npx tsx scripts/conformance.ts [--dir <fixtures>] [method-prefix...]
 * Exit code 1 when any case fails (divergences, known gaps and unimplemented methods do not fail).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";

import { createPreconfProvider } from "../src/index.ts";

import type { PreconfProvider } from "../src/index.ts";
import type { ExplicitAccount } from "../src/options.ts";
import type { Hex } from "../src/rpc/schema.ts";

const PROJECT_ROOT = resolve(fileURLToPath(import.meta.url), "../..");
const DEFAULT_DIR = resolve(PROJECT_ROOT, "fixtures/execution-apis");

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

interface Exchange {
  request: JsonObject;
  response: JsonObject;
}

interface IoFile {
  path: string;
  method: string;
  speconly: boolean;
  exchanges: Exchange[];
}

type Verdict = "pass" | "fail" | "divergence" | "known" | "unsupported";

/**
 * Fixtures that still fail, each with why: not differences by design (those are divergences) but
 * gaps, listed so that a new failure stands out and a fixed one is noticed.
 */
export const KNOWN_GAPS: Readonly<Record<string, string>> = {
  // eth_config describes the profile's fork ladder (src/node/profiles/forkConfig.ts); a chain started from a
  // given genesis (hive's, with BPO forks) is not yet described from that genesis' own config.
  "eth_config/get-config.io": "eth_config of a chain started from a given genesis: the profile's forks, not the genesis'",
  // A simulated block after the genesis of hive's chain is a pre-London block there; simulated
  // blocks here run the EVM fork of the block they start from (docs/methods.md).
  "eth_simulateV1/ethSimulate-empty-with-block-num-set-firstblock.io": "a fork schedule inside a simulation",
  // geth's "header not found" carries no data; ours names the block (src/rpc/errors.ts unknownBlock).
  "eth_simulateV1/ethSimulate-make-call-with-future-block.io": "the error data of an unknown block",
};

/** A failing file's verdict: `known`, with its reason first, when KNOWN_GAPS lists it. */
function withKnownGap(outcome: Outcome, path: string): Outcome {
  const gap = KNOWN_GAPS[path];
  if (outcome.verdict !== "fail" || gap === undefined) return outcome;
  return { verdict: "known", details: [`known gap: ${gap}`, ...outcome.details] };
}

interface Outcome {
  verdict: Verdict;
  details: string[];
}

// ── Fixtures ─────────────────────────────────────────────────────────────────────────────────

/** `// comment` header, then `>> request` / `<< response` lines. */
function parseIoFile(path: string, method: string): IoFile {
  const exchanges: Exchange[] = [];
  let speconly = false;
  let pending: JsonObject | undefined;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line.startsWith("//")) {
      if (line.slice(2).trim().startsWith("speconly:")) speconly = true;
    } else if (line.startsWith(">>")) {
      pending = JSON.parse(line.slice(2)) as JsonObject;
    } else if (line.startsWith("<<")) {
      if (pending === undefined) throw new Error(`${path}: response without request`);
      exchanges.push({ request: pending, response: JSON.parse(line.slice(2)) as JsonObject });
      pending = undefined;
    }
  }
  return { path, method, speconly, exchanges };
}

/** Every `.io` file under `dir`, in hive's order (filepath.Walk: lexical by path). */
function listIoFiles(dir: string, prefixes: string[]): IoFile[] {
  const files: IoFile[] = [];
  for (const method of readdirSync(dir).sort()) {
    const methodDir = join(dir, method);
    if (!statSync(methodDir).isDirectory()) continue;
    if (prefixes.length > 0 && !prefixes.some((prefix) => method.startsWith(prefix))) continue;
    for (const name of readdirSync(methodDir).sort()) {
      if (name.endsWith(".io")) files.push(parseIoFile(join(methodDir, name), method));
    }
  }
  return files;
}

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, "utf8")) as T;
}

// ── The node under test ──────────────────────────────────────────────────────────────────────

/** genesis.json + chain.rlp, manual mining (hive sends no blocks after headfcu), 12 s blocks, accounts.json's keys. */
async function startNode(dir: string): Promise<PreconfProvider> {
  const keys = readJson<Record<string, { key: Hex }>>(join(dir, "accounts.json"));
  // Balances come from the genesis alloc; the keys make eth_accounts / eth_sendTransaction work.
  const accounts: ExplicitAccount[] = Object.values(keys).map(({ key }) => ({ privateKey: key, balance: 0n }));
  return createPreconfProvider({
    genesis: readJson(join(dir, "genesis.json")),
    chain: new Uint8Array(readFileSync(join(dir, "chain.rlp"))),
    accounts,
    mining: "manual",
    // Ethereum's 12 s slots: eth_simulateV1 steps omitted block times by the chain's block time.
    fragmentIntervalMs: 1200,
  });
}

/** What hive checks before the tests: the head it sends in headfcu.json, and forkenv.json's chain id. */
async function checkSetup(provider: PreconfProvider, dir: string): Promise<string[]> {
  const problems: string[] = [];
  const fcu = readJson<{ params: [{ headBlockHash: string }] }>(join(dir, "headfcu.json"));
  const head = (await provider.request({ method: "eth_getBlockByNumber", params: ["latest", false] })) as { hash: string; number: string };
  if (head.hash !== fcu.params[0].headBlockHash) problems.push(`head ${head.hash} (#${BigInt(head.number)}) is not headfcu's ${fcu.params[0].headBlockHash}`);
  const env = readJson<Record<string, string>>(join(dir, "forkenv.json"));
  const chainId = BigInt((await provider.request({ method: "eth_chainId" })) as string);
  if (env.HIVE_CHAIN_ID !== undefined && chainId !== BigInt(env.HIVE_CHAIN_ID)) problems.push(`chain id ${chainId} is not forkenv's ${env.HIVE_CHAIN_ID}`);
  return problems;
}

/** One JSON-RPC exchange through `provider.request`, framed as hive sees it on the wire. */
async function call(provider: PreconfProvider, request: JsonObject): Promise<JsonObject> {
  const base = { jsonrpc: "2.0", id: request.id ?? null };
  try {
    const result = await provider.request({ method: String(request.method), params: (request.params ?? []) as unknown[] });
    return { ...base, result: JSON.parse(JSON.stringify(result ?? null)) as Json };
  } catch (error) {
    const { code, message, data } = error as { code?: unknown; message?: unknown; data?: unknown };
    const rpcError: JsonObject = { code: typeof code === "number" ? code : -32603, message: String(message) };
    if (data !== undefined) rpcError.data = JSON.parse(JSON.stringify(data)) as Json;
    return { ...base, error: rpcError };
  }
}

// ── Comparison ───────────────────────────────────────────────────────────────────────────────

const isObject = (value: Json | undefined): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

/** Hive deletes `error.message` when both sides are errors: only code and data must match. */
function withoutErrorMessages(expected: JsonObject, actual: JsonObject): [JsonObject, JsonObject] {
  if (!isObject(expected.error) || !isObject(actual.error)) return [expected, actual];
  const strip = (response: JsonObject) => {
    const { message: _message, ...error } = response.error as JsonObject;
    return { ...response, error };
  };
  return [strip(expected), strip(actual)];
}

/** Paths where two JSON values differ (numbers compared numerically, as hive does). */
function differences(expected: Json | undefined, actual: Json | undefined, path = ""): string[] {
  if (typeof expected === "number" && typeof actual === "number") return expected === actual ? [] : [`${path}: expected ${expected}, got ${actual}`];
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const out: string[] = [];
    if (expected.length !== actual.length) out.push(`${path}: expected ${expected.length} items, got ${actual.length}`);
    for (let i = 0; i < Math.min(expected.length, actual.length); i++) out.push(...differences(expected[i], actual[i], `${path}[${i}]`));
    return out;
  }
  if (isObject(expected) && isObject(actual)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])].sort();
    return keys.flatMap((key) => differences(expected[key], actual[key], path === "" ? key : `${path}.${key}`));
  }
  if (isDeepStrictEqual(expected, actual)) return [];
  return [`${path}: expected ${short(expected)}, got ${short(actual)}`];
}

function short(value: Json | undefined): string {
  if (value === undefined) return "(absent)";
  const text = JSON.stringify(value);
  return text.length > 90 ? `${text.slice(0, 87)}...` : text;
}

/** The JSON type a speconly check can still hold us to, without the spec's schemas. */
const kindOf = (value: Json | undefined) => (value === undefined ? "absent" : value === null ? "null" : Array.isArray(value) ? "array" : typeof value);

/** The number of the block the node has open (the head's + 1), once the node is up. */
let openBlockNumber: string | undefined;

/**
 * Deliberate differences of our interface (docs/behaviour.md): reverts are -32000 with the revert
 * bytes as data (geth: code 3). Returns a description when `actual` differs only that way.
 */
function knownDivergence(expected: JsonObject, actual: JsonObject, request: JsonObject): string | undefined {
  // The open block's number names the open block (docs/behaviour.md), which geth, with no block open, does not know.
  const params = Array.isArray(request.params) ? request.params : [];
  const namesOpenBlock = openBlockNumber !== undefined && params.some((param) => param === openBlockNumber);
  const geth404 = (isObject(expected.error) && expected.error.message === "header not found") || (expected.error === undefined && expected.result === null);
  if (namesOpenBlock && geth404 && actual.error === undefined) {
    return `divergence: block ${openBlockNumber} is the open block here, answered as pending is (docs/behaviour.md); geth has no such block yet`;
  }
  // Blob txs only where a KZG library is wired in; none is yet.
  if (isObject(actual.error) && actual.error.message === "transaction type not supported" && expected.error === undefined) {
    return "divergence: blob (type 3) txs are refused here until a KZG library is wired in (docs/behaviour.md)";
  }
  if (!isObject(expected.error) || !isObject(actual.error)) return undefined;
  const wanted = expected.error;
  const got = actual.error;
  if (wanted.code === 3 && got.code === -32000 && got.message === "execution reverted" && isDeepStrictEqual(wanted.data, got.data)) {
    return `divergence: revert is -32000 "execution reverted" here (docs/behaviour.md), geth answers code 3 "${String(wanted.message)}"; data matches`;
  }
  if (got.code === -32602 && wanted.code !== -32602) {
    return `divergence: malformed params are -32602 "Invalid params" here (docs/behaviour.md), geth answers ${String(wanted.code)} "${String(wanted.message)}"`;
  }
  return undefined;
}

function judge(file: IoFile, exchange: Exchange, actual: JsonObject): Outcome {
  const { response: expected } = exchange;
  const method = String(exchange.request.method);
  if (isObject(actual.error) && actual.error.code === -32601) return { verdict: "unsupported", details: [`${method} is not implemented`] };
  // speconly: a non-error response is only checked for its shape (hive validates it against the schema).
  if (file.speconly && actual.error === undefined) {
    if (expected.error !== undefined) return { verdict: "fail", details: [`expected an error (${short(expected.error)}), got result ${short(actual.result)}`] };
    const same = kindOf(expected.result) === kindOf(actual.result);
    return same
      ? { verdict: "pass", details: [] }
      : { verdict: "fail", details: [`result: expected a ${kindOf(expected.result)}, got ${short(actual.result)}`] };
  }
  const [left, right] = withoutErrorMessages(expected, actual);
  const diffs = differences(left, right);
  if (diffs.length === 0) return { verdict: "pass", details: [] };
  const divergence = knownDivergence(expected, actual, exchange.request);
  if (divergence !== undefined) return { verdict: "divergence", details: [divergence] };
  return { verdict: "fail", details: diffs };
}

/** The worst verdict of a file's exchanges; an unimplemented method makes the file's later exchanges moot. */
function worst(outcomes: Outcome[]): Outcome {
  const rank: Verdict[] = ["pass", "divergence", "known", "fail", "unsupported"];
  const verdict = outcomes.reduce<Verdict>((acc, { verdict }) => (rank.indexOf(verdict) > rank.indexOf(acc) ? verdict : acc), "pass");
  return { verdict, details: outcomes.flatMap(({ details }, i) => details.map((detail) => (outcomes.length > 1 ? `#${i + 1} ${detail}` : detail))) };
}

// ── Main ─────────────────────────────────────────────────────────────────────────────────────

function parseArgs(argv: string[]): { dir: string; prefixes: string[] } {
  const prefixes: string[] = [];
  let dir = process.env.CONFORMANCE_DIR ?? DEFAULT_DIR;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--dir") dir = resolve(argv[++i] ?? "");
    else prefixes.push(argv[i]!);
  }
  return { dir, prefixes };
}

const MAX_DETAILS = 12;

/** Each file's exchanges against `provider`, in order; the worst verdict of each file. */
async function replay(provider: PreconfProvider, files: IoFile[]): Promise<(Outcome & { file: IoFile })[]> {
  const results: (Outcome & { file: IoFile })[] = [];
  for (const file of files) {
    const outcomes: Outcome[] = [];
    for (const exchange of file.exchanges) outcomes.push(judge(file, exchange, await call(provider, exchange.request)));
    results.push({ ...worst(outcomes), file });
  }
  return results;
}

/**
 * The fixtures of the methods `prefixes` name, replayed on a fresh node as `main` does, for tests:
 * each file's path (under `dir`) and verdict.
 */
export async function conformanceOf(
  prefixes: string[],
  dir = DEFAULT_DIR,
): Promise<{ setup: string[]; files: { path: string; verdict: Verdict; details: string[] }[] }> {
  const provider = await startNode(dir);
  try {
    const setup = await checkSetup(provider, dir);
    openBlockNumber = `0x${(BigInt((await provider.request({ method: "eth_blockNumber" })) as string) + 1n).toString(16)}`;
    const outcomes = await replay(provider, listIoFiles(dir, prefixes));
    return {
      setup,
      files: outcomes.map(({ file, ...outcome }) => {
        const path = file.path.slice(dir.length + 1);
        return { path, ...withKnownGap(outcome, path) };
      }),
    };
  } finally {
    await provider.close();
  }
}

async function main(): Promise<number> {
  const { dir, prefixes } = parseArgs(process.argv.slice(2));
  const files = listIoFiles(dir, prefixes);
  const started = Date.now();
  const provider = await startNode(dir);
  console.log(`node ready in ${Date.now() - started} ms (genesis.json + chain.rlp from ${dir})`);
  const setupProblems = await checkSetup(provider, dir);
  openBlockNumber = `0x${(BigInt((await provider.request({ method: "eth_blockNumber" })) as string) + 1n).toString(16)}`;
  for (const problem of setupProblems) console.log(`SETUP FAIL ${problem}`);

  const tally = new Map<string, Record<Verdict, number>>();
  for (const { file, ...outcome } of await replay(provider, files)) {
    const path = file.path.slice(dir.length + 1);
    const { verdict, details } = withKnownGap(outcome, path);
    const counts = tally.get(file.method) ?? { pass: 0, fail: 0, divergence: 0, known: 0, unsupported: 0 };
    counts[verdict]++;
    tally.set(file.method, counts);
    console.log(`${verdict.toUpperCase().padEnd(11)} ${path}${file.speconly ? " (speconly)" : ""}`);
    for (const detail of details.slice(0, MAX_DETAILS)) console.log(`            ${detail}`);
    if (details.length > MAX_DETAILS) console.log(`            ... ${details.length - MAX_DETAILS} more differences`);
  }
  await provider.close();

  console.log("\nmethod                          pass  fail  divergence  known  unsupported");
  const total: Record<Verdict, number> = { pass: 0, fail: 0, divergence: 0, known: 0, unsupported: 0 };
  const row = (name: string, counts: Record<Verdict, number>) =>
    `${name.padEnd(30)} ${String(counts.pass).padStart(5)} ${String(counts.fail).padStart(5)} ${String(counts.divergence).padStart(11)} ${String(counts.known).padStart(6)} ${String(counts.unsupported).padStart(12)}`;
  for (const [method, counts] of tally) {
    console.log(row(method, counts));
    for (const verdict of Object.keys(total) as Verdict[]) total[verdict] += counts[verdict];
  }
  console.log(row("total", total));
  return total.fail > 0 || setupProblems.length > 0 ? 1 : 0;
}

// Run as a script (`npm run conformance`), not when a test imports it.
if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = await main();
