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
 * How much of a refused body the server reads (and drops) before it answers 413: a client sends
 * its whole body before it reads the answer (Node's fetch, curl), and a server that hangs up first
 * leaves it with a reset connection (EPIPE) instead of the 413. Past this the server answers and
 * closes at once. Go's net/http reads 256 KiB after a handler's answer ("lingering close") and
 * geth's 413 then comes with a reset for larger bodies; a local node can afford more.
 */
export const MAX_DISCARDED_BODY_BYTES = 64 * 1024 * 1024;

/**
 * Reads the body up to `limit` bytes; undefined when it is larger, once the rest has been read
 * and dropped (up to `MAX_DISCARDED_BODY_BYTES`, `discardBody`). Rejects when the client goes away
 * first.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      done = true;
      chunks.length = 0;
      req.off("data", onData);
      void discardBody(req).then(() => resolve(undefined), reject);
    };
    req.on("data", onData);
    req.on("end", () => {
      if (done) return;
      done = true;
      resolve(Buffer.concat(chunks).toString("utf8"));
    });
    req.on("error", (error) => {
      if (!done) reject(error);
    });
    // A truncated body (the client closed before Content-Length bytes) ends in `close` without `end`.
    req.on("close", () => {
      if (!done) reject(new Error("request aborted"));
    });
  });
}

/**
 * Reads and drops the rest of a refused body: resolves when it has all arrived, or once
 * `MAX_DISCARDED_BODY_BYTES` were dropped (the caller answers, then the connection closes), or
 * when the client goes away (nobody to answer).
 */
export function discardBody(req: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    if (req.complete || req.destroyed) {
      resolve();
      return;
    }
    let dropped = 0;
    const finish = () => {
      req.off("data", onData);
      req.off("end", finish);
      req.off("close", finish);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > MAX_DISCARDED_BODY_BYTES) {
        // Stop reading: the answer goes out, then `Connection: close` ends the connection.
        req.pause();
        finish();
      }
    };
    req.on("data", onData);
    req.on("end", finish);
    req.on("close", finish);
    req.resume();
  });
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
