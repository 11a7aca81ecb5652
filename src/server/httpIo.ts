/**
 * The HTTP request and response plumbing of the server: bounded body reads, the lingering close
 * of a refused body, answering only while the client is there, and waiting for a slow reader.
 */
import { invalidRequest } from "../rpc/errors.ts";
import { errorResponse } from "./jsonrpc.ts";

import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";

export function send(res: ServerResponse, status: number, body?: string, headers: Record<string, string> = {}): void {
  // The client may be gone (closed, timed out, server shutting down): nothing to answer.
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, body === undefined ? headers : { "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(body)), ...headers });
  res.end(body);
}

export const refusal = (reason: string) => JSON.stringify(errorResponse(null, invalidRequest(reason)));

export function isJson(contentType: string | undefined): boolean {
  const mediaType = contentType?.split(";")[0]?.trim().toLowerCase();
  return mediaType === "application/json";
}

/**
 * The lingering close after a 413: how much more of a refused body the server reads and drops, and
 * how long it waits for more, before it closes the connection. A client sends its whole body
 * before it reads the answer (Node's fetch, curl without `Expect: 100-continue`): a server that
 * closes while data is still coming makes the kernel answer with a reset, and the client then
 * loses the 413 it was sent (EPIPE, ECONNRESET). Go's net/http, geth's server, reads 256 KiB for
 * 500 ms in the same situation (net/http server.go, closeWriteAndWait); a local node can afford
 * more, so that a body a few times the limit still gets its answer.
 */
export const MAX_DISCARDED_BODY_BYTES = 64 * 1024 * 1024;
export const LINGER_IDLE_MS = 2_000;

/** Reads the body up to `limit` bytes; undefined when it is larger (the rest is dropped). Rejects when the client goes away first. */
export function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on("data", (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        done = true;
        chunks.length = 0;
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      done = true;
      resolve(Buffer.concat(chunks).toString("utf8"));
    });
    req.on("error", reject);
    // A truncated body (the client closed before Content-Length bytes) ends in `close` without `end`.
    req.on("close", () => {
      if (!done) reject(new Error("request aborted"));
    });
  });
}

/**
 * Makes the close that follows the answer on `socket` a lingering one: the server's side is ended
 * (the answer, then FIN), and what the client still sends is read and dropped until it ends its
 * side, goes quiet for `idleMs`, or sends more than `maxBytes`; then the socket is destroyed.
 * Node's server closes a `Connection: close` response with `socket.destroySoon()`: this socket's
 * gets the linger instead.
 */
export function lingerOnClose(socket: Socket, maxBytes = MAX_DISCARDED_BODY_BYTES, idleMs = LINGER_IDLE_MS): void {
  socket.destroySoon = function lingeringClose(this: Socket) {
    let dropped = 0;
    let timer: NodeJS.Timeout | undefined;
    const close = () => {
      clearTimeout(timer);
      socket.destroy();
    };
    const wait = () => {
      clearTimeout(timer);
      timer = setTimeout(close, idleMs);
      timer.unref();
    };
    if (socket.writable) socket.end();
    socket.on("data", (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > maxBytes) close();
      else wait();
    });
    socket.once("end", close);
    socket.once("close", () => clearTimeout(timer));
    wait();
    socket.resume();
  };
}

/** Resolves once the socket's write buffer is below its high-water mark (or the socket is gone). */
export function drained(socket: Socket): Promise<void> {
  if (!socket.writableNeedDrain || socket.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      socket.off("drain", done);
      socket.off("close", done);
      resolve();
    };
    socket.on("drain", done);
    socket.on("close", done);
  });
}
