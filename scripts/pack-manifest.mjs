// The package.json that goes into the tarball has no `prepare` script.
//
// `prepare` builds dist/ when the package is installed from git: npm clones the repository, runs
// `npm install` in it (which runs `prepare`), then packs it (npm docs, "npm install <git url>";
// pacote's git fetcher). A tarball already holds dist/, and npm never runs `prepare` of a tarball
// dependency, but since npm 11.16 it lists a dependency's `prepare` among the install scripts to
// review whenever the dependency comes from outside the registry (a tarball file included:
// @npmcli/arborist install-scripts.js), so a user would be asked to approve a script that never
// runs. The same trick as the `pinst` package for `postinstall`: `prepack` takes the script out,
// `postpack` puts it back.
//
// Usage (package.json): "prepack": "npm run build && node scripts/pack-manifest.mjs strip",
//                       "postpack": "node scripts/pack-manifest.mjs restore"
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";

const manifest = new URL("../package.json", import.meta.url);
const backup = new URL("../package.json.prepack", import.meta.url);

function restore() {
  if (existsSync(backup)) renameSync(backup, manifest);
}

const command = process.argv[2];
if (command === "strip") {
  // A pack that failed before its postpack left the stripped file: start from the original.
  restore();
  const text = readFileSync(manifest, "utf8");
  const pkg = JSON.parse(text);
  if (pkg.scripts?.prepare !== undefined) {
    writeFileSync(backup, text);
    delete pkg.scripts.prepare;
    writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
  }
} else if (command === "restore") {
  restore();
} else {
  console.error("usage: node scripts/pack-manifest.mjs strip|restore");
  process.exit(2);
}
