/**
 * Security defaults of the server and the CLI (README "Limits and security"): loopback bind, a
 * warning on stderr when bound elsewhere, CORS and WebSocket origins opt-in (other origins: 403,
 * nothing runs), configurable body and batch limits (options and flags), and no secrets in
 * answers or logs beyond the dev keys the CLI prints on purpose.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { connect } from "node:net";
import { networkInterfaces } from "node:os";
import { fileURLToPath } from "node:url";

import { expect } from "chai";
import WebSocket from "ws";

import { parseNodeArgs } from "../src/cli.ts";
import { startServer } from "../src/index.ts";
import { bindWarning, isLoopback, parseOrigins } from "../src/server/http.ts";
import { serveEachTest } from "./helpers/chain.ts";

import type { PreconfProvider, RunningServer } from "../src/index.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const call = (method: string, params: unknown[] = [], id: unknown = 1) => ({ jsonrpc: "2.0", id, method, params });

async function post(url: string, body: unknown, headers: Record<string, string> = {}, method = "POST") {
  const response = await fetch(url, {
    method,
    headers: { "content-type": "application/json", ...headers },
    ...(method === "POST" && { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: text === "" ? undefined : (JSON.parse(text) as unknown) };
}

/** Resolves with the upgrade's outcome: "open", or the HTTP status of the refusal. */
function wsOutcome(url: string, origin?: string): Promise<string | number> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, origin === undefined ? {} : { origin });
    socket.once("open", () => {
      socket.close();
      resolve("open");
    });
    socket.once("unexpected-response", (_req, res) => {
      resolve(res.statusCode ?? 0);
      socket.terminate();
    });
    socket.once("error", () => undefined);
  });
}

/** Spawns `preconf node` and waits for its URL; collects stdout and stderr apart. */
async function spawnCli(args: string[]) {
  const child = spawn(process.execPath, ["bin/preconf.js", "node", "--port", "0", ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed:\n${stdout}${stderr}`)), 20_000);
    child.stdout.on("data", () => {
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match === null) return;
      clearTimeout(timer);
      resolve(match[1]!);
    });
    void exited.then(() => reject(new Error(`exited early:\n${stdout}${stderr}`)));
  });
  const stop = async () => {
    child.kill("SIGINT");
    return exited;
  };
  return { url, stop, out: () => ({ stdout, stderr }) };
}

describe("security", () => {
  let provider: PreconfProvider;
  let server: RunningServer;

  serveEachTest((served, listening) => {
    provider = served;
    server = listening;
  });

  describe("binding", () => {
    it("binds 127.0.0.1 by default: another interface of this machine is refused", async () => {
      expect(server.host).to.equal("127.0.0.1");
      expect(parseNodeArgs([])).to.deep.include({ host: "127.0.0.1" });
      const external = Object.values(networkInterfaces())
        .flat()
        .find((entry) => entry !== undefined && entry.family === "IPv4" && !entry.internal);
      if (external === undefined) return;
      const outcome = await new Promise<string>((resolve) => {
        const socket = connect(server.port, external.address);
        socket.once("connect", () => {
          socket.destroy();
          resolve("connected");
        });
        socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
      });
      expect(outcome).to.equal("ECONNREFUSED");
    });

    it("treats 127.0.0.0/8, ::1 and localhost as loopback; anything else gets a warning", () => {
      for (const host of ["127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost", "::ffff:127.0.0.1"]) expect(isLoopback(host), host).to.equal(true);
      for (const host of ["0.0.0.0", "::", "192.168.1.10", "10.0.0.1", "example.com", "127.example.com"]) {
        expect(isLoopback(host), host).to.equal(false);
        expect(bindWarning(host), host)
          .to.include(host)
          .and.to.match(/publicly known dev keys/);
      }
    });

    it("the CLI prints that warning on stderr when bound to a non-loopback host, and not otherwise", async () => {
      const local = await spawnCli([]);
      expect(await local.stop()).to.equal(0);
      expect(local.out().stderr).to.not.match(/warning/i);

      const exposed = await spawnCli(["--host", "0.0.0.0"]);
      expect(await exposed.stop()).to.equal(0);
      const { stdout, stderr } = exposed.out();
      expect(stderr).to.include("Warning: hardhat-preconf is listening on 0.0.0.0");
      expect(stdout).to.not.include("Warning");
    });
  });

  describe("CORS (opt-in)", () => {
    const ORIGIN = "http://localhost:3000";
    const preflight = (url: string, origin: string, extra: Record<string, string> = {}) =>
      post(url, "", { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type", ...extra }, "OPTIONS");

    it("by default no origin gets CORS headers: preflights get a bare 204, calls 403; clients without Origin are answered", async () => {
      const options = await preflight(server.url, ORIGIN);
      expect(options.status).to.equal(204);
      expect(options.headers.get("access-control-allow-origin")).to.equal(null);
      expect(options.headers.get("access-control-allow-methods")).to.equal(null);
      const response = await post(server.url, call("eth_chainId"), { origin: ORIGIN });
      expect(response.status).to.equal(403);
      expect(response.headers.get("access-control-allow-origin")).to.equal(null);
      expect(response.json).to.deep.equal({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: "Invalid Request", data: { reason: "origin not allowed" } },
      });
      expect((await post(server.url, call("eth_chainId"))).json).to.deep.equal({ jsonrpc: "2.0", id: 1, result: "0x7a69" });
    });

    it("a call from an origin not allowed is refused (403) before it runs: no state change (CSRF, DNS rebinding)", async () => {
      const TARGET = "0x1234567890123456789012345678901234567890";
      const balance = async () => ((await post(server.url, call("eth_getBalance", [TARGET, "latest"]))).json as { result: string }).result;
      // A rebinding page is same-origin to the browser: its Origin is its own name, not ours.
      for (const origin of ["http://evil.example", "http://evil.example:8545", "null", ORIGIN]) {
        const refused = await post(server.url, call("hardhat_setBalance", [TARGET, "0x99"]), { origin });
        expect(refused.status, origin).to.equal(403);
        expect(refused.headers.get("connection"), origin).to.equal("close");
        expect(await balance(), origin).to.equal("0x0");
      }
      // Any method, not only POST, and a batch alike.
      expect((await post(server.url, "", { origin: "http://evil.example" }, "GET")).status).to.equal(403);
      expect((await post(server.url, [call("hardhat_setBalance", [TARGET, "0x99"])], { origin: "http://evil.example" })).status).to.equal(403);
      expect(await balance()).to.equal("0x0");
      // Without Origin (curl, Node) it runs, and so does a listed origin.
      expect((await post(server.url, call("hardhat_setBalance", [TARGET, "0x1"]))).status).to.equal(200);
      expect(await balance()).to.equal("0x1");
      const listed = await startServer(provider, { port: 0, allowedOrigins: [ORIGIN] });
      try {
        const allowed = await post(listed.url, call("hardhat_setBalance", [TARGET, "0x2"]), { origin: ORIGIN });
        expect(allowed.status).to.equal(200);
        expect(allowed.headers.get("access-control-allow-origin")).to.equal(ORIGIN);
        expect(await balance()).to.equal("0x2");
        expect((await post(listed.url, call("hardhat_setBalance", [TARGET, "0x3"]), { origin: "http://evil.example" })).status).to.equal(403);
        expect(await balance()).to.equal("0x2");
      } finally {
        await listed.close();
      }
    });

    it("a wallet extension (chrome-extension://, moz-extension://) is served by default, over HTTP and WebSocket", async () => {
      // MetaMask calls a custom network's RPC from its extension, with its own origin; no web page can send one.
      for (const origin of ["chrome-extension://nkbihfbeogaeaoehlefnkodbefgpgknn", "moz-extension://4b1e2f3a-0000-4000-8000-000000000000"]) {
        const answered = await post(server.url, call("eth_chainId"), { origin });
        expect(answered.status, origin).to.equal(200);
        expect(answered.json, origin).to.deep.equal({ jsonrpc: "2.0", id: 1, result: "0x7a69" });
        expect(answered.headers.get("access-control-allow-origin"), origin).to.equal(origin);
        expect(await wsOutcome(server.wsUrl, origin), origin).to.equal("open");
      }
      // Only the extension schemes: a look-alike web origin is still refused.
      expect((await post(server.url, call("eth_chainId"), { origin: "https://chrome-extension.example" })).status).to.equal(403);
    });

    it("an allow-list: listed origins only, with Vary: Origin, preflights and Private Network Access", async () => {
      const listed = await startServer(provider, { port: 0, allowedOrigins: [ORIGIN, "https://dapp.example"] });
      try {
        const options = await preflight(listed.url, ORIGIN, { "access-control-request-private-network": "true" });
        expect(options.status).to.equal(204);
        expect(options.headers.get("access-control-allow-origin")).to.equal(ORIGIN);
        expect(options.headers.get("vary")).to.equal("Origin");
        expect(options.headers.get("access-control-allow-methods")).to.equal("POST, OPTIONS");
        expect(options.headers.get("access-control-allow-headers")).to.equal("content-type");
        expect(options.headers.get("access-control-allow-private-network")).to.equal("true");
        expect((await post(listed.url, call("eth_chainId"), { origin: "https://dapp.example" })).headers.get("access-control-allow-origin")).to.equal(
          "https://dapp.example",
        );
        for (const other of ["http://evil.example", "http://localhost:3001", "https://localhost:3000"]) {
          expect((await preflight(listed.url, other)).headers.get("access-control-allow-origin"), other).to.equal(null);
          const refused = await post(listed.url, call("eth_chainId"), { origin: other });
          expect(refused.status, other).to.equal(403);
          expect(refused.headers.get("access-control-allow-origin"), other).to.equal(null);
        }
      } finally {
        await listed.close();
      }
    });

    it('"*" allows any origin', async () => {
      const open = await startServer(provider, { port: 0, allowedOrigins: "*" });
      try {
        expect((await preflight(open.url, "http://anything.example")).headers.get("access-control-allow-origin")).to.equal("*");
        expect((await post(open.url, call("eth_chainId"), { origin: "http://anything.example" })).status).to.equal(200);
        expect(await wsOutcome(open.wsUrl, "http://anything.example")).to.equal("open");
      } finally {
        await open.close();
      }
    });

    it("WebSocket upgrades from a browser origin need the same opt-in (403); clients without Origin connect", async () => {
      expect(await wsOutcome(server.wsUrl)).to.equal("open");
      expect(await wsOutcome(server.wsUrl, ORIGIN)).to.equal(403);
      const listed = await startServer(provider, { port: 0, allowedOrigins: [ORIGIN] });
      try {
        expect(await wsOutcome(listed.wsUrl, ORIGIN)).to.equal("open");
        expect(await wsOutcome(listed.wsUrl, "http://evil.example")).to.equal(403);
      } finally {
        await listed.close();
      }
    });

    it("parses --cors lists and refuses what is not an origin", () => {
      expect(parseOrigins("*")).to.equal("*");
      expect(parseOrigins("http://a.test, https://b.test:8443")).to.deep.equal(["http://a.test", "https://b.test:8443"]);
      expect(parseOrigins("http://a.test,*")).to.equal("*");
      expect(() => parseOrigins("http://a.test/")).to.throw(/use "http:\/\/a.test"/);
      expect(() => parseOrigins("localhost:3000x")).to.throw(/not an origin/);
    });
  });

  describe("limits, as options and CLI flags", () => {
    it("maxBatch: above it one -32600 'batch too large' carrying the first call's id; 0 lifts the limit", async () => {
      const small = await startServer(provider, { port: 0, maxBatch: 3 });
      const unlimited = await startServer(provider, { port: 0, maxBatch: 0 });
      try {
        const three = await post(small.url, [call("eth_chainId", [], 1), call("eth_chainId", [], 2), call("eth_chainId", [], 3)]);
        expect(three.json).to.have.length(3);
        const four = await post(small.url, [{ jsonrpc: "2.0", method: "eth_chainId" }, 5, call("eth_chainId", [], "a"), call("eth_chainId", [], "b")]);
        expect(four.status).to.equal(200);
        expect(four.json).to.deep.equal([
          { jsonrpc: "2.0", id: "a", error: { code: -32600, message: "Invalid Request", data: { reason: "batch too large", limit: 3 } } },
        ]);
        const many = await post(
          unlimited.url,
          Array.from({ length: 1500 }, (_, i) => call("net_version", [], i)),
        );
        expect(many.json).to.have.length(1500);
        // The default is go-ethereum's 1000.
        const over = await post(
          server.url,
          Array.from({ length: 1001 }, (_, i) => call("net_version", [], i)),
        );
        expect(over.json).to.deep.equal([
          { jsonrpc: "2.0", id: 0, error: { code: -32600, message: "Invalid Request", data: { reason: "batch too large", limit: 1000 } } },
        ]);
      } finally {
        await small.close();
        await unlimited.close();
      }
    });

    it("maxBodyBytes bounds WebSocket messages too (closed with 1009)", async () => {
      const small = await startServer(provider, { port: 0, maxBodyBytes: 1024 });
      try {
        const socket = new WebSocket(small.wsUrl);
        await once(socket, "open");
        const closed = once(socket, "close");
        socket.send(JSON.stringify(call("eth_chainId", ["x".repeat(2000)])));
        const [code] = await closed;
        expect(code).to.equal(1009);
      } finally {
        await small.close();
      }
    });

    it("refuses invalid option values", async () => {
      for (const options of [{ maxBodyBytes: -1 }, { maxBatch: 1.5 }, { headersTimeoutMs: Number.NaN }]) {
        const outcome = await startServer(provider, { port: 0, ...options }).then(
          async (started) => {
            await started.close();
            return "started";
          },
          (error: Error) => error.name,
        );
        expect(outcome, JSON.stringify(options)).to.equal("RangeError");
      }
    });

    it("parses --cors, --max-body and --max-batch, and refuses bad values", () => {
      const parsed = parseNodeArgs(["--cors", "http://a.test,http://b.test", "--max-body", "2048", "--max-batch", "10"]);
      expect(parsed).to.not.equal("help");
      expect((parsed as Exclude<typeof parsed, "help">).server).to.deep.equal({
        allowedOrigins: ["http://a.test", "http://b.test"],
        maxBodyBytes: 2048,
        maxBatch: 10,
      });
      expect((parseNodeArgs([]) as Exclude<typeof parsed, "help">).server).to.deep.equal({});
      expect(() => parseNodeArgs(["--max-body", "0"])).to.throw(/--max-body must be an integer ≥ 1/);
      expect(() => parseNodeArgs(["--max-batch", "-1"])).to.throw(/--max-batch/);
      expect(() => parseNodeArgs(["--cors", "http://a.test/path"])).to.throw(/--cors/);
    });

    it("the CLI applies them", async () => {
      const cli = await spawnCli(["--cors", "http://a.test", "--max-body", "300", "--max-batch", "2"]);
      try {
        expect((await post(cli.url, [call("eth_chainId", [], 1), call("eth_chainId", [], 2)])).json).to.have.length(2);
        const batch = await post(cli.url, [call("eth_chainId", [], 1), call("eth_chainId", [], 2), call("eth_chainId", [], 3)]);
        expect((batch.json as { error: { data: unknown } }[])[0]!.error.data).to.deep.equal({ reason: "batch too large", limit: 2 });
        expect((await post(cli.url, call("eth_chainId", ["x".repeat(400)]))).status).to.equal(413);
        const allowed = await post(cli.url, call("eth_chainId"), { origin: "http://a.test" });
        expect(allowed.headers.get("access-control-allow-origin")).to.equal("http://a.test");
        expect((await post(cli.url, call("eth_chainId"), { origin: "http://b.test" })).headers.get("access-control-allow-origin")).to.equal(null);
      } finally {
        expect(await cli.stop()).to.equal(0);
      }
    });
  });

  describe("no secrets in answers or logs", () => {
    /** Every dev key, with and without 0x, and the mnemonic. */
    const secretsOf = (p: PreconfProvider) => [
      ...p.accounts.flatMap((account) => [account.privateKey.toLowerCase(), account.privateKey.slice(2).toLowerCase()]),
      "test test test",
    ];

    it("signing requests that fail (unknown account, malformed params, rejected, internal errors) never echo a key", async () => {
      const logs: string[] = [];
      const logged = await startServer(provider, { port: 0, warn: (message) => logs.push(message) });
      const unknown = "0x000000000000000000000000000000000000dead";
      const dev = provider.accounts[0]!.address;
      const requests = [
        call("personal_sign", ["0x68656c6c6f", unknown]),
        call("personal_sign", ["0x68656c6c6f", dev, "extra"]),
        call("personal_sign", [dev, "0x68656c6c6f"]),
        call("personal_sign", []),
        call("eth_sign", [dev, "0x68656c6c6f"]),
        call("eth_sendTransaction", [{ from: unknown, to: dev, value: "0x1" }]),
        call("eth_sendTransaction", [{ from: dev, to: dev, value: "0xffffffffffffffffffffffffffffffffffffff" }]),
        call("eth_sendTransaction", [{ from: dev, to: dev, gas: "0x1" }]),
        call("eth_sendTransaction", [{ from: dev, to: dev, chainId: "0x1" }]),
        call("eth_sendTransaction", [{ from: dev, data: "0xzz" }]),
        call("eth_signTypedData_v4", [dev, "{not json"]),
        call("eth_signTypedData_v4", [dev, { types: { EIP712Domain: [] }, primaryType: "Missing", domain: {}, message: {} }]),
        call("eth_signTypedData_v4", [unknown, { types: { EIP712Domain: [] }, primaryType: "EIP712Domain", domain: {}, message: {} }]),
        call("eth_signTransaction", [{ from: dev, to: dev }]),
        call("eth_accounts"),
        call("preconf_setWalletPolicy", ["reject"]),
        call("personal_sign", ["0x68656c6c6f", dev]),
        call("eth_sendTransaction", [{ from: dev, to: dev, value: "0x1" }]),
        call("preconf_walletRequests"),
        call("preconf_walletPending"),
      ].map((request, id) => ({ ...request, id }));
      try {
        const texts: string[] = [];
        for (const request of requests) texts.push((await post(logged.url, request)).text);
        texts.push((await post(logged.url, requests)).text);
        // The answers are errors where expected (the test must exercise the failure paths).
        const answers = requests.map((_, i) => JSON.parse(texts[i]!) as { error?: { code: number } });
        expect(answers.filter((answer) => answer.error !== undefined).length).to.be.greaterThan(12);
        const everything = [...texts, ...logs].join("\n").toLowerCase();
        for (const secret of secretsOf(provider)) expect(everything).to.not.include(secret);
        // No stack traces either.
        expect(everything).to.not.match(/\n\s+at /);
      } finally {
        await logged.close();
      }
    });

    it("the CLI prints the dev keys on purpose, but neither a custom mnemonic nor keys in its error messages", async () => {
      const mnemonic = "legal winner thank year wave sausage worth useful legal winner thank yellow";
      const cli = await spawnCli(["--mnemonic", mnemonic, "--accounts", "2"]);
      await post(cli.url, call("personal_sign", ["0x00", "0x000000000000000000000000000000000000dead"]));
      expect(await cli.stop()).to.equal(0);
      const { stdout, stderr } = cli.out();
      expect(stdout).to.include("\nPrivate Keys\n");
      expect(stdout).to.include("\nMnemonic:          (given with --mnemonic: not printed)\n");
      expect(stdout + stderr).to.not.include(mnemonic);
      const keys = [...stdout.matchAll(/^\(\d+\) (0x[0-9a-f]{64})$/gm)].map((match) => match[1]!);
      expect(keys).to.have.length(2);
      for (const key of keys) expect(stderr).to.not.include(key.slice(2));

      // A usage error does not echo the mnemonic either.
      const child = spawn(process.execPath, ["bin/preconf.js", "node", "--mnemonic", mnemonic, "--mining", "sometimes"], {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
      const [code] = await once(child, "exit");
      expect(code).to.equal(2);
      expect(output).to.include("--mining must be interval, auto or manual");
      expect(output).to.not.include(mnemonic);
      // Nor the configuration the node would run with.
      const printed = spawn(process.execPath, ["bin/preconf.js", "node", "--mnemonic", mnemonic, "--print-config"], {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let config = "";
      printed.stdout.on("data", (chunk: Buffer) => (config += chunk.toString()));
      expect((await once(printed, "exit"))[0]).to.equal(0);
      expect((JSON.parse(config) as { accounts: { mnemonic: string } }).accounts.mnemonic).to.equal("(given with --mnemonic: not printed)");
    });
  });
});
