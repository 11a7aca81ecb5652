/**
 * Who may use the server: loopback checks, the `Host` allow list against DNS rebinding, and the
 * CORS origin allow list (docs/server.md). Pure functions of headers and options; http.ts and
 * ws.ts apply them to requests and upgrades.
 */
import { isIP } from "node:net";

/** 127.0.0.0/8, ::1 and the name localhost. */
export function isLoopback(host: string): boolean {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (bare === "localhost" || bare === "::1") return true;
  if (bare.startsWith("::ffff:")) return isLoopback(bare.slice("::ffff:".length));
  return isIP(bare) === 4 && bare.startsWith("127.");
}

/** Bound beyond loopback, the chain (and the funds of its publicly known keys) is reachable by others. */
export function bindWarning(host: string): string | undefined {
  if (isLoopback(host)) return undefined;
  return `Warning: hardhat-preconf is listening on ${host}: anyone who can reach it can use the chain and its publicly known dev keys.`;
}

/**
 * Browser-extension origins: a wallet such as MetaMask calls a custom network's RPC from its
 * extension with `Origin: chrome-extension://<id>`. Only an installed extension can send such an
 * origin, never a web page (the DNS-rebinding and cross-site attackers the allow list is for).
 */
const EXTENSION_ORIGIN = /^(chrome-extension|moz-extension|safari-web-extension):\/\//;

/**
 * Whether the `Host` header names this server: an IP address (DNS rebinding needs a name), a
 * loopback name, the bound host, or one of `allowed`. As geth's virtualHostHandler
 * (node/rpcstack.go), a request without Host is served.
 */
export function isHostAllowed(header: string | undefined, allowed: "*" | readonly string[], bound: string): boolean {
  if (header === undefined || header === "" || allowed === "*") return true;
  // "name:port", "[v6]:port" or a bare name.
  const host = (header.startsWith("[") ? header.slice(1, header.indexOf("]")) : header.replace(/:\d*$/, "")).toLowerCase();
  if (isIP(host) !== 0 || host === "localhost" || host.endsWith(".localhost") || host === bound.toLowerCase()) return true;
  return allowed.some((name) => name.toLowerCase() === host);
}

/** The value for Access-Control-Allow-Origin, or undefined when the origin is not allowed. */
export function allowedOrigin(allowed: "*" | readonly string[], origin: string | undefined): string | undefined {
  if (allowed === "*") return "*";
  if (origin === undefined) return undefined;
  return allowed.includes(origin) || EXTENSION_ORIGIN.test(origin) ? origin : undefined;
}

/** `--cors` / `allowedOrigins` from text: "*" or a comma-separated list of origins. */
export function parseOrigins(text: string): "*" | string[] {
  const items = text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
  if (items.includes("*")) return "*";
  for (const item of items) {
    let url: URL;
    try {
      url = new URL(item);
    } catch {
      throw new TypeError(`"${item}" is not an origin (scheme://host[:port])`);
    }
    // Browsers send exactly `scheme://host[:port]`: a path or a trailing slash would never match.
    if (url.origin !== item) throw new TypeError(`"${item}" is not an origin: use "${url.origin}"`);
  }
  return items;
}
