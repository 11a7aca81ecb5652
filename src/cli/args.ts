/**
 * `preconf node`'s command line: the usage text and the parsing of arguments into a NodeCommand,
 * both from the table of flags.ts. Errors are one line with what is wrong and how to fix it
 * (the nearest flag for a typo); `preconf` prints them and exits 2. What the provider decides
 * (ranges, profiles, hardforks) is checked next, by settle.ts, which loads the engine: a command
 * line refused here never does.
 */
import { defaultCommand, FLAGS, nearest, orList, UsageError } from "./flags.ts";

import type { FlagGroup, FlagSpec, GivenFlag, NodeCommand } from "./flags.ts";

export { UsageError } from "./flags.ts";
export type { NodeCommand } from "./flags.ts";

/** The table's groups, in its order. */
const GROUPS: readonly FlagGroup[] = [...new Set(FLAGS.map((spec) => spec.group))];

/** `-p, --port <n>` */
export function flagSignature(spec: FlagSpec): string {
  const names = [...(spec.short === undefined ? [] : [`-${spec.short}`]), `--${spec.name}`];
  return `${names.join(", ")}${spec.value === undefined ? "" : ` ${spec.value}`}`;
}

function usageLine(spec: FlagSpec): string {
  const signature = flagSignature(spec);
  const aliases = spec.aliases === undefined ? "" : `; also --${spec.aliases.join(", --")}`;
  const defaults = spec.defaultText === undefined ? "" : ` (${spec.defaultText})`;
  const left = `  ${signature}`.padEnd(34);
  return `${left}${left.length > 34 ? `\n${" ".repeat(34)}` : ""}${spec.description}${defaults}${aliases}`;
}

export const USAGE = `Usage: preconf node [options]           serve a pre-confirming dev chain over HTTP and WebSocket
       preconf run-fixture FILE|DIR...  run scenario fixtures, print pass/fail per step (exit 1 on any failure)
       preconf --version                print the version
${GROUPS.map(
  (group) =>
    `\n${group}:\n${FLAGS.filter((spec) => spec.group === group)
      .map(usageLine)
      .join("\n")}`,
).join("\n")}

  -h, --help                      this text

Every flag with its anvil and Hardhat equivalent: docs/cli.md.
`;

/** Each spelling of each flag (`--port`, `-p`, `--allow-origin`) and the entry it belongs to. */
const BY_NAME = new Map<string, FlagSpec>();
for (const spec of FLAGS) {
  for (const name of [spec.name, ...(spec.aliases ?? [])]) BY_NAME.set(`--${name}`, spec);
  if (spec.short !== undefined) BY_NAME.set(`-${spec.short}`, spec);
}

const takesValue = (spec: FlagSpec) => spec.value !== undefined;

/** `--prot` → "unknown option --prot (did you mean --port?); preconf node --help lists them all" */
function unknownFlag(flag: string): UsageError {
  const candidates = [...BY_NAME.keys()].filter((name) => name.startsWith("--"));
  const near = flag.startsWith("--") ? nearest(flag, candidates) : undefined;
  return new UsageError(`unknown option ${flag}${near === undefined ? "" : ` (did you mean ${near}?)`}; \`preconf node --help\` lists every option`);
}

interface Occurrence {
  spec: FlagSpec;
  /** How it was written (`--allow-origin`, `-p`), for messages. */
  flag: string;
  raw: string | undefined;
}

/** The flags in the order given. A flag that takes a value takes the next argument whatever it looks like (`--balance -5`). */
function tokenize(args: readonly string[]): Occurrence[] | "help" {
  const found: Occurrence[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--help" || arg === "-h") return "help";
    if (arg === "--") continue;
    if (!arg.startsWith("-") || arg === "-") throw new UsageError(`unexpected argument "${arg}": preconf node takes options only (\`preconf node --help\`)`);
    // -vvv: a repeated switch.
    const repeated = /^-([a-zA-Z])\1+$/.exec(arg);
    if (repeated !== null) {
      const spec = BY_NAME.get(`-${repeated[1]}`);
      if (spec === undefined || takesValue(spec) || spec.repeatable !== true) throw unknownFlag(arg);
      for (let n = 1; n < arg.length; n++) found.push({ spec, flag: `-${repeated[1]}`, raw: undefined });
      continue;
    }
    const equals = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const flag = equals === -1 ? arg : arg.slice(0, equals);
    const inline = equals === -1 ? undefined : arg.slice(equals + 1);
    // -p8545: a short flag with its value attached.
    const attached = !arg.startsWith("--") && arg.length > 2 ? { flag: arg.slice(0, 2), raw: arg.slice(2) } : undefined;
    const spec = BY_NAME.get(attached?.flag ?? flag);
    if (spec === undefined) throw unknownFlag(flag);
    const name = attached?.flag ?? flag;
    if (!takesValue(spec)) {
      if (inline !== undefined || attached !== undefined) throw new UsageError(`${name} takes no value, got "${inline ?? attached?.raw}"`);
      found.push({ spec, flag: name, raw: undefined });
      continue;
    }
    if (inline !== undefined || attached !== undefined) {
      found.push({ spec, flag: name, raw: inline ?? attached?.raw });
      continue;
    }
    const next = args[i + 1];
    if (spec.optionalValue === true) {
      // `--prune-history` alone, or followed by another flag.
      const value = next !== undefined && !next.startsWith("-") ? next : undefined;
      if (value !== undefined) i++;
      found.push({ spec, flag: name, raw: value });
      continue;
    }
    if (next === undefined) throw new UsageError(`${name} needs a value: ${flagSignature(spec)}`);
    i++;
    found.push({ spec, flag: name, raw: next });
  }
  return found;
}

/** Parses `preconf node`'s arguments (after `node`). Throws UsageError; "help" for --help. */
export function parseNodeArgs(args: readonly string[]): NodeCommand | "help" {
  const occurrences = tokenize(args);
  if (occurrences === "help") return "help";
  const command = defaultCommand();
  for (const { spec, flag, raw } of occurrences) {
    const earlier = command.given.find((given) => given.spec === spec);
    if (earlier !== undefined && spec.repeatable !== true)
      throw new UsageError(`${flag} is given twice${earlier.flag === flag ? "" : ` (also as ${earlier.flag})`}: give it once`);
    command.given.push({ spec, flag, raw });
    spec.apply(command, spec.parse(raw, flag));
  }
  return finish(command);
}

/** What needs several flags at once. */
function finish(command: NodeCommand): NodeCommand {
  const given = command.given;
  for (const option of ["profile", "mining", "stateHistory", "fragmentIntervalMs"]) {
    const flags = given.filter(({ spec }) => spec.option === option).map(({ flag }) => flag);
    if (flags.length > 1) throw new UsageError(`${flags.join(" and ")} both set the same thing: give one of them`);
  }
  const fork = command.provider.fork;
  if (fork !== undefined && fork.url === "") {
    const flags = [...new Set(given.filter(({ spec }) => spec.option?.startsWith("fork.")).map(({ flag }) => flag))];
    throw new UsageError(`${orList(flags)} need${flags.length === 1 ? "s" : ""} --fork-url`);
  }
  const { files } = command;
  if (files.state !== undefined && (files.loadState !== undefined || files.dumpState !== undefined)) {
    throw new UsageError("--state loads and dumps one file: leave out --load-state and --dump-state");
  }
  if (command.stateIntervalMs !== undefined && files.state === undefined && files.dumpState === undefined) {
    throw new UsageError("--state-interval needs --state or --dump-state: the file it writes");
  }
  return command;
}

/** The flag that sets a provider option (`accounts.count` → --accounts), preferring the one given. */
export function flagOfOption(field: string, given: readonly GivenFlag[] = []): { spec: FlagSpec; written: string; raw: string | undefined } | undefined {
  if (field.startsWith("--")) {
    const spec = BY_NAME.get(field);
    return spec === undefined ? undefined : { spec, written: field, raw: undefined };
  }
  const matches = (spec: FlagSpec) => spec.option !== undefined && (spec.option === field || field.startsWith(`${spec.option}.`));
  for (const { spec, flag, raw } of [...given].reverse()) if (matches(spec)) return { spec, written: flag, raw };
  // `fork` (a refusal across its fields) → the flag of one of them.
  const spec = FLAGS.find(matches) ?? FLAGS.find((candidate) => candidate.option?.startsWith(`${field}.`) === true);
  return spec === undefined ? undefined : { spec, written: `--${spec.name}`, raw: undefined };
}

/**
 * A provider option refused, said in terms of the flag that set it:
 * `--chain-id "0": must be between 1 and 0xfffffffffffec`.
 */
export function refusal(field: string, reason: string, choices: readonly string[] | undefined, given: readonly GivenFlag[] = []): UsageError {
  const flag = flagOfOption(field, given);
  const raw = flag?.raw;
  const suggestion = choices !== undefined && raw !== undefined ? nearest(raw, choices) : undefined;
  const why = choices === undefined ? reason : `must be ${orList(choices)}`;
  const what = flag === undefined ? `option ${field}` : flag.written;
  return new UsageError(`${what}${raw === undefined ? "" : ` "${raw}"`}: ${why}${suggestion === undefined ? "" : ` (did you mean ${suggestion}?)`}`);
}
