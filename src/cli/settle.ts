/**
 * A parsed command line checked against the provider's own rules (options.ts: ranges, profiles,
 * hardforks, combinations), before any file is read or upstream asked; a refused option is
 * reported under the flag that set it. Then what depends on the profile: `--block-time` divided
 * into the block's fragments.
 */
import { PROFILES } from "../node/profiles/profiles.ts";
import { InvalidOptionsError, resolveOptions } from "../options.ts";
import { refusal, UsageError } from "./args.ts";

import type { NodeCommand } from "./flags.ts";

export function settleCommand(command: NodeCommand): NodeCommand {
  let resolved: ReturnType<typeof resolveOptions>;
  try {
    resolved = resolveOptions(command.provider);
  } catch (error) {
    throw error instanceof InvalidOptionsError ? asUsageError(error, command) : error;
  }
  // A fork's profile is known once the upstream answers: that case is refused when the node starts.
  const dumpFlag = command.files.state !== undefined ? "--state" : command.files.dumpState !== undefined ? "--dump-state" : undefined;
  if (dumpFlag !== undefined && PROFILES[resolved.profile].op !== undefined && resolved.fork === undefined) {
    throw new UsageError(`${dumpFlag} is not supported with --profile ${resolved.profile}: OP-stack blocks hold deposit txs that a dump cannot load back`);
  }
  if (command.blockTimeMs !== undefined) {
    const perBlock = resolved.fragmentsPerBlock;
    const interval = command.blockTimeMs / perBlock;
    if (!Number.isInteger(interval)) {
      throw new UsageError(
        `--block-time ${command.blockTimeMs / 1000} does not divide into ${perBlock} fragments of whole milliseconds: use a multiple of ${perBlock / gcd(perBlock, 1000)} ms, or set --fragments-per-block`,
      );
    }
    command.provider.fragmentIntervalMs = interval;
  }
  return command;
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/** An option the provider refused (now, or when it starts with the files read), as the flag that set it. */
export function asUsageError(error: InvalidOptionsError, command?: NodeCommand): UsageError {
  // A state file's content is refused as the option `state.<path>`: name the flag that gave the file.
  if (error.field.startsWith("state") && command?.files.state !== undefined)
    return refusal("--state", `${error.field}: ${error.reason}`, undefined, command.given);
  return refusal(error.field, error.reason, error.choices, command?.given);
}
