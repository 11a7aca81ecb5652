/**
 * Package files found from a module's URL wherever the bundler puts the module (src/node/common/packageRoot.ts):
 * scripts/bundle.mjs moves a module's code into an entry point or a shared chunk as imports change,
 * so a fixed `../../` from `import.meta.url` holds only while the chunking does.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { expect } from "chai";
import { build } from "esbuild";

import { packageRoot } from "../src/node/common/packageRoot.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

describe("the package root, from a module's URL", () => {
  it("is the repository root from src/ at any depth", () => {
    for (const file of ["src/cli.ts", "src/scenario/references.ts", "src/node/common/accounts.ts"]) {
      expect(fileURLToPath(packageRoot(pathToFileURL(join(ROOT, file)).href)), file).to.equal(ROOT);
    }
  });

  it("throws, naming the module, above any package.json of the package", () => {
    expect(() => packageRoot("file:///nowhere/at/all.js")).to.throw("hardhat-preconf: no package.json of hardhat-preconf above file:///nowhere/at/all.js");
  });

  it("lets the scenario runner's $artifacts find fixtures/artifacts/ when bundled at another depth than src/scenario/", async () => {
    // A bundle of references.ts one level deeper than dist/chunks/, as a change in chunking could put it.
    mkdirSync(join(ROOT, "dist"), { recursive: true });
    const outdir = mkdtempSync(join(ROOT, "dist", ".probe-"));
    try {
      const probe = join(outdir, "deeper", "probe.ts");
      await build({
        absWorkingDir: ROOT,
        stdin: {
          contents: `import { Scope } from ${JSON.stringify(join(ROOT, "src/scenario/references.ts"))};
export const bytecode = new Scope([]).lookup("$artifacts.Gate.bytecode");`,
          resolveDir: ROOT,
          sourcefile: probe,
        },
        outfile: join(outdir, "deeper", "probe.js"),
        bundle: true,
        format: "esm",
        platform: "node",
        packages: "external",
        logLevel: "silent",
      });
      const { bytecode } = (await import(pathToFileURL(join(outdir, "deeper", "probe.js")).href)) as { bytecode: string };
      const gate = JSON.parse(readFileSync(join(ROOT, "fixtures/artifacts/Gate.json"), "utf8")) as { bytecode: string };
      expect(bytecode).to.equal(gate.bytecode);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});
