/**
 * Jump-destination analysis, done once per contract code instead of once per call.
 *
 * @ethereumjs/evm 10.1.3 (interpreter.js) analyses a contract's code on every call frame that
 * reaches a JUMP: `Interpreter._getValidJumpDestinations(code)` walks the whole code, building a
 * JUMPDEST bitmap, the decoded PUSH immediates and the opcode table of every position. That is
 * ~15 % of a small `eth_call` (a `balanceOf` on an ERC-20), and the answer depends only on the
 * code and on the EVM's opcode table (which the hardfork decides). So the result is memoised per
 * opcode table and code array: the state manager's code cache hands out the same Uint8Array for
 * an account's code for as long as it holds it, and a new EVM or a hardfork change makes a new
 * opcode table (each EVM has its own, whose entries carry that EVM's opcode hook: analyses are not
 * shared between EVMs). A code array not seen before is looked up by its keccak hash (its code hash), so
 * the same code in another array (the same contract deployed again, as a test file's fixture
 * does, or read back after its cache entry went) is analysed once too. The interpreter only reads
 * the result (`validJumps`, `cachedPushes`, the opcode array), so one copy can serve every call.
 *
 * `Interpreter` is not exported by the package (its `exports` map only `.`), so it is reached
 * through the files beside the package's entry points: dist/esm/interpreter.js (the module
 * `evm.js` itself imports, and the one this package's engine runs on) and dist/cjs/interpreter.js
 * (for a process that also loads the CommonJS build, as a test runner may). Both are patched (the
 * private `Interpreter._getValidJumpDestinations` and `_evm._opcodeMap`); the CommonJS build only
 * once something else has loaded it (see `loadedCommonJs`): loading it here would cost a fresh
 * process some 60 modules it never runs. test/jumpAnalysis.test.ts fails if an upgrade moves or
 * renames them.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

import { bytesToUnprefixedHex } from "@ethereumjs/util";

import { keccak256 } from "../common/crypto.ts";

interface Analysis {
  jumps: Uint8Array;
  pushes: Record<number, bigint>;
  opcodesCached: unknown[];
}

interface InterpreterInternals {
  _evm: { _opcodeMap: object };
  _getValidJumpDestinations(code: Uint8Array): Analysis;
}

interface InterpreterClass {
  prototype: InterpreterInternals & { [ORIGINAL]?: (code: Uint8Array) => Analysis };
}

const ORIGINAL = Symbol("hardhat-preconf original jump analysis");

/** Analyses actually computed (cache misses), for tests. */
export const jumpAnalysisStats = { computed: 0 };

/**
 * Code bytes whose analyses are kept by hash, per opcode table (an analysis holds ~9 bytes per code
 * byte); past it the oldest go first. 2 MiB is some 500 contracts of 4 KiB, ~20 MB of analyses.
 */
const MAX_HASHED_CODE_BYTES = 2 * 1024 * 1024;

const require = createRequire(import.meta.url);

let modules: { esm: string; cjs: string } | undefined;

/** Where @ethereumjs/evm keeps its Interpreter: beside each build's entry point (dist/cjs, dist/esm). */
export function interpreterModules(): { esm: string; cjs: string } {
  if (modules === undefined) {
    const dist = dirname(dirname(require.resolve("@ethereumjs/evm")));
    modules = { esm: pathToFileURL(join(dist, "esm", "interpreter.js")).href, cjs: join(dist, "cjs", "interpreter.js") };
  }
  return modules;
}

/**
 * The exports of a CommonJS module of the package if the process has loaded it already, else
 * undefined (never loads it: the engine runs on the ES module build, and `require`'s cache is keyed
 * by the same resolved file name `interpreterModules` gives).
 */
export function loadedCommonJs<T>(file: string): T | undefined {
  const cached = require.cache[file];
  return cached?.loaded === true ? (cached.exports as T) : undefined;
}

let installed: Promise<void> | undefined;

/**
 * Installs the memoised analysis in the ES module build (once per process; later calls return the
 * same promise), and in the CommonJS build when the process has loaded it (checked on every call:
 * each new chain calls this).
 */
export function installJumpAnalysisCache(): Promise<void> {
  const { esm, cjs } = interpreterModules();
  installed ??= (async () => memoise(((await import(esm)) as { Interpreter: InterpreterClass }).Interpreter))();
  const commonJs = loadedCommonJs<{ Interpreter: InterpreterClass }>(cjs);
  if (commonJs !== undefined) memoise(commonJs.Interpreter);
  return installed;
}

function memoise(Interpreter: InterpreterClass): void {
  const proto = Interpreter.prototype;
  if (typeof proto._getValidJumpDestinations !== "function") {
    throw new Error("@ethereumjs/evm: Interpreter._getValidJumpDestinations is gone; update src/node/ethereumjs/jumpAnalysis.ts");
  }
  if (proto[ORIGINAL] !== undefined) return;
  const original = proto._getValidJumpDestinations;
  const byTable = new WeakMap<object, { byArray: WeakMap<Uint8Array, Analysis>; byHash: Map<string, Analysis>; bytes: number }>();
  proto[ORIGINAL] = original;
  proto._getValidJumpDestinations = function (this: InterpreterInternals, code: Uint8Array): Analysis {
    const table = this._evm._opcodeMap;
    let memo = byTable.get(table);
    if (memo === undefined) {
      memo = { byArray: new WeakMap(), byHash: new Map(), bytes: 0 };
      byTable.set(table, memo);
    }
    let analysis = memo.byArray.get(code);
    if (analysis === undefined) {
      const hash = bytesToUnprefixedHex(keccak256(code));
      analysis = memo.byHash.get(hash);
      if (analysis === undefined) {
        jumpAnalysisStats.computed++;
        analysis = original.call(this, code);
        memo.byHash.set(hash, analysis);
        memo.bytes += code.length;
        for (const [old, kept] of memo.byHash) {
          if (memo.bytes <= MAX_HASHED_CODE_BYTES || old === hash) break;
          memo.byHash.delete(old);
          memo.bytes -= kept.jumps.length;
        }
      }
      memo.byArray.set(code, analysis);
    }
    return analysis;
  };
}
