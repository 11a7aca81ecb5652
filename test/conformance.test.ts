/**
 * ethereum/execution-apis' rpc-compat fixtures of eth_simulateV1 and eth_getBlockReceipts
 * (fixtures/execution-apis: go-ethereum's answers on hive's chain), replayed as `npm run
 * conformance` replays them: every file passes byte for byte, or differs on purpose (docs/
 * behaviour.md), but for the known gaps the script lists with their reasons (KNOWN_GAPS).
 */
import { expect } from "chai";

import { conformanceOf, KNOWN_GAPS } from "../scripts/conformance.ts";

describe("execution-apis fixtures: eth_simulateV1 and eth_getBlockReceipts", function () {
  // One node imports hive's 54 blocks, then ~100 requests run on it.
  this.timeout(180_000);

  it("pass as go-ethereum answers them, but the known gaps, which still fail (an entry goes once it passes)", async () => {
    const { setup, files } = await conformanceOf(["eth_getBlockReceipts", "eth_simulateV1"]);
    expect(setup).to.deep.equal([]);
    expect(files.length).to.equal(99);
    const failing = files.filter((file) => file.verdict === "fail" || file.verdict === "unsupported");
    expect(
      failing.map((file) => file.path),
      failing.map((file) => `${file.path}\n  ${file.details.slice(0, 4).join("\n  ")}`).join("\n"),
    ).to.deep.equal([]);
    const known = files.filter((file) => file.verdict === "known").map((file) => file.path);
    expect(known).to.deep.equal(Object.keys(KNOWN_GAPS).filter((path) => path.startsWith("eth_simulateV1/") || path.startsWith("eth_getBlockReceipts/")));
    const divergent = files.filter((file) => file.verdict === "divergence").map((file) => file.path);
    expect(divergent).to.deep.equal(["eth_getBlockReceipts/get-block-receipts-future.io", "eth_simulateV1/ethSimulate-empty-with-block-num-set-plus1.io"]);
  });
});
