/**
 * The package's own files (fixtures/artifacts/, package.json) from a module's `import.meta.url`.
 * Not by a fixed number of `../`: in dist/ the bundler (scripts/bundle.mjs) decides which file a
 * module's code lands in (an entry point in dist/ or dist/<folder>/, or a shared chunk in
 * dist/chunks/), and that changes as imports change; in src/ (tests, tsx) it is the source file.
 * The root is the nearest folder upwards whose package.json is this package's.
 */
import { existsSync, readFileSync } from "node:fs";

const NAME = "hardhat-preconf";

/** The package root (a folder URL, ending in `/`) above the module at `moduleUrl`. */
export function packageRoot(moduleUrl: string): URL {
  for (let folder = new URL("./", moduleUrl); ; ) {
    const manifest = new URL("package.json", folder);
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name === NAME) return folder;
    const parent = new URL("../", folder);
    if (parent.href === folder.href) throw new Error(`${NAME}: no package.json of ${NAME} above ${moduleUrl}`);
    folder = parent;
  }
}
