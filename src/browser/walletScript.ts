/**
 * An injected wallet for browser tests (docs/browser.md): `walletScript(options)` is the text of a
 * script that, run in a page before its own scripts (Playwright's `page.addInitScript`), defines
 * `window.ethereum` (EIP-1193, with events), announces it through EIP-6963 and forwards every
 * request over one WebSocket to a running `preconf node`. The page thus gets that connection's
 * wallet (its own active chain, permissions and tokens) on the node's chain, while the test drives
 * the approval policy from Node.
 */

export interface WalletScriptInfo {
  /** EIP-6963 `uuid`: a new UUIDv4 per page when absent. */
  uuid?: string;
  /** EIP-6963 `name` ("hardhat-preconf"). */
  name?: string;
  /** EIP-6963 `icon`: a data URI (a small SVG by default). */
  icon?: string;
  /** EIP-6963 `rdns` ("dev.hardhat-preconf"). */
  rdns?: string;
}

export interface WalletScriptOptions {
  /** The node's WebSocket URL, e.g. `ws://127.0.0.1:8545` (`http://` is read as `ws://`). */
  url: string;
  /**
   * Whether the page starts connected, as a site the user connected before (false: as a fresh
   * MetaMask, `eth_accounts` is `[]` until the page asks with `eth_requestAccounts`).
   */
  connected?: boolean;
  /** What EIP-6963 announces. */
  info?: WalletScriptInfo;
}

/** EIP-6963 requires a data URI icon (96×96 or larger, square). */
export const WALLET_ICON =
  "data:image/svg+xml;base64," +
  Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96" viewBox="0 0 96 96"><rect width="96" height="96" rx="18" fill="#0052ff"/><path d="M28 50l14 14 26-32" stroke="#fff" stroke-width="9" fill="none" stroke-linecap="round" stroke-linejoin="round"/></svg>',
  ).toString("base64");

/**
 * The script itself: plain ES2020 run by the browser, kept as text so that no build step can add
 * helpers it would not find there. It receives its configuration as one JSON argument.
 */
const BROWSER_SOURCE = `(function (config) {
  "use strict";
  if (window.ethereum && window.ethereum.isHardhatPreconf) return;
  var listeners = new Map();
  var waiting = new Map();
  var nextId = 1;
  var socket;
  var ready;
  var chainId = null;

  function rpcError(code, message, data) {
    var error = new Error(message);
    error.code = code;
    if (data !== undefined) error.data = data;
    return error;
  }
  var disconnected = function () { return rpcError(4900, "The provider is disconnected from all chains"); };

  function emit(event, payload) {
    var list = listeners.get(event);
    if (!list) return;
    list.slice().forEach(function (listener) {
      try { listener(payload); } catch (error) { setTimeout(function () { throw error; }); }
    });
  }

  function send(method, params) {
    return new Promise(function (resolve, reject) {
      var id = nextId++;
      waiting.set(id, { resolve: resolve, reject: reject });
      var message = { jsonrpc: "2.0", id: id, method: method };
      if (params !== undefined) message.params = params;
      socket.send(JSON.stringify(message));
    });
  }

  function onMessage(event) {
    var message;
    try { message = JSON.parse(event.data); } catch (error) { return; }
    if (message.method === "preconf_walletEvent" && message.params) {
      if (message.params.event === "chainChanged") chainId = message.params.data;
      emit(message.params.event, message.params.data);
      return;
    }
    if (message.method === "eth_subscription") {
      emit("message", { type: "eth_subscription", data: message.params });
      return;
    }
    var pending = waiting.get(message.id);
    if (!pending) return;
    waiting.delete(message.id);
    if (message.error) pending.reject(rpcError(message.error.code, message.error.message, message.error.data));
    else pending.resolve(message.result);
  }

  function open() {
    ready = new Promise(function (resolve, reject) {
      socket = new WebSocket(config.url);
      socket.onmessage = onMessage;
      socket.onopen = function () { resolve(); };
      socket.onerror = function () { reject(disconnected()); };
      socket.onclose = function () {
        ready = undefined;
        waiting.forEach(function (pending) { pending.reject(disconnected()); });
        waiting.clear();
        emit("disconnect", disconnected());
      };
    }).then(function () {
      // This connection's wallet starts as the test asked: fresh (not connected) or connected.
      return send("preconf_walletConnection", [{ connected: config.connected }]);
    }).then(function () {
      return send("eth_chainId");
    }).then(function (id) {
      chainId = id;
      emit("connect", { chainId: id });
    });
    ready.catch(function () { ready = undefined; });
    return ready;
  }

  var provider = {
    isHardhatPreconf: true,
    get chainId() { return chainId; },
    request: function (args) {
      if (!args || typeof args !== "object" || typeof args.method !== "string") {
        return Promise.reject(rpcError(-32600, "Invalid Request", { reason: "expected { method: string, params?: array | object }" }));
      }
      return (ready || open()).then(function () { return send(args.method, args.params); });
    },
    on: function (event, listener) {
      var list = listeners.get(event) || [];
      list.push(listener);
      listeners.set(event, list);
      return provider;
    },
    once: function (event, listener) {
      var wrapped = function (payload) { provider.removeListener(event, wrapped); listener(payload); };
      return provider.on(event, wrapped);
    },
    removeListener: function (event, listener) {
      var list = listeners.get(event);
      if (list) {
        var index = list.indexOf(listener);
        if (index !== -1) list.splice(index, 1);
      }
      return provider;
    },
    removeAllListeners: function (event) {
      if (event === undefined) listeners.clear();
      else listeners.delete(event);
      return provider;
    },
  };
  provider.off = provider.removeListener;
  provider.addListener = provider.on;

  Object.defineProperty(window, "ethereum", { value: provider, configurable: true, writable: true });

  var info = Object.freeze({
    uuid: config.info.uuid || (crypto.randomUUID ? crypto.randomUUID() : "00000000-0000-4000-8000-000000000000"),
    name: config.info.name,
    icon: config.info.icon,
    rdns: config.info.rdns,
  });
  var detail = Object.freeze({ info: info, provider: provider });
  function announce() { window.dispatchEvent(new CustomEvent("eip6963:announceProvider", { detail: detail })); }
  window.addEventListener("eip6963:requestProvider", announce);
  announce();
  open();
})`;

/**
 * The injected wallet as a script for `page.addInitScript(walletScript({ url }))`.
 *
 * @example
 * ```ts
 * const node = await startServer(provider, { port: 0, allowedOrigins: [dappOrigin] });
 * await page.addInitScript(walletScript({ url: node.wsUrl }));
 * await page.goto(dappOrigin);
 * ```
 */
export function walletScript(options: WalletScriptOptions): string {
  if (typeof options?.url !== "string") throw new TypeError("walletScript: options.url must be the node's ws:// URL");
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new TypeError(`walletScript: "${options.url}" is not a URL`);
  }
  if (url.protocol === "http:") url.protocol = "ws:";
  else if (url.protocol === "https:") url.protocol = "wss:";
  if (url.protocol !== "ws:" && url.protocol !== "wss:") throw new TypeError(`walletScript: expected a ws:// or http:// URL, got ${url.protocol}`);
  const config = {
    url: url.href,
    connected: options.connected ?? false,
    info: {
      uuid: options.info?.uuid,
      name: options.info?.name ?? "hardhat-preconf",
      icon: options.info?.icon ?? WALLET_ICON,
      rdns: options.info?.rdns ?? "dev.hardhat-preconf",
    },
  };
  // JSON is a JavaScript expression; < is escaped so that the text is safe inside a <script> too.
  return `${BROWSER_SOURCE}(${JSON.stringify(config).replace(/</g, "\\u003c")});`;
}
