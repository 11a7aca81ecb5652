/**
 * One JSON body POSTed to a local JSON-RPC server over a keep-alive agent: the answer's status and
 * text. The bench's HTTP clients (servers.ts, server-cpu.ts) share it; each reads the text its way.
 */
import { request as httpRequest } from "node:http";

import type { Agent } from "node:http";

export function postJson(agent: Agent, port: number, body: string): Promise<{ status: number | undefined; text: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => resolve({ status: response.statusCode, text }));
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}
