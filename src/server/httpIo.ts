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

/** Reads the body up to `limit` bytes; undefined when it is larger (the rest is not read). Rejects when the client goes away first. */
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
        drain(req, limit);
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
 * Reads and drops up to `limit` more bytes of a refused body, then hangs up: a client still
 * sending when the 413 goes out reads it instead of failing on a reset connection (Go's
 * net/http does the same "lingering close" for geth's 413).
 */
export function drain(req: IncomingMessage, limit: number): void {
  let dropped = 0;
  req.on("data", (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > limit) req.socket.destroy();
  });
  req.resume();
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
