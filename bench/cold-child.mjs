/**
 * One cold start, in the fresh process that runs this file (spawned by bench/cold.ts): import the
 * peer's package, create its first provider, get its first answer (`eth_blockNumber`, which must be
 * `0x0`), then print one JSON line and exit. Plain JavaScript, so that no loader is counted for a
 * peer that needs none; ours from src/ runs under `node --import tsx` (the parent says which).
 *
 *   node bench/cold-child.mjs <ours|edr|ganache> [entry]
 *
 * `performance.now()` counts from the process' start (Node's time origin).
 */
const [peer, entry] = process.argv.slice(2);

async function firstAnswer() {
  switch (peer) {
    case "ours": {
      const { createPreconfProvider } = await import(entry);
      const imported = performance.now();
      // What a plain script does: the default options (real clock, interval mining).
      const provider = await createPreconfProvider();
      return { imported, answer: await provider.request({ method: "eth_blockNumber", params: [] }), close: () => provider.close() };
    }
    case "edr": {
      const { createHardhatRuntimeEnvironment } = await import("hardhat/hre");
      const imported = performance.now();
      const hre = await createHardhatRuntimeEnvironment({ networks: { bench: { type: "edr-simulated", chainId: 31337, hardfork: "prague" } } });
      const connection = await hre.network.connect({ network: "bench" });
      return { imported, answer: await connection.provider.request({ method: "eth_blockNumber", params: [] }), close: () => connection.close() };
    }
    case "ganache": {
      const { error, warn } = console;
      console.error = console.warn = () => {};
      const { default: Ganache } = await import("ganache");
      console.error = error;
      console.warn = warn;
      const imported = performance.now();
      const provider = Ganache.provider({ logging: { quiet: true }, chain: { chainId: 31337 } });
      return { imported, answer: await provider.request({ method: "eth_blockNumber", params: [] }), close: () => provider.disconnect() };
    }
    default:
      throw new Error(`cold-child: unknown peer ${peer}`);
  }
}

const { imported, answer, close } = await firstAnswer();
const answered = performance.now();
// CPU time of the whole process so far (every thread), from its start to the first answer.
const { user, system } = process.cpuUsage();
if (answer !== "0x0") throw new Error(`cold-child ${peer}: first eth_blockNumber answered ${JSON.stringify(answer)}, expected "0x0"`);
process.stdout.write(`${JSON.stringify({ importMs: imported, answerMs: answered, cpuMs: (user + system) / 1000 })}\n`);
await close();
process.exit(0);
