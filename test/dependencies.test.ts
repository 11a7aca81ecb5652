/**
 * What the package asks its users to install: every runtime dependency (`dependencies` and
 * `optionalDependencies` of package.json) is imported or loaded by something in src/. One that
 * nothing loads still costs every install its download, and an addon's install script (the keccak
 * addon, now that keccak is WebAssembly of our own: src/node/common/keccak.ts); what only the bench
 * or the tests use belongs in `devDependencies`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { expect } from "chai";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : [],
  );
}

describe("the package's runtime dependencies", () => {
  it("are each loaded by something in src/ (a specifier of the package or a file in it)", () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as Record<string, Record<string, string> | undefined>;
    const names = [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.optionalDependencies ?? {})];
    const text = sources(join(ROOT, "src"))
      .map((file) => readFileSync(file, "utf8"))
      .join("\n");
    const unused = names.filter((name) => !text.includes(`"${name}"`) && !text.includes(`"${name}/`));
    expect(unused).to.deep.equal([]);
  });
});
