/**
 * The precompiles an OP-stack chain has beyond or instead of Ethereum's (base/base base-revm
 * precompiles/provider.rs: Fjord adds RIP-7212's P256VERIFY, Jovian bounds the variable-input
 * precompiles, Base's Azul adopts Osaka's P256VERIFY; the superchain's Karst bounds bn256Pairing
 * further: specs/protocol/karst/exec-engine.md), as ethereumjs custom precompiles. Which apply
 * follows the EVM fork a block runs (every rung of our ladders with the same EVM has the same
 * precompile rules), read from the Common the precompile runs with.
 */
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { EVMError, getActivePrecompiles } from "@ethereumjs/evm";

import type { CustomPrecompile, ExecResult, PrecompileFunc, PrecompileInput } from "@ethereumjs/evm";
import type { ForkRules } from "../profiles/profiles.ts";

/** RIP-7212's price of a P256VERIFY call (RIPS/rip-7212.md), on OP chains since Fjord until their Osaka fork (EIP-7951: 6,900). */
export const RIP7212_P256VERIFY_GAS = 3450n;

/** Jovian's bounds on the BLS12-381 precompiles' input, in bytes (specs/protocol/jovian/exec-engine.md). */
export const JOVIAN_BLS_MAX_INPUT = { g1Msm: 288_960, g2Msm: 278_784, pairing: 156_672 } as const;

const address = (suffix: string) => `0x${suffix.padStart(40, "0")}` as const;
const BN254_PAIRING = "08";
const BLS_G1_MSM = "0c";
const BLS_G2_MSM = "0e";
const BLS_PAIRING = "0f";
const P256VERIFY = "100";

/** ethereumjs' own precompiles, from an Osaka Common (those the wrappers below call once an input passes). */
const builtIn = (() => {
  const osaka = getActivePrecompiles(new Common({ chain: Mainnet, hardfork: Hardfork.Osaka }));
  const get = (suffix: string) => osaka.get(suffix.padStart(40, "0"))!;
  return { pairing: get(BN254_PAIRING), g1Msm: get(BLS_G1_MSM), g2Msm: get(BLS_G2_MSM), blsPairing: get(BLS_PAIRING), p256Verify: get(P256VERIFY) };
})();

/** A precompile halting on input: all its gas used, as revm's and op-geth's length errors. */
const lengthError = (input: PrecompileInput): ExecResult => ({
  returnValue: new Uint8Array(0),
  executionGasUsed: input.gasLimit,
  exceptionError: new EVMError(EVMError.errorMessages.INVALID_INPUT_LENGTH),
});

/** `precompile`, refusing input longer than `max(rules)` bytes. */
const bounded =
  (precompile: PrecompileFunc, max: (rules: ForkRules) => number | undefined, rulesOf: (input: PrecompileInput) => ForkRules): PrecompileFunc =>
  (input) => {
    const limit = max(rulesOf(input));
    return limit !== undefined && input.data.length > limit ? lengthError(input) : precompile(input);
  };

/**
 * RIP-7212's P256VERIFY: the same verification as EIP-7951's (ethereumjs' Osaka precompile), at
 * 3,450 gas. Run with at least 6,900 gas so that its own gas check passes, then charged 3,450.
 */
async function rip7212P256Verify(input: PrecompileInput): Promise<ExecResult> {
  if (input.gasLimit < RIP7212_P256VERIFY_GAS)
    return { returnValue: new Uint8Array(0), executionGasUsed: input.gasLimit, exceptionError: new EVMError(EVMError.errorMessages.OUT_OF_GAS) };
  const result = await builtIn.p256Verify({ ...input, gasLimit: input.gasLimit > 6900n ? input.gasLimit : 6900n });
  return { ...result, executionGasUsed: RIP7212_P256VERIFY_GAS };
}

/**
 * The custom precompiles of an OP-stack chain whose forks run `rulesByEvm` (the rules of the EVM
 * fork a Common is at).
 */
export function opStackPrecompiles(rulesByEvm: ReadonlyMap<string, ForkRules>): CustomPrecompile[] {
  const rulesOf = (input: PrecompileInput) => rulesByEvm.get(input.common.hardfork()) ?? [...rulesByEvm.values()].at(-1)!;
  const bls = (precompile: PrecompileFunc, bound: number) => bounded(precompile, (rules) => (rules.blsInputLimits ? bound : undefined), rulesOf);
  const p256: PrecompileFunc = (input) => {
    const kind = rulesOf(input).p256Verify;
    return kind === "rip7212" ? rip7212P256Verify(input) : builtIn.p256Verify(input);
  };
  return [
    { address: address(BN254_PAIRING), function: bounded(builtIn.pairing, (rules) => rules.bn254PairingMaxInput, rulesOf) },
    { address: address(BLS_G1_MSM), function: bls(builtIn.g1Msm, JOVIAN_BLS_MAX_INPUT.g1Msm) },
    { address: address(BLS_G2_MSM), function: bls(builtIn.g2Msm, JOVIAN_BLS_MAX_INPUT.g2Msm) },
    { address: address(BLS_PAIRING), function: bls(builtIn.blsPairing, JOVIAN_BLS_MAX_INPUT.pairing) },
    { address: address(P256VERIFY), function: p256 },
  ];
}
