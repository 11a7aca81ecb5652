/**
 * Instructions per operation, counted by valgrind's callgrind: a figure that repeats to within
 * ~0.1 % run to run whatever else the machine does, where CPU time moves ±10 % (a lever worth a few
 * per cent shows here and nowhere else). The workload runs in a child under
 * `valgrind --tool=callgrind --instr-atstart=no`; counting is switched on (`callgrind_control -i on`)
 * after the warm-up and off after the measured operations, so the figure is the measured loop's
 * alone: the engine's JavaScript, the V8 builtins and native code it calls, GC, and V8's optimizing
 * compiler (`node --single-threaded` runs compiling and GC on the main thread, where they are
 * counted; a warm-up of a few thousand operations leaves most compiling out).
 *
 *   npx tsx bench/instructions.ts <workload> [warm-up=300] [measured=600]
 *
 * Workloads: `transfer` (a plain transfer sent raw and automined: admission, execution, seal,
 * pruning), `erc20` (an ERC-20 transfer, the same way), `call` (`eth_call` of `balanceOf`),
 * `estimate` (`eth_estimateGas` of an ERC-20 transfer), `testfile` (one iteration of W5's test file:
 * revert to a snapshot, snapshot, deploy a token, its receipt, 5 token transfers, 3 reads), `send` (W7's round
 * without Hardhat: revert, snapshot, a token transfer by eth_sendTransaction without gas, so
 * filled in by the wallet and its estimate, automined, then a `balanceOf` call). Needs valgrind
 * (Debian's package).
 * Instructions are not time (a cache miss costs more than an add), so this compares builds of the
 * same code path, not peers.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const WORKLOADS = ["transfer", "erc20", "call", "estimate", "testfile", "send"] as const;
type WorkloadId = (typeof WORKLOADS)[number];

const [id, warmArg = "300", measuredArg = "600"] = process.argv.slice(2);
if (!WORKLOADS.includes(id as WorkloadId)) throw new Error(`usage: npx tsx bench/instructions.ts <${WORKLOADS.join("|")}> [warm-up] [measured]`);
const warm = Number(warmArg);
const measured = Number(measuredArg);

if (process.env.INSTRUCTIONS_CHILD === "1") {
  await child(id as WorkloadId);
} else {
  parent();
}

function parent(): void {
  if (spawnSync("valgrind", ["--version"]).status !== 0) throw new Error("valgrind not found (apt-get install valgrind)");
  const dir = mkdtempSync(join(tmpdir(), "instructions-"));
  try {
    const result = spawnSync(
      "valgrind",
      [
        "--tool=callgrind",
        "--instr-atstart=no",
        `--callgrind-out-file=${join(dir, "callgrind.out")}`,
        // V8 writes the code it runs: valgrind must see every such write.
        "--smc-check=all-non-file",
        process.execPath,
        "--single-threaded",
        "--hash-seed=1",
        "--random-seed=1",
        "--import",
        "tsx",
        fileURLToPath(import.meta.url),
        id!,
        String(warm),
        String(measured),
      ],
      { env: { ...process.env, INSTRUCTIONS_CHILD: "1" }, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
    );
    const collected = /Collected : (\d+)/.exec(result.stderr ?? "");
    if (result.status !== 0 || collected === null) throw new Error(`valgrind failed (${result.status}): ${(result.stderr ?? "").slice(-2000)}`);
    const perOp = Number(collected[1]) / measured;
    console.log(`${id}: ${Math.round(perOp).toLocaleString("en-US")} instructions per operation (${measured} measured after ${warm})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Counting on or off in this process (callgrind polls for the command; the call waits for its answer). */
function counting(on: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const control = spawn("callgrind_control", ["-i", on ? "on" : "off", String(process.pid)], { stdio: "ignore" });
    control.on("error", reject);
    control.on("exit", () => resolve());
  });
}

async function child(workload: WorkloadId): Promise<void> {
  const [
    { default: FakeTimers },
    viem,
    { createPreconfProvider },
    { accountsFromMnemonic, DEFAULT_MNEMONIC },
    { compileBenchContracts },
    { signTx },
    testFile,
  ] = await Promise.all([
    import("@sinonjs/fake-timers"),
    import("viem"),
    import("../src/index.ts"),
    import("../src/node/common/accounts.ts"),
    import("./contracts.ts"),
    import("./sign.ts"),
    import("./workloads.ts"),
  ]);
  const [deployer, second, third] = accountsFromMnemonic(DEFAULT_MNEMONIC, 3) as [
    { address: `0x${string}`; privateKey: `0x${string}` },
    { address: `0x${string}` },
    { address: `0x${string}` },
  ];
  const { Token } = compileBenchContracts();
  const token = viem.getContractAddress({ from: deployer.address, nonce: 0n }).toLowerCase() as `0x${string}`;
  const transferData = viem.encodeFunctionData({ abi: Token.abi, functionName: "transfer", args: [third.address, 1n] });
  const provider = await createPreconfProvider({ clock: FakeTimers.createClock(1_700_000_000_000) });
  const request = (method: string, params: unknown[] = []) => provider.request({ method, params });
  await request("evm_setAutomine", [true]);
  // The test file deploys its own token (nonce 0 of the same account).
  if (workload !== "testfile") {
    await request("eth_sendRawTransaction", [
      signTx(deployer.privateKey, {
        chainId: 31337,
        nonce: 0,
        data: viem.encodeDeployData({ abi: Token.abi, bytecode: Token.bytecode, args: ["Token", "TOK", 10n ** 24n] }),
        gas: 2_000_000n,
      }),
    ]);
  }

  let operation: (index: number) => Promise<unknown>;
  if (workload === "transfer" || workload === "erc20") {
    // Signed before anything is counted; nonce 0 deployed the token.
    const raws = Array.from({ length: warm + measured }, (_, i) =>
      workload === "transfer"
        ? signTx(deployer.privateKey, { chainId: 31337, nonce: i + 1, to: second.address, value: 1n, gas: 21_000n })
        : signTx(deployer.privateKey, { chainId: 31337, nonce: i + 1, to: token, data: transferData, gas: 60_000n }),
    );
    operation = (index) => request("eth_sendRawTransaction", [raws[index]]);
  } else if (workload === "testfile" || workload === "send") {
    // Every operation starts from the same state, as a test after loadFixture: revert, then snapshot again.
    let snapshot = await request("evm_snapshot");
    const restart = async () => {
      await request("evm_revert", [snapshot]);
      snapshot = await request("evm_snapshot");
    };
    if (workload === "testfile") {
      const raws = testFile.testFileTxs(31337, 1);
      // Automining: testFileIteration never ticks, settles or closes it.
      const instance: Parameters<typeof testFile.testFileIteration>[0] = {
        request: request as Parameters<typeof testFile.testFileIteration>[0]["request"],
        automines: true,
        batches: false,
        tick: () => Promise.reject(new Error("an automining chain is not ticked")),
        settle: () => Promise.resolve(),
        close: () => provider.close(),
      };
      operation = async () => {
        await restart();
        await testFile.testFileIteration(instance, raws);
      };
    } else {
      const send = [{ from: deployer.address, to: token, data: transferData }];
      const call = [{ to: token, data: viem.encodeFunctionData({ abi: Token.abi, functionName: "balanceOf", args: [third.address] }) }, "latest"];
      operation = async () => {
        await restart();
        await request("eth_sendTransaction", send);
        await request("eth_call", call);
      };
    }
  } else if (workload === "call") {
    const params = [{ to: token, data: viem.encodeFunctionData({ abi: Token.abi, functionName: "balanceOf", args: [deployer.address] }) }, "latest"];
    operation = () => request("eth_call", params);
  } else {
    const params = [{ from: deployer.address, to: token, data: transferData }];
    operation = () => request("eth_estimateGas", params);
  }
  for (let i = 0; i < warm; i++) await operation(i);
  await counting(true);
  for (let i = warm; i < warm + measured; i++) await operation(i);
  await counting(false);
  await provider.close();
}
