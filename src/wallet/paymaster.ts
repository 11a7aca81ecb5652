/**
 * ERC-7677's paymaster web service, as a wallet calls it for the `paymasterService` capability
 * (docs/wallet.md, "paymasterService"): `pm_getPaymasterStubData`, then `pm_getPaymasterData`, each
 * with `[userOp, entryPoint, chainId, context]`. The simulated wallet has no ERC-4337 bundler: it
 * describes the batch as an EntryPoint v0.7 user operation for the service, and once the service
 * has answered, the wallet's sponsor account pays the batch's gas (src/rpc/walletCalls.ts). Tests run
 * on a closed network: only a service on this machine is called (a page must not make the node
 * post to other hosts), within a time and size budget.
 */
import { ErrorCode, invalidParams, RpcError } from "../protocol/errors.ts";

/** EntryPoint v0.7 (ERC-4337's canonical deployment, the version ERC-7677's examples use). */
export const ENTRY_POINT_V07 = "0x0000000071727De22E5E9d8BAf0edAc6f37da032";
/** How long the service may take to answer one call. */
export const PAYMASTER_TIMEOUT_MS = 5_000;
/** The most of an answer the wallet reads. */
export const PAYMASTER_MAX_ANSWER_BYTES = 1024 * 1024;

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** The capability as a dapp passes it: `{ url, context? }`; a URL off this machine is -32602. */
export function paymasterUrl(capability: Record<string, unknown>): string {
  const url = capability.url;
  let parsed: URL | undefined;
  try {
    parsed = typeof url === "string" && url.length <= 2048 ? new URL(url) : undefined;
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
    throw invalidParams("params[0].capabilities.paymasterService.url", "expected an http(s) URL");
  }
  if (!LOOPBACK.has(parsed.hostname)) {
    throw invalidParams(
      "params[0].capabilities.paymasterService.url",
      "the simulated wallet calls paymaster services on this machine only (localhost, 127.0.0.1, [::1])",
    );
  }
  return parsed.href;
}

/** A paymaster that failed or answered something that is not JSON-RPC: -32603 with what happened. */
const paymasterError = (url: string, method: string, reason: unknown) =>
  new RpcError(ErrorCode.internalError, "Paymaster service error", { url, method, reason });

/** One JSON-RPC call to the service; its `result`, or -32603 with the service's error in `data`. */
export async function askPaymaster(url: string, method: string, params: unknown[]): Promise<Record<string, unknown>> {
  let text: string;
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      signal: AbortSignal.timeout(PAYMASTER_TIMEOUT_MS),
    });
    if (Number(response.headers.get("content-length") ?? 0) > PAYMASTER_MAX_ANSWER_BYTES) throw new Error("answer too large");
    text = await response.text();
    if (text.length > PAYMASTER_MAX_ANSWER_BYTES) throw new Error("answer too large");
  } catch (error) {
    throw paymasterError(url, method, error instanceof Error ? error.message : String(error));
  }
  let answer: { result?: unknown; error?: unknown };
  try {
    answer = JSON.parse(text) as typeof answer;
  } catch {
    throw paymasterError(url, method, "not JSON");
  }
  if (answer.error !== undefined) throw paymasterError(url, method, answer.error);
  if (typeof answer.result !== "object" || answer.result === null) throw paymasterError(url, method, "no result object");
  return answer.result as Record<string, unknown>;
}
