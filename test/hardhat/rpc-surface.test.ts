/**
 * The RPC surface through Hardhat's own clients on a preconf network (docs/behaviour.md): a call or
 * send that hits the INVALID opcode is a revert to hardhat-ethers-chai-matchers (its error carries
 * `data: "0x"`, as Hardhat's network's), and a panic reads as the matcher's panic.
 */
import { expect } from "chai";
import { network } from "hardhat";

import { INVALID_RUNTIME, PANIC_RUNTIME } from "../helpers/bytecode.ts";

import type { NetworkConnection } from "hardhat/types/network";

const INVALID = "0x00000000000000000000000000000000000bad00";
const PANICS = "0x00000000000000000000000000000000000a11ce";
/** A function to call (any selector reaches the hand-assembled code). */
const ABI = ["function poke()"];

describe("INVALID opcodes and panics through hardhat-ethers and the chai matchers", () => {
  let connection: NetworkConnection;

  before(async () => {
    connection = await network.create("preconf");
    await connection.networkHelpers.setCode(INVALID, INVALID_RUNTIME);
    await connection.networkHelpers.setCode(PANICS, PANIC_RUNTIME);
  });
  after(() => connection.close());

  it("a send and a static call that hit INVALID revert to the matchers, without a reason (the error carries data '0x')", async () => {
    const contract = await connection.ethers.getContractAt(ABI, INVALID);
    await expect(contract.getFunction("poke")()).to.revert(connection.ethers);
    await expect(contract.getFunction("poke").staticCall()).to.revert(connection.ethers);
    // This matcher reads the error's data as Hardhat 2's `.reverted` did: without data '0x' it throws the error.
    await expect(contract.getFunction("poke")()).to.be.revertedWithoutReason(connection.ethers);
    await expect(contract.getFunction("poke").staticCall()).to.be.revertedWithoutReason(connection.ethers);
    const error = await contract
      .getFunction("poke")
      .staticCall()
      .then(
        () => undefined,
        (caught: unknown) => caught as { code?: unknown; message?: string; data?: unknown },
      );
    expect(error).to.include({ code: -32000, message: "invalid opcode: INVALID", data: "0x" });
  });

  it("a panic is the matcher's revertedWithPanic, and under automine its message Hardhat's", async () => {
    // The runtime reverts with Panic(<first calldata word>): a call with that word as its data.
    const [signer] = await connection.ethers.getSigners();
    const data = `0x${(0x11).toString(16).padStart(64, "0")}`;
    await expect(signer!.call({ to: PANICS, data })).to.be.revertedWithPanic(0x11);
    const error = await signer!.call({ to: PANICS, data }).then(
      () => undefined,
      (caught: unknown) => caught as { code?: unknown; message?: string },
    );
    // Under automine a failing eth_call answers Hardhat's error (throwOnCallFailures; docs/dev-methods.md), not geth's code 3.
    expect(error).to.include({
      code: -32603,
      message: "VM Exception while processing transaction: reverted with panic code 0x11 (Arithmetic operation overflowed outside of an unchecked block)",
    });
  });
});
