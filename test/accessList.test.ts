/**
 * eth_createAccessList with go-ethereum's algorithm and answer (internal/ethapi/api.go AccessList,
 * eth/tracers/logger/access_list_tracer.go, read at v1.17.5): the addresses and slots a call
 * touches, without the sender, the recipient and the precompiles as addresses; a failure as the
 * `error` field; the gas the call uses with the list, which a tx sent with it uses too.
 * (go-ethereum's answers on the execution-apis chain: test/import.test.ts.)
 */
import { createContractAddress, createAddressFromString } from "@ethereumjs/util";
import { expect } from "chai";

import { createTestChain, rpcError } from "./helpers/chain.ts";
import { ACCESS_RUNTIME, PANIC_RUNTIME, PROBED_ADDRESS, panicCode } from "./helpers/bytecode.ts";

import type { Hex } from "viem";
import type { PreconfProvider } from "../src/index.ts";

interface AccessListAnswer {
  accessList: { address: Hex; storageKeys: Hex[] }[];
  error?: string;
  gasUsed: Hex;
}

const word = (n: number) => `0x${n.toString(16).padStart(64, "0")}` as Hex;
const TOUCHED = "0x00000000000000000000000000000000000ac0de";
const PANICS = "0x00000000000000000000000000000000000a11ce";

async function call<T = unknown>(provider: PreconfProvider, method: string, params: unknown[] = []): Promise<T> {
  return (await provider.request({ method, params })) as T;
}

describe("eth_createAccessList", () => {
  let provider: PreconfProvider;
  let from: Hex;

  beforeEach(async () => {
    ({ provider } = await createTestChain({ mining: "manual" }));
    from = provider.accounts[0]!.address;
    await call(provider, "hardhat_setCode", [TOUCHED, ACCESS_RUNTIME]);
    await call(provider, "hardhat_setCode", [PANICS, PANIC_RUNTIME]);
    await call(provider, "evm_mine");
  });
  afterEach(() => provider.close());

  it("lists the slots and addresses a call touches, sorted; the recipient only for its slots, the precompile not at all", async () => {
    const answer = await call<AccessListAnswer>(provider, "eth_createAccessList", [{ from, to: TOUCHED }]);
    expect(answer.accessList).to.deep.equal([
      { address: PROBED_ADDRESS, storageKeys: [] },
      { address: TOUCHED, storageKeys: [word(1), word(2)] },
    ]);
    expect(answer).to.not.have.property("error");
    // Sent with that list, the tx uses exactly the gas answered.
    const hash = await call<Hex>(provider, "eth_sendTransaction", [{ from, to: TOUCHED, accessList: answer.accessList, gas: "0x30000" }]);
    await call(provider, "evm_mine");
    const receipt = await call<{ gasUsed: Hex; status: Hex }>(provider, "eth_getTransactionReceipt", [hash]);
    expect(receipt).to.include({ gasUsed: answer.gasUsed, status: "0x1" });
  });

  it("a plain transfer needs no list: [] and 21000 gas (the execution-apis 'create-al-value-transfer' answer)", async () => {
    expect(await call(provider, "eth_createAccessList", [{ from, to: "0x0100000000000000000000000000000000000000", value: "0xa" }])).to.deep.equal({
      accessList: [],
      gasUsed: "0x5208",
    });
  });

  it("a call that reverts is no error answer: go-ethereum's `error` field, beside the list and the gas used", async () => {
    const answer = await call<AccessListAnswer>(provider, "eth_createAccessList", [{ from, to: PANICS, data: panicCode(1) }]);
    expect(answer.error).to.equal("execution reverted");
    expect(answer.accessList).to.deep.equal([]);
    expect(Object.keys(answer)).to.deep.equal(["accessList", "error", "gasUsed"]);
    expect(BigInt(answer.gasUsed)).to.be.greaterThan(21000n);
  });

  it("a deployment leaves out the address it creates; the list the caller gave is kept, less the addresses left out", async () => {
    const nonce = BigInt(await call<Hex>(provider, "eth_getTransactionCount", [from, "latest"]));
    const created = createContractAddress(createAddressFromString(from), nonce).toString();
    // The runtime's code run as init code: it touches the same things from the new address.
    const answer = await call<AccessListAnswer>(provider, "eth_createAccessList", [
      {
        from,
        data: ACCESS_RUNTIME,
        accessList: [
          { address: from, storageKeys: [word(9)] },
          { address: "0x000000000000000000000000000000000000beef", storageKeys: [word(3)] },
        ],
      },
    ]);
    expect(answer.accessList).to.deep.equal([
      { address: "0x000000000000000000000000000000000000beef", storageKeys: [word(3)] },
      { address: PROBED_ADDRESS, storageKeys: [] },
      { address: created, storageKeys: [word(1), word(2)] },
    ]);
  });

  it("takes the block, the pending state and state overrides as eth_call does", async () => {
    // The code set after block 0 is block 0's state, as Hardhat attributes edits (docs/dev-methods.md#state-edits).
    expect((await call<AccessListAnswer>(provider, "eth_createAccessList", [{ from, to: TOUCHED }, "0x0"])).accessList).to.deep.equal(
      (await call<AccessListAnswer>(provider, "eth_createAccessList", [{ from, to: TOUCHED }, "latest"])).accessList,
    );
    const elsewhere = "0x00000000000000000000000000000000000000e1";
    const overridden = await call<AccessListAnswer>(provider, "eth_createAccessList", [
      { from, to: elsewhere },
      "latest",
      { [elsewhere]: { code: ACCESS_RUNTIME } },
    ]);
    expect(overridden.accessList.map((item) => item.address)).to.deep.equal([elsewhere, PROBED_ADDRESS]);
    expect(await call(provider, "eth_createAccessList", [{ from, to: TOUCHED }, "pending"])).to.deep.equal(
      await call(provider, "eth_createAccessList", [{ from, to: TOUCHED }]),
    );
  });

  it("a call that cannot run is refused as eth_call refuses it", async () => {
    const poor = "0x00000000000000000000000000000000000000b0";
    expect(await rpcError(provider, "eth_createAccessList", [{ from: poor, to: TOUCHED, value: "0x1" }])).to.deep.equal(
      await rpcError(provider, "eth_call", [{ from: poor, to: TOUCHED, value: "0x1" }]),
    );
    expect(await rpcError(provider, "eth_createAccessList", [{ from, to: TOUCHED }, "0x99"])).to.deep.include({ code: -32000, message: "header not found" });
  });
});
