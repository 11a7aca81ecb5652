// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title L2ToL1MessagePasser (predeploy 0x4200000000000000000000000000000000000016)
/// @notice Records withdrawals to L1 (their hashes, in `sentMessages`). Written for hardhat-preconf
///         to the OP Stack's public interface (specs/protocol/predeploys.md, withdrawals.md): the
///         withdrawal hash is keccak256(abi.encode(nonce, sender, target, value, gasLimit, data)) and
///         the nonce carries the message version (1) in its top two bytes.
contract L2ToL1MessagePasser {
    uint16 public constant MESSAGE_VERSION = 1;
    uint64 internal constant RECEIVE_DEFAULT_GAS_LIMIT = 100_000;

    mapping(bytes32 => bool) public sentMessages;
    uint240 internal msgNonce;

    event MessagePassed(
        uint256 indexed nonce,
        address indexed sender,
        address indexed target,
        uint256 value,
        uint256 gasLimit,
        bytes data,
        bytes32 withdrawalHash
    );

    event WithdrawerBalanceBurnt(uint256 indexed amount);

    receive() external payable {
        initiateWithdrawal(msg.sender, RECEIVE_DEFAULT_GAS_LIMIT, bytes(""));
    }

    function version() external pure returns (string memory) {
        return "1.1.0+preconf";
    }

    function messageNonce() public view returns (uint256) {
        return (uint256(MESSAGE_VERSION) << 240) | uint256(msgNonce);
    }

    function initiateWithdrawal(address _target, uint256 _gasLimit, bytes memory _data) public payable {
        uint256 nonce = messageNonce();
        bytes32 withdrawalHash = keccak256(abi.encode(nonce, msg.sender, _target, msg.value, _gasLimit, _data));
        sentMessages[withdrawalHash] = true;
        emit MessagePassed(nonce, msg.sender, _target, msg.value, _gasLimit, _data, withdrawalHash);
        unchecked {
            ++msgNonce;
        }
    }

    /// @notice Removes the withdrawn ether from L2: on the OP Stack it is released on L1.
    function burn() external {
        uint256 balance = address(this).balance;
        new Burner{ value: balance }();
        emit WithdrawerBalanceBurnt(balance);
    }
}

/// @notice Sends its whole balance to itself and self-destructs in its constructor: since
///         EIP-6780 that removes the ether from the state.
contract Burner {
    constructor() payable {
        selfdestruct(payable(address(this)));
    }
}
