/**
 * How a failed call reads: a Solidity panic decoded in go-ethereum's words (accounts/abi
 * UnpackRevert, read at v1.17.5), an invalid opcode with geth's text and Hardhat's empty return data
 * (docs/dev-methods.md, "Reverts and estimates"), and a tx signed for another chain refused with data a
 * client can show (no text of the library that decoded it).
 */
import { expect } from "chai";
import { BaseError, CallExecutionError } from "viem";
import { privateKeyToAccount } from "viem/accounts";

import { createTestChain, rpcError, viemClients } from "./helpers/chain.ts";
import { INVALID_RUNTIME, PANIC_RUNTIME, panicCode } from "./helpers/bytecode.ts";

import type { Hex } from "viem";
import type { PreconfProvider } from "../src/index.ts";

const PANICS = "0x00000000000000000000000000000000000a11ce";
const INVALID = "0x00000000000000000000000000000000000bad00";
/** An undefined opcode (0x0c), then STOP. */
const UNDEFINED = "0x00000000000000000000000000000000000bad0c";

describe("failed calls and refused txs", () => {
  let provider: PreconfProvider;
  let from: Hex;

  beforeEach(async () => {
    ({ provider } = await createTestChain({ mining: "manual" }));
    from = provider.accounts[0]!.address;
    await provider.request({ method: "hardhat_setCode", params: [PANICS, PANIC_RUNTIME] });
    await provider.request({ method: "hardhat_setCode", params: [INVALID, INVALID_RUNTIME] });
    await provider.request({ method: "hardhat_setCode", params: [UNDEFINED, "0x0c00"] });
    await provider.request({ method: "evm_mine" });
  });
  afterEach(() => provider.close());

  it("eth_call that panics: code 3, geth's decoded reason (go-ethereum's panicReasons table), the revert bytes as data", async () => {
    for (const [code, reason] of [
      [0x00, "generic panic"],
      [0x01, "assert(false)"],
      [0x11, "arithmetic underflow or overflow"],
      [0x12, "division or modulo by zero"],
      [0x21, "enum overflow"],
      [0x22, "invalid encoded storage byte array accessed"],
      [0x31, "out-of-bounds array access; popping on an empty array"],
      [0x32, "out-of-bounds access of an array or bytesN"],
      [0x41, "out of memory"],
      [0x51, "uninitialized function"],
      [0x99, "unknown panic code: 0x99"],
    ] as const) {
      const data = `0x4e487b71${panicCode(code).slice(2)}`;
      expect(await rpcError(provider, "eth_call", [{ to: PANICS, data: panicCode(code) }])).to.deep.equal({
        code: 3,
        message: `execution reverted: ${reason}`,
        data,
      });
    }
    // eth_estimateGas keeps the interface's -32000 "execution reverted", the bytes in data.
    expect(await rpcError(provider, "eth_estimateGas", [{ from, to: PANICS, data: panicCode(0x11) }])).to.deep.equal({
      code: -32000,
      message: "execution reverted",
      data: `0x4e487b71${panicCode(0x11).slice(2)}`,
    });
  });

  it("viem decodes the panic from the same answer (ContractFunctionRevertedError's reason)", async () => {
    const { publicClient } = viemClients(provider);
    const error = await publicClient.call({ to: PANICS, data: panicCode(0x12) }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(BaseError);
    expect((error as BaseError).shortMessage).to.include("division or modulo by zero");
  });

  it("a call that hits INVALID (0xfe): geth's -32000 'invalid opcode: INVALID', with data '0x' as Hardhat's", async () => {
    const invalid = { code: -32000, message: "invalid opcode: INVALID", data: "0x" };
    expect(await rpcError(provider, "eth_call", [{ to: INVALID }])).to.deep.equal(invalid);
    expect(await rpcError(provider, "eth_estimateGas", [{ from, to: INVALID }])).to.deep.equal(invalid);
    // The send's gas estimate fails the same way: nothing is sent.
    expect(await rpcError(provider, "eth_sendTransaction", [{ from, to: INVALID }])).to.deep.equal(invalid);
    // An opcode no instruction has: geth names its byte.
    expect(await rpcError(provider, "eth_call", [{ to: UNDEFINED }])).to.deep.equal({
      code: -32000,
      message: "invalid opcode: opcode 0xc not defined",
      data: "0x",
    });
  });

  it("viem reports the invalid opcode as a failed call with geth's text (CallExecutionError), not as a revert with a reason", async () => {
    const { publicClient } = viemClients(provider);
    const error = (await publicClient.call({ to: INVALID }).catch((e: unknown) => e)) as BaseError;
    expect(error).to.be.instanceOf(CallExecutionError);
    expect(error.details).to.equal("invalid opcode: INVALID");
    // viem reads any -32000 as EIP-1474's "invalid input", as it does geth's same answer.
    expect((error.walk((e) => (e as { code?: number }).code === -32000) as { code?: number } | null)?.code).to.equal(-32000);
  });

  it("a mined tx that hits INVALID fails and uses all its gas; its trace says so", async () => {
    const hash = await provider.request({ method: "eth_sendTransaction", params: [{ from, to: INVALID, gas: "0x10000" }] });
    await provider.request({ method: "evm_mine" });
    const receipt = (await provider.request({ method: "eth_getTransactionReceipt", params: [hash] })) as { status: string; gasUsed: string };
    expect(receipt).to.include({ status: "0x0", gasUsed: "0x10000" });
    const frame = (await provider.request({ method: "debug_traceTransaction", params: [hash, { tracer: "callTracer" }] })) as { error: string };
    expect(frame.error).to.equal("invalid opcode: INVALID");
  });

  it("a tx signed for another chain is 'invalid sender' with data a client can show: the chain ids, no library text", async () => {
    const account = privateKeyToAccount(provider.accounts[0]!.privateKey);
    const base = { to: provider.accounts[1]!.address, value: 1n, gas: 21000n, nonce: 0 };
    const cases = [
      await account.signTransaction({ ...base, chainId: 1, gasPrice: 10n ** 10n }),
      await account.signTransaction({ ...base, chainId: 1, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n }),
      await account.signTransaction({ ...base, chainId: 1, type: "eip2930", gasPrice: 10n ** 10n, accessList: [] }),
    ];
    for (const raw of cases) {
      const error = await rpcError(provider, "eth_sendRawTransaction", [raw]);
      expect(error).to.deep.equal({
        code: -32000,
        message: "invalid sender",
        data: { reason: "signed for chain id 1, this chain's id is 31337", txChainId: "0x1", chainId: "0x7a69" },
      });
    }
  });
});
