/**
 * The `genesis` and `chain` options: a geth genesis with its own fork schedule, and hive's
 * execution-apis chain (fixtures/execution-apis) imported block by block.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { bytesToHex } from "@ethereumjs/util";
import { expect } from "chai";

import { devGethGenesis } from "../src/node/state/genesis.ts";
import { decodeBlocks } from "../src/node/chain/importChain.ts";
import { createTestChain, START_MS } from "./helpers/chain.ts";

import type { GethGenesis } from "@ethereumjs/common";
import type { PreconfProvider } from "../src/index.ts";
import type { Hex } from "../src/rpc/schema.ts";

const FIXTURES = resolve(fileURLToPath(import.meta.url), "../../fixtures/execution-apis");
const readJson = <T>(name: string): T => JSON.parse(readFileSync(join(FIXTURES, name), "utf8")) as T;

interface RpcBlock {
  number: Hex;
  hash: Hex;
  parentHash: Hex;
  stateRoot: Hex;
  transactions: Hex[];
}

const block = (provider: PreconfProvider, tag: string) => provider.request({ method: "eth_getBlockByNumber", params: [tag, false] }) as Promise<RpcBlock>;

describe("genesis option", () => {
  const START_S = BigInt(START_MS / 1000);
  const richKey = `0x${"11".repeat(32)}` as Hex;

  /** Cancun from genesis, Prague 10 s after the fake clock's start. */
  function scheduledGenesis(): GethGenesis {
    const genesis = devGethGenesis({
      chainId: 1337n,
      hardfork: "prague",
      gasLimit: 30_000_000n,
      baseFeePerGas: 1_000_000_000n,
      timestamp: START_S,
      alloc: new Map([["0x00000000000000000000000000000000000000aa", { balance: 123_456n }]]),
    });
    return { ...genesis, config: { ...genesis.config, pragueTime: Number(START_S + 10n) } };
  }

  it("follows the genesis' fork schedule block by block, and takes balances from its alloc", async () => {
    const { clock, provider } = await createTestChain({ genesis: scheduledGenesis(), accounts: [{ privateKey: richKey, balance: 5n }], mining: "manual" });
    try {
      expect(await provider.request({ method: "eth_chainId" })).to.equal("0x539");
      expect(provider.chain.common.hardfork()).to.equal("cancun");
      // The dev key is still an account, but the alloc decides balances.
      const [account] = (await provider.request({ method: "eth_accounts" })) as Hex[];
      expect(await provider.request({ method: "eth_getBalance", params: [account, "latest"] })).to.equal("0x0");
      expect(await provider.request({ method: "eth_getBalance", params: ["0x00000000000000000000000000000000000000aa", "latest"] })).to.equal("0x1e240");

      await provider.preconf.seal();
      clock.tick(11_000);
      await provider.preconf.seal();
      expect(provider.chain.common.hardfork()).to.equal("prague");
      const sealed = await block(provider, "latest");
      expect(sealed.number).to.equal("0x2");
    } finally {
      await provider.close();
    }
  });
});

describe("chain option (execution-apis chain.rlp)", function () {
  this.timeout(120_000);
  let provider: PreconfProvider;
  let expectedHead: { hash: Hex; stateRoot: Hex; number: bigint };

  before(async function () {
    const genesis = readJson<GethGenesis>("genesis.json");
    const chain = new Uint8Array(readFileSync(join(FIXTURES, "chain.rlp")));
    const keys = readJson<Record<string, { key: Hex }>>("accounts.json");
    const accounts = Object.values(keys).map(({ key }) => ({ privateKey: key, balance: 0n }));
    ({ provider } = await createTestChain({ genesis, chain, accounts, mining: "manual" }));
    const fcu = readJson<{ params: [{ headBlockHash: Hex }] }>("headfcu.json");
    // The fixture's own account of the head: the last block of chain.rlp, as hive's forkchoice names it.
    const last = decodeBlocks(chain, provider.chain.common).at(-1)!;
    expect(bytesToHex(last.hash())).to.equal(fcu.params[0].headBlockHash);
    expectedHead = { hash: fcu.params[0].headBlockHash, stateRoot: bytesToHex(last.header.stateRoot) as Hex, number: last.header.number };
  });

  after(async () => {
    await provider?.close();
  });

  it("makes the fixture's head `latest`, with its hash and state root", async () => {
    const head = await block(provider, "latest");
    expect(head.hash).to.equal(expectedHead.hash);
    expect(BigInt(head.number)).to.equal(expectedHead.number);
    expect(head.stateRoot).to.equal(expectedHead.stateRoot);
    // The executed state is the head's: runBlock checked every block's state root on the way.
    expect(bytesToHex(await provider.chain.vm.stateManager.getStateRoot())).to.equal(expectedHead.stateRoot);
    expect(await provider.request({ method: "eth_chainId" })).to.equal("0xc72dd9d5e883e");
  });

  it("indexes imported transactions like sealed ones (receipts, lookups, logs)", async () => {
    const head = await block(provider, "latest");
    const hash = head.transactions[0]!;
    const receipt = (await provider.request({ method: "eth_getTransactionReceipt", params: [hash] })) as { blockHash: Hex; status: Hex; logs: unknown[] };
    expect(receipt.blockHash).to.equal(head.hash);
    expect(receipt.status).to.equal("0x1");
    const tx = (await provider.request({ method: "eth_getTransactionByHash", params: [hash] })) as { blockNumber: Hex };
    expect(tx.blockNumber).to.equal(head.number);
    const logs = (await provider.request({ method: "eth_getLogs", params: [{ fromBlock: "0x0", toBlock: "latest" }] })) as unknown[];
    expect(logs.length).to.be.greaterThan(0);
  });

  it("answers go-ethereum's own answers of the execution-apis eth_createAccessList and eth_feeHistory cases exactly (speconly ones too)", async () => {
    for (const dir of ["eth_createAccessList", "eth_feeHistory"]) {
      for (const name of readdirSync(join(FIXTURES, dir))) {
        const lines = readFileSync(join(FIXTURES, dir, name), "utf8").split("\n");
        const request = JSON.parse(lines.find((line) => line.startsWith(">> "))!.slice(3)) as { method: string; params: unknown[] };
        const response = JSON.parse(lines.find((line) => line.startsWith("<< "))!.slice(3)) as { result: unknown };
        expect(await provider.request(request), `${dir}/${name}`).to.deep.equal(response.result);
      }
    }
  });

  it("continues with fragments after the imported head", async () => {
    const head = await block(provider, "latest");
    const [from] = (await provider.request({ method: "eth_accounts" })) as Hex[];
    const hash = (await provider.request({
      method: "eth_sendTransaction",
      params: [{ from, to: "0x0100000000000000000000000000000000000000", value: "0x1", gas: "0x5208" }],
    })) as Hex;
    const fragment = await provider.preconf.fragment();
    expect(fragment.blockNumber).to.equal(expectedHead.number + 1n);
    expect(fragment.transactions.map((record) => record.hash)).to.deep.equal([hash]);
    const sealed = await provider.preconf.seal();
    expect(sealed.block.header.parentHash).to.deep.equal(provider.chain.sealedByHash(head.hash)!.block.hash());
    const latest = await block(provider, "latest");
    expect(latest.parentHash).to.equal(head.hash);
    expect(latest.transactions).to.deep.equal([hash]);
  });
});
