/**
 * State files (`--state`, `--load-state`, `--dump-state`, `--state-interval`): read at start, and
 * written so that a crash or a SIGKILL at any moment leaves the previous complete file or the new
 * complete one, never a torn one: the dump goes to a temporary file beside the target, is flushed
 * to the disk (fsync), then renamed over the target (rename is atomic within a file system), and
 * the directory is flushed so that the rename itself survives a power loss.
 */
import { randomBytes } from "node:crypto";
import { access, constants, open, readdir, readFile, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { gunzipSync } from "node:zlib";

import { InvalidOptionsError } from "../options.ts";

import type { PreconfProvider } from "../provider.ts";
import type { StateDump } from "../node/state/stateDump.ts";

/** Writes `text` to `path` atomically (see above). */
export async function writeFileAtomically(path: string, text: string): Promise<void> {
  const dir = dirname(path);
  // Hidden, beside the target (same file system), unique per write.
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    const file = await open(temp, "w");
    try {
      await file.writeFile(text);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  // The rename is in the directory: flush it too (not possible on every platform: best effort).
  try {
    const directory = await open(dir, "r");
    try {
      await directory.sync();
    } finally {
      await directory.close();
    }
  } catch {
    // Windows cannot open a directory for fsync; the rename is still atomic there.
  }
}

/** The temporary files of writes of `path` that a killed run left behind (nothing else reads them). */
export async function removeLeftovers(path: string): Promise<void> {
  const prefix = `.${basename(path)}.`;
  const names = await readdir(dirname(path)).catch(() => [] as string[]);
  for (const name of names) if (name.startsWith(prefix) && /\.\d+\.[0-9a-f]{8}\.tmp$/.test(name)) await rm(join(dirname(path), name), { force: true });
}

/** Fails at start, not after a whole session, when a file could not be written there. */
export async function checkWritable(flag: string, path: string): Promise<void> {
  try {
    await access(dirname(path), constants.W_OK);
  } catch (error) {
    throw new InvalidOptionsError(flag, `cannot write ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** A file's bytes; undefined when it does not exist and `missingOk`. */
export async function readInput(flag: string, path: string, missingOk = false): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    if (missingOk && (error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new InvalidOptionsError(flag, `cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** JSON, gzipped or not (anvil writes its state files gzipped). */
export function parseJsonFile(flag: string, path: string, bytes: Buffer): unknown {
  try {
    // gzip's magic bytes
    return JSON.parse((bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes).toString("utf8"));
  } catch (error) {
    throw new InvalidOptionsError(flag, `${path} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** What a written dump holds, for the log. */
export interface DumpWritten {
  path: string;
  block: bigint;
}

/**
 * Writes the chain's dump to `path`, now and (with `intervalMs`) periodically. Writes never
 * overlap: a tick that comes while one is under way is skipped.
 */
export class StateWriter {
  readonly #provider: PreconfProvider;
  readonly #path: string;
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<DumpWritten> | undefined;

  constructor(provider: PreconfProvider, path: string) {
    this.#provider = provider;
    this.#path = path;
  }

  /** Writes every `intervalMs`; `onWritten`/`onError` report each write. */
  every(intervalMs: number, onWritten: (written: DumpWritten) => void, onError: (error: unknown) => void): void {
    this.#timer = setInterval(() => {
      if (this.#writing !== undefined) return;
      this.write().then(onWritten, onError);
    }, intervalMs);
    // The timer never keeps the process alive: the signal handlers do.
    this.#timer.unref();
  }

  /** Stops the timer and waits for a write under way. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#writing?.catch(() => undefined);
  }

  write(): Promise<DumpWritten> {
    const writing = (async () => {
      try {
        const dump: StateDump = await this.#provider.preconf.dumpState();
        await writeFileAtomically(this.#path, `${JSON.stringify(dump)}\n`);
        return { path: this.#path, block: BigInt(dump.head.number) };
      } finally {
        this.#writing = undefined;
      }
    })();
    this.#writing = writing;
    return writing;
  }
}
