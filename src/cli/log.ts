/**
 * `preconf node`'s log, as anvil's and Hardhat's nodes print theirs, made for fragments: each
 * request (its method, a batch's methods on one line, a run of the same line collapsed), each
 * transaction when a fragment pre-confirms it and when its block seals (hash, sender, recipient or
 * created contract, value, gas, block and fragment, status with the decoded revert reason,
 * `console.log` output), dropped transactions, wallet prompts and their decisions; `--json` writes
 * the same events as JSON lines. The engine only emits events (chain `fragment` / `sealed` /
 * `dropped`, the server's request observer, the wallet policy's observer): every word is written
 * here. docs/cli.md shows each line.
 */
import { formatEther, formatGas, checksummed, describeFailure } from "./format.ts";
import { decodeConsoleCall } from "./consoleLog.ts";

import type { PreconfProvider } from "../provider.ts";
import type { Fragment, SealedBlock, TxRecord } from "../node/chain/records.ts";
import type { PooledTx } from "../node/pool/mempool.ts";
import type { JsonRpcError, ServedRequest } from "../server/jsonrpc.ts";
import type { PromptEvent } from "../wallet/policy.ts";
import type { Decision } from "../wallet/policy.ts";
import type { Colors } from "./format.ts";
import type { LogSettings } from "./flags.ts";

/** Where lines go: stdout, or a test's buffer. */
export interface LogOutput {
  write(text: string): void;
  /** A terminal: a repeated request line is rewritten in place instead of counted below. */
  readonly isTTY: boolean;
}

/** A deposit (OP stack, type 0x7e, with its depositNonce): every block opens with one; shown from -v on. */
const isDeposit = (record: TxRecord) => record.depositNonce !== undefined;

const errorText = (error: JsonRpcError) => `error ${error.code}: ${error.message}`;

function decisionText(decision: Decision): string {
  if (typeof decision === "string") return decision === "approve" ? "approved" : decision === "reject" ? "rejected (4001)" : decision;
  return `answered ${decision.code} ${decision.message}`;
}

/** A JSON line's values: bigints as decimal strings. */
const jsonLine = (event: Record<string, unknown>) =>
  `${JSON.stringify(event, (_, value: unknown) => (typeof value === "bigint" ? value.toString() : value))}\n`;

export class NodeLog {
  readonly #settings: LogSettings;
  readonly #out: LogOutput;
  readonly #colors: Colors;
  /** The last collapsible line printed and how many times it came in a row. */
  #last: { text: string; count: number } | undefined;
  readonly #detach: (() => void)[] = [];

  constructor(settings: LogSettings, out: LogOutput, colors: Colors) {
    this.#settings = settings;
    this.#out = out;
    this.#colors = colors;
  }

  /** Whether anything is printed at all (`--quiet`: nothing is attached, so nothing is formatted). */
  get active(): boolean {
    return this.#settings.level >= 0;
  }

  /** Listens to the provider's chain and wallet; `detach` stops. */
  attach(provider: PreconfProvider): void {
    if (!this.active) return;
    const chain = provider.chain;
    // The engine keeps console.log calls only while someone prints them (src/node/execution/consoleLog.ts).
    if (this.#settings.consoleLogs) chain.captureConsoleLogs = true;
    const onFragment = (fragment: Fragment) => this.#guard(() => this.fragment(fragment, provider));
    const onSealed = (sealed: SealedBlock) => this.#guard(() => this.sealed(sealed));
    const onDropped = (entry: PooledTx, reason: string) => this.#guard(() => this.dropped(entry, reason));
    chain.on("fragment", onFragment);
    chain.on("sealed", onSealed);
    chain.on("dropped", onDropped);
    const stopPrompts = provider.wallet.policy.observe((event) => this.#guard(() => this.prompt(event)));
    this.#detach.push(() => {
      chain.off("fragment", onFragment);
      chain.off("sealed", onSealed);
      chain.off("dropped", onDropped);
      stopPrompts();
      chain.captureConsoleLogs = false;
    });
  }

  detach(): void {
    for (const undo of this.#detach.splice(0)) undo();
    this.flush();
  }

  /** A line (text mode) or an event (JSON mode) outside the request/tx flow: the state written, the stop. */
  note(text: string, event: Record<string, unknown>): void {
    if (!this.active) return;
    if (this.#settings.json) this.#write(jsonLine(event));
    else this.#line(text);
  }

  // ── Requests ──────────────────────────────────────────────────────────────────────────────────

  /** The server's request observer (ServerOptions.onRequest). */
  readonly request = (served: ServedRequest): void => {
    this.#guard(() => {
      if (this.#settings.json) {
        this.#write(jsonLine({ type: "request", transport: served.transport, batch: served.batch, calls: served.calls }));
        return;
      }
      const { green, red } = this.#colors;
      const method = (call: ServedRequest["calls"][number]) => (call.error === undefined ? green(call.method) : red(call.method));
      const failures = served.calls.filter((call) => call.error !== undefined);
      let text: string;
      if (!served.batch) {
        const [call] = served.calls;
        text = `${method(call!)}${call!.error === undefined ? "" : `  ${red(errorText(call!.error))}`}`;
      } else {
        text = `batch of ${served.calls.length}: ${served.calls.map(method).join(", ")}`;
        if (failures.length > 0) text += `  ${red(failures.map((call) => `${call.method}: ${errorText(call.error!)}`).join("; "))}`;
      }
      this.#collapsible(text);
      if (this.#settings.level >= 2) for (const call of failures) if (call.error!.data !== undefined) this.#line(`  data ${JSON.stringify(call.error!.data)}`);
    });
  };

  // ── Transactions and blocks ───────────────────────────────────────────────────────────────────

  fragment(fragment: Fragment, provider?: PreconfProvider): void {
    const shown = fragment.transactions.filter((record) => this.#settings.level >= 1 || !isDeposit(record));
    if (this.#settings.json) {
      if (this.#settings.level >= 1)
        this.#write(
          jsonLine({
            type: "fragment",
            block: Number(fragment.blockNumber),
            index: fragment.index,
            transactions: fragment.transactions.map((record) => record.hash),
            cumulativeGasUsed: Number(fragment.cumulativeGasUsed),
          }),
        );
      for (const record of shown) this.#write(jsonLine(this.#transactionEvent(record)));
    } else {
      if (this.#settings.level >= 1)
        this.#line(
          this.#colors.dim(
            `fragment ${fragment.blockNumber}.${fragment.index}: ${fragment.transactions.length} tx${fragment.transactions.length === 1 ? "" : "s"}, block gas ${formatGas(fragment.cumulativeGasUsed)}`,
          ),
        );
      for (const record of shown) this.#transactionLines(record);
    }
    if (this.#settings.traces && provider !== undefined) for (const record of shown) this.#trace(record, provider);
  }

  sealed(sealed: SealedBlock): void {
    const header = sealed.block.header;
    const hashes = sealed.transactions.filter((record) => this.#settings.level >= 1 || !isDeposit(record));
    if (hashes.length === 0 && this.#settings.level < 1) return;
    if (this.#settings.json) {
      this.#write(
        jsonLine({
          type: "block",
          number: Number(header.number),
          hash: sealed.hash,
          timestamp: Number(header.timestamp),
          gasUsed: Number(header.gasUsed),
          fragments: sealed.fragmentCount,
          transactions: sealed.transactions.map((record) => record.hash),
        }),
      );
      return;
    }
    const count = sealed.transactions.length;
    this.#line(
      this.#colors.bold(
        `Block ${header.number} sealed: ${count} tx${count === 1 ? "" : "s"}, gas ${formatGas(header.gasUsed)}, ${sealed.fragmentCount} fragment${sealed.fragmentCount === 1 ? "" : "s"}, hash ${sealed.hash}`,
      ),
    );
    for (const record of hashes) this.#line(`  ${record.hash} (fragment ${record.fragmentIndex})`);
  }

  dropped(entry: PooledTx, reason: string): void {
    if (this.#settings.json) this.#write(jsonLine({ type: "dropped", hash: entry.hash, from: checksummed(entry.sender), nonce: Number(entry.nonce), reason }));
    else this.#line(this.#colors.yellow(`Transaction ${entry.hash} dropped from the pool: ${reason}`));
  }

  #transactionEvent(record: TxRecord): Record<string, unknown> {
    const consoleLines = (record.consoleCalls ?? []).map((call) => decodeConsoleCall(call) ?? call);
    return {
      type: "transaction",
      event: "preconfirmed",
      hash: record.hash,
      block: Number(record.blockNumber),
      fragment: record.fragmentIndex,
      from: checksummed(record.from),
      to: record.tx.to === undefined ? null : checksummed(record.tx.to.toString()),
      contractAddress: record.contractAddress === undefined ? null : checksummed(record.contractAddress),
      value: record.tx.value,
      gasUsed: Number(record.gasUsed),
      gasLimit: Number(record.tx.gasLimit),
      status: record.status === 1 ? "success" : record.failure?.error === "revert" || record.failure === undefined ? "reverted" : "failed",
      ...(record.status === 0 && { reason: describeFailure(record.failure), returnData: record.failure?.returnData ?? null }),
      ...(consoleLines.length > 0 && { console: consoleLines }),
    };
  }

  #transactionLines(record: TxRecord): void {
    const { green, red, bold } = this.#colors;
    this.#line(`${bold(`Transaction ${record.hash}`)} pre-confirmed in block ${record.blockNumber}, fragment ${record.fragmentIndex}`);
    const from = checksummed(record.from);
    const target =
      record.contractAddress !== undefined
        ? `created contract ${checksummed(record.contractAddress)}`
        : record.tx.to === undefined
          ? "created nothing"
          : `to ${checksummed(record.tx.to.toString())}`;
    const status = record.status === 1 ? green("success") : red(describeFailure(record.failure));
    this.#line(
      `  from ${from} ${target}, value ${formatEther(record.tx.value)}, gas ${formatGas(record.gasUsed)} of ${formatGas(record.tx.gasLimit)}, ${status}`,
    );
    for (const call of record.consoleCalls ?? []) {
      const decoded = decodeConsoleCall(call);
      this.#line(`  console.log: ${decoded ?? `(undecoded ${call})`}`);
    }
  }

  /** `--print-traces`: the tx's call tree (debug_traceTransaction's callTracer), printed when it is ready. */
  #trace(record: TxRecord, provider: PreconfProvider): void {
    provider
      .request({ method: "debug_traceTransaction", params: [record.hash, { tracer: "callTracer" }] })
      .then((frame) => {
        if (this.#settings.json) this.#write(jsonLine({ type: "trace", hash: record.hash, trace: frame }));
        else {
          this.#line(`Trace of ${record.hash}`);
          this.#frameLines(frame as CallFrame, 1);
        }
      })
      .catch(() => undefined);
  }

  #frameLines(frame: CallFrame, depth: number): void {
    const indent = "  ".repeat(depth);
    const selector = frame.input !== undefined && frame.input.length >= 10 ? ` ${frame.input.slice(0, 10)}` : "";
    const value = frame.value !== undefined && BigInt(frame.value) > 0n ? ` value ${formatEther(BigInt(frame.value))}` : "";
    const outcome =
      frame.error === undefined ? "" : ` ${this.#colors.red(frame.revertReason === undefined ? frame.error : `${frame.error}: ${frame.revertReason}`)}`;
    this.#line(
      `${indent}${frame.type} ${checksummed(frame.from)} → ${frame.to === undefined ? "?" : checksummed(frame.to)}${selector}${value} gas ${formatGas(BigInt(frame.gasUsed))}${outcome}`,
    );
    for (const child of frame.calls ?? []) this.#frameLines(child, depth + 1);
  }

  // ── Wallet ────────────────────────────────────────────────────────────────────────────────────

  prompt(event: PromptEvent): void {
    const { request } = event;
    if (this.#settings.json) {
      this.#write(
        jsonLine({
          type: "prompt",
          event: event.kind,
          id: request.id,
          method: request.method,
          chainId: request.chainId,
          ...(event.kind === "decided" && { decision: event.decision }),
        }),
      );
      return;
    }
    const what = `Wallet prompt #${request.id} ${request.method}`;
    this.#line(this.#colors.yellow(event.kind === "waiting" ? `${what}: waiting for the test's decision` : `${what}: ${decisionText(event.decision)}`));
  }

  // ── Output ────────────────────────────────────────────────────────────────────────────────────

  /** Ends a run of collapsed lines: off a terminal, its count is printed now. */
  flush(): void {
    const last = this.#last;
    this.#last = undefined;
    if (last !== undefined && last.count > 1 && !this.#out.isTTY) this.#write(`${last.text} (×${last.count})\n`);
  }

  #line(text: string): void {
    this.flush();
    this.#write(`${text}\n`);
  }

  /**
   * A request line: the same line again adds to a count instead. On a terminal the line is
   * rewritten with its count (as Hardhat's node does); elsewhere the count comes once the run ends.
   */
  #collapsible(text: string): void {
    const last = this.#last;
    if (last !== undefined && last.text === text) {
      last.count++;
      // Cursor up one line, rewrite it, erase what is left of it.
      if (this.#out.isTTY) this.#write(`\u001b[1A\r${text} (×${last.count})\u001b[K\n`);
      return;
    }
    this.flush();
    this.#write(`${text}\n`);
    this.#last = { text, count: 1 };
  }

  #write(text: string): void {
    this.#out.write(text);
  }

  /** A log line must never break the chain or the server that emits the event. */
  #guard(print: () => void): void {
    try {
      print();
    } catch {
      // stdout closed, or a record a formatter did not expect: nothing to report to.
    }
  }
}

interface CallFrame {
  type: string;
  from: string;
  to?: string;
  value?: string;
  gasUsed: string;
  input?: string;
  error?: string;
  revertReason?: string;
  calls?: CallFrame[];
}
