/**
 * Decodes the calldata of `console.log` calls (src/node/execution/consoleLog.ts captures it) into the lines
 * Hardhat's node prints. The overloads are those of Hardhat's `console.sol`: `log()`, one argument
 * of `uint256`, `int256`, `string`, `bool`, `address`, `bytes` or `bytes1`…`bytes32` (also as
 * `logUint`, `logInt`, `logString`, `logBool`, `logAddress`, `logBytes`, `logBytesN`), and two to
 * four arguments each one of `uint256`, `string`, `bool` or `address`. Early releases of
 * console.sol computed their selectors from `uint`/`int` spellings (`log(uint)`): those are
 * decoded too. As in Hardhat, the first argument, when a string, is a format (`%s`, `%d`, `%i`,
 * `%o`, `%%`: Node's util.format).
 */
import { format } from "node:util";

import { keccak256 } from "../node/common/crypto.ts";
import { toChecksumAddress } from "@ethereumjs/util";
import { viem } from "../lazyViem.ts";

import type { Hex } from "../node/common/types.ts";

const COMBINED = ["uint256", "string", "bool", "address"] as const;

function* signatures(): Generator<{ name: string; types: string[] }> {
  yield { name: "log", types: [] };
  const single = ["uint256", "int256", "string", "bool", "address", "bytes"];
  for (const type of single) yield { name: "log", types: [type] };
  const named: Record<string, string> = { Uint: "uint256", Int: "int256", String: "string", Bool: "bool", Address: "address", Bytes: "bytes" };
  for (const [suffix, type] of Object.entries(named)) yield { name: `log${suffix}`, types: [type] };
  for (let n = 1; n <= 32; n++) yield { name: `logBytes${n}`, types: [`bytes${n}`] };
  for (let count = 2; count <= 4; count++) {
    for (let index = 0; index < COMBINED.length ** count; index++) {
      const types: string[] = [];
      for (let i = 0, rest = index; i < count; i++, rest = Math.floor(rest / COMBINED.length)) types.push(COMBINED[rest % COMBINED.length]!);
      yield { name: "log", types };
    }
  }
}

const selectorOf = (text: string): string => Buffer.from(keccak256(new TextEncoder().encode(text)).subarray(0, 4)).toString("hex");

let table: Map<string, string[]> | undefined;

/** Selector (8 hex digits) → the ABI types of its arguments; made on first use (~600 hashes). */
function selectors(): Map<string, string[]> {
  if (table !== undefined) return table;
  table = new Map();
  for (const { name, types } of signatures()) {
    table.set(selectorOf(`${name}(${types.join(",")})`), types);
    // The early spelling: `uint`/`int` hashed as written.
    const legacy = types.map((type) => (type === "uint256" ? "uint" : type === "int256" ? "int" : type));
    if (legacy.some((type, i) => type !== types[i])) table.set(selectorOf(`${name}(${legacy.join(",")})`), types);
  }
  return table;
}

function shown(value: unknown, type: string): unknown {
  if (type === "address") return toChecksumAddress(value as string);
  if (typeof value === "bigint") return value.toString();
  return value;
}

/** The line a `console.log` call prints; undefined when its calldata is no console.sol overload. */
export function decodeConsoleCall(calldata: Hex): string | undefined {
  const types = selectors().get(calldata.slice(2, 10).toLowerCase());
  if (types === undefined) return undefined;
  if (types.length === 0) return "";
  try {
    const values = viem().decodeAbiParameters(
      types.map((type) => ({ type })),
      `0x${calldata.slice(10)}`,
    );
    const args = values.map((value, i) => shown(value, types[i]!));
    // A string first is a format, as console.log in Node and in Hardhat; anything else is printed as is.
    return typeof args[0] === "string" ? format(...(args as [string, ...unknown[]])) : args.map(String).join(" ");
  } catch {
    return undefined;
  }
}
