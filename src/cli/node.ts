/**
 * `preconf node` running: the provider from the options and files, the server, the banner, the
 * request and transaction log, the state file (read at start, written periodically and on exit)
 * and a clean stop on SIGINT / SIGTERM.
 */
import { resolve } from "node:path";

import { createPreconfProvider, InvalidOptionsError } from "../index.ts";
import { DEFAULT_HD_PATH, DEFAULT_MNEMONIC } from "../node/common/accounts.ts";
import { resolveOptions } from "../options.ts";
import { startServer } from "../server/http.ts";
import { bannerLines, effectiveConfig } from "./banner.ts";
import { colorsFor } from "./format.ts";
import { coalescedOutput } from "./coalescedOutput.ts";
import { NodeLog } from "./log.ts";
import { checkWritable, parseJsonFile, readInput, removeLeftovers, StateWriter, writeFileAtomically } from "./stateFile.ts";

import type { PreconfProviderOptions } from "../options.ts";
import type { StateOrigin } from "./banner.ts";
import type { NodeCommand } from "./flags.ts";

/** The process's outputs (a test may pass its own). */
export interface NodeIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown };
}

const processIo: NodeIo = { stdout: process.stdout, stderr: process.stderr };

/**
 * Under `npx preconf node` (and any npm script that runs us without `exec`), npm starts a shell that
 * starts us, and forwards a signal sent to npm's PID to that shell only: the shell dies and we are
 * re-parented. Under npm, losing the parent therefore means "stop", as the signal would have.
 */
function whenOrphaned(stop: () => void): void {
  if (process.env.npm_lifecycle_event === undefined) return;
  const parent = process.ppid;
  // process.ppid asks the OS each time; unref'd: the check never keeps the process alive.
  setInterval(() => {
    if (process.ppid !== parent) stop();
  }, 200).unref();
}

/** The file the chain is written to: --state, else --dump-state. */
const dumpTarget = (command: NodeCommand) => command.files.state ?? command.files.dumpState;

export async function runNode(command: NodeCommand, version: string, io: NodeIo = processIo): Promise<number> {
  const out = (line: string) => io.stdout.write(`${line}\n`);
  if (command.printConfig) {
    out(JSON.stringify(effectiveConfig(command, resolveOptions(command.provider), version), null, 2));
    return 0;
  }
  // Installed first: a signal before the handlers exist kills the process without cleanup.
  // Kept for the whole shutdown: a second Ctrl-C (or one from the shim and the terminal) must not kill it midway.
  let stop!: (signal: string) => void;
  const stopped = new Promise<string>((resolve) => (stop = resolve));
  const onSigint = () => stop("SIGINT");
  const onSigterm = () => stop("SIGTERM");
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onSigterm);
  whenOrphaned(() => stop("parent exited"));
  try {
    return await serve(command, version, io, stopped);
  } finally {
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigterm);
  }
}

async function serve(command: NodeCommand, version: string, io: NodeIo, stopped: Promise<string>): Promise<number> {
  const stdout = coalescedOutput(io.stdout);
  // A process that exits in this turn (an uncaught exception, process.exit) runs no immediate: the
  // lines that explain why go out on "exit", where writes to pipes and files are synchronous.
  process.once("exit", stdout.flush);
  try {
    return await serveWith(command, version, { ...io, stdout: { write: stdout.write, isTTY: io.stdout.isTTY } }, stopped);
  } finally {
    process.off("exit", stdout.flush);
    stdout.flush();
  }
}

async function serveWith(command: NodeCommand, version: string, io: NodeIo, stopped: Promise<string>): Promise<number> {
  const out = (line: string) => io.stdout.write(`${line}\n`);
  const target = dumpTarget(command);
  if (target !== undefined) {
    await checkWritable(command.files.state === undefined ? "--dump-state" : "--state", target);
    await removeLeftovers(target);
  }
  if (command.files.configOut !== undefined) await checkWritable("--config-out", command.files.configOut);
  const { options: fromFiles, state: stateFile } = await optionsFromFiles(command.files);
  const provider = await createPreconfProvider({ ...command.provider, ...fromFiles });
  const head = provider.chain.latest;
  const state: StateOrigin =
    stateFile === undefined
      ? undefined
      : stateFile.kind === "new"
        ? { kind: "new", path: stateFile.path }
        : { kind: "loaded", path: stateFile.path, block: head.block.header.number, hash: head.hash };
  // A fork of an OP-stack chain takes its profile from the upstream: known only now.
  if (target !== undefined && provider.chain.op !== undefined) {
    await provider.close();
    throw new InvalidOptionsError(
      command.files.state === undefined ? "--dump-state" : "--state",
      `not supported on the ${provider.options.profile} profile: OP-stack blocks hold deposit txs that a dump cannot load back`,
    );
  }
  const json = command.log.json;
  const log = new NodeLog(
    command.log,
    { write: (text) => io.stdout.write(text), isTTY: io.stdout.isTTY === true },
    colorsFor(command.log.color, io.stdout.isTTY === true),
  );
  log.attach(provider);
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer(provider, {
      host: command.host,
      port: command.port,
      ...command.server,
      ...(log.active && { onRequest: log.request }),
      warn: (message) => io.stderr.write(`${message}\n`),
    });
  } catch (error) {
    log.detach();
    await provider.close();
    throw error;
  }
  const listening = { url: server.url, wsUrl: server.wsUrl };
  const config = effectiveConfig({ ...command, port: server.port }, provider.options, version, listening);
  if (command.files.configOut !== undefined) {
    // A file the user asked for holds the mnemonic itself, as anvil's --config-out (output never shows a custom one).
    const accounts = Array.isArray(command.provider.accounts) ? undefined : command.provider.accounts;
    const written =
      accounts === undefined ? config : { ...config, accounts: { ...(config.accounts as object), mnemonic: accounts.mnemonic ?? DEFAULT_MNEMONIC } };
    await writeFileAtomically(command.files.configOut, `${JSON.stringify(written, null, 2)}\n`);
  }

  if (json) out(JSON.stringify({ type: "start", ...config, state: { ...(config.state as object), origin: state ?? null } }, stateJson));
  else if (!log.active) out(`hardhat-preconf listening on ${server.url} (WebSocket ${server.wsUrl})`);
  else {
    const accounts = Array.isArray(command.provider.accounts) ? undefined : command.provider.accounts;
    const fork = provider.chain.fork;
    for (const line of bannerLines({
      version,
      options: provider.options,
      wallet: accounts === undefined ? undefined : { mnemonic: accounts.mnemonic ?? DEFAULT_MNEMONIC, path: accounts.path ?? DEFAULT_HD_PATH },
      genesisTimestamp: provider.chain.sealedByNumber(0n)?.block.header.timestamp ?? 0n,
      state,
      fork: fork === undefined ? undefined : { origin: fork.client.origin, blockNumber: fork.blockNumber, hash: fork.block.hash },
      listening,
    }))
      out(line);
    out("");
  }

  const writer = target === undefined ? undefined : new StateWriter(provider, target);
  if (writer !== undefined && command.stateIntervalMs !== undefined) {
    writer.every(
      command.stateIntervalMs,
      (written) => {
        if (command.log.level >= 1)
          log.note(`State written to ${written.path} (block ${written.block})`, {
            type: "state",
            event: "written",
            file: written.path,
            block: Number(written.block),
          });
      },
      (error) => io.stderr.write(`Could not write the state to ${target}: ${error instanceof Error ? error.message : String(error)}\n`),
    );
  }

  const why = await stopped;
  log.note(`Stopping (${why})`, { type: "stop", reason: why });
  await writer?.stop();
  await server.close();
  await provider.close();
  log.detach();
  if (writer !== undefined) {
    try {
      // The chain still answers a dump after close: its queue has drained.
      const written = await writer.write();
      if (json) out(JSON.stringify({ type: "state", event: "written", file: written.path, block: Number(written.block) }));
      else out(`State dumped to ${written.path} (block ${written.block})`);
    } catch (error) {
      io.stderr.write(`Could not write the state dump to ${target}: ${error instanceof Error ? error.message : String(error)}\n`);
      return 1;
    }
  }
  return 0;
}

const stateJson = (_: string, value: unknown) => (typeof value === "bigint" ? value.toString() : value);

/** The provider options that `--genesis`, `--import`, `--load-state` and `--state` name files for. */
async function optionsFromFiles(
  files: NodeCommand["files"],
): Promise<{ options: PreconfProviderOptions; state: { kind: "loaded" | "new"; path: string } | undefined }> {
  const options: PreconfProviderOptions = {};
  if (files.genesis !== undefined) {
    options.genesis = parseJsonFile("--genesis", files.genesis, (await readInput("--genesis", files.genesis))!) as PreconfProviderOptions["genesis"];
  }
  if (files.import !== undefined) options.chain = new Uint8Array((await readInput("--import", files.import))!);
  // --state, and --load-state naming the file --dump-state writes, start a new chain when the file is not there yet.
  const loadFrom = files.state ?? files.loadState;
  if (loadFrom === undefined) return { options, state: undefined };
  const flag = files.state === undefined ? "--load-state" : "--state";
  const missingOk = files.state !== undefined || (files.dumpState !== undefined && resolve(files.dumpState) === resolve(loadFrom));
  const bytes = await readInput(flag, loadFrom, missingOk);
  if (bytes === undefined) return { options, state: { kind: "new", path: loadFrom } };
  options.state = parseJsonFile(flag, loadFrom, bytes) as PreconfProviderOptions["state"];
  return { options, state: { kind: "loaded", path: loadFrom } };
}
