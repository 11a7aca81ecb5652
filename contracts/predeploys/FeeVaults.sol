// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import { L2ToL1MessagePasser } from "./L2ToL1MessagePasser.sol";

/// @title FeeVault
/// @notice Collects one kind of fee (the execution engine credits it; no call is made) and sends
///         it to L1 through the L2ToL1MessagePasser once it holds at least the minimum. Written for
///         hardhat-preconf to the OP Stack's public interface (specs/protocol/predeploys.md,
///         "SequencerFeeVault", "BaseFeeVault", "L1FeeVault"; isthmus/predeploys.md "OperatorFeeVault").
///         The recipient and minimum are this simulation's (below).
abstract contract FeeVault {
    /// @notice The simulated chain has no L1 recipient: withdrawals go to this address on L1.
    address public constant RECIPIENT = 0x000000000000000000000000000000000000dEaD;
    /// @notice The OP Stack's default minimum (10 ether), as its deploy configs set it.
    uint256 public constant MIN_WITHDRAWAL_AMOUNT = 10 ether;
    /// @notice 0: withdraw to L1.
    uint8 public constant WITHDRAWAL_NETWORK = 0;
    uint32 private constant WITHDRAWAL_MIN_GAS = 400_000;

    uint256 public totalProcessed;

    event Withdrawal(uint256 value, address to, address from, uint8 withdrawalNetwork);

    receive() external payable {}

    function recipient() external pure returns (address) {
        return RECIPIENT;
    }

    function minWithdrawalAmount() external pure returns (uint256) {
        return MIN_WITHDRAWAL_AMOUNT;
    }

    function withdrawalNetwork() external pure returns (uint8) {
        return WITHDRAWAL_NETWORK;
    }

    function withdraw() external returns (uint256 value) {
        value = address(this).balance;
        require(value >= MIN_WITHDRAWAL_AMOUNT, "FeeVault: withdrawal amount must be greater than minimum withdrawal amount");
        totalProcessed += value;
        emit Withdrawal(value, RECIPIENT, msg.sender, WITHDRAWAL_NETWORK);
        L2ToL1MessagePasser(payable(0x4200000000000000000000000000000000000016)).initiateWithdrawal{ value: value }(RECIPIENT, WITHDRAWAL_MIN_GAS, "");
    }

    function version() external pure returns (string memory) {
        return "1.5.0+preconf";
    }
}

/// @notice Predeploy 0x4200000000000000000000000000000000000011: the priority fees (the block's coinbase).
contract SequencerFeeVault is FeeVault {
    /// @notice The legacy getter of the recipient.
    function l1FeeWallet() external pure returns (address) {
        return RECIPIENT;
    }
}

/// @notice Predeploy 0x4200000000000000000000000000000000000019: the base fees.
contract BaseFeeVault is FeeVault {}

/// @notice Predeploy 0x420000000000000000000000000000000000001A: the L1 data fees.
contract L1FeeVault is FeeVault {}

/// @notice Predeploy 0x420000000000000000000000000000000000001b: the operator fees (Isthmus).
contract OperatorFeeVault is FeeVault {}
