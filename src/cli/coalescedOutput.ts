/**
 * Output written in one piece per turn of the event loop. A busy node logs several lines per
 * request (the request, each transaction's lines, the sealed block): on a pipe each write is a
 * system call, and the reader is woken once per write. Lines written in the same turn go out
 * together, in order, right after it (`setImmediate`), and `flush` writes what waits at once (before
 * anything else is written to the stream, and on the way out).
 */
export interface CoalescedOutput {
  write(text: string): void;
  /** Writes what is waiting now. */
  flush(): void;
}

export function coalescedOutput(stream: { write(text: string): unknown }): CoalescedOutput {
  let pending = "";
  let scheduled: NodeJS.Immediate | undefined;
  const flush = () => {
    if (scheduled !== undefined) clearImmediate(scheduled);
    scheduled = undefined;
    if (pending === "") return;
    const text = pending;
    pending = "";
    try {
      stream.write(text);
    } catch {
      // A closed output (stdout gone) must not break the node that logs: no one is reading.
    }
  };
  return {
    write(text) {
      pending += text;
      scheduled ??= setImmediate(flush);
    },
    flush,
  };
}
