// Compiles fixtures/contracts/*.sol with the `solc` npm package and writes:
//
//   fixtures/artifacts/<Name>.json
//       { contractName, sourceName, abi, bytecode, deployedBytecode }
//
//   fixtures/hardhat-artifacts/            (Hardhat 3 layout, for `paths.artifacts`)
//       contracts/<File>.sol/<Name>.json   "hh3-artifact-1" artifacts
//       contracts/<File>.sol/artifacts.d.ts
//       artifacts.d.ts                     (duplicate-name declarations; empty)
//       build-info/<id>.json               "hh3-sol-build-info-1"
//       build-info/<id>.output.json        "hh3-sol-build-info-output-1"
//
// Both output directories are deleted and regenerated on every run. Output is
// deterministic for a given set of sources and solc version.
//
// Source names treat `fixtures/` as the Hardhat project root: the user source
// name of fixtures/contracts/Counter.sol is "contracts/Counter.sol" and its solc
// input source name is "project/contracts/Counter.sol", as Hardhat 3 would do.
//
// Usage: npx node scripts/compile-contracts.mjs

import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const solc = require("solc");

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const FIXTURES = path.join(ROOT, "fixtures");
const CONTRACTS_DIR = path.join(FIXTURES, "contracts");
const ARTIFACTS_DIR = path.join(FIXTURES, "artifacts");
const HH_ARTIFACTS_DIR = path.join(FIXTURES, "hardhat-artifacts");

// Same output selection Hardhat 3 requests (its DEFAULT_OUTPUT_SELECTION), so
// the build info is usable by EDR for stack traces.
const OUTPUT_SELECTION = {
  "*": {
    "": ["ast"],
    "*": [
      "abi",
      "evm.bytecode.linkReferences",
      "evm.bytecode.object",
      "evm.bytecode.opcodes",
      "evm.bytecode.sourceMap",
      "evm.deployedBytecode.immutableReferences",
      "evm.deployedBytecode.linkReferences",
      "evm.deployedBytecode.object",
      "evm.deployedBytecode.opcodes",
      "evm.deployedBytecode.sourceMap",
      "evm.methodIdentifiers",
    ],
  },
};

function toJson(value) {
  return `${JSON.stringify(value, null, 2)}\n`;
}

async function writeText(file, text) {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text, "utf8");
}

function hex(object) {
  return object === undefined || object === "" ? "0x" : `0x${object}`;
}

async function main() {
  const files = (await readdir(CONTRACTS_DIR)).filter((f) => f.endsWith(".sol")).sort();
  if (files.length === 0) {
    throw new Error(`No .sol files in ${CONTRACTS_DIR}`);
  }

  // userSourceName -> inputSourceName
  const userSourceNameMap = {};
  const sources = {};
  for (const file of files) {
    const userSourceName = `contracts/${file}`;
    const inputSourceName = `project/${userSourceName}`;
    userSourceNameMap[userSourceName] = inputSourceName;
    sources[inputSourceName] = {
      content: await readFile(path.join(CONTRACTS_DIR, file), "utf8"),
    };
  }

  const input = {
    language: "Solidity",
    settings: {
      evmVersion: "cancun",
      optimizer: { enabled: true, runs: 200 },
      outputSelection: OUTPUT_SELECTION,
      remappings: [],
    },
    sources,
  };

  const solcLongVersion = solc.version().replace(/\.Emscripten\.clang$/, "");
  const solcVersion = solcLongVersion.split("+")[0];
  console.log(`Compiling ${files.length} files with solc ${solcLongVersion}`);

  const output = JSON.parse(solc.compile(JSON.stringify(input)));

  const diagnostics = output.errors ?? [];
  for (const d of diagnostics) {
    const log = d.severity === "error" ? console.error : console.warn;
    log(d.formattedMessage ?? d.message);
  }
  const errors = diagnostics.filter((d) => d.severity === "error");
  if (errors.length > 0) {
    throw new Error(`Compilation failed with ${errors.length} error(s)`);
  }

  // Build info id, in Hardhat's `solc-<major>_<minor>_<patch>-<sha1>` shape.
  // (Hardhat hashes a slightly different preimage; only the shape matters.)
  const buildInfoId = `solc-${solcVersion.replaceAll(".", "_")}-${createHash("sha1")
    .update(JSON.stringify({ format: "hh3-sol-build-info-1", solcLongVersion, input, userSourceNameMap }))
    .digest("hex")}`;

  await rm(ARTIFACTS_DIR, { recursive: true, force: true });
  await rm(HH_ARTIFACTS_DIR, { recursive: true, force: true });

  const seenNames = new Map();

  for (const [userSourceName, inputSourceName] of Object.entries(userSourceNameMap)) {
    const contracts = output.contracts?.[inputSourceName] ?? {};
    const hhArtifacts = [];

    for (const contractName of Object.keys(contracts).sort()) {
      const contract = contracts[contractName];

      if (seenNames.has(contractName)) {
        throw new Error(`Contract name ${contractName} is defined in both ${seenNames.get(contractName)} and ${userSourceName}`);
      }
      seenNames.set(contractName, userSourceName);

      const bytecode = hex(contract.evm?.bytecode?.object);
      const deployedBytecode = hex(contract.evm?.deployedBytecode?.object);

      await writeText(
        path.join(ARTIFACTS_DIR, `${contractName}.json`),
        toJson({
          contractName,
          sourceName: userSourceName,
          abi: contract.abi,
          bytecode,
          deployedBytecode,
        }),
      );

      // Same fields and order as Hardhat 3's getContractArtifact().
      const hhArtifact = {
        _format: "hh3-artifact-1",
        contractName,
        sourceName: userSourceName,
        abi: contract.abi,
        bytecode,
        deployedBytecode,
        linkReferences: contract.evm?.bytecode?.linkReferences ?? {},
        deployedLinkReferences: contract.evm?.deployedBytecode?.linkReferences ?? {},
        immutableReferences: contract.evm?.deployedBytecode?.immutableReferences ?? {},
        inputSourceName,
        buildInfoId,
      };
      hhArtifacts.push(hhArtifact);

      await writeText(path.join(HH_ARTIFACTS_DIR, userSourceName, `${contractName}.json`), toJson(hhArtifact));
      console.log(`  ${userSourceName}:${contractName}`);
    }

    await writeText(path.join(HH_ARTIFACTS_DIR, userSourceName, "artifacts.d.ts"), artifactsDeclarationFile(hhArtifacts));
  }

  // Hardhat writes this file on every build; it only has content when two
  // contracts share a bare name, which we reject above.
  await writeText(path.join(HH_ARTIFACTS_DIR, "artifacts.d.ts"), "");

  await writeText(
    path.join(HH_ARTIFACTS_DIR, "build-info", `${buildInfoId}.json`),
    toJson({
      _format: "hh3-sol-build-info-1",
      id: buildInfoId,
      solcVersion,
      solcLongVersion,
      compilerType: "solc",
      userSourceNameMap,
      input,
    }),
  );
  await writeText(
    path.join(HH_ARTIFACTS_DIR, "build-info", `${buildInfoId}.output.json`),
    // Compact, like Hardhat's: this one carries the ASTs and is large.
    `${JSON.stringify({ _format: "hh3-sol-build-info-output-1", id: buildInfoId, output })}\n`,
  );

  console.log(`Wrote ${seenNames.size} artifacts to ${path.relative(ROOT, ARTIFACTS_DIR)}/ and ${path.relative(ROOT, HH_ARTIFACTS_DIR)}/`);
}

// Mirrors Hardhat 3's getArtifactsDeclarationFile() (minus its stray `;` after
// each interface, an error in a .d.ts when skipLibCheck is off), which augments
// `ArtifactMap` so `hre.artifacts.readArtifact("Counter")` is precisely typed
// when this file is part of a TypeScript program.
function artifactsDeclarationFile(artifacts) {
  if (artifacts.length === 0) {
    return "";
  }

  const artifactTypes = artifacts.map(
    (artifact) => `export interface ${artifact.contractName}$Type {
  ${Object.entries(artifact)
    .map(([name, value]) => `readonly ${name}: ${JSON.stringify(value)};`)
    .join("\n  ")}
}`,
  );

  return `// This file was autogenerated by scripts/compile-contracts.mjs, do not edit it.
// prettier-ignore
// tslint:disable
// eslint-disable
// biome-ignore format: see above

${artifactTypes.join("\n\n")}

import "hardhat/types/artifacts";
declare module "hardhat/types/artifacts" {
  interface ArtifactMap {
    ${artifacts.map((a) => `["${a.contractName}"]: ${a.contractName}$Type`).join("\n    ")};
    ${artifacts.map((a) => `["${a.sourceName}:${a.contractName}"]: ${a.contractName}$Type`).join("\n    ")};
  }
}
`;
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
