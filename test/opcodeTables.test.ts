/**
 * Opcode tables built once per fork (src/node/ethereumjs/opcodeTables.ts): an EVM on a reused table
 * has the package's opcodes, fees and gas handlers, entries of its own (the patches above the cache
 * replace handlers per EVM), and a table is built again when a fee param it read has changed.
 */
import { Common, Mainnet } from "@ethereumjs/common";
import { createEVM, getOpcodesForHF } from "@ethereumjs/evm";
import { expect } from "chai";

import { isHooked } from "../src/node/ethereumjs/opcodeHooks.ts";
import { installOpcodeTables, opcodeTableStats } from "../src/node/ethereumjs/opcodeTables.ts";

import type { EVM } from "@ethereumjs/evm";

type Entry = { opcodeInfo: { name: string; fee: number; dynamicGas: boolean; isInvalid: boolean }; opHandler: unknown; gasHandler: unknown };
const tableOf = (evm: EVM) => (evm as unknown as { _opcodeMap: Entry[] })._opcodeMap;

/** What an entry is, apart from its handlers (which the patches above the cache may replace). */
const described = (entry: Entry) => ({
  name: entry.opcodeInfo.name,
  fee: entry.opcodeInfo.fee,
  dynamicGas: entry.opcodeInfo.dynamicGas,
  invalid: entry.opcodeInfo.isInvalid,
});

describe("opcode tables (opcodeTables.ts)", () => {
  before(() => installOpcodeTables());

  for (const hardfork of ["berlin", "cancun", "prague", "osaka"]) {
    it(`${hardfork}: an EVM on a reused table has the package's opcodes and fees, the handlers of an EVM whose table was built, and entries of its own`, async () => {
      const common = new Common({ chain: Mainnet, hardfork });
      const first = await createEVM({ common });
      const before = { ...opcodeTableStats };
      const second = await createEVM({ common: first.common.copy() });
      expect(opcodeTableStats.reused - before.reused, "the second EVM reuses the first's table").to.equal(1);
      expect(opcodeTableStats.built - before.built).to.equal(0);
      const fresh = getOpcodesForHF(second.common).opcodeMap as unknown as Entry[];
      for (let code = 0; code <= 0xff; code++) {
        const [built, reused] = [tableOf(first)[code]!, tableOf(second)[code]!];
        const at = `opcode 0x${code.toString(16)}`;
        expect(described(reused), at).to.deep.equal(described(fresh[code]!));
        // The same handlers as the EVM whose table was built (a hook's wrapper is a closure per EVM).
        expect(reused.gasHandler, at).to.equal(built.gasHandler);
        if (isHooked(built.opHandler)) expect(isHooked(reused.opHandler), at).to.equal(true);
        else expect(reused.opHandler, at).to.equal(built.opHandler);
        if (!fresh[code]!.opcodeInfo.isInvalid) expect(reused, `${at}: an entry of its own`).to.not.equal(built);
      }
      expect(second.opcodes).to.equal(first.opcodes);
    });
  }

  it("a new chain of the same rules reuses the table; one with another fork, or other forks before it, does not", async () => {
    await createEVM({ common: new Common({ chain: Mainnet, hardfork: "cancun" }) });
    const before = { ...opcodeTableStats };
    await createEVM({ common: new Common({ chain: Mainnet, hardfork: "cancun" }) });
    expect(opcodeTableStats.reused - before.reused, "a new Common of the same fork").to.equal(1);
    const custom = await createEVM({
      common: new Common({ chain: { ...Mainnet, hardforks: Mainnet.hardforks.filter((fork) => fork.name !== "shanghai") }, hardfork: "cancun" }),
    });
    expect(opcodeTableStats.reused - before.reused, "another fork sequence").to.equal(1);
    // Its table is the package's for that sequence (PUSH0, 0x5f, came with Shanghai's EIP-3855).
    const fresh = getOpcodesForHF(custom.common).opcodeMap as unknown as Entry[];
    for (let code = 0; code <= 0xff; code++) expect(described(tableOf(custom)[code]!), `opcode 0x${code.toString(16)}`).to.deep.equal(described(fresh[code]!));
  });

  it("follows its Common's fork as it moves (the EVM's hardforkChanged listener), and extra EIPs: each table the package's", async () => {
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: "cancun" }) });
    for (const hardfork of ["osaka", "london", "cancun", "prague"]) {
      evm.common.setHardfork(hardfork);
      const fresh = getOpcodesForHF(evm.common).opcodeMap as unknown as Entry[];
      for (let code = 0; code <= 0xff; code++)
        expect(described(tableOf(evm)[code]!), `${hardfork}, opcode 0x${code.toString(16)}`).to.deep.equal(described(fresh[code]!));
    }
    // EIP-7939 (CLZ, 0x1e) on Prague, where it is not active: another EIP list, another table.
    const plain = await createEVM({ common: new Common({ chain: Mainnet, hardfork: "prague" }) });
    const clz = await createEVM({ common: new Common({ chain: Mainnet, hardfork: "prague", eips: [7939] }) });
    expect(tableOf(plain)[0x1e]!.opcodeInfo.name).to.equal("INVALID");
    expect(tableOf(clz)[0x1e]!.opcodeInfo.name).to.equal("CLZ");
  });

  it("builds a table again when a fee param it read holds another value", async () => {
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: "prague" }) });
    const other = await createEVM({ common: evm.common.copy() });
    // After the EVM's own merge of its default params, which would write the default back.
    other.common.updateParams({ 2929: { sloadGas: 7 } });
    const before = { ...opcodeTableStats };
    other.getActiveOpcodes();
    expect(opcodeTableStats.built - before.built).to.equal(1);
    expect(tableOf(other)[0x54]!.opcodeInfo.fee).to.equal(7);
    expect(tableOf(evm)[0x54]!.opcodeInfo.fee, "the first EVM's table is its own").to.equal(0);
  });

  it("builds the table of an EVM with custom opcodes as the package does, every time", async () => {
    const customOpcodes = [{ opcode: 0x21, opcodeName: "TWENTYONE", baseFee: 21, logicFunction: () => undefined }];
    const before = { ...opcodeTableStats };
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: "prague" }), customOpcodes });
    expect(opcodeTableStats).to.deep.equal(before);
    expect(tableOf(evm)[0x21]!.opcodeInfo).to.include({ name: "TWENTYONE", fee: 21 });
  });
});
