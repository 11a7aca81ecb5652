/**
 * The wallet's params go through the positional fast path when they are valid (src/wallet/validate.ts
 * parseParams, protocol/params.ts parseValid). For every wallet method whose schema has that path,
 * random valid and invalid params must give what zod alone gives: the same parsed value, or the
 * same -32602 with the same field and reason (or the same unreadable-params error).
 */
import { isDeepStrictEqual, inspect } from "node:util";

import { expect } from "chai";

import { invalidParams } from "../src/protocol/errors.ts";
import { fieldOf, parseValid, positional } from "../src/protocol/params.ts";
import { sendTransactionParams } from "../src/rpc/services/send.ts";
import { callsIdParams, callsRules, getCapabilitiesParams, sendCallsParams } from "../src/wallet/calls.ts";
import { seededDraws } from "./helpers/seeded.ts";
import {
  addEthereumChainParams,
  parseParams,
  personalSignParams,
  requestPermissionsParams,
  signTypedDataParams,
  signTypedDataV1Params,
  switchEthereumChainParams,
  walletConnectParams,
} from "../src/wallet/validate.ts";

import type { z } from "zod";

/** parseParams as it was before the fast path: zod alone. */
function byZod(schema: z.ZodTypeAny, params: unknown): unknown {
  let parsed: z.SafeParseReturnType<unknown, unknown>;
  try {
    parsed = schema.safeParse(params);
  } catch (error) {
    throw invalidParams("params", error instanceof Error ? error.message : String(error));
  }
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw invalidParams(fieldOf(issue.path), issue.message);
  }
  return parsed.data;
}

type Outcome = { ok: unknown } | { error: { code: unknown; message: unknown; data: unknown } };
function outcome(parse: () => unknown): Outcome {
  try {
    return { ok: parse() };
  } catch (error) {
    const { code, message, data } = error as { code?: unknown; message?: unknown; data?: unknown };
    return { error: { code, message, data } };
  }
}

const ACCOUNT = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
const TOKEN = "0x5FbDB2315678afecb367f032d93F642f64180aa3";

describe("wallet params: the fast path answers as zod does", () => {
  const { next, pick, hex } = seededDraws(0x3a11e7);
  const atom = (): unknown =>
    pick([
      () => `0x${hex(Math.floor(next() * 6))}`,
      () => `0x${pick(["", "0", "00", "1", "01", "a", "F"])}${hex(Math.floor(next() * 4))}`,
      () => `0x${hex(40)}`,
      () => pick([ACCOUNT, ACCOUNT.toLowerCase(), ACCOUNT.toUpperCase().replace("0X", "0x"), ACCOUNT.replace("F", "f"), TOKEN]),
      () => `0x${hex(64)}`,
      () => `0x${pick(["1", "f"])}${hex(pick([13, 14, 15, 63, 64, 65]))}`,
      () => pick(["0xfffffffffffec", "0xfffffffffffed", "0x1", "0x7a69", "0x0", "0X1", "1", "0x"]),
      () => hex(4),
      () => pick(["", "x", "ETH", "Ether", "SEVENCH", "https://rpc.example", "http://127.0.0.1:8545", "http://rpc.example", "javascript:x"]),
      () => pick(["data:image/png;base64,AA", "data:text/html,x", "https://x.example/i.png", "x".repeat(130)]),
      () => pick(["5.0", "ERC20", "ERC721", "latest", "hello", '{"types":{},"primaryType":"A","domain":{},"message":{}}', "[{}]"]),
      () => pick([0, 1, 18, 36, 37, -1, 1.5, 2 ** 53, 2 ** 64, Number.NaN, Number.POSITIVE_INFINITY, 10n ** 30n]),
      () => pick([true, false, null, undefined]),
      () => [],
      () => ({}),
      () => new Date(0),
      () => Object.create(null) as object,
    ])();

  /** Each method's schema and a valid params maker; the random flaws come on top. */
  const currency = () => ({ name: "Ether", symbol: pick(["ETH", "xDAI"]), decimals: 18 });
  const chainData = () => ({
    chainId: pick(["0x1", "0xa", "0x7a69", "0x2105"]),
    chainName: "Chain",
    nativeCurrency: currency(),
    rpcUrls: ["https://rpc.example"],
    ...(next() < 0.5 && { blockExplorerUrls: ["https://scan.example"] }),
    ...(next() < 0.3 && { iconUrls: [] }),
  });
  const tx = () => ({
    from: pick([ACCOUNT, ACCOUNT.toLowerCase()]),
    ...(next() < 0.7 && { to: TOKEN }),
    ...(next() < 0.5 && { value: "0x1" }),
    ...(next() < 0.4 && { data: "0xa9059cbb" }),
    ...(next() < 0.3 && { gas: "0x5208" }),
    ...(next() < 0.3 && (next() < 0.5 ? { gasPrice: "0x1" } : { maxFeePerGas: "0x2", maxPriorityFeePerGas: "0x1" })),
    ...(next() < 0.2 && { nonce: "0x0" }),
    ...(next() < 0.2 && { chainId: "0x7a69" }),
    ...(next() < 0.1 && { accessList: [] }),
  });
  const call = () => ({ ...(next() < 0.8 && { to: TOKEN }), ...(next() < 0.5 && { data: "0x" }), ...(next() < 0.5 && { value: "0x0" }) });
  const batch = () => ({
    version: "2.0.0",
    ...(next() < 0.3 && { id: `0x${hex(32)}` }),
    ...(next() < 0.5 && { from: ACCOUNT }),
    chainId: "0x7a69",
    atomicRequired: next() < 0.5,
    calls: [call(), ...(next() < 0.5 ? [call()] : [])],
    ...(next() < 0.3 && { capabilities: { paymasterService: { url: "http://127.0.0.1:1", optional: true } } }),
  });
  const typedData = { types: { A: [{ name: "a", type: "uint256" }] }, primaryType: "A", domain: { name: "x" }, message: { a: 1 } };
  const METHODS: [string, z.ZodTypeAny, () => unknown[] | undefined][] = [
    ["wallet_addEthereumChain", addEthereumChainParams, () => [chainData()]],
    ["wallet_switchEthereumChain", switchEthereumChainParams, () => [{ chainId: pick(["0x1", "0x7A69"]) }]],
    ["wallet_requestPermissions", requestPermissionsParams, () => [pick([{ eth_accounts: {} }, { "endowment:permitted-chains": {} }])]],
    ["eth_signTypedData", signTypedDataV1Params, () => [[{ type: "string", name: "m", value: "hi" }], ACCOUNT]],
    ["wallet_connect", walletConnectParams, () => pick([undefined, [], [{}], [{ version: "1", chainIds: ["0x1"] }]])],
    ["personal_sign", personalSignParams, () => [pick(["0x68656c6c6f", "hello"]), ACCOUNT]],
    ["eth_signTypedData_v4", signTypedDataParams, () => [ACCOUNT, pick([typedData, JSON.stringify(typedData)])]],
    ["eth_requestAccounts", positional(), () => pick([undefined, []])],
    ["eth_sendTransaction", sendTransactionParams, () => [tx()]],
    ["wallet_getCapabilities", getCapabilitiesParams, () => [ACCOUNT, ...(next() < 0.5 ? [["0x1", "0x7a69"]] : [])]],
    ...(["metamask", "coinbase", "base-account", "eip"] as const).flatMap((personality): [string, z.ZodTypeAny, () => unknown[] | undefined][] => [
      [`wallet_sendCalls (${personality})`, sendCallsParams(callsRules(personality)), () => [batch()]],
      [`wallet_getCallsStatus (${personality})`, callsIdParams(callsRules(personality)), () => [pick([`0x${hex(32)}`, "an-id"])]],
    ]),
  ];

  /** A flaw somewhere in `value` (or none): a field dropped, added or replaced, a list for an object, an object for a list. */
  const flawed = (value: unknown, depth = 0): unknown => {
    const roll = next();
    if (roll < 0.05) return atom();
    if (Array.isArray(value)) {
      const list = [...value];
      if (roll < 0.15) return Object.fromEntries(list.map((item, i) => [i, item]));
      if (roll < 0.25) list.push(atom());
      else if (roll < 0.35 && list.length > 0) list.pop();
      else if (list.length > 0 && depth < 4) {
        const i = Math.floor(next() * list.length);
        list[i] = flawed(list[i], depth + 1);
      }
      return list;
    }
    if (typeof value === "object" && value !== null) {
      const object: Record<string, unknown> = { ...value };
      const keys = Object.keys(object);
      if (roll < 0.12) return [object];
      if (roll < 0.22) object[pick(["extra", "chainId", "from", "to", "version", "options", "__proto__", "then"])] = atom();
      else if (roll < 0.32 && keys.length > 0) delete object[pick(keys)];
      else if (roll < 0.38 && keys.length > 0) object[pick(keys)] = undefined;
      else if (keys.length > 0 && depth < 4) {
        const key = pick(keys);
        object[key] = flawed(object[key], depth + 1);
      }
      return object;
    }
    return roll < 0.5 ? atom() : value;
  };

  it("gives the same value, or the same error code, message, field and reason, on random params of each method", () => {
    const seen = new Map<string, { valid: number; invalid: number; fast: number }>();
    for (let i = 0; i < 600; i++) {
      for (const [name, schema, valid] of METHODS) {
        const params = next() < 0.3 ? valid() : flawed(valid());
        const expected = outcome(() => byZod(schema, params));
        const actual = outcome(() => parseParams(schema, params));
        if (!isDeepStrictEqual(actual, expected)) expect(actual, `${name} ${inspect(params, { depth: 8 })}`).to.deep.equal(expected);
        const counts = seen.get(name) ?? { valid: 0, invalid: 0, fast: 0 };
        if ("ok" in expected) counts.valid++;
        else counts.invalid++;
        if (parseValid(schema, params) !== undefined) counts.fast++;
        seen.set(name, counts);
      }
    }
    // Every method met both valid and invalid params, and (every schema here being positional) the fast path answered each valid one.
    for (const [name, counts] of seen) {
      expect(counts.valid, `${name} valid`).to.be.greaterThan(100);
      expect(counts.invalid, `${name} invalid`).to.be.greaterThan(100);
      expect(counts.fast, `${name} fast`).to.equal(counts.valid);
    }
  });
});
