/**
 * The method table's shape (src/rpc/table.ts, src/rpc/methods.ts): one builder, one handler per
 * name; the send service behind the wallet's eth_sendTransaction; the chain's RPC-side state in
 * one ChainScope (src/rpc/services/chainScope.ts) that a reset replaces.
 */
import { expect } from "chai";

import { METHOD_FAMILIES, methods } from "../src/rpc/methods.ts";
import { ChainScope } from "../src/rpc/services/chainScope.ts";
import { buildMethodTable, method, positional } from "../src/rpc/table.ts";
import { createTestChain } from "./helpers/chain.ts";

import type { MethodFamily } from "../src/rpc/table.ts";

const STRANGER = "0x1234567890123456789012345678901234567890";

describe("method table", () => {
  describe("buildMethodTable", () => {
    const answer = (value: string) => method(positional(), () => value);

    it("refuses a method name that two families define, naming the method and both sources", () => {
      const families: MethodFamily[] = [
        { source: "rpc/eth.ts", methods: { eth_chainId: answer("node"), eth_blockNumber: answer("0x0") } },
        { source: "rpc/wallet.ts", methods: { eth_chainId: answer("wallet") } },
      ];
      expect(() => buildMethodTable(families)).to.throw(Error, "JSON-RPC method eth_chainId is defined twice: in rpc/eth.ts and in rpc/wallet.ts");
    });

    it("merges distinct families into one table, each name with its family's handler", () => {
      const blockNumber = answer("0x0");
      const chainId = answer("0x7a69");
      const table = buildMethodTable([
        { source: "a.ts", methods: { eth_blockNumber: blockNumber } },
        { source: "b.ts", methods: { eth_chainId: chainId } },
      ]);
      expect(Object.keys(table)).to.deep.equal(["eth_blockNumber", "eth_chainId"]);
      expect(table.eth_blockNumber).to.equal(blockNumber);
      expect(table.eth_chainId).to.equal(chainId);
    });
  });

  describe("the provider's table", () => {
    it("has exactly one handler per name: the families' sizes add up to the table's", () => {
      const total = METHOD_FAMILIES.reduce((sum, family) => sum + Object.keys(family.methods).length, 0);
      expect(Object.keys(methods)).to.have.length(total);
    });

    it("eth_chainId, eth_accounts and eth_sendTransaction are the wallet's alone", () => {
      for (const name of ["eth_chainId", "eth_accounts", "eth_sendTransaction"]) {
        const owners = METHOD_FAMILIES.filter((family) => Object.hasOwn(family.methods, name)).map((family) => family.source);
        expect(owners, name).to.deep.equal(["rpc/wallet.ts"]);
      }
    });
  });

  describe("eth_sendTransaction through the send service", () => {
    it("an impersonated sender is sent for at once: no prompt, nothing in the wallet's log, even when the policy rejects", async () => {
      const { provider } = await createTestChain({ mining: "manual", walletPolicy: "reject" });
      try {
        await provider.request({ method: "hardhat_setBalance", params: [STRANGER, "0xde0b6b3a7640000"] });
        await provider.request({ method: "hardhat_impersonateAccount", params: [STRANGER] });
        const logged = provider.wallet.requestCount;
        const hash = (await provider.request({ method: "eth_sendTransaction", params: [{ from: STRANGER, to: STRANGER, value: "0x1" }] })) as string;
        expect(hash).to.match(/^0x[0-9a-f]{64}$/);
        expect(provider.wallet.requestCount).to.equal(logged);
        const pooled = (await provider.request({ method: "eth_getTransactionByHash", params: [hash] })) as { from: string };
        expect(pooled.from).to.equal(STRANGER);
      } finally {
        await provider.close();
      }
    });

    it("a dev account's send goes through the wallet's policy first: rejected, it is 4001 and logged", async () => {
      const { provider } = await createTestChain({ mining: "manual", walletPolicy: "reject" });
      try {
        const from = provider.accounts[0]!.address;
        const error = await provider.request({ method: "eth_sendTransaction", params: [{ from, to: STRANGER, value: "0x1" }] }).then(
          () => undefined,
          (failure: { code: number }) => failure,
        );
        expect(error?.code).to.equal(4001);
        expect(provider.wallet.lastRequest?.method).to.equal("eth_sendTransaction");
        expect(provider.wallet.lastRequest?.decision).to.equal("reject");
      } finally {
        await provider.close();
      }
    });
  });

  describe("ChainScope", () => {
    it("keeps one instance id until reset, and a new one after", () => {
      const scope = new ChainScope();
      const first = scope.instanceId;
      expect(first).to.match(/^0x[0-9a-f]{64}$/);
      expect(scope.instanceId).to.equal(first);
      scope.reset();
      expect(scope.instanceId).to.not.equal(first);
    });

    it("runs one sender's tasks one at a time, in order, and other senders' beside them", async () => {
      const scope = new ChainScope();
      const events: string[] = [];
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const first = scope.serialPerSender("0xAA", async () => {
        events.push("a1 start");
        await gate;
        events.push("a1 end");
      });
      // The same sender in another case: one queue.
      const second = scope.serialPerSender("0xaa", async () => {
        events.push("a2");
      });
      const other = scope.serialPerSender("0xbb", async () => {
        events.push("b1");
      });
      await other;
      expect(events).to.deep.equal(["a1 start", "b1"]);
      release();
      await Promise.all([first, second]);
      expect(events).to.deep.equal(["a1 start", "b1", "a1 end", "a2"]);
    });
  });
});
