/**
 * The `preconf` command. `preconf node` starts a pre-confirming dev chain and serves it over HTTP
 * and WebSocket (src/cli/node.ts); `preconf run-fixture` runs scenario fixtures. A bad command line
 * or a bad value is one line on stderr saying what is wrong and how to fix it, and exit code 2
 * (as anvil's, clap's convention); a failure while running (a port in use, a fork upstream that
 * is down) is one line and exit code 1. Never a stack trace, except for a bug.
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

import { parseNodeArgs, USAGE, UsageError } from "./cli/args.ts";
import { nearest } from "./cli/flags.ts";

import type { NodeCommand } from "./cli/args.ts";

export { parseNodeArgs } from "./cli/args.ts";
export type { NodeCommand } from "./cli/args.ts";

/** Exit codes: 1 a failure while running, 2 a bad command line or value. */
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** This package's version: package.json sits one level above both src/ and dist/. */
function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
}

const COMMANDS = ["node", "run-fixture", "help", "version"];

function usageError(message: string): number {
  process.stderr.write(`preconf: ${message}\n`);
  return EXIT_USAGE;
}

/**
 * `ownProcess`: the process runs the CLI and nothing else (bin/preconf.js, `node dist/cli.js`), so
 * `preconf node` may tune V8 in it (cli/tierUp.ts); tests that call `main` leave it unset.
 */
export async function main(argv: string[], { ownProcess = false }: { ownProcess?: boolean } = {}): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "help" || command === "--help" || command === "-h") {
    process.stdout.write(USAGE);
    return 0;
  }
  if (command === undefined) return usageError("which command? `preconf node` serves a chain; `preconf --help` lists everything");
  if (command === "--version" || command === "-v" || command === "-V" || command === "version") {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  if (command === "run-fixture") {
    const { RUN_FIXTURE_USAGE, runFixtureCommand } = await import("./scenario/cli.ts");
    if (rest.includes("--help") || rest.includes("-h")) {
      process.stdout.write(RUN_FIXTURE_USAGE);
      return 0;
    }
    return runFixtureCommand(rest);
  }
  if (command !== "node") {
    // anvil's flags given to `preconf` without `node`: point at the command.
    if (command.startsWith("-")) return usageError(`${command} is an option of \`preconf node\`: run \`preconf node ${argv.join(" ")}\``);
    const near = nearest(command, COMMANDS);
    return usageError(`unknown command "${command}"${near === undefined ? "" : ` (did you mean ${near}?)`}; \`preconf --help\` lists the commands`);
  }
  let parsed: NodeCommand | "help";
  try {
    parsed = parseNodeArgs(rest);
  } catch (error) {
    if (error instanceof UsageError) return usageError(error.message);
    throw error;
  }
  if (parsed === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  // The server's V8 flags (cli/tierUp.ts). The compile queue's length is read only when Node
  // starts, so a process that will serve may start itself again with it here, before anything
  // else loads or prints (settleCommand's refusals then pay for the start twice; a start that
  // serves does not load settle.ts's modules twice).
  const tierUp = ownProcess && !parsed.printConfig ? await import("./cli/tierUp.ts") : undefined;
  tierUp?.relaunchWithCompileQueue();
  // Loaded only now: a command line refused above never loads the chain (a second or more on a busy machine).
  const { settleCommand } = await import("./cli/settle.ts");
  try {
    settleCommand(parsed);
  } catch (error) {
    if (error instanceof UsageError) return usageError(error.message);
    throw error;
  }
  try {
    // Before the chain's code loads: the server optimizes its request path sooner (cli/tierUp.ts).
    tierUp?.lowerTierUpThreshold();
    const { runNode } = await import("./cli/node.ts");
    return await runNode(parsed, packageVersion());
  } catch (error) {
    return runFailure(error, parsed);
  }
}

/** One line for what stopped `preconf node` from serving; exit 2 when a value given is to blame. */
async function runFailure(error: unknown, command: NodeCommand): Promise<number> {
  const [{ InvalidOptionsError }, { asUsageError }, { isRpcError }] = await Promise.all([
    import("./options.ts"),
    import("./cli/settle.ts"),
    import("./rpc/errors.ts"),
  ]);
  if (error instanceof InvalidOptionsError) return usageError(asUsageError(error, command).message);
  // A fork upstream that is down or refuses the fork block (-32603): its message says which and why.
  if (isRpcError(error)) {
    process.stderr.write(`preconf: ${error.message}\n`);
    return EXIT_FAILURE;
  }
  const code = error instanceof Error && "code" in error ? String(error.code) : undefined;
  const where = `${command.host}:${command.port}`;
  if (code === "EADDRINUSE") {
    process.stderr.write(
      `preconf: port ${command.port} on ${command.host} is already in use: stop what serves it, or choose another with --port (0 picks a free one)\n`,
    );
    return EXIT_FAILURE;
  }
  if (code === "EADDRNOTAVAIL")
    return usageError(
      `--host "${command.host}": no interface of this machine has that address (cannot listen on ${where}); use 127.0.0.1, 0.0.0.0 or one of its addresses`,
    );
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return usageError(`--host "${command.host}": the name does not resolve to an address of this machine`);
  if (code === "EACCES")
    return usageError(`--port ${command.port}: not allowed to listen on ${where} (ports below 1024 need privileges); choose another with --port`);
  throw error;
}

// Run when executed directly (`node dist/cli.js node`, `npm start`); bin/preconf.js imports `main` instead.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2), { ownProcess: true }).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(EXIT_FAILURE);
    },
  );
}
