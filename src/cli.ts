/**
 * The `preconf` command. `preconf node` starts a pre-confirming dev chain and serves it over HTTP
 * and WebSocket: it prints the URL, the chain id and the dev accounts with their (publicly known)
 * keys, then one line per sealed block. SIGINT / SIGTERM stop it cleanly.
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

import { USAGE, UsageError, parseNodeArgs } from "./cli/args.ts";
import { runNode } from "./cli/node.ts";
import { InvalidOptionsError } from "./index.ts";
import { isRpcError } from "./rpc/errors.ts";
import { runFixtureCommand } from "./scenario/cli.ts";

import type { NodeCommand } from "./cli/args.ts";

export { parseNodeArgs } from "./cli/args.ts";
export type { NodeCommand } from "./cli/args.ts";

/** This package's version: package.json sits one level above both src/ and dist/. */
function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "help" || command === "--help" || command === "-h") {
    process.stdout.write(USAGE);
    return command === undefined ? 1 : 0;
  }
  if (command === "--version" || command === "-v" || command === "version") {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  if (command === "run-fixture") return runFixtureCommand(rest);
  if (command !== "node") {
    process.stderr.write(`Unknown command "${command}".\n\n${USAGE}`);
    return 1;
  }
  let parsed: NodeCommand | "help";
  try {
    parsed = parseNodeArgs(rest);
  } catch (error) {
    if (error instanceof UsageError || (error instanceof Error && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS"))) {
      process.stderr.write(`${error.message}\n\n${USAGE}`);
      return 1;
    }
    throw error;
  }
  if (parsed === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  try {
    return await runNode(parsed);
  } catch (error) {
    // A fork upstream that is down or refuses the fork block (-32603): its message says which and why.
    if (error instanceof InvalidOptionsError || isRpcError(error)) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    if (error instanceof Error && "code" in error && error.code === "EADDRINUSE") {
      process.stderr.write(`Port ${parsed.port} on ${parsed.host} is already in use.\n`);
      return 1;
    }
    throw error;
  }
}

// Run when executed directly (`node dist/cli.js node`, `npm start`); bin/preconf.js imports `main` instead.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
