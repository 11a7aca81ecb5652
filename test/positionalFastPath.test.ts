/**
 * dispatch's fast path for valid params (src/protocol/params.ts, parseValid: positional schemas and the fork wrapper around them): for
 * valid params it gives exactly what the schema's safeParse gives, and for anything else it steps
 * aside (undefined) so that safeParse words the error as ever. Also: `preconf node`'s log output
 * is written once per event-loop turn, in order (src/cli/coalescedOutput.ts).
 */
import { expect } from "chai";

import { coalescedOutput } from "../src/cli/coalescedOutput.ts";
import { methods } from "../src/rpc/methods.ts";
import { parseValid } from "../src/rpc/params.ts";
import { blockSelector, callRequest } from "../src/rpc/schema.ts";
import { positional } from "../src/rpc/table.ts";

const TOKEN = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const CALL = { to: TOKEN, data: "0x70a08231000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266" };

describe("positional params fast path", () => {
  const schema = positional(callRequest, blockSelector.optional());

  it("answers valid params exactly as safeParse does, missing trailing items included", () => {
    for (const params of [[CALL, "latest"], [CALL], [CALL, "0x10"], [{ ...CALL, from: TOKEN, gas: "0x5208" }, { blockNumber: "0x1" }]]) {
      const slow = schema.safeParse(params);
      expect(slow.success, JSON.stringify(params)).to.equal(true);
      expect(parseValid(schema, params), JSON.stringify(params)).to.deep.equal({ success: true, data: slow.success ? slow.data : undefined });
    }
    expect(parseValid(positional(), undefined)).to.deep.equal({ success: true, data: [] });
    expect(parseValid(positional(), [])).to.deep.equal({ success: true, data: [] });
  });

  it("steps aside for anything invalid, and for schemas that are not positional", () => {
    for (const params of [
      {},
      "x",
      [CALL, "latest", undefined, 1],
      [{ ...CALL, to: "0x12" }],
      [CALL, "soon"],
      [{ ...CALL, gasPrice: "0x1", maxFeePerGas: "0x1" }],
    ]) {
      expect(parseValid(schema, params), JSON.stringify(params)).to.equal(undefined);
      expect(schema.safeParse(params).success, JSON.stringify(params)).to.equal(false);
    }
    expect(
      parseValid(
        positional().superRefine(() => undefined),
        [],
      ),
    ).to.equal(undefined);
    expect(parseValid(callRequest, CALL)).to.equal(undefined);
  });

  it("covers the hot methods of the table", () => {
    for (const name of ["eth_blockNumber", "eth_call", "eth_estimateGas", "eth_sendRawTransaction", "eth_getTransactionReceipt", "eth_getBalance"]) {
      const spec = methods[name]!;
      const params = {
        eth_blockNumber: [],
        eth_call: [CALL, "latest"],
        eth_estimateGas: [CALL],
        eth_sendRawTransaction: ["0x02"],
        eth_getTransactionReceipt: [`0x${"ab".repeat(32)}`],
        eth_getBalance: [TOKEN, "latest"],
      }[name];
      const slow = spec.params.safeParse(params);
      expect(parseValid(spec.params, params), name).to.deep.equal({ success: true, data: slow.success ? slow.data : "(invalid)" });
    }
  });
});

describe("coalesced log output", () => {
  it("writes a turn's text once, in order, after the turn; flush writes what waits at once", async () => {
    const writes: string[] = [];
    const out = coalescedOutput({ write: (text) => writes.push(text) });
    out.write("a\n");
    out.write("b\n");
    expect(writes).to.deep.equal([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).to.deep.equal(["a\nb\n"]);
    out.write("c\n");
    out.flush();
    expect(writes).to.deep.equal(["a\nb\n", "c\n"]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).to.have.length(2);
  });

  it("a stream that throws breaks nothing", async () => {
    const out = coalescedOutput({
      write: () => {
        throw new Error("stdout closed");
      },
    });
    out.write("a\n");
    await new Promise((resolve) => setImmediate(resolve));
    out.write("b\n");
    expect(() => out.flush()).to.not.throw();
  });
});
