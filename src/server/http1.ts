/**
 * The one HTTP/1.1 request shape the fast path (fastHttp.ts) serves itself: a `POST` with a
 * `Content-Length` body and nothing that changes the framing or the connection. `parseHead` reads
 * a request head (RFC 9112 §2.1: request-line, then field lines, each ending in CRLF) and answers
 * undefined for anything else, malformed heads included: those go, unread, to Node's own parser,
 * which answers them as it always has (400, 405, 431, chunked bodies, upgrades, `Expect`).
 */

/** A request head the fast path serves; its fields as Node's `req.headers` would hold them. */
export interface FastRequest {
  /** 0 or 1: HTTP/1.0 or HTTP/1.1. */
  minor: number;
  host: string;
  origin: string | undefined;
  contentType: string | undefined;
  contentLength: number;
  /** Whether the connection ends after the answer (RFC 9112 §9.3). */
  close: boolean;
}

/**
 * request-line = method SP request-target SP HTTP-version (RFC 9112 §3): the method is
 * case-sensitive (§3.1, RFC 9110 §9.1), so `post` is not `POST`; the target is in origin-form, a
 * `/` then visible ASCII (§3.2.1; the server answers every path alike, and leaves the other forms,
 * which Node's parser judges differently, to it); HTTP-version is `HTTP/1.0` or `HTTP/1.1`
 * (§2.3). Whitespace other than single spaces is for Node's parser to judge (§3).
 */
const REQUEST_LINE = /^POST \/[\x21-\x7e]* HTTP\/1\.([01])$/;
/** field-name = token (RFC 9110 §5.1, §5.6.2); whitespace before the colon is refused (RFC 9112 §5.1). */
const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** field-value characters: visible ASCII, SP, HTAB, obs-text (RFC 9110 §5.5); no CR, LF or NUL. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Content-Length = 1*DIGIT (RFC 9110 §8.6); a list (`5, 5`) is for Node to judge. */
const DIGITS = /^[0-9]{1,15}$/;

/** Optional whitespace (OWS: SP and HTAB) around a field value is not part of it (RFC 9112 §5.1). */
function trimOws(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && (value.charCodeAt(start) === 0x20 || value.charCodeAt(start) === 0x09)) start++;
  while (end > start && (value.charCodeAt(end - 1) === 0x20 || value.charCodeAt(end - 1) === 0x09)) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

/**
 * Parses `head` (the request's bytes up to, not including, the empty line, as latin1) into a
 * request the fast path serves, or undefined. Refused here and left to Node: a method other than
 * `POST`, an HTTP version other than 1.0 and 1.1, a leading empty line (§2.2), a bare CR or LF
 * (§2.2), obsolete line folding (§5.2), a `Transfer-Encoding` (§6.1, §6.3: it overrides
 * `Content-Length`), no `Content-Length` or a malformed one (§6.3), `Expect` (RFC 9110 §10.1.1),
 * `Upgrade` (RFC 9110 §7.8), no `Host` or several (§3.2), and a repeated field this server reads
 * (Node merges or drops repeats by rules of its own).
 */
export function parseHead(head: string): FastRequest | undefined {
  const lines = head.split("\r\n");
  const requestLine = REQUEST_LINE.exec(lines[0] ?? "");
  if (requestLine === null) return undefined;
  let host: string | undefined;
  let origin: string | undefined;
  let contentType: string | undefined;
  let contentLength: string | undefined;
  let connection: string | undefined;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    const colon = line.indexOf(":");
    if (colon <= 0) return undefined;
    const name = line.slice(0, colon);
    const value = line.slice(colon + 1);
    // A bare CR or LF inside a line, or a folded line (which starts with whitespace), fails here.
    if (!FIELD_NAME.test(name) || !FIELD_VALUE.test(value)) return undefined;
    switch (name.toLowerCase()) {
      case "host":
        if (host !== undefined) return undefined;
        host = trimOws(value);
        break;
      case "origin":
        if (origin !== undefined) return undefined;
        origin = trimOws(value);
        break;
      case "content-type":
        if (contentType !== undefined) return undefined;
        contentType = trimOws(value);
        break;
      case "content-length":
        if (contentLength !== undefined) return undefined;
        contentLength = trimOws(value);
        break;
      case "connection":
        if (connection !== undefined) return undefined;
        connection = trimOws(value).toLowerCase();
        break;
      case "transfer-encoding":
      case "expect":
      case "upgrade":
        return undefined;
    }
  }
  if (host === undefined || contentLength === undefined || !DIGITS.test(contentLength)) return undefined;
  const minor = requestLine[1] === "1" ? 1 : 0;
  return { minor, host, origin, contentType, contentLength: Number(contentLength), close: closes(minor, connection) };
}

/**
 * RFC 9112 §9.3: the `close` option ends the connection after the answer; otherwise HTTP/1.1 keeps
 * it, and HTTP/1.0 keeps it only when asked with `keep-alive` (Appendix C.2.2), as Node decides.
 */
function closes(minor: number, connection: string | undefined): boolean {
  if (connection === undefined) return minor === 0;
  let close = false;
  let keepAlive = false;
  for (const option of connection.split(",")) {
    const token = trimOws(option);
    if (token === "close") close = true;
    else if (token === "keep-alive") keepAlive = true;
    // `Connection: upgrade` comes with an `Upgrade` field, refused above.
  }
  return close || (minor === 0 && !keepAlive);
}
