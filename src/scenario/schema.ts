/**
 * The scenario fixture format (README "Scenario fixtures"), validated with zod. A malformed
 * fixture throws `ScenarioFixtureError` naming the JSON path, e.g. `steps[3].send.value`.
 */
import { z } from "zod";

import { DECISION_NAMES, PROMPTING_METHODS } from "../wallet/policy.ts";
import { isAmountString, parseAmount } from "./amounts.ts";
import { BUILT_IN_NAMES, isReference } from "./references.ts";
import { ADDRESS_PATTERN, BYTES32_PATTERN, BYTES_PATTERN } from "../node/common/hex.ts";

import type { PreconfProviderOptions } from "../options.ts";

export class ScenarioFixtureError extends Error {
  constructor(source: string, path: string, reason: string) {
    super(`Invalid scenario fixture ${source} at ${path}: ${reason}`);
    this.name = "ScenarioFixtureError";
  }
}

// ── Values ──────────────────────────────────────────────────────────────────────────────────────

const custom = <T>(test: (value: unknown) => boolean, message: string) => z.custom<T>(test, { message });

const isHexBytes = (value: unknown) => typeof value === "string" && BYTES_PATTERN.test(value);
const isRefString = (value: unknown) => typeof value === "string" && isReference(value);
const isAccountIndex = (value: unknown) => typeof value === "number" && Number.isSafeInteger(value) && value >= 0;

/** An amount (number, decimal, hex, "1 ether") or a `$reference` resolved when the step runs. */
const amountOrRef = custom<number | string>(
  (value) => isAccountIndex(value) || (typeof value === "string" && (isReference(value) || isAmountString(value))),
  'must be an amount (integer, "0x…", "123", "1.5 ether", "2 gwei") or a $reference',
);
const hexOrRef = custom<string>((value) => isHexBytes(value) || isRefString(value), "must be 0x-hex bytes or a $reference");
/** An address, a dev account index, or a `$reference`. */
const addressLike = custom<string | number>(
  (value) => isAccountIndex(value) || isRefString(value) || (typeof value === "string" && ADDRESS_PATTERN.test(value)),
  "must be a 0x address, a dev account index or a $reference",
);
const hashOrRef = custom<string>(
  (value) => isRefString(value) || (typeof value === "string" && BYTES32_PATTERN.test(value)),
  "must be a 32-byte 0x hash or a $reference",
);

/**
 * A value checked by the one schema `choose` picks for it (by JSON type), so errors name the real
 * problem where a union would only say "Invalid input".
 */
function choose<T>(pick: (value: unknown) => z.ZodType<T, z.ZodTypeDef, unknown>) {
  return z.unknown().transform((value, ctx): T => {
    const parsed = pick(value).safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) ctx.addIssue(issue);
    return z.NEVER;
  });
}

const stringOrObject = <S, O>(text: z.ZodType<S, z.ZodTypeDef, unknown>, object: z.ZodType<O, z.ZodTypeDef, unknown>) =>
  choose<S | O>((value) => (typeof value === "string" ? text : object));

/** Calldata from a function signature: `{ "$calldata": "transfer(address,uint256)", "args": [...] }`. */
export const calldataSchema = z
  .object({ $calldata: z.string().regex(/^\w+\(.*\)$/, 'must be a signature such as "transfer(address,uint256)"'), args: z.array(z.unknown()).optional() })
  .strict();

/** A tx the runner signs with the dev key of account `from`. */
export const txDescriptionSchema = z
  .object({
    from: z.number().int().nonnegative(),
    /** Absent or null deploys `data`. */
    to: addressLike.nullable().optional(),
    value: amountOrRef.optional(),
    data: stringOrObject(hexOrRef, calldataSchema).optional(),
    /** Default: the sender's `pending` nonce. */
    nonce: amountOrRef.optional(),
    /** Default: 21000 for a transfer without data, else eth_estimateGas on `pending`. */
    gas: amountOrRef.optional(),
    /** Default: EIP-1559 with maxFeePerGas 10 gwei, maxPriorityFeePerGas 1 gwei. */
    fees: z
      .object({ maxFeePerGas: amountOrRef.optional(), maxPriorityFeePerGas: amountOrRef.optional(), gasPrice: amountOrRef.optional() })
      .strict()
      .refine(
        (fees) => fees.gasPrice === undefined || (fees.maxFeePerGas === undefined && fees.maxPriorityFeePerGas === undefined),
        "gasPrice excludes the EIP-1559 fee fields",
      )
      .optional(),
    type: z.enum(["legacy", "eip2930", "eip1559"]).optional(),
    /** Default: the chain's id (another one makes an `invalid sender` case). */
    chainId: z.number().int().positive().optional(),
  })
  .strict();

export type TxDescription = z.infer<typeof txDescriptionSchema>;

// ── Wallet policy ───────────────────────────────────────────────────────────────────────────────

const decision = stringOrObject(z.enum(DECISION_NAMES), z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).strict());
const promptingMethod = z.enum(PROMPTING_METHODS);

export const walletSchema = z
  .object({
    default: decision.optional(),
    methods: z.record(promptingMethod, decision).optional(),
    /** One-shot decisions per method, first in first out. */
    queue: z.record(promptingMethod, z.array(decision).min(1)).optional(),
    switchOnAdd: z.boolean().optional(),
  })
  .strict();

export type WalletSetup = z.infer<typeof walletSchema>;

// ── Start state ─────────────────────────────────────────────────────────────────────────────────

const amount = z.unknown().transform((value, ctx) => {
  try {
    return parseAmount(value);
  } catch (error) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: (error as Error).message });
    return z.NEVER;
  }
});

/** Where the fake clock starts when a fixture says nothing (the tests' START_MS). */
export const DEFAULT_START_MS = 1_700_000_000_000;

const mnemonicAccounts = z
  .object({ mnemonic: z.string().optional(), count: z.number().int().nonnegative().optional(), balance: amount.optional(), path: z.string().optional() })
  .strict();
const explicitAccounts = z.array(z.object({ privateKey: z.string(), balance: amount }).strict());

const startSchema = z
  .object({
    /** Fake clock start: Unix milliseconds or an ISO date. */
    time: z
      .union([
        z.number().int().nonnegative(),
        z
          .string()
          .datetime({ offset: true })
          .transform((iso) => Date.parse(iso)),
      ])
      .default(DEFAULT_START_MS),
    chainId: z.number().int().positive().optional(),
    hardfork: z.string().optional(),
    blockGasLimit: amount.optional(),
    initialBaseFeePerGas: amount.optional(),
    /** `{ mnemonic?, count?, balance?, path? }` or `[{ privateKey, balance }]`. */
    accounts: choose<z.output<typeof mnemonicAccounts> | z.output<typeof explicitAccounts>>((value) =>
      Array.isArray(value) ? explicitAccounts : mnemonicAccounts,
    ).optional(),
    fragmentIntervalMs: z.number().int().positive().optional(),
    fragmentsPerBlock: z.number().int().positive().optional(),
    mining: z.enum(["interval", "manual"]).optional(),
    coinbase: z.string().optional(),
    minPriorityFeePerGas: amount.optional(),
    allowUnprotectedTxs: z.boolean().optional(),
    /** A geth-format genesis object (its alloc and forks win over chainId/accounts balances). */
    genesis: z.record(z.unknown()).optional(),
    walletPolicy: z.enum(["approve", "reject", "unsupported"]).optional(),
    switchOnAdd: z.boolean().optional(),
    /**
     * A `preconf_dumpState` dump, loaded with `preconf_loadState` before the first step: the object,
     * or the path of a dump file relative to the fixture.
     */
    state: z.unknown().optional(),
  })
  .strict();

export interface ScenarioStart {
  timeMs: number;
  options: PreconfProviderOptions;
  state: unknown;
}

// ── Steps ───────────────────────────────────────────────────────────────────────────────────────

const errorExpectation = z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).strict();

/** Exactly one of: `result` (deep equality), `match` (partial), `error` ({ code, message, data? }). */
export const expectationSchema = z
  .object({ result: z.unknown(), match: z.unknown(), error: errorExpectation })
  .partial()
  .strict()
  .superRefine((value, ctx) => {
    const kinds = Object.keys(value);
    if (kinds.length !== 1)
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: `needs exactly one of result, match, error (found ${kinds.length === 0 ? "none" : kinds.join(", ")})`,
      });
  });

export type Expectation = z.infer<typeof expectationSchema>;

const captureName = z
  .string()
  .regex(/^[A-Za-z_]\w*$/, "must be an identifier (letters, digits, _)")
  .refine((name) => !BUILT_IN_NAMES.includes(name), `must not be a built-in name (${BUILT_IN_NAMES.join(", ")})`);

const reading = { description: z.string().optional(), as: captureName.optional(), expect: expectationSchema.optional() };
const timing = { description: z.string().optional() };

const stepKinds = {
  /** eth_sendRawTransaction of signed hex, or of a tx the runner signs; the result is the hash. */
  send: z.object({ send: stringOrObject(hexOrRef, txDescriptionSchema), ...reading }).strict(),
  /** Any JSON-RPC method; `params` may hold $references and $calldata objects. */
  call: z.object({ call: z.string().min(1), params: z.unknown().optional(), ...reading }).strict(),
  receipt: z.object({ receipt: hashOrRef, ...reading }).strict(),
  balance: z.object({ balance: addressLike, block: z.string().default("latest"), ...reading }).strict(),
  /** preconf_transactionStatus. */
  txStatus: z.object({ txStatus: hashOrRef, ...reading }).strict(),
  /** Ticks the fake clock by n fragment intervals. */
  advance: z.object({ advance: z.number().int().positive(), ...timing }).strict(),
  /** Drives fragments until fragment `fragment` of block `block` (default: the open block) is done. */
  at: z.object({ at: z.object({ block: z.number().int().positive().optional(), fragment: z.number().int().nonnegative() }).strict(), ...timing }).strict(),
  /** Produces n fragments now, whatever the clock. */
  fragment: z.object({ fragment: z.union([z.literal(true), z.number().int().positive()]), ...timing }).strict(),
  /** Seals the open block now; the result is `{ number, hash }`. */
  seal: z.object({ seal: z.literal(true), ...reading }).strict(),
  /** Ticks the fake clock by n milliseconds (wallet delays, timeouts). */
  wait: z.object({ wait: z.number().int().positive(), ...timing }).strict(),
  /** Changes the wallet policy from here on. */
  wallet: z.object({ wallet: walletSchema, ...timing }).strict(),
};

type StepKinds = typeof stepKinds;
export type StepKind = keyof StepKinds;
export type Step = { [K in StepKind]: z.output<StepKinds[K]> & { kind: K } }[StepKind];
export const STEP_KINDS = Object.keys(stepKinds) as StepKind[];

/** Picks the step's schema by its action key, so errors name that action's fields (no "Invalid input" of a union). */
const stepSchema = z.record(z.unknown()).transform((value, ctx): Step => {
  const actions = STEP_KINDS.filter((kind) => kind in value);
  if (actions.length !== 1) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      message: `needs exactly one action of ${STEP_KINDS.join(", ")} (found ${actions.length === 0 ? "none" : actions.join(", ")})`,
    });
    return z.NEVER;
  }
  const kind = actions[0]!;
  const parsed = stepKinds[kind].safeParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) ctx.addIssue(issue);
    return z.NEVER;
  }
  return { ...parsed.data, kind } as Step;
});

// ── Fixture ─────────────────────────────────────────────────────────────────────────────────────

const fixtureSchema = z
  .object({
    $schema: z.string().optional(),
    name: z.string().min(1),
    description: z.string().optional(),
    start: startSchema.default({}),
    wallet: walletSchema.optional(),
    steps: z.array(stepSchema).min(1),
  })
  .strict();

export interface ScenarioFixture {
  name: string;
  description: string | undefined;
  start: ScenarioStart;
  wallet: WalletSetup | undefined;
  steps: Step[];
}

/** `steps[3].send.value`, as a reader would write the path. */
function formatPath(path: (string | number)[]): string {
  let text = "";
  for (const part of path) text += typeof part === "number" ? `[${part}]` : text === "" ? part : `.${part}`;
  return text === "" ? "(root)" : text;
}

/** Validates a parsed JSON fixture; `source` names it in errors (a file path, or "(inline)"). */
export function parseScenario(value: unknown, source = "(inline)"): ScenarioFixture {
  const parsed = fixtureSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ScenarioFixtureError(source, formatPath(issue.path), issue.message);
  }
  const { start, ...rest } = parsed.data;
  const { time, state, ...options } = start;
  return {
    name: rest.name,
    description: rest.description,
    wallet: rest.wallet,
    steps: rest.steps,
    // The provider validates the options again (ranges, keys, genesis shape) when the run starts.
    start: { timeMs: time, state, options: options as PreconfProviderOptions },
  };
}
