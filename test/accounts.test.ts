/** Dev account derivation (src/node/common/accounts.ts) against viem's BIP-39/BIP-32 implementation. */
import { expect } from "chai";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";

import { createPreconfProvider, InvalidOptionsError } from "../src/index.ts";
import { accountFromPrivateKey, accountsFromMnemonic, DEFAULT_MNEMONIC, deriveAccounts } from "../src/node/common/accounts.ts";

describe("dev accounts", () => {
  it("the Hardhat mnemonic gives Hardhat's well-known account 0", () => {
    const [first] = accountsFromMnemonic(DEFAULT_MNEMONIC, 1);
    expect(first).to.deep.equal({
      address: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
      privateKey: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
    });
  });

  it("the default mnemonic's 20 precomputed accounts are what the derivation gives, and the 21st onwards are derived", () => {
    expect(accountsFromMnemonic(DEFAULT_MNEMONIC, 20)).to.deep.equal(deriveAccounts(DEFAULT_MNEMONIC, 0, 20));
    expect(accountsFromMnemonic(DEFAULT_MNEMONIC, 22).slice(20)).to.deep.equal(deriveAccounts(DEFAULT_MNEMONIC, 20, 22));
    deriveAccounts(DEFAULT_MNEMONIC, 0, 22).forEach((account, addressIndex) => {
      expect(account.address).to.equal(mnemonicToAccount(DEFAULT_MNEMONIC, { addressIndex }).address.toLowerCase());
    });
  });

  it("matches viem for another mnemonic, every index and another path", () => {
    const mnemonic = "legal winner thank year wave sausage worth useful legal winner thank yellow";
    const ours = accountsFromMnemonic(mnemonic, 25);
    ours.forEach((account, addressIndex) => {
      expect(account.address).to.equal(mnemonicToAccount(mnemonic, { addressIndex }).address.toLowerCase());
    });
    const other = accountsFromMnemonic(mnemonic, 3, "m/44'/60'/7'/1");
    other.forEach((account, i) => {
      expect(account.address).to.equal(mnemonicToAccount(mnemonic, { path: `m/44'/60'/7'/1/${i}` }).address.toLowerCase());
    });
  });

  it("an explicit key gives its address; a bad path or key length is refused", () => {
    const key = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
    expect(accountFromPrivateKey(key).address).to.equal(privateKeyToAccount(key).address.toLowerCase());
    expect(() => accountFromPrivateKey("0x1234")).to.throw("private key must be 32 bytes, got 2");
    expect(() => accountsFromMnemonic(DEFAULT_MNEMONIC, 1, "44'/60'")).to.throw("HD path must start with m/");
    expect(() => accountsFromMnemonic(DEFAULT_MNEMONIC, 1, "m/44x")).to.throw('invalid HD path level "44x"');
  });

  it("a malformed accounts.path option is an InvalidOptionsError naming it", async () => {
    const error = await createPreconfProvider({ accounts: { path: "m/44'/x" } }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).to.be.instanceOf(InvalidOptionsError);
    expect((error as Error).message).to.equal("Invalid hardhat-preconf option accounts.path: expected a BIP-32 path such as m/44'/60'/0'/0");
  });
});
