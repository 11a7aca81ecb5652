/**
 * The cold path (docs/benchmarks.md): importing the package and getting a provider's first answer
 * loads what that needs and nothing else. viem (with ox and abitype, ~430 modules) loads only when
 * something asks for it (src/lazyViem.ts): a chain definition, a wallet signature, a scenario.
 * Runs the compiled package (`npm test` builds dist/ first, bundled: scripts/bundle.mjs) in a fresh
 * Node process and lists every module it loads.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { expect } from "chai";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const ENTRY = new URL("../dist/index.js", import.meta.url);

/**
 * Runs `script` (ESM, with the package's entry as `entry`) in a fresh process; `loaded()` in it
 * is the list of module URLs loaded so far. Returns what the script prints as JSON.
 */
function run<T>(script: string): Promise<T> {
  const hook = `import { registerHooks } from "node:module";
const seen = [];
registerHooks({ load(url, context, next) { seen.push(url); return next(url, context); } });
globalThis.loaded = () => [...seen];`;
  const program = `const entry = ${JSON.stringify(ENTRY.href)};\n${script}`;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--import", `data:text/javascript,${encodeURIComponent(hook)}`, "--input-type=module", "-e", program],
      { cwd: ROOT, timeout: 60_000 },
      (error, stdout, stderr) => (error === null ? resolve(JSON.parse(stdout) as T) : reject(new Error(`${error.message}\n${stderr}`))),
    );
  });
}

const fromPackage = (urls: string[], name: string) => urls.filter((url) => url.includes(`/node_modules/${name}/`));

describe("the cold path: what importing the package loads", () => {
  before(function () {
    if (!existsSync(ENTRY)) throw new Error("dist/ is not built: run `npm run build` (npm test does it first)");
  });

  it("import, a provider and its first answer load no viem, ox or abitype; reading a chain definition does", async () => {
    const { plain, withChain } = await run<{ plain: string[]; withChain: string[] }>(`const { createPreconfProvider, preconfChains } = await import(entry);
const provider = await createPreconfProvider();
if ((await provider.request({ method: "eth_blockNumber" })) !== "0x0") throw new Error("no answer");
await provider.close();
const plain = loaded();
if (preconfChains.dev.id !== 31337) throw new Error("wrong chain");
process.stdout.write(JSON.stringify({ plain, withChain: loaded() }));`);
    expect(fromPackage(plain, "@ethereumjs/vm"), "the engine loaded").to.not.deep.equal([]);
    // The package's own code loads as a few bundled files, not its ~160 modules (scripts/bundle.mjs).
    const own = plain.filter((url) => url.startsWith(new URL("../dist/", import.meta.url).href));
    expect(own.length, own.join("\n")).to.be.within(1, 20);
    for (const name of ["viem", "ox", "abitype"]) expect(fromPackage(plain, name), name).to.deep.equal([]);
    // The default accounts are precomputed and the secp256k1 addon loads on the first signature or
    // recovery (src/node/common/accounts.ts, crypto.ts).
    expect(fromPackage(plain, "secp256k1")).to.deep.equal([]);
    // keccak is WebAssembly of our own (src/node/common/keccak.ts): the keccak addon is not loaded at all.
    expect(fromPackage(plain, "keccak")).to.deep.equal([]);
    // The engine runs on @ethereumjs' ES module builds; their CommonJS twins (~60 modules) are
    // patched only if something else loads them (src/node/ethereumjs/jumpAnalysis.ts).
    expect(plain.filter((url) => url.includes("/node_modules/@ethereumjs/") && url.includes("/dist/cjs/"))).to.deep.equal([]);
    // The server (node:http, which loads Node's bundled undici, and ws) and the scenario runner load
    // on their first call (src/index.ts).
    expect(plain.filter((url) => url === "node:http" || url.includes("/dist/server/") || url.includes("/dist/scenario/run.js"))).to.deep.equal([]);
    // In the bundle their code may sit in a shared chunk rather than at those paths: the source maps
    // say which sources each loaded file holds.
    const sources = own.flatMap((url) => (JSON.parse(readFileSync(new URL(`${url}.map`), "utf8")) as { sources: string[] }).sources);
    expect(sources.filter((source) => /\/src\/(server\/|scenario\/run\.ts$)/.test(source))).to.deep.equal([]);
    expect(fromPackage(plain, "ws")).to.deep.equal([]);
    // A new chain needs none of @ethereumjs/blockchain (src/node/chain/lightBlockchain.ts); an imported chain loads it.
    expect(fromPackage(plain, "@ethereumjs/blockchain")).to.deep.equal([]);
    expect(fromPackage(withChain, "viem")).to.not.deep.equal([]);
  });

  it("signs and recovers the same without the secp256k1 addon (it loads on first use, so its absence shows only then)", async () => {
    const script = (hide: boolean) => `const { default: Module } = await import("node:module");
if (${hide}) {
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    if (request === "secp256k1") throw new Error("no addon");
    return resolve.call(this, request, ...rest);
  };
}
const { createPreconfProvider } = await import(entry);
const provider = await createPreconfProvider({ mining: "auto" });
const [from, to] = await provider.request({ method: "eth_accounts" });
const fees = { gas: "0x5208", maxFeePerGas: "0x3b9aca00", maxPriorityFeePerGas: "0x1" };
const hash = await provider.request({ method: "eth_sendTransaction", params: [{ from, to, value: "0x1", ...fees }] });
const { r, s, yParity } = await provider.request({ method: "eth_getTransactionByHash", params: [hash] });
const addon = loaded().some((url) => url.includes("/node_modules/secp256k1/"));
await provider.close();
process.stdout.write(JSON.stringify({ hash, r, s, yParity, addon }));`;
    const native = await run<{ hash: string; addon: boolean }>(script(false));
    const pureJs = await run<{ hash: string; addon: boolean }>(script(true));
    expect([native.addon, pureJs.addon]).to.deep.equal([true, false]);
    expect({ ...pureJs, addon: true }).to.deep.equal(native);
  });

  it("loads what it loads lazily in an ES module process that has a global require (node -e, the REPL)", async () => {
    // `node -e` without --input-type=module puts a `require` resolving from the working directory
    // beside the package's ES modules: the lazy loads must still take the package's own (src/node/common/moduleSystem.ts).
    const chainDir = new URL("../fixtures/chains/multifork/", import.meta.url);
    const program = `(async () => {
  const { createPreconfProvider, startServer, runScenario } = await import(${JSON.stringify(ENTRY.href)});
  const { readFileSync } = require("node:fs");
  const provider = await createPreconfProvider();
  const server = await startServer(provider, { port: 0 });
  await server.close();
  await provider.close();
  const { passed } = await runScenario(${JSON.stringify(fileURLToPath(new URL("../fixtures/scenarios/preconfirm-then-seal.json", import.meta.url)))});
  // It deploys from fixtures/artifacts/, which the bundled runner finds from the package root (src/node/common/packageRoot.ts).
  const { passed: deployed } = await runScenario(${JSON.stringify(fileURLToPath(new URL("../fixtures/scenarios/dependent-tx-estimate-on-pending.json", import.meta.url)))});
  const imported = await createPreconfProvider({
    genesis: JSON.parse(readFileSync(${JSON.stringify(fileURLToPath(new URL("genesis.json", chainDir)))}, "utf8")),
    chain: new Uint8Array(readFileSync(${JSON.stringify(fileURLToPath(new URL("chain.rlp", chainDir)))})),
  });
  const head = await imported.request({ method: "eth_blockNumber" });
  await imported.close();
  process.stdout.write(JSON.stringify({ passed: passed && deployed, head }));
})().catch((error) => { console.error(error); process.exit(1); });`;
    const { passed, head } = await new Promise<{ passed: boolean; head: string }>((resolve, reject) => {
      // From a directory outside the repository, as a user's REPL would be.
      execFile(process.execPath, ["-e", program], { cwd: tmpdir(), timeout: 60_000 }, (error, stdout, stderr) =>
        error === null ? resolve(JSON.parse(stdout) as { passed: boolean; head: string }) : reject(new Error(`${error.message}\n${stderr}`)),
      );
    });
    expect(passed).to.equal(true);
    expect(BigInt(head) > 0n).to.equal(true);
  });

  it("loads what it loads lazily when a CommonJS project's loader compiles the package to CommonJS (tsx)", async () => {
    // A TypeScript project without "type": "module", run with `node --import tsx` (or mocha with
    // tsx): tsx compiles the package's dist/ files to CommonJS as they are required, and the lazy
    // loads must then `require` the entry points' files in dist/ (src/node/common/moduleSystem.ts).
    const project = mkdtempSync(join(tmpdir(), "preconf-cjs-"));
    try {
      writeFileSync(join(project, "package.json"), JSON.stringify({ type: "commonjs" }));
      writeFileSync(
        join(project, "probe.ts"),
        `import { createPreconfProvider, runScenario, startServer } from ${JSON.stringify(fileURLToPath(ENTRY))};
(async () => {
  const provider = await createPreconfProvider();
  const server = await startServer(provider, { port: 0 });
  const answer = await fetch(server.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId" }) });
  const { result } = await answer.json();
  await server.close();
  await provider.close();
  const { passed } = await runScenario(${JSON.stringify(fileURLToPath(new URL("../fixtures/scenarios/dependent-tx-estimate-on-pending.json", import.meta.url)))});
  const required = Object.keys(require.cache).filter((file) => /[\\/]dist[\\/](server[\\/]http|scenario[\\/]run).js$/.test(file)).length;
  process.stdout.write(JSON.stringify({ result, passed, required }));
})().catch((error) => { console.error(error); process.exit(1); });
`,
      );
      const tsx = pathToFileURL(join(ROOT, "node_modules", "tsx", "dist", "loader.mjs")).href;
      const outcome = await new Promise<{ result: string; passed: boolean; required: number }>((resolve, reject) => {
        execFile(process.execPath, ["--import", tsx, "probe.ts"], { cwd: project, timeout: 60_000 }, (error, stdout, stderr) =>
          error === null
            ? resolve(JSON.parse(stdout) as { result: string; passed: boolean; required: number })
            : reject(new Error(`${error.message}\n${stderr}`)),
        );
      });
      // Both through `require`: one copy of the package's modules, shared with what the project required.
      expect(outcome).to.deep.equal({ result: "0x7a69", passed: true, required: 2 });
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});
