/**
 * Sealed-block state views (src/node/state/stateViews.ts): past the few cached views, an idle view's VM
 * is pointed at the next block read instead of copied. Every read must still see its own block's
 * state: nothing cached at the old root may leak into the new one.
 */
import { expect } from "chai";

import { stateViewsStats } from "../src/node/state/stateViews.ts";
import { createTestChain } from "./helpers/chain.ts";
import { send, signTx } from "./helpers/sign.ts";

import type { PreconfProvider } from "../src/index.ts";

const STRANGER = "0x1234567890123456789012345678901234567890";
const BLOCKS = 20;
const hex = (n: number | bigint) => `0x${n.toString(16)}`;

async function balanceAt(provider: PreconfProvider, number: number): Promise<bigint> {
  return BigInt((await provider.request({ method: "eth_getBalance", params: [STRANGER, hex(number)] })) as string);
}

async function nonceAt(provider: PreconfProvider, number: number): Promise<bigint> {
  const sender = provider.accounts[0]!.address;
  return BigInt((await provider.request({ method: "eth_getTransactionCount", params: [sender, hex(number)] })) as string);
}

describe("sealed-block state views", () => {
  it("reads every block's own state while views are reused for other blocks, in any order", async () => {
    const { provider } = await createTestChain({ mining: "manual" });
    try {
      // Block n holds one 1-wei transfer to STRANGER: its balance at n is n wei, the sender's nonce n.
      for (let number = 1; number <= BLOCKS; number++) {
        await send(provider, await signTx(provider, 0, { nonce: number - 1, to: STRANGER }));
        await provider.preconf.seal();
      }
      // Forwards, backwards, then strided: more blocks than cached views, so most reads reuse one.
      const order = [
        ...Array.from({ length: BLOCKS }, (_, i) => i + 1),
        ...Array.from({ length: BLOCKS }, (_, i) => BLOCKS - i),
        ...Array.from({ length: BLOCKS }, (_, i) => ((i * 7) % BLOCKS) + 1),
      ];
      for (const number of order) {
        expect(await balanceAt(provider, number), `balance at block ${number}`).to.equal(BigInt(number));
        expect(await nonceAt(provider, number), `nonce at block ${number}`).to.equal(BigInt(number));
      }
      // Reads racing each other on different blocks each see their own block.
      const numbers = Array.from({ length: BLOCKS }, (_, i) => i + 1);
      const balances = await Promise.all(numbers.map((number) => balanceAt(provider, number)));
      expect(balances).to.deep.equal(numbers.map(BigInt));
    } finally {
      await provider.close();
    }
  });

  it("a snapshot of the live state that supersedes the last takes over its VM: the live VM is copied once for a read after every block", async () => {
    const { provider } = await createTestChain({ mining: "auto" });
    try {
      const before = { ...stateViewsStats };
      for (let nonce = 0; nonce < 6; nonce++) {
        await send(provider, await signTx(provider, 0, { nonce, to: STRANGER }));
        // A dry run at pending reads a snapshot of the live state after this block: it replaces the one before.
        const gas = BigInt(
          (await provider.request({
            method: "eth_estimateGas",
            params: [{ from: provider.accounts[1]!.address, to: STRANGER, value: "0x1" }, "pending"],
          })) as string,
        );
        expect(gas).to.equal(21_000n);
      }
      // A spare handed back a microtask after its view left made the second view copy again.
      expect(stateViewsStats.copied - before.copied, "VMs copied").to.equal(1);
      expect(stateViewsStats.moved - before.moved, "VMs moved to the next snapshot").to.equal(5);
    } finally {
      await provider.close();
    }
  });
});
