/**
 * `preconf node` running: the provider from the options and files, the server, the banner with
 * the dev accounts, one line per sealed block, and a clean stop (with `--dump-state`) on a signal.
 */
import { access, constants, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { gunzipSync } from "node:zlib";

import { createPreconfProvider, InvalidOptionsError } from "../index.ts";
import { PROFILES } from "../node/profiles.ts";
import { ETHER } from "../node/defaults.ts";
import { startServer } from "../server/http.ts";
import { defined } from "./args.ts";

import type { Fragment, SealedBlock } from "../node/records.ts";
import type { PreconfProviderOptions } from "../options.ts";
import type { NodeCommand } from "./args.ts";

const gasOf = (value: bigint) => value.toLocaleString("en-US");

function blockLine(sealed: SealedBlock): string {
  const header = sealed.block.header;
  return `block ${header.number}  txs ${sealed.transactions.length}  gas ${gasOf(header.gasUsed)}  fragments ${sealed.fragmentCount}  ${sealed.hash}`;
}

const fragmentLine = (fragment: Fragment) =>
  `  fragment ${fragment.blockNumber}.${fragment.index}  txs ${fragment.transactions.length}  gas ${gasOf(fragment.cumulativeGasUsed)}`;

/** Fails at start, not after a whole session, when the dump could not be written. */
async function checkWritable(path: string): Promise<void> {
  try {
    await access(dirname(path), constants.W_OK);
  } catch (error) {
    throw new InvalidOptionsError("--dump-state", `cannot write ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Written beside the target and renamed: an interrupted write never leaves a half dump (nor a half `--load-state` input). */
async function writeDump(path: string, dump: unknown): Promise<void> {
  const partial = `${path}.${process.pid}.partial`;
  try {
    await writeFile(partial, `${JSON.stringify(dump, null, 2)}\n`);
    await rename(partial, path);
  } finally {
    await rm(partial, { force: true });
  }
}

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

export async function runNode(command: NodeCommand): Promise<number> {
  // Installed first: a signal before the handlers exist kills the process without cleanup.
  // Kept for the whole shutdown: a second Ctrl-C (or one from the shim and the terminal) must not kill it midway.
  const stopped = new Promise<void>((resolve) => {
    process.on("SIGINT", () => resolve());
    process.on("SIGTERM", () => resolve());
    whenOrphaned(resolve);
  });
  if (command.files.dumpState !== undefined) await checkWritable(command.files.dumpState);
  const provider = await createPreconfProvider(defined({ ...command.provider, ...(await optionsFromFiles(command.files)) }));
  // A fork of an OP-stack chain takes its profile from the upstream: known only now.
  if (command.files.dumpState !== undefined && provider.chain.op !== undefined) {
    await provider.close();
    throw new InvalidOptionsError(
      "--dump-state",
      `not supported on the ${provider.options.profile} profile: OP-stack blocks hold deposit txs that a dump cannot load back`,
    );
  }
  // A non-loopback host gets a warning on stderr (startServer's default `warn`).
  const server = await startServer(provider, { host: command.host, port: command.port, ...command.server });
  const out = (line: string) => process.stdout.write(`${line}\n`);

  out(`hardhat-preconf listening on ${server.url} (WebSocket ${server.wsUrl})`);
  const fork = provider.chain.fork;
  if (fork !== undefined) out(`Forking ${fork.client.origin} at block ${fork.blockNumber} (${fork.block.hash})`);
  out(
    `Chain id ${provider.chain.chainId}, a fragment every ${provider.preconf.fragmentIntervalMs} ms, ${provider.preconf.fragmentsPerBlock} per block, mining ${provider.preconf.mining}`,
  );
  if (provider.chain.op !== undefined) {
    out(
      `Profile ${provider.options.profile}: OP-stack execution as of ${PROFILES[provider.options.profile].opHardfork} (predeploys, L1 data fee, deposit txs)`,
    );
    if (PROFILES[provider.options.profile].denim)
      out("Base's Denim: a block per fragment, five sharing each second (BaseTime at 0x4200…0030 has the milliseconds); flashblocks retired");
  }
  out("");
  out("Accounts (DEV KEYS ONLY: these private keys are publicly known; never send real funds to them)");
  provider.options.accounts.forEach((account, i) => {
    out(`  (${i}) ${account.address}  ${account.balance / ETHER} ETH`);
    out(`      private key ${account.privateKey}`);
  });
  out("");

  // Logging must never break the chain that emits these events.
  const safely = (write: () => void) => {
    try {
      write();
    } catch {
      // stdout closed: nothing to report to
    }
  };
  provider.chain.on("sealed", (sealed) => {
    if (command.verbose || sealed.transactions.length > 0) safely(() => out(blockLine(sealed)));
  });
  if (command.verbose) provider.chain.on("fragment", (fragment) => safely(() => out(fragmentLine(fragment))));

  await stopped;
  out("Stopping");
  await server.close();
  await provider.close();
  if (command.files.dumpState !== undefined) {
    try {
      // The chain still answers a dump after close: its queue has drained.
      await writeDump(command.files.dumpState, await provider.preconf.dumpState());
    } catch (error) {
      process.stderr.write(`Could not write the state dump to ${command.files.dumpState}: ${error instanceof Error ? error.message : String(error)}\n`);
      return 1;
    }
    out(`State dumped to ${command.files.dumpState}`);
  }
  return 0;
}

/** The provider options that `--genesis`, `--import` and `--load-state` name files for. */
async function optionsFromFiles(files: NodeCommand["files"]): Promise<PreconfProviderOptions> {
  const read = async (flag: string, path: string): Promise<Buffer> => {
    try {
      return await readFile(path);
    } catch (error) {
      throw new InvalidOptionsError(flag, `cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  const json = (flag: string, path: string, bytes: Buffer): unknown => {
    try {
      // gzip's magic bytes: anvil writes its state files gzipped.
      return JSON.parse((bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes).toString("utf8"));
    } catch (error) {
      throw new InvalidOptionsError(flag, `${path} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  const options: PreconfProviderOptions = {};
  if (files.genesis !== undefined)
    options.genesis = json("--genesis", files.genesis, await read("--genesis", files.genesis)) as PreconfProviderOptions["genesis"];
  if (files.import !== undefined) options.chain = new Uint8Array(await read("--import", files.import));
  if (files.loadState !== undefined)
    options.state = json("--load-state", files.loadState, await read("--load-state", files.loadState)) as PreconfProviderOptions["state"];
  return options;
}
