/**
 * One hidden class per kind of engine object (ethereumjs/commonShape.ts, evmFields.ts, vmCopy.ts,
 * state/viewState.ts): a state view's VM, EVM, state and Commons have the live chain's maps from
 * the moment they are made, so the code V8 optimized for the block path is not thrown away when
 * the first eth_call runs on a view (bench/benchmarks-notes.md, "Nineteenth round"). Checked with
 * V8's `%HaveSameMap`, in a child process started with `--allow-natives-syntax` (test/probes/engineShapes.ts).
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

import { expect } from "chai";

const PROBE = fileURLToPath(new URL("probes/engineShapes.ts", import.meta.url));

describe("engine objects share hidden classes", () => {
  it("a state view's VM, EVM, state, journal and Commons have the live chain's maps, before and after its first dry run", async () => {
    const outcome = await new Promise<unknown>((resolve, reject) => {
      execFile(process.execPath, ["--allow-natives-syntax", "--import", "tsx", PROBE], { timeout: 60_000 }, (error, stdout, stderr) =>
        error === null ? resolve(JSON.parse(stdout)) : reject(new Error(`${error.message}\n${stderr}`)),
      );
    });
    expect(outcome).to.deep.equal({
      before: { vm: true, evm: true, state: true, journal: true },
      afterCall: { vm: true, evm: true },
      // The view VM's Common, its EVM's, and the shared Common admission builds txs on.
      commons: [true, true, true],
      // An empty array made for objects has an array of objects' map; a `[]` has not.
      arrays: { objectArray: true, literal: false },
    });
  });
});
