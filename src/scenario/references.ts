/**
 * Values in fixtures that are computed when a step runs: `"$name.path"` references to earlier
 * results (captured with `"as": "name"`) and built-ins, and `{ "$calldata": "f(uint256)", "args" }`.
 */
import { readFileSync } from "node:fs";

import { viem } from "../lazyViem.ts";
import { packageRoot } from "../node/common/packageRoot.ts";
import { isAmountString, parseAmount } from "./amounts.ts";

import type { AbiFunction } from "viem";

const REFERENCE = /^\$[A-Za-z_]\w*(\.\w+)*$/;

/** Names every fixture can use without capturing them: `$accounts.1`, `$artifacts.Gate.bytecode`, ... */
export const BUILT_IN_NAMES = ["accounts", "artifacts", "zeroHash", "zeroAddress", "any"];

export const isReference = (text: string): boolean => REFERENCE.test(text);

/** `"$any"` in an expectation: any value except undefined. */
export const ANY: unique symbol = Symbol("$any");

/** fixtures/artifacts/ of the package, found on first use (wherever the bundle put this module: node/common/packageRoot.ts). */
let artifactsDir: URL | undefined;
const artifactCache = new Map<string, unknown>();

/** A compiled contract of `fixtures/artifacts/` (abi, bytecode, deployedBytecode), by contract name. */
function artifact(name: string): unknown {
  if (!/^\w+$/.test(name)) throw new Error(`invalid artifact name "${name}"`);
  if (!artifactCache.has(name)) {
    let text: string;
    try {
      artifactsDir ??= new URL("fixtures/artifacts/", packageRoot(import.meta.url));
      text = readFileSync(new URL(`${name}.json`, artifactsDir), "utf8");
    } catch {
      throw new Error(`no artifact "${name}" in fixtures/artifacts/`);
    }
    artifactCache.set(name, JSON.parse(text));
  }
  return artifactCache.get(name);
}

export class Scope {
  readonly #values = new Map<string, unknown>();
  readonly #builtIns: Record<string, unknown>;

  constructor(accounts: readonly string[]) {
    this.#builtIns = { accounts: [...accounts], zeroHash: `0x${"00".repeat(32)}`, zeroAddress: `0x${"00".repeat(20)}` };
  }

  set(name: string, value: unknown): void {
    this.#values.set(name, value);
  }

  /** Captured values, for reports and the determinism check. */
  captures(): Record<string, unknown> {
    return Object.fromEntries(this.#values);
  }

  lookup(reference: string): unknown {
    const [name, ...path] = reference.slice(1).split(".");
    if (name === "any") return ANY;
    let value: unknown;
    let walked = `$${name}`;
    if (name === "artifacts") {
      const contract = path.shift();
      if (contract === undefined) throw new Error(`$artifacts needs a contract name, e.g. $artifacts.Gate.bytecode`);
      value = artifact(contract);
      walked += `.${contract}`;
    } else if (this.#values.has(name!)) {
      value = this.#values.get(name!);
    } else if (name! in this.#builtIns) {
      value = this.#builtIns[name!];
    } else {
      const known = [...this.#values.keys(), ...BUILT_IN_NAMES];
      throw new Error(`unknown reference ${reference} (known: ${known.join(", ")})`);
    }
    for (const key of path) {
      if (typeof value !== "object" || value === null || !(key in value)) {
        throw new Error(`${reference}: ${walked} has no "${key}" (it is ${JSON.stringify(value) ?? "undefined"})`);
      }
      value = (value as Record<string, unknown>)[key];
      walked += `.${key}`;
    }
    return value;
  }

  /** Replaces references and $calldata objects throughout a JSON value; `"$$x"` is the literal `"$x"`. */
  resolve(value: unknown): unknown {
    if (typeof value === "string") {
      if (value.startsWith("$$")) return value.slice(1);
      return isReference(value) ? this.lookup(value) : value;
    }
    if (Array.isArray(value)) return value.map((item) => this.resolve(item));
    if (typeof value === "object" && value !== null) {
      if ("$calldata" in value) return this.#calldata(value as { $calldata: string; args?: unknown[] });
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, this.resolve(item)]));
    }
    return value;
  }

  #calldata({ $calldata: signature, args = [] }: { $calldata: string; args?: unknown[] }): string {
    const item = viem().parseAbiItem(`function ${signature}`) as AbiFunction;
    // Integers may be written as in the rest of the fixture ("1 ether", "0x10", "7").
    const values = item.inputs.map((input, index) => {
      const arg = this.resolve(args[index]);
      if (!/^u?int\d*$/.test(input.type)) return arg;
      if (typeof arg === "number" && Number.isSafeInteger(arg)) return BigInt(arg);
      return typeof arg === "string" && isAmountString(arg) ? parseAmount(arg) : arg;
    });
    return viem().encodeFunctionData({ abi: [item], args: values });
  }
}
