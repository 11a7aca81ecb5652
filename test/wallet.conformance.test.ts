/**
 * Conformance table for wallet_addEthereumChain (EIP-3085) and wallet_watchAsset (EIP-747), one row
 * per rule of docs/wallet.md ("Rules"). Every invalid row asserts the code, the exact message, the field, that
 * the wallet's state did not change and that the queued decision was not consumed; every valid row
 * asserts the result and that exactly the queued decision was consumed.
 */
import { expect } from "chai";

import { createTestChain } from "./helpers/chain.ts";

import type { PreconfProvider } from "../src/index.ts";

const CHECKSUMMED = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
/** CHECKSUMMED with the case of one letter flipped: mixed case, wrong EIP-55 checksum. */
const BAD_CHECKSUM = "0x833589fCD6eDb6E08f4c7C32D4f71b54BdA02913";

const BASE = {
  chainId: "0x2105",
  chainName: "Base",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: ["https://mainnet.base.org"],
};
const TOKEN = { type: "ERC20", options: { address: CHECKSUMMED, symbol: "USDC", decimals: 6 } };

const chainWith = (changes: Record<string, unknown>) => [{ ...BASE, ...changes }];
const currencyWith = (changes: Record<string, unknown>) => [{ ...BASE, nativeCurrency: { ...BASE.nativeCurrency, ...changes } }];
const chainWithout = (key: keyof typeof BASE) => {
  const { [key]: _removed, ...rest } = BASE;
  return [rest];
};
const currencyWithout = (key: keyof typeof BASE.nativeCurrency) => {
  const { [key]: _removed, ...rest } = BASE.nativeCurrency;
  return [{ ...BASE, nativeCurrency: rest }];
};
const tokenWith = (changes: Record<string, unknown>) => ({ ...TOKEN, options: { ...TOKEN.options, ...changes } });
const tokenWithout = (key: keyof typeof TOKEN.options) => {
  const { [key]: _removed, ...options } = TOKEN.options;
  return { ...TOKEN, options };
};

type Method = "wallet_addEthereumChain" | "wallet_watchAsset";

interface ValidRow {
  name: string;
  method: Method;
  params: unknown;
  result: null | true;
  /** What the wallet holds afterwards (the added chain's id, or the token's stored address). */
  stored?: string;
}

interface InvalidRow {
  name: string;
  method: Method;
  params: unknown;
  code: number;
  message: string;
  field: string;
}

const invalid = (method: Method, name: string, params: unknown, field: string): InvalidRow => ({
  name,
  method,
  params,
  code: -32602,
  message: "Invalid params",
  field,
});
const add = (name: string, params: unknown, field: string) => invalid("wallet_addEthereumChain", name, params, field);
const watch = (name: string, params: unknown, field: string) => invalid("wallet_watchAsset", name, params, field);

const VALID: ValidRow[] = [
  { name: "minimal chain data", method: "wallet_addEthereumChain", params: [BASE], result: null, stored: "0x2105" },
  {
    name: "full chain data",
    method: "wallet_addEthereumChain",
    params: chainWith({ blockExplorerUrls: ["https://basescan.org"], iconUrls: ["https://example.com/base.svg"] }),
    result: null,
    stored: "0x2105",
  },
  {
    name: "upper-case hex chain id (stored lower-case)",
    method: "wallet_addEthereumChain",
    params: chainWith({ chainId: "0x210A" }),
    result: null,
    stored: "0x210a",
  },
  { name: "chain id 0x1", method: "wallet_addEthereumChain", params: chainWith({ chainId: "0x1" }), result: null, stored: "0x1" },
  {
    name: "largest chain id 0xfffffffffffec",
    method: "wallet_addEthereumChain",
    params: chainWith({ chainId: "0xfffffffffffec" }),
    result: null,
    stored: "0xfffffffffffec",
  },
  {
    name: "http: RPC URL on localhost",
    method: "wallet_addEthereumChain",
    params: chainWith({ rpcUrls: ["http://localhost:8545"] }),
    result: null,
    stored: "0x2105",
  },
  {
    name: "http: RPC URL on 127.0.0.1",
    method: "wallet_addEthereumChain",
    params: chainWith({ rpcUrls: ["http://127.0.0.1:8545"] }),
    result: null,
    stored: "0x2105",
  },
  { name: "http: RPC URL on [::1]", method: "wallet_addEthereumChain", params: chainWith({ rpcUrls: ["http://[::1]:8545"] }), result: null, stored: "0x2105" },
  {
    name: "optional keys set to undefined count as absent",
    method: "wallet_addEthereumChain",
    params: chainWith({ blockExplorerUrls: undefined, iconUrls: undefined }),
    result: null,
    stored: "0x2105",
  },
  { name: "empty blockExplorerUrls", method: "wallet_addEthereumChain", params: chainWith({ blockExplorerUrls: [] }), result: null, stored: "0x2105" },
  { name: "native currency with 0 decimals", method: "wallet_addEthereumChain", params: currencyWith({ decimals: 0 }), result: null, stored: "0x2105" },
  { name: "native currency with 36 decimals", method: "wallet_addEthereumChain", params: currencyWith({ decimals: 36 }), result: null, stored: "0x2105" },
  {
    name: "native currency symbol of 6 characters",
    method: "wallet_addEthereumChain",
    params: currencyWith({ symbol: "ABCDEF" }),
    result: null,
    stored: "0x2105",
  },
  {
    name: "re-adding the provider's own chain with its symbol",
    method: "wallet_addEthereumChain",
    params: chainWith({ chainId: "0x7a69" }),
    result: null,
    stored: "0x7a69",
  },

  { name: "minimal asset, object params", method: "wallet_watchAsset", params: TOKEN, result: true, stored: CHECKSUMMED },
  {
    name: "full asset with image",
    method: "wallet_watchAsset",
    params: tokenWith({ image: "https://example.com/usdc.png" }),
    result: true,
    stored: CHECKSUMMED,
  },
  {
    name: "asset with a data:image/ image",
    method: "wallet_watchAsset",
    params: tokenWith({ image: "data:image/svg+xml;base64,PHN2Zy8+" }),
    result: true,
    stored: CHECKSUMMED,
  },
  { name: "one-element array holding the object", method: "wallet_watchAsset", params: [TOKEN], result: true, stored: CHECKSUMMED },
  {
    name: "all lower-case address (no checksum to check)",
    method: "wallet_watchAsset",
    params: tokenWith({ address: CHECKSUMMED.toLowerCase() }),
    result: true,
    stored: CHECKSUMMED,
  },
  {
    name: "all upper-case address digits",
    method: "wallet_watchAsset",
    params: tokenWith({ address: `0x${CHECKSUMMED.slice(2).toUpperCase()}` }),
    result: true,
    stored: CHECKSUMMED,
  },
  { name: "symbol of 11 characters", method: "wallet_watchAsset", params: tokenWith({ symbol: "ABCDEFGHIJK" }), result: true, stored: CHECKSUMMED },
  { name: "decimals 0", method: "wallet_watchAsset", params: tokenWith({ decimals: 0 }), result: true, stored: CHECKSUMMED },
  { name: "decimals 36", method: "wallet_watchAsset", params: tokenWith({ decimals: 36 }), result: true, stored: CHECKSUMMED },
  {
    name: "unknown option keys are ignored",
    method: "wallet_watchAsset",
    params: tokenWith({ chainId: 8453, tokenId: "1" }),
    result: true,
    stored: CHECKSUMMED,
  },
];

const INVALID: InvalidRow[] = [
  // wallet_addEthereumChain: the params' shape
  add("params missing", undefined, "params[0]"),
  add("params an empty array", [], "params[0]"),
  add("params an object instead of an array", BASE, "params"),
  add("params with two elements", [BASE, BASE], "params"),
  add("params [null]", [null], "params[0]"),
  add("params [string]", ["0x2105"], "params[0]"),
  add("unknown top-level key", chainWith({ rpcUrl: "https://mainnet.base.org" }), "params[0]"),
  // chainId
  add("chainId missing", chainWithout("chainId"), "params[0].chainId"),
  add("chainId a number", chainWith({ chainId: 8453 }), "params[0].chainId"),
  add("chainId 0x0", chainWith({ chainId: "0x0" }), "params[0].chainId"),
  add("chainId with a leading zero", chainWith({ chainId: "0x02105" }), "params[0].chainId"),
  add("chainId without 0x", chainWith({ chainId: "2105" }), "params[0].chainId"),
  add("chainId decimal string", chainWith({ chainId: "8453" }), "params[0].chainId"),
  add("chainId just 0x", chainWith({ chainId: "0x" }), "params[0].chainId"),
  add("chainId not hex", chainWith({ chainId: "0xbase" }), "params[0].chainId"),
  add("chainId too large (0xfffffffffffed)", chainWith({ chainId: "0xfffffffffffed" }), "params[0].chainId"),
  add("chainId far too large (2^256)", chainWith({ chainId: `0x1${"0".repeat(64)}` }), "params[0].chainId"),
  // chainName
  add("chainName missing", chainWithout("chainName"), "params[0].chainName"),
  add("chainName empty", chainWith({ chainName: "" }), "params[0].chainName"),
  add("chainName a number", chainWith({ chainName: 8453 }), "params[0].chainName"),
  // nativeCurrency
  add("nativeCurrency missing", chainWithout("nativeCurrency"), "params[0].nativeCurrency"),
  add("nativeCurrency a string", chainWith({ nativeCurrency: "ETH" }), "params[0].nativeCurrency"),
  add("nativeCurrency.name missing", currencyWithout("name"), "params[0].nativeCurrency.name"),
  add("nativeCurrency.name empty", currencyWith({ name: "" }), "params[0].nativeCurrency.name"),
  add("nativeCurrency.symbol missing", currencyWithout("symbol"), "params[0].nativeCurrency.symbol"),
  add("nativeCurrency.symbol empty", currencyWith({ symbol: "" }), "params[0].nativeCurrency.symbol"),
  add("nativeCurrency.symbol of 7 characters", currencyWith({ symbol: "ABCDEFG" }), "params[0].nativeCurrency.symbol"),
  add("nativeCurrency.decimals missing", currencyWithout("decimals"), "params[0].nativeCurrency.decimals"),
  add("nativeCurrency.decimals negative", currencyWith({ decimals: -1 }), "params[0].nativeCurrency.decimals"),
  add("nativeCurrency.decimals a string", currencyWith({ decimals: "18" }), "params[0].nativeCurrency.decimals"),
  add("nativeCurrency.decimals 37", currencyWith({ decimals: 37 }), "params[0].nativeCurrency.decimals"),
  add("nativeCurrency.decimals 1.5", currencyWith({ decimals: 1.5 }), "params[0].nativeCurrency.decimals"),
  add("nativeCurrency unknown key", currencyWith({ logo: "eth.png" }), "params[0].nativeCurrency"),
  add(
    "a known chain with another currency symbol",
    [{ ...BASE, chainId: "0x7a69", nativeCurrency: { ...BASE.nativeCurrency, symbol: "GO" } }],
    "params[0].nativeCurrency.symbol",
  ),
  // rpcUrls
  add("rpcUrls missing", chainWithout("rpcUrls"), "params[0].rpcUrls"),
  add("rpcUrls empty", chainWith({ rpcUrls: [] }), "params[0].rpcUrls"),
  add("rpcUrls a string, not an array", chainWith({ rpcUrls: "https://mainnet.base.org" }), "params[0].rpcUrls"),
  add("rpcUrls item not a URL", chainWith({ rpcUrls: ["mainnet.base.org"] }), "params[0].rpcUrls[0]"),
  add("rpcUrls item a number", chainWith({ rpcUrls: [8545] }), "params[0].rpcUrls[0]"),
  add("rpcUrls http: on a remote host", chainWith({ rpcUrls: ["http://mainnet.base.org"] }), "params[0].rpcUrls[0]"),
  add("rpcUrls http: on a LAN address", chainWith({ rpcUrls: ["https://mainnet.base.org", "http://192.168.1.2:8545"] }), "params[0].rpcUrls[1]"),
  add("rpcUrls file: URL", chainWith({ rpcUrls: ["file:///etc/passwd"] }), "params[0].rpcUrls[0]"),
  add("rpcUrls ws: URL", chainWith({ rpcUrls: ["wss://mainnet.base.org"] }), "params[0].rpcUrls[0]"),
  // blockExplorerUrls, iconUrls
  add("blockExplorerUrls not an array", chainWith({ blockExplorerUrls: "https://basescan.org" }), "params[0].blockExplorerUrls"),
  add("blockExplorerUrls http:", chainWith({ blockExplorerUrls: ["http://basescan.org"] }), "params[0].blockExplorerUrls[0]"),
  add("iconUrls ftp:", chainWith({ iconUrls: ["ftp://example.com/base.svg"] }), "params[0].iconUrls[0]"),
  add("iconUrls null", chainWith({ iconUrls: null }), "params[0].iconUrls"),

  // wallet_watchAsset: the params' shape
  watch("params missing", undefined, "params"),
  watch("params null", null, "params"),
  watch("params a string", "ERC20", "params"),
  watch("params an empty array", [], "params"),
  watch("params a two-element array", [TOKEN, TOKEN], "params"),
  // type
  watch("type missing", { options: TOKEN.options }, "params.type"),
  watch('type "ERC721"', { ...TOKEN, type: "ERC721" }, "params.type"),
  watch('type "erc20" (case matters)', { ...TOKEN, type: "erc20" }, "params.type"),
  watch("type a number", { ...TOKEN, type: 20 }, "params.type"),
  // options
  watch("options missing", { type: "ERC20" }, "params.options"),
  watch("options a string", { type: "ERC20", options: CHECKSUMMED }, "params.options"),
  watch("address missing", tokenWithout("address"), "params.options.address"),
  watch("address a number", tokenWith({ address: 0x833589 }), "params.options.address"),
  watch("address too short (41 characters)", tokenWith({ address: CHECKSUMMED.slice(0, 41) }), "params.options.address"),
  watch("address too long (43 characters)", tokenWith({ address: `${CHECKSUMMED}3` }), "params.options.address"),
  watch("address not hex", tokenWith({ address: `0x${"g".repeat(40)}` }), "params.options.address"),
  watch("address without 0x", tokenWith({ address: `00${CHECKSUMMED.slice(2)}` }), "params.options.address"),
  watch("address with a bad EIP-55 checksum", tokenWith({ address: BAD_CHECKSUM }), "params.options.address"),
  watch("symbol missing", tokenWithout("symbol"), "params.options.symbol"),
  watch("symbol empty", tokenWith({ symbol: "" }), "params.options.symbol"),
  watch("symbol of 12 characters", tokenWith({ symbol: "ABCDEFGHIJKL" }), "params.options.symbol"),
  watch("symbol a number", tokenWith({ symbol: 42 }), "params.options.symbol"),
  watch("decimals missing", tokenWithout("decimals"), "params.options.decimals"),
  watch("decimals negative", tokenWith({ decimals: -1 }), "params.options.decimals"),
  watch("decimals 37", tokenWith({ decimals: 37 }), "params.options.decimals"),
  watch("decimals 1.5", tokenWith({ decimals: 1.5 }), "params.options.decimals"),
  watch("decimals a string", tokenWith({ decimals: "6" }), "params.options.decimals"),
  watch("image not a URL", tokenWith({ image: "usdc png" }), "params.options.image"),
  watch("image a number", tokenWith({ image: 1 }), "params.options.image"),
  // What a page can make the wallet store and render: image schemes, sizes, list lengths.
  watch("image javascript:", tokenWith({ image: "javascript:alert(1)" }), "params.options.image"),
  watch("image data:text/html", tokenWith({ image: "data:text/html,<script>alert(1)</script>" }), "params.options.image"),
  watch("image file:", tokenWith({ image: "file:///etc/passwd" }), "params.options.image"),
  watch("image http:", tokenWith({ image: "http://example.com/usdc.png" }), "params.options.image"),
  watch("image above 256 KiB", tokenWith({ image: `data:image/png;base64,${"A".repeat(256 * 1024)}` }), "params.options.image"),
  add("chainName of 1 MiB", chainWith({ chainName: "x".repeat(1024 * 1024) }), "params[0].chainName"),
  add("chainName of 129 characters", chainWith({ chainName: "x".repeat(129) }), "params[0].chainName"),
  add("nativeCurrency.name of 129 characters", currencyWith({ name: "x".repeat(129) }), "params[0].nativeCurrency.name"),
  add("10,000 rpcUrls", chainWith({ rpcUrls: Array.from({ length: 10_000 }, (_, i) => `https://rpc${i}.example`) }), "params[0].rpcUrls"),
  add("33 iconUrls", chainWith({ iconUrls: Array.from({ length: 33 }, (_, i) => `https://icons.example/${i}.svg`) }), "params[0].iconUrls"),
  add(
    "33 blockExplorerUrls",
    chainWith({ blockExplorerUrls: Array.from({ length: 33 }, (_, i) => `https://explorer${i}.example`) }),
    "params[0].blockExplorerUrls",
  ),
  add("an rpcUrl above 2048 characters", chainWith({ rpcUrls: [`https://mainnet.base.org/${"a".repeat(2048)}`] }), "params[0].rpcUrls[0]"),
];

/** Everything a wallet request could change. */
function walletState(provider: PreconfProvider) {
  const { wallet } = provider;
  return {
    chains: wallet.chains(),
    active: wallet.activeChainId,
    assets: wallet.chains().map((chain) => wallet.assets(wallet.selectedAccount, chain.chainId)),
    permissions: wallet.permissions(),
  };
}

describe("wallet conformance (docs/wallet.md)", function () {
  let provider: PreconfProvider;
  let events: string[];

  beforeEach(async function () {
    ({ provider } = await createTestChain({ mining: "manual" }));
    events = [];
    for (const event of ["chainChanged", "accountsChanged"]) provider.on(event, () => events.push(event));
    // A default that would fail every valid row: only the queued decision may approve it.
    provider.wallet.policy.setDefault("reject");
  });

  afterEach(async function () {
    await provider.close();
  });

  it(`has at least 60 rows (${VALID.length + INVALID.length})`, function () {
    expect(VALID.length + INVALID.length).to.be.at.least(60);
  });

  describe("valid requests: the result, one queued decision consumed", function () {
    for (const row of VALID) {
      it(`${row.method}: ${row.name}`, async function () {
        const { wallet } = provider;
        wallet.policy.queue(row.method, "approve");
        const result = await provider.request({ method: row.method, params: row.params as unknown[] });
        expect(result).to.equal(row.result);
        expect(wallet.policy.queued(row.method)).to.deep.equal([]);
        if (row.method === "wallet_addEthereumChain") {
          expect(wallet.chains().filter((chain) => chain.chainId === row.stored)).to.have.length(1);
          expect(wallet.activeChainId).to.equal(row.stored);
        } else {
          expect(wallet.assets().map((asset) => asset.address)).to.deep.equal([row.stored]);
        }
        const record = wallet.requests.at(-1)!;
        expect(record).to.include({ method: row.method, decision: "approve" });
        expect(record.outcome).to.deep.equal({ result: row.result });
      });
    }
  });

  describe("invalid requests: exact error, no state change, no decision consumed", function () {
    for (const row of INVALID) {
      it(`${row.method}: ${row.name}`, async function () {
        const { wallet } = provider;
        wallet.policy.queue(row.method, "approve");
        const before = walletState(provider);
        const error = await provider.request({ method: row.method, params: row.params as unknown[] }).then(
          () => expect.fail("expected the request to fail"),
          (caught: unknown) => caught as { code: number; message: string; data: { field: string; reason: string } },
        );
        expect(error.code).to.equal(row.code);
        expect(error.message).to.equal(row.message);
        expect(error.data.field).to.equal(row.field);
        expect(error.data.reason).to.be.a("string").that.is.not.empty;
        expect(walletState(provider)).to.deep.equal(before);
        expect(wallet.policy.queued(row.method)).to.deep.equal(["approve"]);
        expect(events).to.deep.equal([]);
        const record = wallet.requests.at(-1)!;
        expect(record.method).to.equal(row.method);
        expect(record).to.not.have.property("decision");
        expect(record.outcome).to.deep.equal({ error: { code: row.code, message: row.message, data: error.data } });
      });
    }
  });
});
