/**
 * The bench's contracts: fixtures/contracts/Token.sol and Refund.sol compiled for Shanghai (no
 * MCOPY / transient storage), the newest fork all four peers execute: ganache 7 stops at Shanghai,
 * and the fixtures' committed artifacts target Prague. Compiled once per run, untimed, with the
 * `solc` npm package; every peer gets the same bytecode.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

import type { Abi, Hex } from "viem";

interface Solc {
  compile(input: string): string;
}

export interface Compiled {
  abi: Abi;
  bytecode: Hex;
}

export function compileBenchContracts(): { Token: Compiled; Refund: Compiled } {
  const solc = createRequire(import.meta.url)("solc") as Solc;
  const source = (name: string) => ({ content: readFileSync(new URL(`../fixtures/contracts/${name}.sol`, import.meta.url), "utf8") });
  const input = {
    language: "Solidity",
    sources: { "Token.sol": source("Token"), "Refund.sol": source("Refund") },
    settings: {
      evmVersion: "shanghai",
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = output.errors?.filter((error) => error.severity === "error") ?? [];
  if (errors.length > 0) throw new Error(errors.map((error) => error.formattedMessage).join("\n"));
  const pick = (file: string, name: string): Compiled => {
    const contract = output.contracts[file]![name]!;
    return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  };
  return { Token: pick("Token.sol", "Token"), Refund: pick("Refund.sol", "Refund") };
}
