/**
 * JSON-RPC 2.0 framing, shared by HTTP and WebSocket (docs/behaviour.md#wire): one place turns a request
 * body into responses. Ids are echoed exactly, requests without `id` are notifications (no
 * response), batches are answered in order, and nothing a handler throws escapes as anything but
 * a JSON-RPC error.
 */
import { batchTooLarge, invalidRequest, isRpcError, parseError, requestTimedOut, responseTooLarge, toRpcError } from "../rpc/errors.ts";

export type JsonRpcId = number | string | null;

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export type JsonRpcResponse = { jsonrpc: "2.0"; id: JsonRpcId; result: unknown } | { jsonrpc: "2.0"; id: JsonRpcId; error: JsonRpcError };

/** JSON-RPC params: by position or by name (or absent). */
export type Params = readonly unknown[] | object | undefined;

/** Answers one method call; what it throws becomes the response's `error`. */
export type RequestHandler = (method: string, params: Params) => Promise<unknown>;

export interface FramingLimits {
  /** Most requests in one batch (1000, go-ethereum's default); 0 for no limit. */
  maxBatch?: number;
  /**
   * Most bytes of one response, and of a batch's responses together (25,000,000, go-ethereum's
   * BatchResponseMaxSize); 0 for no limit. Past it: -32003 "response too large".
   */
  maxResponseBytes?: number;
  /** Wall time one batch may take, in ms (30,000); its calls not started by then: -32002 "request timed out". 0: none. */
  batchTimeoutMs?: number;
}

export const DEFAULT_MAX_BATCH = 1000;
export const DEFAULT_MAX_RESPONSE_BYTES = 25_000_000;
export const DEFAULT_BATCH_TIMEOUT_MS = 30_000;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const isParams = (value: unknown): value is Params => value === undefined || (typeof value === "object" && value !== null);

const isId = (value: unknown): value is JsonRpcId => value === null || typeof value === "string" || (typeof value === "number" && Number.isFinite(value));

/** Errors that already speak JSON-RPC keep their code; anything else is a bug: -32603. */
export function toJsonRpcError(error: unknown): JsonRpcError {
  if (isRpcError(error)) return error.toJSON();
  if (isRecord(error) && Number.isInteger(error.code) && typeof error.message === "string") {
    const { code, message, data } = error as { code: number; message: string; data?: unknown };
    return data === undefined ? { code, message } : { code, message, data };
  }
  return toRpcError(error).toJSON();
}

export const errorResponse = (id: JsonRpcId, error: unknown): JsonRpcResponse => ({
  jsonrpc: "2.0",
  id,
  error: toJsonRpcError(error),
});

/**
 * Numeric ids as the client wrote them. JSON.parse loses digits (9007199254740993) and spelling
 * (`1.0`, `1e2`, `-0`); ids are echoed exactly (docs/behaviour.md#wire), so the source text of a numeric id is
 * kept beside its request (keyed by the request object) and written back by `serialize`.
 */
const idSource = new WeakMap<object, string>();
/** The source text of a response's id, when it must replace the parsed number. */
const echoedId = new WeakMap<JsonRpcResponse, string>();

/** A response echoing `request`'s id: its source text goes along when it was kept. */
function echo(request: object | undefined, response: JsonRpcResponse): JsonRpcResponse {
  const source = request === undefined ? undefined : idSource.get(request);
  if (source !== undefined && typeof response.id === "number") echoedId.set(response, source);
  return response;
}

/** One request object; undefined for a notification. */
async function answerOne(request: unknown, handle: RequestHandler): Promise<JsonRpcResponse | undefined> {
  if (!isRecord(request)) return errorResponse(null, invalidRequest("expected a request object"));
  const id = isId(request.id) ? request.id : null;
  if (request.jsonrpc !== "2.0") return echo(request, errorResponse(id, invalidRequest('jsonrpc must be "2.0"')));
  if (typeof request.method !== "string") return echo(request, errorResponse(id, invalidRequest("method must be a string")));
  if ("id" in request && !isId(request.id)) return errorResponse(null, invalidRequest("id must be a number, a string or null"));
  const { params } = request;
  if (!isParams(params)) return echo(request, errorResponse(id, invalidRequest("params must be an array or an object")));
  const isNotification = !("id" in request);
  try {
    const result = await handle(request.method, params);
    if (isNotification) return undefined;
    // `undefined` is not JSON: a method that answers nothing answers null.
    return echo(request, { jsonrpc: "2.0", id, result: result === undefined ? null : result });
  } catch (error) {
    return isNotification ? undefined : echo(request, errorResponse(id, error));
  }
}

/**
 * Answers a parsed body: a response, an array of responses (a batch), or undefined when nothing
 * is to be sent (notifications only). Batch items run one after another, in order. A batch above
 * the limit runs nothing and is answered, as go-ethereum does, by a one-element array whose error
 * carries the id of the batch's first call.
 */
export async function answer(body: unknown, handle: RequestHandler, limits: FramingLimits = {}): Promise<JsonRpcResponse | JsonRpcResponse[] | undefined> {
  const maxBytes = limits.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  if (!Array.isArray(body)) {
    const response = await answerOne(body, handle);
    if (response === undefined || maxBytes <= 0 || textOf(response).length <= maxBytes) return response;
    return echo(body as object, errorResponse(response.id, responseTooLarge()));
  }
  if (body.length === 0) return errorResponse(null, invalidRequest("empty batch"));
  const maxBatch = limits.maxBatch ?? DEFAULT_MAX_BATCH;
  if (maxBatch > 0 && body.length > maxBatch) {
    const first = body.find((item): item is Record<string, unknown> => isRecord(item) && "id" in item && isId(item.id));
    return [echo(first, errorResponse(first === undefined ? null : (first.id as JsonRpcId), batchTooLarge(maxBatch)))];
  }
  // go-ethereum (rpc/handler.go handleBatch): once the deadline passes or the responses so far
  // exceed the size budget, every call not yet answered gets the error instead of running.
  const timeout = limits.batchTimeoutMs ?? DEFAULT_BATCH_TIMEOUT_MS;
  const deadline = timeout > 0 ? performance.now() + timeout : Infinity;
  const responses: JsonRpcResponse[] = [];
  let bytes = 0;
  for (const request of body) {
    let response: JsonRpcResponse | undefined;
    const cutOff = maxBytes > 0 && bytes > maxBytes ? responseTooLarge() : performance.now() > deadline ? requestTimedOut() : undefined;
    if (cutOff !== undefined) {
      // Notifications get no answer, as ever.
      if (isRecord(request) && "id" in request) response = echo(request, errorResponse(isId(request.id) ? request.id : null, cutOff));
    } else {
      response = await answerOne(request, handle);
      if (response !== undefined && maxBytes > 0 && textOf(response).length > maxBytes) {
        response = echo(request as object, errorResponse(response.id, responseTooLarge()));
      }
      if (response !== undefined) bytes += textOf(response).length;
    }
    if (response !== undefined) responses.push(response);
  }
  return responses.length === 0 ? undefined : responses;
}

/** A response's JSON, made once: measured against the budget, then written as is. */
const texts = new WeakMap<JsonRpcResponse, string>();
function textOf(response: JsonRpcResponse): string {
  let text = texts.get(response);
  if (text === undefined) {
    text = serializeOne(response);
    texts.set(response, text);
  }
  return text;
}

/** A JSON number token, as JSON.parse accepted it: safe to splice into the response text. */
const NUMBER_TOKEN = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** One response as JSON, its id written as the client wrote it. */
function stringify(item: JsonRpcResponse): string {
  const source = echoedId.get(item);
  if (source === undefined || !NUMBER_TOKEN.test(source)) return JSON.stringify(item);
  const { jsonrpc, id: _parsed, ...rest } = item;
  // `rest` is { result } or { error }: its JSON without the opening brace follows the id.
  return `{"jsonrpc":${JSON.stringify(jsonrpc)},"id":${source},${JSON.stringify(rest).slice(1)}`;
}

/** JSON that never throws: a result that cannot be serialized becomes -32603 for its id. */
function serialize(response: JsonRpcResponse | JsonRpcResponse[]): string {
  return Array.isArray(response) ? `[${response.map(textOf).join(",")}]` : textOf(response);
}

function serializeOne(item: JsonRpcResponse): string {
  try {
    return stringify(item);
  } catch (error) {
    const fallback = errorResponse(item.id, error);
    const source = echoedId.get(item);
    if (source !== undefined) echoedId.set(fallback, source);
    return stringify(fallback);
  }
}

/** Numeric ids written as `"id": <number>` in a body without escapes (so no key is spelled otherwise). */
const LITERAL_NUMERIC_ID = /"id"\s*:\s*(-?[0-9][0-9.eE+-]*)/g;
/** The same pattern, matched only where `lastIndex` points. */
const LITERAL_NUMERIC_ID_AT = /"id"\s*:\s*(-?[0-9][0-9.eE+-]*)/y;

/**
 * Whether some numeric id's source text differs from what JSON.stringify writes for its value.
 * A reviver that sees the source costs about ten times a plain parse, so it runs only then: when
 * every literal `"id": n` is already canonical (the usual 1, 2, 3), the plain parse is exact.
 */
function needsIdSource(text: string, body: unknown): boolean {
  const items = Array.isArray(body) ? body : [body];
  if (!items.some((item) => isRecord(item) && typeof item.id === "number")) return false;
  // An escaped key (`"\u0069d"`) could hide an id from the scan below.
  if (text.includes("\\")) return true;
  const only = text.indexOf('"id"');
  if (only === -1) return false;
  if (only === text.lastIndexOf('"id"')) {
    // One `"id"` in the body (a single request, the usual case): its token alone, without the scan.
    LITERAL_NUMERIC_ID_AT.lastIndex = only;
    const token = LITERAL_NUMERIC_ID_AT.exec(text)?.[1];
    return token !== undefined && String(Number(token)) !== token;
  }
  for (const [, token] of text.matchAll(LITERAL_NUMERIC_ID)) {
    if (String(Number(token)) !== token) return true;
  }
  return false;
}

/** Parses with the source text of every numeric `id` kept (Node 22's JSON.parse source access). */
function parseKeepingIds(text: string): unknown {
  return JSON.parse(text, function (this: object, key: string, value: unknown, context?: { source?: string }) {
    if (key === "id" && typeof value === "number" && context?.source !== undefined) idSource.set(this, context.source);
    return value;
  } as (key: string, value: unknown) => unknown);
}

/** Answers a request body as text: parse (-32700 when not JSON), answer, serialize. */
export async function answerText(text: string, handle: RequestHandler, limits: FramingLimits = {}): Promise<string | undefined> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    return serialize(errorResponse(null, parseError(error instanceof Error ? error.message : undefined)));
  }
  if (needsIdSource(text, body)) {
    try {
      body = parseKeepingIds(text);
    } catch {
      // The reviver recurses where the plain parse does not (a 100k-deep request overflows the
      // stack): the ids are then echoed as parsed, and the request still answered in JSON-RPC.
    }
  }
  const response = await answer(body, handle, limits);
  return response === undefined ? undefined : serialize(response);
}

/** One call of a request body, as a request log sees it: its method and, when it failed, its error. */
export interface ServedCall {
  method: string;
  error?: JsonRpcError;
}

/** One request body answered by the server: a single call, or the calls of a batch in order. */
export interface ServedRequest {
  transport: "http" | "ws";
  batch: boolean;
  calls: ServedCall[];
}

/** Told of every request body once it is answered (a CLI's request log); never on the way of the answer. */
export type RequestObserver = (request: ServedRequest) => void;

/**
 * `answerText`, and then `observer` told what was called. Without an observer nothing is recorded:
 * a server nobody logs does no work for a log. Bodies that call nothing (not JSON, not requests)
 * are not reported.
 */
export async function answerObserved(
  text: string,
  handle: RequestHandler,
  limits: FramingLimits,
  transport: ServedRequest["transport"],
  observer: RequestObserver | undefined,
): Promise<string | undefined> {
  if (observer === undefined) return answerText(text, handle, limits);
  const calls: ServedCall[] = [];
  const answered = await answerText(
    text,
    async (method, params) => {
      const call: ServedCall = { method };
      calls.push(call);
      try {
        return await handle(method, params);
      } catch (error) {
        call.error = toJsonRpcError(error);
        throw error;
      }
    },
    limits,
  );
  if (calls.length > 0) {
    try {
      observer({ transport, batch: /^\s*\[/.test(text), calls });
    } catch {
      // A log that fails (stdout closed) must not take the answer with it.
    }
  }
  return answered;
}
