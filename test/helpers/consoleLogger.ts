/**
 * A contract that calls Hardhat's console.sol address as console.sol does, for the CLI's log tests:
 * its source below, compiled by the `solc` npm package 0.8.30 (optimizer on, 200 runs, default EVM
 * version). Kept here as data rather than in fixtures/contracts, whose Hardhat artifacts all change
 * when a source is added.
 *
 * // SPDX-License-Identifier: MIT
 * pragma solidity ^0.8.24;
 *
 * /// @notice Calls Hardhat's console.sol address the way console.sol does (a STATICCALL whose calldata
 * /// is a `log(...)` overload), without importing it: what a node's console.log output decodes.
 * contract ConsoleLogger {
 *     address private constant CONSOLE = 0x000000000000000000636F6e736F6c652e6c6f67;
 *
 *     uint256 public count;
 *
 *     constructor() {
 *         _log(abi.encodeWithSignature("log(string)", "deployed"));
 *     }
 *
 *     /// Logs "count is %s" with the new count (console.log(string, uint256)).
 *     function increment() external {
 *         count += 1;
 *         _log(abi.encodeWithSignature("log(string,uint256)", "count is %s", count));
 *     }
 *
 *     /// Logs, then reverts with Error(string) "nope": the log line is printed all the same.
 *     function fail() external {
 *         count += 1;
 *         _log(abi.encodeWithSignature("log(string,address)", "failing for", msg.sender));
 *         revert("nope");
 *     }
 *
 *     function _log(bytes memory payload) private view {
 *         (bool ok, ) = CONSOLE.staticcall(payload);
 *         ok;
 *     }
 * }
 */
export const CONSOLE_LOGGER_ABI = [
  { inputs: [], stateMutability: "nonpayable", type: "constructor" },
  { inputs: [], name: "count", outputs: [{ internalType: "uint256", name: "", type: "uint256" }], stateMutability: "view", type: "function" },
  { inputs: [], name: "fail", outputs: [], stateMutability: "nonpayable", type: "function" },
  { inputs: [], name: "increment", outputs: [], stateMutability: "nonpayable", type: "function" },
] as const;

export const CONSOLE_LOGGER_BYTECODE =
  "0x6080604052348015600e575f5ffd5b5060405160206024820152600860448201526719195c1b1bde595960c21b606482015260699060840160408051601f198184030181529190526020810180516001600160e01b0390811663104c13eb60e21b17909152606d16565b60e7565b5f6a636f6e736f6c652e6c6f676001600160a01b031682604051608f919060d1565b5f60405180830381855afa9150503d805f811460c5576040519150601f19603f3d011682016040523d82523d5f602084013e60ca565b606091505b5050505050565b5f82518060208501845e5f920191825250919050565b61027f806100f45f395ff3fe608060405234801561000f575f5ffd5b506004361061003f575f3560e01c806306661abd14610043578063a9cc47181461005d578063d09de08a14610067575b5f5ffd5b61004b5f5481565b60405190815260200160405180910390f35b61006561006f565b005b610065610122565b60015f5f828254610080919061020e565b9091555050604080516024810191909152600b60648201526a3330b4b634b733903337b960a91b60848201523360448201526100e89060a40160408051601f198184030181529190526020810180516001600160e01b031663319af33360e01b1790526101a6565b60405162461bcd60e51b8152600401610119906020808252600490820152636e6f706560e01b604082015260600190565b60405180910390fd5b60015f5f828254610133919061020e565b90915550505f546040516101a491610175916024016040808252600b908201526a636f756e7420697320257360a81b6060820152602081019190915260800190565b60408051601f198184030181529190526020810180516001600160e01b0316632d839cb360e21b1790526101a6565b565b5f6a636f6e736f6c652e6c6f676001600160a01b0316826040516101ca9190610233565b5f60405180830381855afa9150503d805f8114610202576040519150601f19603f3d011682016040523d82523d5f602084013e610207565b606091505b5050505050565b8082018082111561022d57634e487b7160e01b5f52601160045260245ffd5b92915050565b5f82518060208501845e5f92019182525091905056fea264697066735822122035244b2deb785b6eb4f87d5ba7f4253fb02094caf5af00e15c9d3e570e361e5b64736f6c634300081e0033" as const;
